! A Fortran program that makes nonblocking collective calls only: its
! MPI_INIT (MPI_INIT_THREAD with mpif.h) reaches the interposer, which makes
! MPI_COMM_WORLD's context there, so a forced entry serves its
! MPI_IALLREDUCE calls (the test reads the run summary: the forced entry's
! nonblocking calls).  Prints "sum OK" or "sum WRONG".
program fortran_nb_only
#if TC_BINDING == 3
  use mpi_f08
  implicit none
  type(MPI_Request) :: r
  integer :: x, y, i, nranks, wrong
  call MPI_Init()
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  wrong = 0
  do i = 1, 10
    x = i
    call MPI_Iallreduce(x, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, r)
    call MPI_Wait(r, MPI_STATUS_IGNORE)
    if (y /= i * nranks) wrong = wrong + 1
  end do
  call MPI_Finalize()
#else
  implicit none
  include 'mpif.h'
  integer :: x, y, i, r, nranks, wrong, provided, ierr
  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  wrong = 0
  do i = 1, 10
    x = i
    call MPI_Iallreduce(x, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, r, ierr)
    call MPI_Wait(r, MPI_STATUS_IGNORE, ierr)
    if (y /= i * nranks) wrong = wrong + 1
  end do
  call MPI_Finalize(ierr)
#endif
  if (wrong == 0) then
    print *, 'sum OK'
  else
    print *, 'sum WRONG'
  end if
end program fortran_nb_only
