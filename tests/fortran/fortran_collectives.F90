! A Fortran MPI program calling every collective the topocoll interposer
! serves, in one of MPI's three Fortran bindings, chosen when compiling:
!   -DTC_BINDING=1  include 'mpif.h'
!   -DTC_BINDING=2  use mpi
!   -DTC_BINDING=3  use mpi_f08
! MPI_Allgather, MPI_Bcast, MPI_Scatter, MPI_Gather, MPI_Reduce and
! MPI_Reduce_scatter_block (MPI_Allreduce, MPI_Alltoall, MPI_Alltoallv,
! MPI_Allgatherv, MPI_Barrier, MPI_Reduce_scatter, MPI_Scan, MPI_Exscan,
! MPI_Gatherv and MPI_Scatterv where the interposer has them:
! -DTC_HAVE_ALLREDUCE, -DTC_HAVE_ALLTOALL, -DTC_HAVE_ALLTOALLV,
! -DTC_HAVE_ALLGATHERV, -DTC_HAVE_BARRIER, -DTC_HAVE_REDUCE_SCATTER,
! -DTC_HAVE_SCAN, -DTC_HAVE_EXSCAN, -DTC_HAVE_GATHERV, -DTC_HAVE_SCATTERV),
! each with and without MPI_IN_PLACE, at two sizes, every result checked
! against values computed here (the barrier: its return code, and an
! allgather of the call count after it).  A Fortran MPI_IN_PLACE that
! reached topocoll as an
! ordinary address would give wrong results.  CTest runs it with the
! interposer preloaded and TOPOCOLL_EXPLAIN=1 (check_fortran.sh): the
! explain lines show that topocoll served the calls.
!
! Run without the interposer under MPICH 4.0.2 it crashes: MPICH's own
! MPI_Reduce with MPI_IN_PLACE at a non-zero root segfaults from about 1000
! ints (np 2; the same in C).  Through the interposer topocoll's forced
! algorithm serves that call.
!
! Rank 0 prints "OK" when nothing failed and "N passed, M failed" (the
! counts of every rank); every rank stops with status 1 on any failure.
program fortran_collectives
#if TC_BINDING == 3
  use mpi_f08
#elif TC_BINDING == 2
  use mpi
#endif
  implicit none
#if TC_BINDING == 1
  include 'mpif.h'
#endif
  integer :: rank, nproc, ierr, k, n, root
  integer :: passed = 0, failed = 0
  integer :: mine(2), sums(2)
  logical :: ip

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  do k = 1, 4
    n = merge(5, 1000, mod(k, 2) == 1)
    root = merge(0, nproc - 1, k <= 2)
    ip = k > 2
    call test_allgather(n, ip)
    call test_bcast(n, root)
    call test_scatter(n, root, ip)
    call test_gather(n, root, ip)
    call test_reduce(n, root, ip)
    call test_reduce_scatter_block(n, ip)
#ifdef TC_HAVE_ALLREDUCE
    call test_allreduce(n, ip)
#endif
#ifdef TC_HAVE_ALLTOALL
    call test_alltoall(n, ip)
#endif
#ifdef TC_HAVE_ALLTOALLV
    call test_alltoallv(n, ip)
#endif
#ifdef TC_HAVE_ALLGATHERV
    call test_allgatherv(n, ip)
#endif
#ifdef TC_HAVE_BARRIER
    call test_barrier(k)
#endif
#ifdef TC_HAVE_REDUCE_SCATTER
    call test_reduce_scatter(n, ip)
#endif
#ifdef TC_HAVE_GATHERV
    call test_gatherv(n, root, ip)
#endif
#ifdef TC_HAVE_SCATTERV
    call test_scatterv(n, root, ip)
#endif
#ifdef TC_HAVE_SCAN
    call test_scan(n, ip)
#endif
#ifdef TC_HAVE_EXSCAN
    call test_exscan(n, ip)
#endif
#ifdef TC_HAVE_ALLTOALLW
    call test_alltoallw(n, ip)
