! A Fortran MPI program calling the nonblocking form of every collective the
! topocoll interposer serves (MPI_Iallgather ... MPI_Ialltoallw; the rows
! beyond the first six where -DTC_HAVE_<COLL> says the list has them), in
! one of MPI's three Fortran bindings, chosen when compiling:
!   -DTC_BINDING=1  include 'mpif.h'
!   -DTC_BINDING=2  use mpi
!   -DTC_BINDING=3  use mpi_f08
! and completing them through the request functions:
!   1. one at a time, MPI_Wait each;
!   2. all outstanding at once with a point-to-point exchange, MPI_Waitall
!      (the receive's status last in the statuses array: source, tag and
!      count read back through the Fortran status layout);
!   3. all at once, an MPI_Testany loop (1-based indices, each request once,
!      MPI_UNDEFINED when none is left), with MPI_IN_PLACE where the
!      collective has it;
!   4. all at once, an MPI_Waitsome loop (MPI_STATUSES_IGNORE), in place;
!   5. an MPI_Test loop per request, an MPI_Testall loop, an MPI_Waitany
!      loop;
!   6. MPI_Request_get_status until complete, then MPI_Request_free of the
!      completed request (a collective's, which an MPI library may refuse,
!      then MPI_Wait; point-to-point requests');
!   7. persistent point-to-point requests through MPI_Startall and
!      MPI_Start, freed with MPI_Request_free; a cancelled receive
!      (MPI_Cancel, MPI_Test_cancelled on the returned status);
!   8. with -DTC_HAVE_PERSISTENT_COLL (an MPI 4 library): persistent
!      collectives (MPI_Allreduce_init, MPI_Barrier_init) through
!      MPI_Startall, MPI_Start and the completion functions.
! Every result is checked against values computed here.  CTest runs it with
! the interposer preloaded (check_fortran.sh).
!
! Rank 0 prints "OK" when nothing failed and "N passed, M failed" (the
! counts of every rank); every rank stops with status 1 on any failure.
#if TC_BINDING == 3
#define T_REQUEST type(MPI_Request)
#define T_DATATYPE type(MPI_Datatype)
#define DECL_STATUS(x) type(MPI_Status) :: x
#define DECL_STATUSES(x, n) type(MPI_Status) :: x(n)
#define STS(x, i) x(i)
#define ST_SOURCE(x) x%MPI_SOURCE
#define ST_TAG(x) x%MPI_TAG
#define STS_SOURCE(x, i) x(i)%MPI_SOURCE
#define STS_TAG(x, i) x(i)%MPI_TAG
#define RQ(r) r%MPI_VAL
#define RQNULL MPI_REQUEST_NULL%MPI_VAL
#else
#define T_REQUEST integer
#define T_DATATYPE integer
#define DECL_STATUS(x) integer :: x(MPI_STATUS_SIZE)
#define DECL_STATUSES(x, n) integer :: x(MPI_STATUS_SIZE, n)
#define STS(x, i) x(:, i)
#define ST_SOURCE(x) x(MPI_SOURCE)
#define ST_TAG(x) x(MPI_TAG)
#define STS_SOURCE(x, i) x(MPI_SOURCE, i)
#define STS_TAG(x, i) x(MPI_TAG, i)
#define RQ(r) r
#define RQNULL MPI_REQUEST_NULL
#endif
! the buffers of slot k
#define SB sl(k)%s
#define RB sl(k)%r
#define CN sl(k)%c
#define DS sl(k)%d
program fortran_nonblocking
#if TC_BINDING == 3
  use mpi_f08
#elif TC_BINDING == 2
  use mpi
#endif
  implicit none
#if TC_BINDING == 1
  include 'mpif.h'
#endif
  integer, parameter :: ALLGATHER = 1, BCAST = 2, SCATTER = 3, GATHER = 4, REDUCE = 5, &
                        REDUCE_SCATTER_BLOCK = 6, ALLTOALL = 7, ALLTOALLV = 8, ALLREDUCE = 9, &
                        ALLGATHERV = 10, BARRIER = 11, REDUCE_SCATTER = 12, SCAN = 13, EXSCAN = 14, &
                        GATHERV = 15, SCATTERV = 16, ALLTOALLW = 17, NCOLL = 17
  ! the slots: one per outstanding operation, two more for point-to-point
  integer, parameter :: NSLOT = NCOLL + 2
  character(len=26), parameter :: cname(NCOLL) = (/ character(len=26) :: 'MPI_Iallgather', 'MPI_Ibcast', &
      'MPI_Iscatter', 'MPI_Igather', 'MPI_Ireduce', 'MPI_Ireduce_scatter_block', 'MPI_Ialltoall', &
      'MPI_Ialltoallv', 'MPI_Iallreduce', 'MPI_Iallgatherv', 'MPI_Ibarrier', 'MPI_Ireduce_scatter', &
      'MPI_Iscan', 'MPI_Iexscan', 'MPI_Igatherv', 'MPI_Iscatterv', 'MPI_Ialltoallw' /)
  type slot
    integer, allocatable :: s(:), r(:), c(:), d(:)
    T_DATATYPE, allocatable :: t(:)
  end type slot
  type(slot) :: sl(NSLOT)
  T_REQUEST :: req(NSLOT)
  integer :: ops(NCOLL), nops
  integer :: rank, nproc, ierr, j
  integer :: passed = 0, failed = 0
  integer :: mine(2), sums(2)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  ! topocoll makes a communicator's context in a blocking collective; its
  ! nonblocking calls go to the MPI library's own until then
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  nops = 0
  do j = 1, NCOLL
    if (enabled(j)) then
      nops = nops + 1
      ops(nops) = j
    end if
  end do

  call round_wait(5, 0)
  call round_waitall(1000, nproc - 1)
  call round_testany(5, nproc - 1)
  call round_waitsome(1000, 0)
  call round_test_testall_waitany(7, min(1, nproc - 1))
  call round_request_free(9)
  call round_persistent(6)
  call round_cancel()
#ifdef TC_HAVE_PERSISTENT_COLL
  call round_persistent_coll(11)
#endif

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

  logical function enabled(op)
    integer, intent(in) :: op
    enabled = op <= REDUCE_SCATTER_BLOCK
#ifdef TC_HAVE_ALLTOALL
    if (op == ALLTOALL) enabled = .true.
#endif
#ifdef TC_HAVE_ALLTOALLV
    if (op == ALLTOALLV) enabled = .true.
#endif
#ifdef TC_HAVE_ALLREDUCE
    if (op == ALLREDUCE) enabled = .true.
#endif
#ifdef TC_HAVE_ALLGATHERV
    if (op == ALLGATHERV) enabled = .true.
#endif
#ifdef TC_HAVE_BARRIER
    if (op == BARRIER) enabled = .true.
#endif
#ifdef TC_HAVE_REDUCE_SCATTER
    if (op == REDUCE_SCATTER) enabled = .true.
#endif
#ifdef TC_HAVE_SCAN
    if (op == SCAN) enabled = .true.
#endif
#ifdef TC_HAVE_EXSCAN
    if (op == EXSCAN) enabled = .true.
#endif
#ifdef TC_HAVE_GATHERV
    if (op == GATHERV) enabled = .true.
#endif
#ifdef TC_HAVE_SCATTERV
    if (op == SCATTERV) enabled = .true.
#endif
#ifdef TC_HAVE_ALLTOALLW
    if (op == ALLTOALLW) enabled = .true.
#endif
  end function enabled

  integer function val(r, i)
    integer, intent(in) :: r, i
    val = r * 1000 + i * 7 + 1
  end function val

  ! sum over ranks 0 .. upto - 1 of val(p, i)
  integer function prefix(i, upto)
    integer, intent(in) :: i, upto
    integer :: p
    prefix = 0
    do p = 0, upto - 1
      prefix = prefix + val(p, i)
    end do
  end function prefix

  integer function total(i)
    integer, intent(in) :: i
    total = prefix(i, nproc)
  end function total

  ! Rank a sends n + mod(a + b, 3) integers to rank b (alltoallv, alltoallw).
  integer function vcount(a, b, n)
    integer, intent(in) :: a, b, n
    vcount = n + mod(a + b, 3)
  end function vcount

  ! Rank p contributes n + mod(p, 3) integers (rank 1: none): allgatherv,
  ! gatherv, scatterv, reduce_scatter.
  integer function gcount(p, n)
    integer, intent(in) :: p, n
    gcount = merge(0, n + mod(p, 3), p == 1)
  end function gcount

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

  ! The index MPI_Testany / MPI_Waitany return when no request is left:
  ! MPI_UNDEFINED (MPICH 4.0's mpif.h and `use mpi` bindings return
  ! MPI_UNDEFINED + 1: -DTC_INDEX_UNDEFINED_PLUS_ONE accepts that too).
  logical function none_left(idx)
    integer, intent(in) :: idx
    none_left = idx == MPI_UNDEFINED
#ifdef TC_INDEX_UNDEFINED_PLUS_ONE
    if (idx == MPI_UNDEFINED + 1) none_left = .true.
#endif
  end function none_left

  subroutine check_rc(rc, what)
    integer, intent(in) :: rc
    character(*), intent(in) :: what
    call check(rc == MPI_SUCCESS, trim(what) // ' returned an error')
  end subroutine check_rc

  subroutine setbuf(a, n)
    integer, allocatable, intent(inout) :: a(:)
    integer, intent(in) :: n
    if (allocated(a)) deallocate (a)
    allocate (a(max(n, 1)))
    a = -1
  end subroutine setbuf

  ! The counts and displacements of slot k: the blocks of gcount in reverse
  ! rank order.
  subroutine reverse_layout(k, n, tot)
    integer, intent(in) :: k, n
    integer, intent(out) :: tot
    integer :: p
    call setbuf(CN, nproc)
    call setbuf(DS, nproc)
    tot = 0
    do p = nproc - 1, 0, -1
      CN(p + 1) = gcount(p, n)
      DS(p + 1) = tot
      tot = tot + CN(p + 1)
    end do
  end subroutine reverse_layout

  ! Starts collective op in slot k: n integers per block, the root root,
  ! in place (ip) where the collective has it.
  subroutine start(op, k, n, root, ip)
    integer, intent(in) :: op, k, n, root
    logical, intent(in) :: ip
    integer :: i, p, rc, tot
    logical :: inp
    inp = ip .and. rank == root
    rc = MPI_SUCCESS
    select case (op)
    case (ALLGATHER)
      call setbuf(SB, n)
      call setbuf(RB, n * nproc)
      SB = (/ (val(rank, i), i = 1, n) /)
      if (ip) then
        RB(rank * n + 1:rank * n + n) = SB
        call MPI_Iallgather(MPI_IN_PLACE, 0, MPI_INTEGER, RB, n, MPI_INTEGER, MPI_COMM_WORLD, req(k), rc)
      else
        call MPI_Iallgather(SB, n, MPI_INTEGER, RB, n, MPI_INTEGER, MPI_COMM_WORLD, req(k), rc)
      end if
    case (BCAST)
      call setbuf(RB, n)
      if (rank == root) RB = (/ (val(root, i), i = 1, n) /)
      call MPI_Ibcast(RB, n, MPI_INTEGER, root, MPI_COMM_WORLD, req(k), rc)
    case (SCATTER)
      call setbuf(SB, n * nproc)
      call setbuf(RB, n)
      if (rank == root) SB = (/ (val(i / n, mod(i, n) + 1), i = 0, n * nproc - 1) /)
      if (inp) then
        call MPI_Iscatter(SB, n, MPI_INTEGER, MPI_IN_PLACE, n, MPI_INTEGER, root, MPI_COMM_WORLD, req(k), rc)
      else
        call MPI_Iscatter(SB, n, MPI_INTEGER, RB, n, MPI_INTEGER, root, MPI_COMM_WORLD, req(k), rc)
      end if
    case (GATHER)
      call setbuf(SB, n)
      call setbuf(RB, n * nproc)
      SB = (/ (val(rank, i), i = 1, n) /)
      if (inp) then
        RB(root * n + 1:root * n + n) = SB
        call MPI_Igather(MPI_IN_PLACE, n, MPI_INTEGER, RB, n, MPI_INTEGER, root, MPI_COMM_WORLD, req(k), rc)
      else
        call MPI_Igather(SB, n, MPI_INTEGER, RB, n, MPI_INTEGER, root, MPI_COMM_WORLD, req(k), rc)
      end if
    case (REDUCE)
      call setbuf(SB, n)
      call setbuf(RB, n)
      SB = (/ (val(rank, i), i = 1, n) /)
      if (inp) then
        RB = SB
        call MPI_Ireduce(MPI_IN_PLACE, RB, n, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, req(k), rc)
      else
        call MPI_Ireduce(SB, RB, n, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, req(k), rc)
      end if
    case (REDUCE_SCATTER_BLOCK)
      call setbuf(SB, n * nproc)
      call setbuf(RB, n * nproc)
      SB = (/ (val(rank, i), i = 1, n * nproc) /)
      if (ip) then
        RB = SB
        call MPI_Ireduce_scatter_block(MPI_IN_PLACE, RB, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req(k), rc)
      else
        call MPI_Ireduce_scatter_block(SB, RB, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req(k), rc)
      end if
    case (ALLTOALL)
      call setbuf(SB, n * nproc)
      call setbuf(RB, n * nproc)
      SB = (/ (val(rank, i), i = 1, n * nproc) /)
      call MPI_Ialltoall(SB, n, MPI_INTEGER, RB, n, MPI_INTEGER, MPI_COMM_WORLD, req(k), rc)
    case (ALLTOALLV, ALLTOALLW)
      call setbuf(CN, nproc)
      call setbuf(DS, nproc)
      tot = 0
      do p = 0, nproc - 1
        CN(p + 1) = vcount(rank, p, n)
        DS(p + 1) = tot
        tot = tot + CN(p + 1)
      end do
      call setbuf(SB, tot)
      call setbuf(RB, tot)
      SB = (/ (val(rank, i), i = 1, size(SB)) /)
      if (op == ALLTOALLV) then
        call MPI_Ialltoallv(SB, CN, DS, MPI_INTEGER, RB, CN, DS, MPI_INTEGER, MPI_COMM_WORLD, &
                            req(k), rc)
      else
        DS = 4 * DS   ! bytes
        if (allocated(sl(k)%t)) deallocate (sl(k)%t)
        allocate (sl(k)%t(nproc))
        do p = 1, nproc
          sl(k)%t(p) = MPI_INTEGER
        end do
        call MPI_Ialltoallw(SB, CN, DS, sl(k)%t, RB, CN, DS, sl(k)%t, MPI_COMM_WORLD, req(k), rc)
      end if
    case (ALLREDUCE, SCAN, EXSCAN)
      call setbuf(SB, n)
      call setbuf(RB, n)
      SB = (/ (val(rank, i), i = 1, n) /)
      if (ip) RB = SB
      if (op == ALLREDUCE .and. ip) then
        call MPI_Iallreduce(MPI_IN_PLACE, RB, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req(k), rc)
      else if (op == ALLREDUCE) then
        call MPI_Iallreduce(SB, RB, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req(k), rc)
      else if (op == SCAN .and. ip) then
        call MPI_Iscan(MPI_IN_PLACE, RB, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req(k), rc)
      else if (op == SCAN) then
        call MPI_Iscan(SB, RB, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req(k), rc)
      else if (ip) then
        call MPI_Iexscan(MPI_IN_PLACE, RB, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req(k), rc)
      else
        call MPI_Iexscan(SB, RB, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req(k), rc)
      end if
    case (ALLGATHERV, GATHERV)
      call reverse_layout(k, n, tot)
      call setbuf(SB, CN(rank + 1))
      call setbuf(RB, tot)
      SB = (/ (val(rank, i), i = 1, size(SB)) /)
      if ((op == ALLGATHERV .and. ip) .or. (op == GATHERV .and. inp)) then
        do i = 1, CN(rank + 1)
          RB(DS(rank + 1) + i) = SB(i)
        end do
      end if
      if (op == ALLGATHERV .and. ip) then
        call MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_INTEGER, RB, CN, DS, MPI_INTEGER, MPI_COMM_WORLD, req(k), rc)
      else if (op == ALLGATHERV) then
        call MPI_Iallgatherv(SB, CN(rank + 1), MPI_INTEGER, RB, CN, DS, MPI_INTEGER, MPI_COMM_WORLD, &
                             req(k), rc)
      else if (inp) then
        call MPI_Igatherv(MPI_IN_PLACE, 0, MPI_INTEGER, RB, CN, DS, MPI_INTEGER, root, MPI_COMM_WORLD, &
                          req(k), rc)
      else
        call MPI_Igatherv(SB, CN(rank + 1), MPI_INTEGER, RB, CN, DS, MPI_INTEGER, root, MPI_COMM_WORLD, &
                          req(k), rc)
      end if
    case (SCATTERV)
      call reverse_layout(k, n, tot)
      call setbuf(SB, tot)
      call setbuf(RB, CN(rank + 1))
      do p = 0, nproc - 1
        do i = 1, CN(p + 1)
          SB(DS(p + 1) + i) = val(p, i)
        end do
      end do
      if (inp) then
        call MPI_Iscatterv(SB, CN, DS, MPI_INTEGER, MPI_IN_PLACE, 0, MPI_INTEGER, root, MPI_COMM_WORLD, &
                           req(k), rc)
      else
        call MPI_Iscatterv(SB, CN, DS, MPI_INTEGER, RB, CN(rank + 1), MPI_INTEGER, root, MPI_COMM_WORLD, &
                           req(k), rc)
      end if
    case (BARRIER)
      call MPI_Ibarrier(MPI_COMM_WORLD, req(k), rc)
    case (REDUCE_SCATTER)
      call setbuf(CN, nproc)
      tot = 0
      do p = 0, nproc - 1
        CN(p + 1) = gcount(p, n)
        tot = tot + CN(p + 1)
      end do
      call setbuf(SB, tot)
      call setbuf(RB, tot)
      SB = (/ (val(rank, i), i = 1, size(SB)) /)
      if (ip) then
        RB = SB
        call MPI_Ireduce_scatter(MPI_IN_PLACE, RB, CN, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req(k), rc)
      else
        call MPI_Ireduce_scatter(SB, RB, CN, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req(k), rc)
      end if
    end select
    call check_rc(rc, cname(op))
    call check(RQ(req(k)) /= RQNULL, trim(cname(op)) // ': no request')
  end subroutine start

  ! Checks the result of collective op, started by start(op, k, n, root, ip)
  ! and complete.
  subroutine verify(op, k, n, root, ip)
    integer, intent(in) :: op, k, n, root
    logical, intent(in) :: ip
    integer :: i, p, at, off
    logical :: ok, inp
    inp = ip .and. rank == root
    ok = .true.
    call check(RQ(req(k)) == RQNULL, trim(cname(op)) // ': request not MPI_REQUEST_NULL after completion')
    select case (op)
    case (ALLGATHER)
      ok = all(RB == (/ ((val(p, i), i = 1, n), p = 0, nproc - 1) /))
    case (BCAST)
      ok = all(RB == (/ (val(root, i), i = 1, n) /))
    case (SCATTER)
      if (inp) then
        ok = all(SB(root * n + 1:root * n + n) == (/ (val(root, i), i = 1, n) /))
      else
        ok = all(RB == (/ (val(rank, i), i = 1, n) /))
      end if
    case (GATHER)
      if (rank == root) ok = all(RB == (/ ((val(p, i), i = 1, n), p = 0, nproc - 1) /))
    case (REDUCE)
      if (rank == root) ok = all(RB == (/ (total(i), i = 1, n) /))
    case (REDUCE_SCATTER_BLOCK)
      ok = all(RB(1:n) == (/ (total(rank * n + i), i = 1, n) /))
    case (ALLTOALL)
      ok = all(RB == (/ ((val(p, rank * n + i), i = 1, n), p = 0, nproc - 1) /))
    case (ALLTOALLV, ALLTOALLW)
      do p = 0, nproc - 1
        off = 0   ! where p's part for this rank starts in p's send buffer
        do i = 0, rank - 1
          off = off + vcount(p, i, n)
        end do
        at = DS(p + 1)
        if (op == ALLTOALLW) at = at / 4
        do i = 1, CN(p + 1)
          if (RB(at + i) /= val(p, off + i)) ok = .false.
        end do
      end do
    case (ALLREDUCE)
      ok = all(RB == (/ (total(i), i = 1, n) /))
    case (SCAN)
      ok = all(RB == (/ (prefix(i, rank + 1), i = 1, n) /))
    case (EXSCAN)
      if (rank > 0) then
        ok = all(RB == (/ (prefix(i, rank), i = 1, n) /))
      else if (ip) then
        ok = all(RB == SB)
      else
        ok = all(RB == -1)
      end if
    case (ALLGATHERV, GATHERV)
      if (op == ALLGATHERV .or. rank == root) then
        do p = 0, nproc - 1
          do i = 1, CN(p + 1)
            if (RB(DS(p + 1) + i) /= val(p, i)) ok = .false.
          end do
        end do
      end if
    case (SCATTERV)
      if (.not. inp) then
        do i = 1, CN(rank + 1)
          if (RB(i) /= val(rank, i)) ok = .false.
        end do
      end if
    case (REDUCE_SCATTER)
      at = 0
      do p = 0, rank - 1
        at = at + CN(p + 1)
      end do
      do i = 1, CN(rank + 1)
        if (RB(i) /= total(at + i)) ok = .false.
      end do
    case (BARRIER)
      ok = .true.
    end select
    call check(ok, trim(cname(op)) // ': wrong result')
  end subroutine verify

  subroutine start_all(n, root, ip)
    integer, intent(in) :: n, root
    logical, intent(in) :: ip
    integer :: j
    do j = 1, nops
      call start(ops(j), j, n, root, ip)
    end do
  end subroutine start_all

  ! 1. one at a time, MPI_Wait
  subroutine round_wait(n, root)
    integer, intent(in) :: n, root
    integer :: j, rc
    DECL_STATUS(st)
    do j = 1, nops
      call start(ops(j), 1, n, root, .false.)
      call MPI_Wait(req(1), st, rc)
      call check_rc(rc, 'MPI_Wait')
      call verify(ops(j), 1, n, root, .false.)
    end do
  end subroutine round_wait

  ! 2. every collective and a ring exchange outstanding at once, MPI_Waitall
  subroutine round_waitall(n, root)
    integer, intent(in) :: n, root
    integer :: j, rc, cnt, left, right, k
    DECL_STATUSES(sts, NSLOT)
    call start_all(n, root, .false.)
    left = mod(rank - 1 + nproc, nproc)
    right = mod(rank + 1, nproc)
    k = nops + 1
    call setbuf(SB, n)
    SB = (/ (val(rank, j), j = 1, n) /)
    call MPI_Isend(SB, n, MPI_INTEGER, right, 42, MPI_COMM_WORLD, req(k), rc)
    call check_rc(rc, 'MPI_Isend')
    k = nops + 2
    call setbuf(RB, n + 3)
    call MPI_Irecv(RB, n + 3, MPI_INTEGER, left, 42, MPI_COMM_WORLD, req(k), rc)
    call check_rc(rc, 'MPI_Irecv')
    call MPI_Waitall(nops + 2, req, sts, rc)
    call check_rc(rc, 'MPI_Waitall')
    do j = 1, nops
      call verify(ops(j), j, n, root, .false.)
    end do
    call check(RQ(req(nops + 1)) == RQNULL .and. RQ(req(nops + 2)) == RQNULL, &
               'MPI_Waitall: point-to-point requests not freed')
    call check(all(RB(1:n) == (/ (val(left, j), j = 1, n) /)), 'MPI_Waitall: wrong message')
    call check(STS_SOURCE(sts, nops + 2) == left .and. STS_TAG(sts, nops + 2) == 42, &
               'MPI_Waitall: wrong source or tag in the receive''s status')
    call MPI_Get_count(STS(sts, nops + 2), MPI_INTEGER, cnt, rc)
    call check(rc == MPI_SUCCESS .and. cnt == n, 'MPI_Waitall: wrong count in the receive''s status')
  end subroutine round_waitall

  ! 3. MPI_Testany until no request is left
  subroutine round_testany(n, root)
    integer, intent(in) :: n, root
    integer :: idx, rc, polls
    logical :: flag, seen(NSLOT)
    DECL_STATUS(st)
    call start_all(n, root, .true.)
    seen = .false.
    do polls = 1, 100000000
      call MPI_Testany(nops, req, idx, flag, st, rc)
      call check_rc(rc, 'MPI_Testany')
      if (rc /= MPI_SUCCESS) exit
      if (.not. flag) cycle
      if (none_left(idx)) exit
      if (idx < 1 .or. idx > nops) then
        write (*, '(a,i0,a,i0)') 'MPI_Testany: index ', idx, ', MPI_UNDEFINED ', MPI_UNDEFINED
        call check(.false., 'MPI_Testany: index out of range')
        exit
      end if
      call check(.not. seen(idx), 'MPI_Testany: a request completed twice')
      seen(idx) = .true.
      call verify(ops(idx), idx, n, root, .true.)
    end do
    call check(all(seen(1:nops)), 'MPI_Testany: not every request completed')
  end subroutine round_testany

  ! 4. MPI_Waitsome until no request is left
  subroutine round_waitsome(n, root)
    integer, intent(in) :: n, root
    integer :: outc, idx(NSLOT), j, rc, rounds
    logical :: seen(NSLOT)
    call start_all(n, root, .true.)
    seen = .false.
    do rounds = 1, NSLOT + 1
      idx = -7
      call MPI_Waitsome(nops, req, outc, idx, MPI_STATUSES_IGNORE, rc)
      call check_rc(rc, 'MPI_Waitsome')
      if (rc /= MPI_SUCCESS .or. outc == MPI_UNDEFINED) exit
      call check(outc >= 1 .and. outc <= nops, 'MPI_Waitsome: outcount out of range')
      do j = 1, min(outc, nops)
        if (idx(j) < 1 .or. idx(j) > nops) then
          call check(.false., 'MPI_Waitsome: index out of range')
          cycle
        end if
        call check(.not. seen(idx(j)), 'MPI_Waitsome: a request completed twice')
        seen(idx(j)) = .true.
        call verify(ops(idx(j)), idx(j), n, root, .true.)
      end do
    end do
    call check(outc == MPI_UNDEFINED, 'MPI_Waitsome: no MPI_UNDEFINED once every request completed')
    call check(all(seen(1:nops)), 'MPI_Waitsome: not every request completed')
  end subroutine round_waitsome

  ! 5. MPI_Test per request; MPI_Testall; MPI_Waitany
  subroutine round_test_testall_waitany(n, root)
    integer, intent(in) :: n, root
    integer :: j, rc, polls, idx
    logical :: flag, seen(NSLOT)
    DECL_STATUS(st)
    DECL_STATUSES(sts, NSLOT)
    call start_all(n, root, .false.)
    do j = 1, nops
      flag = .false.
      do polls = 1, 100000000
        call MPI_Test(req(j), flag, st, rc)
        if (rc /= MPI_SUCCESS .or. flag) exit
      end do
      call check_rc(rc, 'MPI_Test')
      call check(flag, 'MPI_Test: never complete')
      call verify(ops(j), j, n, root, .false.)
    end do

    call start_all(n + 1, root, .true.)
    flag = .false.
    do polls = 1, 100000000
      call MPI_Testall(nops, req, flag, sts, rc)
      if (rc /= MPI_SUCCESS .or. flag) exit
    end do
    call check_rc(rc, 'MPI_Testall')
    call check(flag, 'MPI_Testall: never complete')
    do j = 1, nops
      call verify(ops(j), j, n + 1, root, .true.)
    end do

    call start_all(n + 2, root, .false.)
    seen = .false.
    do polls = 1, NSLOT + 1
      call MPI_Waitany(nops, req, idx, MPI_STATUS_IGNORE, rc)
      call check_rc(rc, 'MPI_Waitany')
      if (rc /= MPI_SUCCESS .or. none_left(idx)) exit
      if (idx < 1 .or. idx > nops) then
        write (*, '(a,i0,a,i0)') 'MPI_Waitany: index ', idx, ', MPI_UNDEFINED ', MPI_UNDEFINED
        call check(.false., 'MPI_Waitany: index out of range')
        exit
      end if
      call check(.not. seen(idx), 'MPI_Waitany: a request completed twice')
      seen(idx) = .true.
      call verify(ops(idx), idx, n + 2, root, .false.)
    end do
    call check(none_left(idx), 'MPI_Waitany: no MPI_UNDEFINED once every request completed')
    call check(all(seen(1:nops)), 'MPI_Waitany: not every request completed')
  end subroutine round_test_testall_waitany

  ! 6. MPI_Request_get_status until complete, then MPI_Request_free.  MPI
  ! calls freeing a nonblocking collective's request erroneous; topocoll
  ! allows it, MPICH 4.0 refuses its own ("invalid request"): errors return
  ! here, and a refused free is followed by MPI_Wait.  Freeing completed
  ! point-to-point requests must succeed.
  subroutine round_request_free(n)
    integer, intent(in) :: n
    integer :: j, rc, left, right, k
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, rc)
    call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN, rc)
    do j = 1, nops
      call start(ops(j), j, n, 0, .false.)
      call get_status_loop(j)
      call MPI_Request_free(req(j), rc)
      if (rc /= MPI_SUCCESS) then
        call check(RQ(req(j)) /= RQNULL, 'MPI_Request_free failed and freed the request')
        call MPI_Wait(req(j), MPI_STATUS_IGNORE, rc)
        call check_rc(rc, 'MPI_Wait')
      end if
      call verify(ops(j), j, n, 0, .false.)
    end do
    left = mod(rank - 1 + nproc, nproc)
    right = mod(rank + 1, nproc)
    k = nops + 1
    call setbuf(SB, n)
    SB = (/ (val(rank, j), j = 1, n) /)
    call MPI_Isend(SB, n, MPI_INTEGER, right, 43, MPI_COMM_WORLD, req(k), rc)
    call check_rc(rc, 'MPI_Isend')
    k = nops + 2
    call setbuf(RB, n)
    call MPI_Irecv(RB, n, MPI_INTEGER, left, 43, MPI_COMM_WORLD, req(k), rc)
    call check_rc(rc, 'MPI_Irecv')
    do k = nops + 2, nops + 1, -1
      call get_status_loop(k)
      call MPI_Request_free(req(k), rc)
      call check_rc(rc, 'MPI_Request_free')
      call check(RQ(req(k)) == RQNULL, 'MPI_Request_free: request not MPI_REQUEST_NULL')
    end do
    k = nops + 2
    call check(all(RB == (/ (val(left, j), j = 1, n) /)), 'MPI_Request_free: wrong message')
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, rc)
    call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL, rc)
  end subroutine round_request_free

  ! MPI_Request_get_status on req(k) until it says complete (the request
  ! stays).
  subroutine get_status_loop(k)
    integer, intent(in) :: k
    integer :: rc, polls
    logical :: flag
    DECL_STATUS(st)
    flag = .false.
    do polls = 1, 100000000
      call MPI_Request_get_status(req(k), flag, st, rc)
      if (rc /= MPI_SUCCESS .or. flag) exit
    end do
    call check_rc(rc, 'MPI_Request_get_status')
    call check(flag, 'MPI_Request_get_status: never complete')
    call check(RQ(req(k)) /= RQNULL, 'MPI_Request_get_status freed the request')
  end subroutine get_status_loop

  ! 7. persistent point-to-point requests: MPI_Startall, MPI_Start
  subroutine round_persistent(n)
    integer, intent(in) :: n
    integer :: it, j, rc, left, right, cnt
    T_REQUEST :: preq(2)
    DECL_STATUSES(sts, 2)
    DECL_STATUS(st)
    integer, asynchronous :: sbuf(n), rbuf(n)
    left = mod(rank - 1 + nproc, nproc)
    right = mod(rank + 1, nproc)
    call MPI_Send_init(sbuf, n, MPI_INTEGER, right, 7, MPI_COMM_WORLD, preq(1), rc)
    call check_rc(rc, 'MPI_Send_init')
    call MPI_Recv_init(rbuf, n, MPI_INTEGER, left, 7, MPI_COMM_WORLD, preq(2), rc)
    call check_rc(rc, 'MPI_Recv_init')
    do it = 1, 3
      sbuf = (/ (val(rank, j) + it, j = 1, n) /)
      rbuf = -1
      if (it == 2) then
        call MPI_Start(preq(2), rc)
        call check_rc(rc, 'MPI_Start')
        call MPI_Start(preq(1), rc)
        call check_rc(rc, 'MPI_Start')
        call MPI_Wait(preq(2), st, rc)
        call check_rc(rc, 'MPI_Wait')
        call check(ST_SOURCE(st) == left .and. ST_TAG(st) == 7, 'MPI_Wait: wrong source or tag')
        call MPI_Wait(preq(1), MPI_STATUS_IGNORE, rc)
        call check_rc(rc, 'MPI_Wait')
      else
        call MPI_Startall(2, preq, rc)
        call check_rc(rc, 'MPI_Startall')
        call MPI_Waitall(2, preq, sts, rc)
        call check_rc(rc, 'MPI_Waitall')
        call check(STS_SOURCE(sts, 2) == left .and. STS_TAG(sts, 2) == 7, &
                   'MPI_Waitall: wrong source or tag of a persistent receive')
        call MPI_Get_count(STS(sts, 2), MPI_INTEGER, cnt, rc)
        call check(rc == MPI_SUCCESS .and. cnt == n, 'MPI_Waitall: wrong count of a persistent receive')
      end if
      call check(all(rbuf == (/ (val(left, j) + it, j = 1, n) /)), 'persistent exchange: wrong message')
      call check(RQ(preq(1)) /= RQNULL .and. RQ(preq(2)) /= RQNULL, &
                 'persistent requests freed by their completion')
    end do
    do j = 1, 2
      call MPI_Request_free(preq(j), rc)
      call check_rc(rc, 'MPI_Request_free')
      call check(RQ(preq(j)) == RQNULL, 'MPI_Request_free: request not MPI_REQUEST_NULL')
    end do
  end subroutine round_persistent

  ! A receive nobody matches, cancelled: the status says so.
  subroutine round_cancel()
    integer :: rc, buf(1)
    logical :: flag
    T_REQUEST :: r
    DECL_STATUS(st)
    call MPI_Irecv(buf, 1, MPI_INTEGER, rank, 999, MPI_COMM_WORLD, r, rc)
    call check_rc(rc, 'MPI_Irecv')
    call MPI_Cancel(r, rc)
    call check_rc(rc, 'MPI_Cancel')
    call MPI_Wait(r, st, rc)
    call check_rc(rc, 'MPI_Wait')
    flag = .false.
    call MPI_Test_cancelled(st, flag, rc)
    call check(rc == MPI_SUCCESS .and. flag, 'MPI_Cancel: the status does not say cancelled')
    call check(RQ(r) == RQNULL, 'MPI_Wait: cancelled request not MPI_REQUEST_NULL')
  end subroutine round_cancel

