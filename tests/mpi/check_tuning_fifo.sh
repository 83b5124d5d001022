#!/usr/bin/env bash
# A TOPOCOLL_TUNING_FILE that is not a regular file must not block: runs an
# MPI command line with @FIFO@ replaced by a FIFO nobody writes to (made
# here), under a time limit, and checks that the program exited 0, printed
# "OK", and that topocoll printed its one-line message for the file:
#   topocoll: tuning file ignored, using the built-in table: <fifo>: not a regular file
#
#   check_tuning_fifo.sh SECONDS COMMAND...   (e.g. mpiexec -n 2 env TOPOCOLL_TUNING_FILE=@FIFO@ prog)
set -u
limit=${1:?usage: $0 SECONDS COMMAND...}
shift
[ $# -gt 0 ] || { echo "$0: no command" >&2; exit 2; }
dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT
fifo=$dir/tuning.fifo
mkfifo "$fifo" || exit 2
args=()
for a in "$@"; do args+=("${a//@FIFO@/$fifo}"); done

out=$(timeout "$limit" "${args[@]}" 2>&1)
rc=$?
printf '%s\n' "$out"
status=0
if [ "$rc" -eq 124 ]; then
  echo "check_tuning_fifo: the program did not finish within $limit s (blocked on the FIFO?)" >&2
  status=1
elif [ "$rc" -ne 0 ]; then
  echo "check_tuning_fifo: the program exited with status $rc" >&2
  status=1
fi
if ! printf '%s\n' "$out" | grep -qx 'OK'; then
  echo "check_tuning_fifo: no line \"OK\" in the output" >&2
  status=1
fi
want="topocoll: tuning file ignored, using the built-in table: $fifo: not a regular file"
n=$(printf '%s\n' "$out" | grep -cxF "$want" || true)
if [ "$n" -lt 1 ]; then
  echo "check_tuning_fifo: no line \"$want\"" >&2
  status=1
else
  echo "check_tuning_fifo: $n line(s) \"$want\""
fi
exit $status