#endif
  end do

  mine = (/ passed, failed /)
  sums = (/ 0, 1 /)
  call MPI_Allreduce(mine, sums, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) sums(2) = sums(2) + 1
  if (rank == 0) then
    if (sums(2) == 0) write (*, '(a)') 'OK'
    write (*, '(i0,a,i0,a)') sums(1), ' passed, ', sums(2), ' failed'
  end if
  call MPI_Finalize(ierr)
  if (sums(2) /= 0) stop 1

contains

  integer function val(r, i)
    integer, intent(in) :: r, i
    val = r * 1000 + i * 7 + 1
  end function val

  ! sum over the ranks of val(p, i)
  integer function total(i)
    integer, intent(in) :: i
    integer :: p
    total = 0
    do p = 0, nproc - 1
      total = total + val(p, i)
    end do
  end function total

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (ok) then
      passed = passed + 1
    else
      failed = failed + 1
      write (*, '(a,i0,a,a)') 'FAIL rank ', rank, ': ', what
    end if
  end subroutine check

  subroutine check_rc(rc, what)
    integer, intent(in) :: rc
    character(*), intent(in) :: what
    call check(rc == MPI_SUCCESS, what // ' returned an error')
  end subroutine check_rc

  subroutine test_allgather(n, ip)
    integer, intent(in) :: n
    logical, intent(in) :: ip
    integer :: s(n), r(n * nproc), i, p, rc
    logical :: ok
    s = (/ (val(rank, i), i = 1, n) /)
    r = -1
    if (ip) then
      r(rank * n + 1:rank * n + n) = s
      call MPI_Allgather(MPI_IN_PLACE, 0, MPI_INTEGER, r, n, MPI_INTEGER, MPI_COMM_WORLD, rc)
    else
      call MPI_Allgather(s, n, MPI_INTEGER, r, n, MPI_INTEGER, MPI_COMM_WORLD, rc)
    end if
    call check_rc(rc, 'MPI_Allgather')
    ok = .true.
    do p = 0, nproc - 1
      do i = 1, n
        if (r(p * n + i) /= val(p, i)) ok = .false.
      end do
    end do
    call check(ok, 'MPI_Allgather: wrong result')
  end subroutine test_allgather

  subroutine test_bcast(n, root)
    integer, intent(in) :: n, root
    integer :: b(n), i, rc
    if (rank == root) then
      b = (/ (val(root, i), i = 1, n) /)
    else
      b = -1
    end if
    call MPI_Bcast(b, n, MPI_INTEGER, root, MPI_COMM_WORLD, rc)
    call check_rc(rc, 'MPI_Bcast')
    call check(all(b == (/ (val(root, i), i = 1, n) /)), 'MPI_Bcast: wrong result')
  end subroutine test_bcast

  subroutine test_scatter(n, root, ip)
    integer, intent(in) :: n, root
    logical, intent(in) :: ip
    integer :: s(n * nproc), r(n), i, p, rc
    do p = 0, nproc - 1
      s(p * n + 1:p * n + n) = (/ (val(p, i), i = 1, n) /)
    end do
    if (rank /= root) s = -2
    r = -1
    if (ip .and. rank == root) then
      call MPI_Scatter(s, n, MPI_INTEGER, MPI_IN_PLACE, n, MPI_INTEGER, root, MPI_COMM_WORLD, rc)
      r = s(root * n + 1:root * n + n)
    else
      call MPI_Scatter(s, n, MPI_INTEGER, r, n, MPI_INTEGER, root, MPI_COMM_WORLD, rc)
    end if
    call check_rc(rc, 'MPI_Scatter')
    call check(all(r == (/ (val(rank, i), i = 1, n) /)), 'MPI_Scatter: wrong result')
  end subroutine test_scatter

  subroutine test_gather(n, root, ip)
    integer, intent(in) :: n, root
    logical, intent(in) :: ip
    integer :: s(n), r(n * nproc), i, p, rc
    logical :: ok
    s = (/ (val(rank, i), i = 1, n) /)
    r = -1
    if (ip .and. rank == root) then
      r(root * n + 1:root * n + n) = s
      call MPI_Gather(MPI_IN_PLACE, n, MPI_INTEGER, r, n, MPI_INTEGER, root, MPI_COMM_WORLD, rc)
    else
      call MPI_Gather(s, n, MPI_INTEGER, r, n, MPI_INTEGER, root, MPI_COMM_WORLD, rc)
    end if
    call check_rc(rc, 'MPI_Gather')
    ok = .true.
    if (rank == root) then
      do p = 0, nproc - 1
        do i = 1, n
          if (r(p * n + i) /= val(p, i)) ok = .false.
        end do
      end do
    end if
    call check(ok, 'MPI_Gather: wrong result')
  end subroutine test_gather

  subroutine test_reduce(n, root, ip)
    integer, intent(in) :: n, root
    logical, intent(in) :: ip
    integer :: s(n), r(n), i, rc
    s = (/ (val(rank, i), i = 1, n) /)
    r = -1
    if (ip .and. rank == root) then
      r = s
      call MPI_Reduce(MPI_IN_PLACE, r, n, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, rc)
    else
      call MPI_Reduce(s, r, n, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, rc)
    end if
    call check_rc(rc, 'MPI_Reduce')
    if (rank == root) call check(all(r == (/ (total(i), i = 1, n) /)), 'MPI_Reduce: wrong result')
  end subroutine test_reduce

  subroutine test_reduce_scatter_block(n, ip)
    integer, intent(in) :: n
    logical, intent(in) :: ip
    integer :: s(n * nproc), r(n * nproc), i, rc
    s = (/ (val(rank, i), i = 1, n * nproc) /)
    r = -1
    if (ip) then
      r = s
      call MPI_Reduce_scatter_block(MPI_IN_PLACE, r, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, rc)
    else
      call MPI_Reduce_scatter_block(s, r, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, rc)
    end if
    call check_rc(rc, 'MPI_Reduce_scatter_block')
    call check(all(r(1:n) == (/ (total(rank * n + i), i = 1, n) /)), &
               'MPI_Reduce_scatter_block: wrong result')
  end subroutine test_reduce_scatter_block

#ifdef TC_HAVE_ALLREDUCE
  subroutine test_allreduce(n, ip)
    integer, intent(in) :: n
    logical, intent(in) :: ip
    integer :: s(n), r(n), i, rc
    s = (/ (val(rank, i), i = 1, n) /)
    r = -1
    if (ip) then
      r = s
      call MPI_Allreduce(MPI_IN_PLACE, r, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, rc)
    else
      call MPI_Allreduce(s, r, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, rc)
    end if
    call check_rc(rc, 'MPI_Allreduce')
    call check(all(r == (/ (total(i), i = 1, n) /)), 'MPI_Allreduce: wrong result')
  end subroutine test_allreduce
#endif

  ! sum over ranks 0 .. upto - 1 of val(p, i)
  integer function prefix(i, upto)
    integer, intent(in) :: i, upto
    integer :: p
    prefix = 0
    do p = 0, upto - 1
      prefix = prefix + val(p, i)
    end do
  end function prefix

#ifdef TC_HAVE_SCAN
  subroutine test_scan(n, ip)
    integer, intent(in) :: n
    logical, intent(in) :: ip
    integer :: s(n), r(n), i, rc
    s = (/ (val(rank, i), i = 1, n) /)
    r = -1
    if (ip) then
      r = s
      call MPI_Scan(MPI_IN_PLACE, r, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, rc)
    else
      call MPI_Scan(s, r, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, rc)
    end if
    call check_rc(rc, 'MPI_Scan')
    call check(all(r == (/ (prefix(i, rank + 1), i = 1, n) /)), 'MPI_Scan: wrong result')
  end subroutine test_scan
#endif

#ifdef TC_HAVE_EXSCAN
  ! rank 0's receive buffer is left as it was
  subroutine test_exscan(n, ip)
    integer, intent(in) :: n
    logical, intent(in) :: ip
    integer :: s(n), r(n), i, rc
    s = (/ (val(rank, i), i = 1, n) /)
    r = -1
    if (ip) then
      r = s
      call MPI_Exscan(MPI_IN_PLACE, r, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, rc)
    else
      call MPI_Exscan(s, r, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, rc)
    end if
    call check_rc(rc, 'MPI_Exscan')
    if (rank > 0) then
      call check(all(r == (/ (prefix(i, rank), i = 1, n) /)), 'MPI_Exscan: wrong result')
    else if (ip) then
      call check(all(r == s), 'MPI_Exscan: rank 0''s buffer changed')
    else
      call check(all(r == -1), 'MPI_Exscan: rank 0''s buffer changed')
    end if
  end subroutine test_exscan
#endif

#ifdef TC_HAVE_ALLTOALL
  subroutine test_alltoall(n, ip)
    integer, intent(in) :: n
    logical, intent(in) :: ip
    integer :: s(n * nproc), r(n * nproc), i, p, rc
    logical :: ok
    s = (/ (val(rank, i), i = 1, n * nproc) /)
    r = -1
    if (ip) then
      r = s
      call MPI_Alltoall(MPI_IN_PLACE, n, MPI_INTEGER, r, n, MPI_INTEGER, MPI_COMM_WORLD, rc)
    else
      call MPI_Alltoall(s, n, MPI_INTEGER, r, n, MPI_INTEGER, MPI_COMM_WORLD, rc)
    end if
    call check_rc(rc, 'MPI_Alltoall')
    ok = .true.
    do p = 0, nproc - 1
      do i = 1, n
        if (r(p * n + i) /= val(p, rank * n + i)) ok = .false.
      end do
    end do
    call check(ok, 'MPI_Alltoall: wrong result')
  end subroutine test_alltoall
#endif

#ifdef TC_HAVE_ALLTOALLV
  ! Rank a sends n + mod(a + b, 3) integers to rank b (symmetric, so that
  ! MPI_IN_PLACE, which sends with the receive counts, moves the same data).
  integer function vcount(a, b, n)
    integer, intent(in) :: a, b, n
    vcount = n + mod(a + b, 3)
  end function vcount

  subroutine test_alltoallv(n, ip)
    integer, intent(in) :: n
    logical, intent(in) :: ip
    integer :: cnt(nproc), dsp(nproc), i, p, rc, total, off
    integer, allocatable :: s(:), r(:)
    logical :: ok
    total = 0
    do p = 0, nproc - 1
      cnt(p + 1) = vcount(rank, p, n)
      dsp(p + 1) = total
      total = total + cnt(p + 1)
    end do
    allocate (s(total), r(total))
    s = (/ (val(rank, i), i = 1, total) /)
    r = -1
    if (ip) then
      r = s
      call MPI_Alltoallv(MPI_IN_PLACE, cnt, dsp, MPI_INTEGER, r, cnt, dsp, MPI_INTEGER, MPI_COMM_WORLD, rc)
    else
      call MPI_Alltoallv(s, cnt, dsp, MPI_INTEGER, r, cnt, dsp, MPI_INTEGER, MPI_COMM_WORLD, rc)
    end if
    call check_rc(rc, 'MPI_Alltoallv')
    ok = .true.
    do p = 0, nproc - 1
      off = 0   ! where p's part for this rank starts in p's send buffer
      do i = 0, rank - 1
        off = off + vcount(p, i, n)
      end do
      do i = 1, cnt(p + 1)
        if (r(dsp(p + 1) + i) /= val(p, off + i)) ok = .false.
      end do
    end do
    call check(ok, 'MPI_Alltoallv: wrong result')
    deallocate (s, r)
  end subroutine test_alltoallv
#endif

#ifdef TC_HAVE_ALLTOALLW
  ! Rank a sends n + mod(a + b, 3) integers to rank b as in test_alltoallv,
  ! through the per-peer datatype arrays and byte displacements.
  subroutine test_alltoallw(n, ip)
    integer, intent(in) :: n
    logical, intent(in) :: ip
    integer :: cnt(nproc), dsp(nproc), i, p, rc, total, off
#if TC_BINDING == 3
    type(MPI_Datatype) :: ty(nproc)
#else
    integer :: ty(nproc)
#endif
    integer, allocatable :: s(:), r(:)
    logical :: ok
    total = 0
    do p = 0, nproc - 1
      cnt(p + 1) = n + mod(rank + p, 3)
      dsp(p + 1) = 4 * total
      total = total + cnt(p + 1)
      ty(p + 1) = MPI_INTEGER
    end do
    allocate (s(total), r(total))
    s = (/ (val(rank, i), i = 1, total) /)
    r = -1
    if (ip) then
      r = s
      call MPI_Alltoallw(MPI_IN_PLACE, cnt, dsp, ty, r, cnt, dsp, ty, MPI_COMM_WORLD, rc)
    else
      call MPI_Alltoallw(s, cnt, dsp, ty, r, cnt, dsp, ty, MPI_COMM_WORLD, rc)
    end if
    call check_rc(rc, 'MPI_Alltoallw')
    ok = .true.
    do p = 0, nproc - 1
      off = 0
      do i = 0, rank - 1
        off = off + n + mod(p + i, 3)
      end do
      do i = 1, cnt(p + 1)
        if (r(dsp(p + 1) / 4 + i) /= val(p, off + i)) ok = .false.
      end do
    end do
    call check(ok, 'MPI_Alltoallw: wrong result')
    deallocate (s, r)
  end subroutine test_alltoallw
#endif

#if defined(TC_HAVE_ALLGATHERV) || defined(TC_HAVE_GATHERV) || defined(TC_HAVE_SCATTERV)
  ! Rank p contributes n + mod(p, 3) integers (rank 1: none); the blocks lie
  ! in reverse rank order in the receive buffer.
  integer function gcount(p, n)
    integer, intent(in) :: p, n
    gcount = merge(0, n + mod(p, 3), p == 1)
  end function gcount
#endif

#ifdef TC_HAVE_ALLGATHERV
  subroutine test_allgatherv(n, ip)
    integer, intent(in) :: n
    logical, intent(in) :: ip
    integer :: cnt(nproc), dsp(nproc), i, p, rc, total
    integer, allocatable :: s(:), r(:)
    logical :: ok
    total = 0
    do p = nproc - 1, 0, -1
      cnt(p + 1) = gcount(p, n)
      dsp(p + 1) = total
      total = total + cnt(p + 1)
    end do
    allocate (s(max(cnt(rank + 1), 1)), r(max(total, 1)))
    s = (/ (val(rank, i), i = 1, size(s)) /)
    r = -1
    if (ip) then
      do i = 1, cnt(rank + 1)
        r(dsp(rank + 1) + i) = s(i)
      end do
      call MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_INTEGER, r, cnt, dsp, MPI_INTEGER, MPI_COMM_WORLD, rc)
    else
      call MPI_Allgatherv(s, cnt(rank + 1), MPI_INTEGER, r, cnt, dsp, MPI_INTEGER, MPI_COMM_WORLD, rc)
    end if
    call check_rc(rc, 'MPI_Allgatherv')
    ok = .true.
    do p = 0, nproc - 1
      do i = 1, cnt(p + 1)
        if (r(dsp(p + 1) + i) /= val(p, i)) ok = .false.
      end do
    end do
    call check(ok, 'MPI_Allgatherv: wrong result')
    deallocate (s, r)
  end subroutine test_allgatherv
