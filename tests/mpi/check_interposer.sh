#!/usr/bin/env bash
# Runs an MPI command line and checks what it printed.
#
#   check_interposer.sh preload[=N] COMMAND...   the program (plain_allgather, run
#       with LD_PRELOAD=libtopocoll_pmpi.so TOPOCOLL_EXPLAIN=1) must exit 0, print
#       "OK", and topocoll must have served its calls: at least N (default 1)
#       lines starting with "topocoll explain: allgather";
#   check_interposer.sh plain COMMAND...     the same program without the preload
#       must exit 0, print "OK" and no such line (it is an ordinary MPI program).
set -u
mode=${1:-}
shift || true
min=1
case "$mode" in
  preload=*) min=${mode#preload=}; mode=preload ;;
  preload|plain) ;;
  *) echo "usage: $0 preload[=N]|plain COMMAND..." >&2; exit 2 ;;
esac
[ $# -gt 0 ] || { echo "$0: no command" >&2; exit 2; }

out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"

status=0
if [ "$rc" -ne 0 ]; then
  echo "check_interposer: the program exited with status $rc" >&2
  status=1
fi
if ! printf '%s\n' "$out" | grep -qx 'OK'; then
  echo "check_interposer: no line \"OK\" in the output" >&2
  status=1
fi
explained=$(printf '%s\n' "$out" | grep -c '^topocoll explain: allgather' || true)
if [ "$mode" = preload ]; then
  if [ "$explained" -lt "$min" ]; then
    echo "check_interposer: $explained lines starting with \"topocoll explain: allgather\", expected at least $min: topocoll did not serve MPI_Allgather" >&2
    status=1
  else
    echo "check_interposer: $explained explain lines: topocoll served MPI_Allgather"
  fi
else
  if [ "$explained" -ne 0 ]; then
    echo "check_interposer: $explained explain lines without the interposer: the program is not plain MPI" >&2
    status=1
  fi
fi
[ "$status" -eq 0 ] && echo "check_interposer ($mode): passed"
exit "$status"
