#!/usr/bin/env bash
# tests/mpi/test_nb_usage.c with TOPOCOLL_EXPLAIN=1 (set on the launch line):
#
#   check_nb_usage.sh COMMAND...
#
# The program must pass ("0 failed").  Rank 0's first "nonblocking race"
# line (phase A: each call waited for at once) must time the forms back to
# back (no "as the application ran them").  Where its winner is one of
# topocoll's entries (the MPI library's own calls are not sampled, so such
# a key does not race again), the key must race again with computation and
# no test calls (phase B), then with test calls (phase C).
set -u
out=$("$@" 2>&1)
rc=$?
fail() { echo "FAIL: $*"; echo "$out" | grep -v "^topocoll explain" | tail -20; exit 1; }
[ $rc -eq 0 ] || fail "the program exited with $rc"
echo "$out" | grep -q " 0 failed" || fail "no '0 failed' line"
races=$(echo "$out" | grep "bcast .*(nonblocking race: ")
first=$(echo "$races" | head -1)
[ -n "$first" ] || fail "no nonblocking race line"
echo "$first" | grep -q "as the application ran them" && fail "the first race timed a computation: $first"
winner=$(echo "$first" | sed -n 's/.* -> \([a-z0-9_]*\) (nonblocking race.*/\1/p')
if [ "$winner" = native ]; then
  echo "the first race's winner is the MPI library's own: no race again (checked: the first race)"
  exit 0
fi
echo "$races" | grep -q "as the application ran them: [0-9.e+]* us of computation and 0 test calls" ||
  fail "no race with computation and no test calls after phase B (races: $races)"
echo "$races" | grep -q "as the application ran them: [0-9.e+]* us of computation and [1-9][0-9]* test calls" ||
  fail "no race with test calls after phase C (races: $races)"
echo "$races" | sed 's/.*(nonblocking race: /race: /' | cut -c1-200
echo "OK"
