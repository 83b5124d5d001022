#!/usr/bin/env bash
# Runs an MPI command line (a plain MPI program with the interposer
# preloaded, TOPOCOLL_EXPLAIN=1 and TOPOCOLL_<COLL>=NAME set) and checks that
# it exited 0, printed "OK", and that topocoll served at least two calls of
# each named collective with the forced entry:
#
#   check_forced.sh COLL=NAME[,COLL=NAME...] COMMAND...
#
# e.g. check_forced.sh reduce=twotier_landing_sockets mpiexec ... plain_collectives
set -u
[ $# -ge 2 ] || { echo "usage: $0 COLL=NAME[,COLL=NAME...] COMMAND..." >&2; exit 2; }
pairs=$1
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
status=0
[ "$rc" -eq 0 ] || { echo "check_forced: the program exited with status $rc" >&2; status=1; }
printf '%s\n' "$out" | grep -qx 'OK' || { echo "check_forced: no line \"OK\" in the output" >&2; status=1; }
IFS=, read -r -a list <<< "$pairs"
for p in "${list[@]}"; do
  coll=${p%%=*} name=${p#*=}
  n=$(printf '%s\n' "$out" | grep -c "^topocoll explain: $coll .* -> $name (forced by TOPOCOLL_${coll^^})" || true)
  if [ "$n" -lt 2 ]; then
    echo "check_forced: $n calls of $coll served by $name, expected at least 2" >&2
    status=1
  else
    echo "check_forced: $n calls of $coll served by $name"
  fi
done
[ "$status" -eq 0 ] && echo "check_forced: passed"
exit "$status"
