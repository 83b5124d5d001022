#!/bin/sh
# Runs a command with a small /dev/shm: a tmpfs of SIZE mounted over
# /dev/shm in a private mount namespace (the machine's own /dev/shm is not
# touched), with a time limit so that a hang fails instead of blocking.
#
#   shm_budget_tmpfs.sh SIZE SECONDS EXPECT_LINES command [arguments...]
#
# EXPECT_LINES: how many lines of stderr must say that node-shared memory
# could not be had ("could not be had"); "-" for no check.
# Exit status: the command's; 77 (the test is skipped) when this process
# may not make a mount namespace or mount a tmpfs (not root, or a container
# without CAP_SYS_ADMIN); 1 when the line count differs.
set -u
size=$1 secs=$2 lines=$3
shift 3
if [ "${SHM_BUDGET_INNER:-}" != 1 ]; then
  if ! command -v unshare >/dev/null 2>&1; then
    echo "SKIP: unshare(1) not found" >&2
    exit 77
  fi
  if ! unshare --mount --propagation private true 2>/dev/null; then
    echo "SKIP: no private mount namespace here (unshare --mount not permitted)" >&2
    exit 77
  fi
  SHM_BUDGET_INNER=1 exec unshare --mount --propagation private "$0" "$size" "$secs" "$lines" "$@"
fi
if ! mount -t tmpfs -o "size=$size" tmpfs /dev/shm 2>/dev/null; then
  echo "SKIP: mounting a tmpfs over /dev/shm not permitted" >&2
  exit 77
fi
err=$(mktemp)
timeout -k 5 "$secs" "$@" 2>"$err"
rc=$?
cat "$err" >&2
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
  echo "FAIL: timed out after ${secs}s with /dev/shm of $size (a hang)" >&2
  rm -f "$err"
  exit 1
fi
if [ "$lines" != "-" ]; then
  n=$(grep -c "could not be had" "$err")
  if [ "$n" -ne "$lines" ]; then
    echo "FAIL: $n lines of stderr say node-shared memory could not be had, expected $lines" >&2
    rm -f "$err"
    exit 1
  fi
fi
rm -f "$err"
exit $rc