#ifdef TC_HAVE_PERSISTENT_COLL
  ! 8. persistent collectives (MPI 4): MPI_Allreduce_init and
  ! MPI_Barrier_init, run three times through MPI_Startall / MPI_Waitall and
  ! MPI_Start / MPI_Wait, freed with MPI_Request_free.
  subroutine round_persistent_coll(n)
    integer, intent(in) :: n
    integer :: it, i, j, rc
    T_REQUEST :: preq(2)
    integer, asynchronous :: sbuf(n), rbuf(n)
    call MPI_Allreduce_init(sbuf, rbuf, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, preq(1), rc)
    call check_rc(rc, 'MPI_Allreduce_init')
    call MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, preq(2), rc)
    call check_rc(rc, 'MPI_Barrier_init')
    do it = 1, 3
      sbuf = (/ (val(rank, i) + it, i = 1, n) /)
      rbuf = -1
      if (it == 2) then
        do j = 1, 2
          call MPI_Start(preq(j), rc)
          call check_rc(rc, 'MPI_Start')
          call MPI_Wait(preq(j), MPI_STATUS_IGNORE, rc)
          call check_rc(rc, 'MPI_Wait')
        end do
      else
        call MPI_Startall(2, preq, rc)
        call check_rc(rc, 'MPI_Startall')
        call MPI_Waitall(2, preq, MPI_STATUSES_IGNORE, rc)
        call check_rc(rc, 'MPI_Waitall')
      end if
      call check(all(rbuf == (/ (total(i) + nproc * it, i = 1, n) /)), 'MPI_Allreduce_init: wrong result')
      call check(RQ(preq(1)) /= RQNULL .and. RQ(preq(2)) /= RQNULL, &
                 'persistent collective requests freed by their completion')
    end do
    do j = 1, 2
      call MPI_Request_free(preq(j), rc)
      call check_rc(rc, 'MPI_Request_free')
      call check(RQ(preq(j)) == RQNULL, 'MPI_Request_free: request not MPI_REQUEST_NULL')
    end do
  end subroutine round_persistent_coll
#endif

end program fortran_nonblocking
