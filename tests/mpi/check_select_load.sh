#!/usr/bin/env bash
# The load condition of the selection rules, through select_load (allgather
# at 64 B and 64 KiB, TOPOCOLL_EXPLAIN=1, rank 0 prints "load: FLAG DESC").
#
#   check_select_load.sh main NP PROGRAM LAUNCH...     (LAUNCH starts NP = 4)
#     the main job's layout (TOPOCOLL_TOPOLOGY=2x2) with
#     TOPOCOLL_OVERSUBSCRIBED=1: the built-in rules measured oversubscribed
#       serve: 64 B and 64 KiB by linear, "(oversubscribed machines)";
#     =0: neither serves, both rules are named as set aside ("this one is dedicated");
#     unset: what detection says: "oversubscribed" when NP is larger than the
#       processing units this script may use (nproc; the ranks run unbound
#       on its cpuset) or the launch tells Open MPI to yield when idle
#       (--mca mpi_yield_when_idle 1: the MPI library's verdict), else
#       "dedicated";
#     =maybe: a message naming the value, then detection.
#   check_select_load.sh detect NP PROGRAM LAUNCH...   (NP = 2, one node)
#     unset: detection as above (2 ranks on nproc units); and, where taskset
#     exists, the same launch confined to one processing unit: oversubscribed
#     ("2 ranks on 1 processing unit"), the one-node rules measured so serve.
# Every run must exit 0 and print "OK" (the results are checked).
set -u
[ $# -ge 4 ] || { echo "usage: $0 main|detect NP PROGRAM LAUNCH..." >&2; exit 2; }
mode=$1 np=$2 prog=$3
shift 3
launch=("$@")
status=0 checks=0
fail() { echo "check_select_load: FAIL: $*" >&2; status=1; }

# run VALUE [PREFIX...]: one run into $out (VALUE "-" leaves the variable unset)
run() {
  local v=$1 rc setv=() topo=()
  shift
  [ "$v" != - ] && setv=("TOPOCOLL_OVERSUBSCRIBED=$v")
  [ "$mode" = main ] && topo=("TOPOCOLL_TOPOLOGY=2x2")
  out=$("$@" env -u TOPOCOLL_OVERSUBSCRIBED "${setv[@]}" "${topo[@]}" TOPOCOLL_EXPLAIN=1 \
        "${launch[@]}" "$prog" 2>&1)
  rc=$?
  printf '%s\n' "$out"
  [ "$rc" -eq 0 ] || fail "TOPOCOLL_OVERSUBSCRIBED=$v: exit status $rc"
  printf '%s\n' "$out" | grep -qx OK || fail "TOPOCOLL_OVERSUBSCRIBED=$v: no line \"OK\""
}

# lines OUTPUT BYTES: the explain lines of allgather at BYTES
lines() {
  local nodes=1
  [ "$mode" = main ] && nodes=2
  printf '%s\n' "$1" | grep "^topocoll explain: allgather np=$np nodes=$nodes bytes=$2 rank=0 -> "
}

# expect WHAT LOAD OUTPUT: LOAD oversubscribed or dedicated
expect() {
  local what=$1 load=$2 out=$3 l64 l64k flag
  checks=$((checks + 1))
  l64=$(lines "$out" 64)
  l64k=$(lines "$out" 65536)
  [ -n "$l64" ] || fail "$what: no explain line for 64 B"
  [ -n "$l64k" ] || fail "$what: no explain line for 64 KiB"
  flag=0
  [ "$load" = oversubscribed ] && flag=1
  printf '%s\n' "$out" | grep -q "^load: $flag $load" || fail "$what: no line \"load: $flag $load ...\""
  if [ "$mode" = main ] && [ "$load" = oversubscribed ]; then
    printf '%s\n' "$l64" | grep -v -q -e "-> linear (.*built-in rule [0-9]* (oversubscribed machines)" &&
      fail "$what: 64 B not served by linear under the oversubscribed rule"
    printf '%s\n' "$l64k" | grep -v -q -e "-> linear (.*built-in rule [0-9]* (oversubscribed machines)" &&
      fail "$what: 64 KiB not served by linear under the oversubscribed rule"
  elif [ "$mode" = main ]; then
    printf '%s\n' "$l64" "$l64k" | grep -q -e "-> linear (" &&
      fail "$what: an oversubscribed rule's entry served a dedicated machine"
    printf '%s\n' "$l64" "$l64k" | grep -v -q "is for oversubscribed machines, set aside (this one is dedicated)" &&
      fail "$what: a call whose explain line does not name the rule set aside"
  elif [ "$load" = oversubscribed ]; then   # one node, np 2
    printf '%s\n' "$l64" | grep -v -q -e "-> linear (.*built-in rule [0-9]* (oversubscribed machines)" &&
      fail "$what: 64 B not served by linear under the one-node oversubscribed rule"
  else
    printf '%s\n' "$l64" | grep -v -q "is for oversubscribed machines, set aside (this one is dedicated)" &&
      fail "$what: 64 B: the one-node oversubscribed rule not set aside"
    printf '%s\n' "$l64k" | grep -v -q -e "-> recursive_doubling (.*built-in rule [0-9]* (dedicated machines)" &&
      fail "$what: 64 KiB not served by the dedicated np 2 rule"
  fi
  echo "check_select_load: $what: checked for $load"
}

pus=$(nproc)
# the MPI library's verdict: Open MPI told to yield when idle (the launch's
# --mca mpi_yield_when_idle 1) makes the machine oversubscribed too
yields=0
for ((i = 0; i + 1 < ${#launch[@]}; i++)); do
  [ "${launch[i]}" = mpi_yield_when_idle ] && [ "${launch[i + 1]}" = 1 ] && yields=1
done
detected=dedicated
[ "$np" -gt "$pus" ] || [ "$yields" = 1 ] && detected=oversubscribed
why="this machine: $np ranks on $pus processing units"
[ "$np" -le "$pus" ] && [ "$yields" = 1 ] && why="the MPI library yields when idle"
case "$mode" in
  main)
    run 1; expect "TOPOCOLL_OVERSUBSCRIBED=1" oversubscribed "$out"
    run 0; expect "TOPOCOLL_OVERSUBSCRIBED=0" dedicated "$out"
    run -; expect "detected ($np ranks, $pus processing units)" "$detected" "$out"
    run maybe
    printf '%s\n' "$out" | grep -q "TOPOCOLL_OVERSUBSCRIBED='maybe' is not valid (expected 0 or 1)" ||
      fail "maybe: no message naming the invalid value"
    expect "TOPOCOLL_OVERSUBSCRIBED=maybe" "$detected" "$out"
    ;;
  detect)
    run -; expect "detected ($np ranks, $pus processing units)" "$detected" "$out"
    printf '%s\n' "$out" | grep -q "^load: [01] $detected ($why)" ||
      fail "detected: the description does not say \"$why\""
    if command -v taskset > /dev/null; then
      run - taskset -c 0; expect "on one processing unit" oversubscribed "$out"
      printf '%s\n' "$out" | grep -q "^load: 1 oversubscribed (this machine: $np ranks on 1 processing unit)" ||
        fail "one processing unit: the description does not count it"
    fi
    ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac
[ "$checks" -gt 0 ] || fail "nothing checked"
[ "$status" -eq 0 ] && echo "check_select_load: $checks runs checked, passed"
exit "$status"
