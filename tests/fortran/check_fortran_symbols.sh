#!/usr/bin/env bash
# Checks the Fortran names the interposer library defines (nm -D):
#
#   check_fortran_symbols.sh openmpi|mpich HEADER LIBRARY
#
# HEADER is include/topocoll_colls.h (the rows of the list of collectives).
# Open MPI (its Fortran bindings call PMPI_ directly): for every row, the
# blocking and the nonblocking form, and for each request function (wait,
# test, waitall, waitany, waitsome, testall, testany, testsome,
# request_free, cancel, start, startall, request_get_status) and
# finalize, all six names mpi_x, mpi_x_, mpi_x__, MPI_X, mpi_x_f08_,
# MPI_X_f08.  MPICH (its mpif.h and `use mpi` bindings call the C MPI_
# functions): only the f08 names of the procedures that call PMPI_
# (mpi_barrier_f08_, mpi_ibarrier_f08_, mpi_barrier_init_f08_, the request
# functions'), and none
# of the others (a call would be counted twice).
set -u
[ $# -eq 3 ] || { echo "usage: $0 openmpi|mpich HEADER LIBRARY" >&2; exit 2; }
flavor=$1 header=$2 lib=$3
defined=$(nm -D --defined-only "$lib" | awk '{print $NF}' | sort -u)
requests="wait:Wait test:Test waitall:Waitall waitany:Waitany waitsome:Waitsome testall:Testall
          testany:Testany testsome:Testsome request_free:Request_free cancel:Cancel start:Start
          startall:Startall request_get_status:Request_get_status"
rows=$(grep -v 'X(UPPER,' "$header" | grep -oE 'X\([A-Z_]+, [a-z_]+, [A-Za-z_]+, ' | sed -E 's/X\(([A-Z_]+), ([a-z_]+), ([A-Za-z_]+), /\2:\3/')
[ -n "$rows" ] || { echo "check_fortran_symbols: no rows in $header" >&2; exit 2; }

status=0
want() {   # name: must be defined
  if ! grep -qx -- "$1" <<<"$defined"; then
    echo "check_fortran_symbols: $1 not defined" >&2
    status=1
  fi
}
unwanted() {   # name: must not be defined
  if grep -qx -- "$1" <<<"$defined"; then
    echo "check_fortran_symbols: $1 defined (the MPI library's binding reaches the C function)" >&2
    status=1
  fi
}
six() {   # lower Mpi
  local l=$1 c=$2 u
  u=$(tr '[:lower:]' '[:upper:]' <<<"$l")
  want "mpi_$l"; want "mpi_${l}_"; want "mpi_${l}__"; want "MPI_$u"; want "mpi_${l}_f08_"; want "MPI_${c}_f08"
}

n=0
case "$flavor" in
  openmpi)
    for r in $rows; do
      l=${r%%:*} c=${r#*:}
      six "$l" "$c"
      six "i$l" "I$l"
      n=$((n + 12))
    done
    for r in $requests finalize:Finalize; do
      six "${r%%:*}" "${r#*:}"
      n=$((n + 6))
    done
    ;;
  mpich)
    want mpi_barrier_f08_; want mpi_ibarrier_f08_; want mpi_barrier_init_f08_
    n=3
    for r in $requests; do
      l=${r%%:*}
      want "mpi_${l}_f08_"; unwanted "mpi_${l}_"
      n=$((n + 2))
    done
    for r in $rows; do
      l=${r%%:*}
      unwanted "mpi_${l}_"; unwanted "mpi_i${l}_"
      n=$((n + 2))
    done
    ;;
  *) echo "check_fortran_symbols: unknown flavour $flavor" >&2; exit 2 ;;
esac
[ "$status" -eq 0 ] && echo "check_fortran_symbols: passed ($n names checked)"
exit "$status"