#endif

#ifdef TC_HAVE_BARRIER
  ! The k-th barrier returns MPI_SUCCESS at every rank, and every rank has
  ! made k of them (no rank ran ahead into another call).
  subroutine test_barrier(k)
    integer, intent(in) :: k
    integer :: r(nproc), rc
    call MPI_Barrier(MPI_COMM_WORLD, rc)
    call check_rc(rc, 'MPI_Barrier')
    r = -1
    call MPI_Allgather(k, 1, MPI_INTEGER, r, 1, MPI_INTEGER, MPI_COMM_WORLD, rc)
    call check(all(r == k), 'MPI_Barrier: the ranks made different numbers of barriers')
  end subroutine test_barrier
#endif

#ifdef TC_HAVE_REDUCE_SCATTER
  ! Rank p receives n + mod(p, 3) integers of the sum (rank 1: none).
  subroutine test_reduce_scatter(n, ip)
    integer, intent(in) :: n
    logical, intent(in) :: ip
    integer :: cnt(nproc), i, p, rc, tot, at
    integer, allocatable :: s(:), r(:)
    tot = 0
    at = 0
    do p = 0, nproc - 1
      cnt(p + 1) = merge(0, n + mod(p, 3), p == 1)
      if (p < rank) at = at + cnt(p + 1)
      tot = tot + cnt(p + 1)
    end do
    allocate (s(max(tot, 1)), r(max(tot, 1)))
    s = (/ (val(rank, i), i = 1, size(s)) /)
    r = -1
    if (ip) then
      r = s
      call MPI_Reduce_scatter(MPI_IN_PLACE, r, cnt, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, rc)
    else
      call MPI_Reduce_scatter(s, r, cnt, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, rc)
    end if
    call check_rc(rc, 'MPI_Reduce_scatter')
    call check(all(r(1:cnt(rank + 1)) == (/ (total(at + i), i = 1, cnt(rank + 1)) /)), &
               'MPI_Reduce_scatter: wrong result')
    deallocate (s, r)
  end subroutine test_reduce_scatter
