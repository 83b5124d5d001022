#!/usr/bin/env bash
# The single-copy allreduce (cross-memory attach) through the interposer:
# runs an MPI command line (plain_collectives with the interposer preloaded,
# TOPOCOLL_EXPLAIN=1, TOPOCOLL_ALLREDUCE=<a copy=cma entry>) and checks
#   on:  the program passed and at least two allreduce calls were served by
#        the entry; where this machine forbids cross-memory attach (the
#        explain lines say "process_vm_readv:"), the test is skipped (77);
#   off: (TOPOCOLL_CMA=0 in the command) the program passed, no call was
#        served by the entry, and every allreduce explain line names the
#        reason ("turned off by TOPOCOLL_CMA").
#
#   check_cma.sh on|off NAME COMMAND...
set -u
[ $# -ge 3 ] || { echo "usage: $0 on|off NAME COMMAND..." >&2; exit 2; }
mode=$1 name=$2
shift 2
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
status=0
[ "$rc" -eq 0 ] || { echo "check_cma: the program exited with status $rc" >&2; status=1; }
printf '%s\n' "$out" | grep -qx 'OK' || { echo "check_cma: no line \"OK\" in the output" >&2; status=1; }
lines=$(printf '%s\n' "$out" | grep '^topocoll explain: allreduce ' || true)
total=$(printf '%s\n' "$lines" | grep -c . || true)
served=$(printf '%s\n' "$lines" | grep -c -- "-> $name (forced by TOPOCOLL_ALLREDUCE)" || true)
reason=$(printf '%s\n' "$lines" | grep -c "forced $name declined (cross-memory attach turned off by TOPOCOLL_CMA)" || true)
if [ "$mode" = on ]; then
  if [ "$served" -eq 0 ] && printf '%s\n' "$lines" | grep -q "forced $name declined (process_vm_readv:"; then
    echo "check_cma: cross-memory attach is not permitted here; skipped" >&2
    exit 77
  fi
  [ "$served" -ge 2 ] || { echo "check_cma: $served allreduce calls served by $name, expected at least 2" >&2; status=1; }
else
  [ "$total" -ge 2 ] || { echo "check_cma: $total allreduce explain lines, expected at least 2" >&2; status=1; }
  [ "$served" -eq 0 ] || { echo "check_cma: $served allreduce calls served by $name with TOPOCOLL_CMA=0" >&2; status=1; }
  [ "$reason" -eq "$total" ] || { echo "check_cma: $reason of $total allreduce explain lines name the reason" >&2; status=1; }
fi
echo "check_cma: $mode: $served of $total allreduce calls served by $name, $reason declines naming TOPOCOLL_CMA=0"
[ "$status" -eq 0 ] && echo "check_cma: passed"
exit "$status"
