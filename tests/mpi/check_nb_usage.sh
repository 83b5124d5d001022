#!/usr/bin/env bash
# tests/mpi/test_nb_usage.c with TOPOCOLL_EXPLAIN=1 (set on the launch line):
#
#   check_nb_usage.sh COMMAND...
#
# The program must pass ("0 failed").  Each key (8 bytes: phases A and B;
# 16 bytes: phases D and C) must race, its first race (each call waited for
# at once) timing the forms back to back (no "as the application ran
# them").  Where that race's winner is one of topocoll's entries (the MPI
# library's own calls are not sampled, so such a key does not race again),
# the key must race again: the first with computation and no test calls
# (phase B), the second with test calls (phase C).
set -u
out=$("$@" 2>&1)
rc=$?
fail() { echo "FAIL: $*"; echo "$out" | grep -v "^topocoll explain" | tail -20; exit 1; }
[ $rc -eq 0 ] || fail "the program exited with $rc"
echo "$out" | grep -q " 0 failed" || fail "no '0 failed' line"
check_key() {   # BYTES TESTS-PATTERN PHASE
  local races first winner
  races=$(echo "$out" | grep "bcast .*bytes=$1 .*(nonblocking race: ")
  first=$(echo "$races" | head -1)
  [ -n "$first" ] || fail "the $1-byte key did not race"
  echo "$first" | grep -q "as the application ran them" && fail "the $1-byte key's first race timed a computation: $first"
  winner=$(echo "$first" | sed -n 's/.* -> \([a-z0-9_]*\) (nonblocking race.*/\1/p')
  if [ "$winner" = native ]; then
    echo "$1 bytes: the first race's winner is the MPI library's own (no race again)"
    return
  fi
  echo "$races" | grep -q "as the application ran them: [0-9.e+]* us of computation and $2 test calls" ||
    fail "the $1-byte key did not race again after phase $3 (races: $races)"
  echo "$races" | sed 's/.*(nonblocking race: /race: /' | cut -c1-200
}
check_key 8 0 B
check_key 16 "[1-9][0-9]*" C
echo "OK"