#endif

#if defined(TC_HAVE_GATHERV) || defined(TC_HAVE_SCATTERV)
  ! The blocks of gcount in reverse rank order (the staged path); total
  ! their span.
  subroutine rv_layout(n, cnt, dsp, total)
    integer, intent(in) :: n
    integer, intent(out) :: cnt(nproc), dsp(nproc), total
    integer :: p
    total = 0
    do p = nproc - 1, 0, -1
      cnt(p + 1) = gcount(p, n)
      dsp(p + 1) = total
      total = total + cnt(p + 1)
    end do
  end subroutine rv_layout
#endif

#ifdef TC_HAVE_GATHERV
  subroutine test_gatherv(n, root, ip)
    integer, intent(in) :: n, root
    logical, intent(in) :: ip
    integer :: cnt(nproc), dsp(nproc), i, p, rc, total
    integer, allocatable :: s(:), r(:)
    logical :: ok
    call rv_layout(n, cnt, dsp, total)
    allocate (s(max(cnt(rank + 1), 1)), r(max(total, 1)))
    s = (/ (val(rank, i), i = 1, size(s)) /)
    r = -1
    if (ip .and. rank == root) then
      do i = 1, cnt(rank + 1)
        r(dsp(rank + 1) + i) = s(i)
      end do
      call MPI_Gatherv(MPI_IN_PLACE, 0, MPI_INTEGER, r, cnt, dsp, MPI_INTEGER, root, MPI_COMM_WORLD, rc)
    else
      call MPI_Gatherv(s, cnt(rank + 1), MPI_INTEGER, r, cnt, dsp, MPI_INTEGER, root, MPI_COMM_WORLD, rc)
    end if
    call check_rc(rc, 'MPI_Gatherv')
    ok = .true.
    if (rank == root) then
      do p = 0, nproc - 1
        do i = 1, cnt(p + 1)
          if (r(dsp(p + 1) + i) /= val(p, i)) ok = .false.
        end do
      end do
    end if
    call check(ok, 'MPI_Gatherv: wrong result')
    deallocate (s, r)
  end subroutine test_gatherv
