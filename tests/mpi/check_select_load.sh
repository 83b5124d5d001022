#!/usr/bin/env bash
# The load condition of the selection rules on the main job's layout (np 4
# as TOPOCOLL_TOPOLOGY=2x2): runs select_load (allgather at 64 B and 64 KiB)
# with TOPOCOLL_EXPLAIN=1 and
#   TOPOCOLL_OVERSUBSCRIBED=1: the built-in rules measured oversubscribed
#     serve: 64 B by linear, 64 KiB by h1_shm_rd_shm, "(oversubscribed machines)";
#   TOPOCOLL_OVERSUBSCRIBED=0: neither serves; both rules are named as set
#     aside ("this one is dedicated");
#   unset: what detection says, which must be "oversubscribed" when np is
#     larger than the processing units this script may use (nproc), else
#     "dedicated" (the ranks run unbound, on this script's cpuset);
#   TOPOCOLL_OVERSUBSCRIBED=maybe: a message naming the value, then detection.
# Every run must exit 0 and print "OK" (the results are checked).
#
#   check_select_load.sh NP PROGRAM LAUNCH...   (LAUNCH starts NP processes)
set -u
[ $# -ge 3 ] || { echo "usage: $0 NP PROGRAM LAUNCH..." >&2; exit 2; }
np=$1 prog=$2
shift 2
status=0
fail() { echo "check_select_load: $*" >&2; status=1; }

# run VALUE: one run into $out (VALUE "-" leaves the variable unset)
run() {
  local v=$1 rc setv=()
  [ "$v" != - ] && setv=("TOPOCOLL_OVERSUBSCRIBED=$v")
  out=$(env -u TOPOCOLL_OVERSUBSCRIBED "${setv[@]}" TOPOCOLL_EXPLAIN=1 TOPOCOLL_TOPOLOGY=2x2 \
        "${launch[@]}" "$prog" 2>&1)
  rc=$?
  printf '%s\n' "$out"
  [ "$rc" -eq 0 ] || fail "TOPOCOLL_OVERSUBSCRIBED=$v: exit status $rc"
  printf '%s\n' "$out" | grep -qx OK || fail "TOPOCOLL_OVERSUBSCRIBED=$v: no line \"OK\""
}
launch=("$@")

# expect VALUE MODE OUTPUT: MODE oversubscribed or dedicated
expect() {
  local v=$1 mode=$2 out=$3 n
  local l64 l64k
  l64=$(printf '%s\n' "$out" | grep "^topocoll explain: allgather np=$np nodes=2 bytes=64 rank=0 -> ")
  l64k=$(printf '%s\n' "$out" | grep "^topocoll explain: allgather np=$np nodes=2 bytes=65536 rank=0 -> ")
  n=$(printf '%s\n' "$l64" | grep -c . || true)
  [ "$n" -ge 1 ] || fail "$v: no explain line for 64 B"
  n=$(printf '%s\n' "$l64k" | grep -c . || true)
  [ "$n" -ge 1 ] || fail "$v: no explain line for 64 KiB"
  if [ "$mode" = oversubscribed ]; then
    printf '%s\n' "$l64" | grep -v -q -e "-> linear (built-in rule [0-9]* (oversubscribed machines)" &&
      fail "$v: 64 B not served by linear under the oversubscribed rule"
    printf '%s\n' "$l64k" | grep -v -q -e "-> h1_shm_rd_shm (built-in rule [0-9]* (oversubscribed machines)" &&
      fail "$v: 64 KiB not served by h1_shm_rd_shm under the oversubscribed rule"
  else
    printf '%s\n' "$l64" "$l64k" | grep -q -e "-> linear (" -e "-> h1_shm_rd_shm (" &&
      fail "$v: an oversubscribed rule's entry served a dedicated machine"
    printf '%s\n' "$l64" "$l64k" | grep -v -q "is for oversubscribed machines, set aside (this one is dedicated)" &&
      fail "$v: a call whose explain line does not name the rule set aside"
  fi
  echo "check_select_load: TOPOCOLL_OVERSUBSCRIBED=$v: checked for $mode rules"
}

run 1; expect 1 oversubscribed "$out"
run 0; expect 0 dedicated "$out"
pus=$(nproc)
detected=dedicated
[ "$np" -gt "$pus" ] && detected=oversubscribed
run -; expect "unset ($np ranks, $pus processing units)" "$detected" "$out"
run maybe
printf '%s\n' "$out" | grep -q "TOPOCOLL_OVERSUBSCRIBED='maybe' is not valid (expected 0 or 1)" ||
  fail "maybe: no message naming the invalid value"
expect maybe "$detected" "$out"
[ "$status" -eq 0 ] && echo "check_select_load: passed"
exit "$status"
