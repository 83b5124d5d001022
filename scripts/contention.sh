#!/usr/bin/env bash
# Small collectives beside busy processes: the shared-core conditions in
# which a rank that spins while it waits holds a core that another rank
# needs.
#
#   scripts/contention.sh [-n N] -- COMMAND [ARGS...]
#     runs COMMAND with N busy loops (default 2) running beside it, and stops
#     them when it ends (or is interrupted); exits with COMMAND's status.
#   scripts/contention.sh [-n N] suite BUILD [LABEL]
#     the standard comparison, native against topocoll, for the build
#     directory BUILD (Open MPI: its tools/bench/topocoll-bench and
#     libtopocoll_pmpi.so), each case with N busy loops:
#       1. np 2, --mca mpi_yield_when_idle 1: allgather 8, 64, 512 B,
#          topocoll-bench -a native,auto,shm_inline (median over 5
#          repetitions; shm_inline: the inline protocol by name);
#       2. the same for allreduce;
#       3. np 4 split into communicators of 2: MPI_Allreduce of 64 B,
#          7 runs of 2000 calls (TOPOCOLL_CONTENTION_CALLS), topocoll-subcomm-bench (from this
#          checkout's build-openmpi unless TOPOCOLL_SUBCOMM_BENCH names one)
#          as it is and with BUILD's libtopocoll_pmpi.so preloaded; per run
#          the median and the maximum call;
#       4. nonblocking, np 2 bound to cores (each rank judged to have a core
#          of its own, so topocoll's waits spin first): MPI_Iallgather and
#          MPI_Iallreduce + MPI_Wait of 8 B, back to back, 5 runs of 20000
#          calls (TOPOCOLL_CONTENTION_NB_CALLS: a waiter's stalls may take
#          thousands of calls to begin), topocoll-subcomm-bench
#          --nonblocking --back-to-back as it
#          is and preloaded; per run the median, the mean and the maximum
#          call (a wait that hands its core to a busy loop shows in the
#          mean).
#     Output under out/contention-LABEL/ (LABEL defaults to the build's name).
set -u
cd "$(dirname "$0")/.."
busy=2
if [ "${1:-}" = -n ]; then
  busy=${2:-}
  shift 2
fi
case "$busy" in ''|*[!0-9]*) echo "contention.sh: -n needs a whole number, not '$busy'" >&2; exit 2 ;; esac

pids=()
stop_busy() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2> /dev/null; done
  pids=()
}
trap stop_busy EXIT
trap 'exit 130' INT TERM

# with_busy COMMAND...: COMMAND beside $busy busy loops
with_busy() {
  local i rc
  for ((i = 0; i < busy; i++)); do
    (while :; do :; done) &
    pids+=($!)
  done
  "$@"
  rc=$?
  stop_busy
  return "$rc"
}

if [ "${1:-}" = -- ]; then
  shift
  [ $# -gt 0 ] || { echo "contention.sh: no command after --" >&2; exit 2; }
  with_busy "$@"
  exit $?
fi
[ "${1:-}" = suite ] && [ $# -ge 2 ] || {
  echo "usage: $0 [-n N] -- COMMAND... | $0 [-n N] suite BUILD [LABEL]" >&2
  exit 2
}
build=$(cd "$2" && pwd) || exit 2
label=${3:-$(basename "$build")}
bench=$build/tools/bench/topocoll-bench
pmpi=$build/libtopocoll_pmpi.so
sub=${TOPOCOLL_SUBCOMM_BENCH:-$PWD/build-openmpi/tools/bench/topocoll-subcomm-bench}
for f in "$bench" "$pmpi" "$sub"; do
  [ -e "$f" ] || { echo "contention.sh: $f is missing (build it first)" >&2; exit 2; }
done
out=out/contention-$label
mkdir -p "$out"
launch=(mpirun.openmpi --allow-run-as-root --oversubscribe --bind-to none --mca op ^avx)
status=0
echo "# $label: $busy busy loops; $(nproc) processing units; load average $(cut -d' ' -f1-3 /proc/loadavg)"
for coll in allgather allreduce; do
  echo "## $coll, np 2, mpi_yield_when_idle 1"
  with_busy timeout 600 "${launch[@]}" --mca mpi_yield_when_idle 1 -np 2 "$bench" -q -a native,auto,shm_inline \
    -c "$coll" -s 8,64,512 --csv "$out/$coll.csv" || status=1
done
# sub_pair NAME TITLE MPIRUN_ARGS... -- BENCH_ARGS...: topocoll-subcomm-bench
# beside the busy loops, as it is and preloaded (out/.../NAME-native.txt,
# NAME-preloaded.txt)
sub_pair() {
  local name=$1 title=$2 mode mpi=()
  shift 2
  while [ "$1" != -- ]; do mpi+=("$1"); shift; done
  shift
  for mode in native preloaded; do
    echo "## $title, $mode"
    local pre=()
    [ "$mode" = preloaded ] && pre=(-x "LD_PRELOAD=$pmpi")
    with_busy timeout 600 "${mpi[@]}" "${pre[@]}" "$sub" "$@" > "$out/$name-$mode.txt" || status=1
    cat "$out/$name-$mode.txt"
  done
}
sub_pair subcomm "MPI_Allreduce 64 B on 2-rank communicators of np 4" "${launch[@]}" -np 4 -- \
  --group 2 --bytes 64 --runs 7 --iters "${TOPOCOLL_CONTENTION_CALLS:-2000}"
for coll in allgather allreduce; do
  sub_pair "nb-$coll" "MPI_I$coll + MPI_Wait 8 B back to back, np 2 bound to cores" \
    mpirun.openmpi --allow-run-as-root --bind-to core --mca op ^avx -np 2 -- \
    --nonblocking --back-to-back --coll "$coll" --bytes 8 --runs 5 --iters "${TOPOCOLL_CONTENTION_NB_CALLS:-20000}"
done
exit "$status"