#endif

#ifdef TC_HAVE_SCATTERV
  subroutine test_scatterv(n, root, ip)
    integer, intent(in) :: n, root
    logical, intent(in) :: ip
    integer :: cnt(nproc), dsp(nproc), i, p, rc, total
    integer, allocatable :: s(:), r(:)
    logical :: ok
    call rv_layout(n, cnt, dsp, total)
    allocate (s(max(total, 1)), r(max(cnt(rank + 1), 1)))
    s = -1
    do p = 0, nproc - 1
      do i = 1, cnt(p + 1)
        s(dsp(p + 1) + i) = val(p, i)
      end do
    end do
    r = -1
    if (ip .and. rank == root) then
      call MPI_Scatterv(s, cnt, dsp, MPI_INTEGER, MPI_IN_PLACE, 0, MPI_INTEGER, root, MPI_COMM_WORLD, rc)
    else
      call MPI_Scatterv(s, cnt, dsp, MPI_INTEGER, r, cnt(rank + 1), MPI_INTEGER, root, MPI_COMM_WORLD, rc)
    end if
    call check_rc(rc, 'MPI_Scatterv')
    ok = .true.
    if (.not. (ip .and. rank == root)) then
      do i = 1, cnt(rank + 1)
        if (r(i) /= val(rank, i)) ok = .false.
      end do
    end if
    call check(ok, 'MPI_Scatterv: wrong result')
    deallocate (s, r)
  end subroutine test_scatterv
#endif

end program fortran_collectives
