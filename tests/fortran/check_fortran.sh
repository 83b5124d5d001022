#!/usr/bin/env bash
# Runs a Fortran MPI program with the interposer preloaded and
# TOPOCOLL_EXPLAIN=1 and checks that topocoll served its collectives.
#
#   check_fortran.sh [--stats] COLL[=ALGO]... -- COMMAND...
#
# The program must exit 0 and print "OK"; for every COLL, rank 0 must have
# printed at least 4 lines "topocoll explain: COLL ..." (the program makes 4
# calls of each collective on MPI_COMM_WORLD), every one of them naming ALGO
# (the algorithm forced through TOPOCOLL_<COLL>) when given.  A Fortran call
# the interposer does not see prints no such line.  --stats: the command
# runs with TOPOCOLL_STATS=1, and the run summary must be printed once, with
# a row for every COLL (Fortran's MPI_Finalize reaches the summary).
set -u
specs=()
stats=0
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  if [ "$1" = --stats ]; then stats=1; else specs+=("$1"); fi
  shift
done
[ $# -gt 1 ] || { echo "usage: $0 COLL[=ALGO]... -- COMMAND..." >&2; exit 2; }
shift

out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"

status=0
if [ "$rc" -ne 0 ]; then
  echo "check_fortran: the program exited with status $rc" >&2
  status=1
fi
if ! printf '%s\n' "$out" | grep -qx 'OK'; then
  echo "check_fortran: no line \"OK\" in the output" >&2
  status=1
fi
for spec in "${specs[@]}"; do
  coll=${spec%%=*}
  algo=
  [ "$spec" != "$coll" ] && algo=${spec#*=}
  lines=$(printf '%s\n' "$out" | grep "^topocoll explain: $coll np=" || true)
  n=$(printf '%s' "$lines" | grep -c . || true)
  if [ "$n" -lt 4 ]; then
    echo "check_fortran: $n lines \"topocoll explain: $coll ...\", expected at least 4: the interposer did not see the Fortran MPI_$coll" >&2
    status=1
    continue
  fi
  if [ -n "$algo" ]; then
    other=$(printf '%s\n' "$lines" | grep -vc -- "-> $algo (" || true)
    if [ "$other" -ne 0 ]; then
      echo "check_fortran: $other of $n $coll calls not served by the forced '$algo'" >&2
      status=1
      continue
    fi
  fi
  echo "check_fortran: $coll: $n calls explained${algo:+, all by $algo}"
  if [ "$stats" -eq 1 ] && ! printf '%s\n' "$out" | grep -Eq "^  $coll +[0-9]+ +[0-9]+ "; then
    echo "check_fortran: no row for $coll in the run summary" >&2
    status=1
  fi
done
if [ "$stats" -eq 1 ]; then
  n=$(printf '%s\n' "$out" | grep -c '^topocoll stats:' || true)
  if [ "$n" -ne 1 ]; then
    echo "check_fortran: $n run summaries (TOPOCOLL_STATS=1), expected 1" >&2
    status=1
  fi
fi
[ "$status" -eq 0 ] && echo "check_fortran: passed"
exit "$status"
