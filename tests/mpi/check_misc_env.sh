#!/usr/bin/env bash
# Environment values, TOPOCOLL_FALLBACK and the run summary, through
# tests/mpi/misc_calls.c (7 MPI_Allreduce, 3 MPI_Allgather) with the
# interposer preloaded:
#
#   check_misc_env.sh CASE COMMAND...
#
# COMMAND is the launch line; its word @ENV@ is replaced by
# "env VAR=VALUE..." for the case (put it between the launcher and the
# program, after LD_PRELOAD=...).  np must be odd (3): the forced
# allgather entry neighbor_exchange needs an even process count, so it
# declines every call.  Cases:
#
#   bad:VAR=VALUE:ACCEPTED  a malformed value: one line per process
#                  "topocoll: VAR='VALUE' is not valid (accepted: ACCEPTED...",
#                  and the program still passes
#   disable-true   TOPOCOLL_DISABLE=true with TOPOCOLL_EXPLAIN=1: topocoll
#                  serves nothing (no explain line), no complaint
#   cma-no         TOPOCOLL_CMA=no, allreduce forced to shm_rb2_1s_cma:
#                  declined for the reason "turned off by TOPOCOLL_CMA"
#   fallback-print   TOPOCOLL_ALLGATHER=neighbor_exchange: exactly one line
#                  naming the collective, the variable and the reason
#   fallback-silent  the same with TOPOCOLL_FALLBACK=silent: the whole output
#                  is " No Errors"
#   fallback-error   TOPOCOLL_FALLBACK=error: every rank's MPI_Allgather
#                  returns MPI_ERR_ARG naming the entry; the allreduces pass
#   stats:FILE     TOPOCOLL_STATS=FILE: the summary counts exactly the 7
#                  allreduce calls of the program (none of topocoll's own
#                  calibration calls)
set -u
[ $# -ge 2 ] || { echo "usage: $0 CASE COMMAND..." >&2; exit 2; }
case=$1
shift
np=3
vars=()
case $case in
  bad:*) spec=${case#bad:}; vars=("${spec%%:*}") ;;
  disable-true) vars=(TOPOCOLL_DISABLE=true TOPOCOLL_EXPLAIN=1) ;;
  cma-no) vars=(TOPOCOLL_CMA=no TOPOCOLL_ALLREDUCE=shm_rb2_1s_cma) ;;
  fallback-print) vars=(TOPOCOLL_ALLGATHER=neighbor_exchange) ;;
  fallback-silent) vars=(TOPOCOLL_ALLGATHER=neighbor_exchange TOPOCOLL_FALLBACK=silent) ;;
  fallback-error) vars=(TOPOCOLL_ALLGATHER=neighbor_exchange TOPOCOLL_FALLBACK=error) ;;
  stats:*) file=${case#stats:}; rm -f "$file"; vars=(TOPOCOLL_STATS="$file") ;;
  *) echo "check_misc_env: unknown case $case" >&2; exit 2 ;;
esac
cmd=()
for w in "$@"; do
  if [ "$w" = "@ENV@" ]; then cmd+=(env "${vars[@]}"); else cmd+=("$w"); fi
done
out=$("${cmd[@]}" 2>&1)
rc=$?
printf '%s\n' "$out"
status=0
fail() { echo "check_misc_env: $case: $*" >&2; status=1; }
count() { printf '%s\n' "$out" | grep -cF -- "$1" || true; }
[ "$rc" -eq 0 ] || fail "the program exited with status $rc"
passed=$(count " No Errors")
case $case in
  bad:*)
    var=${spec%%=*}; rest=${spec#*=}; value=${rest%%:*}; accepted=${rest#*:}
    n=$(count "topocoll: $var='$value' is not valid (accepted: $accepted")
    [ "$n" -eq "$np" ] || fail "$n lines naming $var='$value' and the accepted values ($accepted), expected $np"
    [ "$passed" -eq 1 ] || fail "no \" No Errors\"" ;;
  disable-true)
    [ "$(count 'topocoll explain:')" -eq 0 ] || fail "topocoll explained calls: TOPOCOLL_DISABLE=true did not disable it"
    [ "$(count 'is not valid')" -eq 0 ] || fail "TOPOCOLL_DISABLE=true was refused"
    [ "$passed" -eq 1 ] || fail "no \" No Errors\"" ;;
  cma-no)
    n=$(count "topocoll: allreduce: TOPOCOLL_ALLREDUCE=shm_rb2_1s_cma declines these arguments (cross-memory attach turned off by TOPOCOLL_CMA)")
    [ "$n" -eq 1 ] || fail "$n lines saying TOPOCOLL_CMA=no turned single copy off, expected 1"
    [ "$(count 'is not valid')" -eq 0 ] || fail "TOPOCOLL_CMA=no was refused"
    [ "$passed" -eq 1 ] || fail "no \" No Errors\"" ;;
  fallback-print)
    n=$(count "topocoll: allgather: TOPOCOLL_ALLGATHER=neighbor_exchange declines these arguments (")
    [ "$n" -eq 1 ] || fail "$n lines naming the collective and the declining entry, expected 1"
    [ "$(count 'topocoll')" -eq 1 ] || fail "other lines from topocoll"
    [ "$passed" -eq 1 ] || fail "no \" No Errors\"" ;;
  fallback-silent)
    [ "$out" = " No Errors" ] || fail "the output is not exactly \" No Errors\"" ;;
  fallback-error)
    n=$(count "MPI_Allgather: class ")
    m=$(count "allgather: TOPOCOLL_ALLGATHER=neighbor_exchange declines these arguments (")
    k=$(count "MPI_Allreduce: class")
    a=$(printf '%s\n' "$out" | grep "MPI_Allgather: class " | grep -vc "(MPI_ERR_ARG)" || true)
    [ "$n" -eq $((3 * np)) ] || fail "$n MPI_Allgather errors, expected $((3 * np)) (every call of every rank)"
    # MPICH 4.0's MPI_Error_string gives another text for codes made by
    # MPI_Add_error_code (MISC_ERROR_STRINGS=0): the class only, there
    if [ "${MISC_ERROR_STRINGS:-1}" != 0 ]; then
      [ "$m" -eq $((3 * np)) ] || fail "$m errors naming the entry and the reason, expected $((3 * np))"
    fi
    [ "$a" -eq 0 ] || fail "$a errors of another class than MPI_ERR_ARG"
    [ "$k" -eq 0 ] || fail "$k MPI_Allreduce errors" ;;
  stats:*)
    [ "$passed" -eq 1 ] || fail "no \" No Errors\""
    calls=$(python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print(sum(c["calls"] for c in d["collectives"] if c["collective"]=="allreduce"))' "$file" 2>&1)
    [ "$calls" = "7" ] || fail "the summary counts $calls allreduce calls, the program made 7" ;;
esac
[ "$status" -eq 0 ] && echo "check_misc_env: $case: passed"
exit "$status"
