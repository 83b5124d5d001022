#!/usr/bin/env bash
# Latency-bound collectives (barrier, scan, exscan) on an emulated cluster whose
# switch delays every frame (topocoll-cluster up --delay): per layout, the
# one-way latency between hosts (topocoll-pingpong: the bound's unit), then
# topocoll-bench with every algorithm against Open MPI's tuned (the native
# column), then again with HAN's priority raised (the native column is then
# what Open MPI's HAN serves; the figures of one launch compare).  Barriers run
# --back-to-back (a loop of them, as osu_barrier); a scan does not hold its
# first ranks back, so a loop of scans runs pipelined and times throughput:
# scan and exscan are timed one call at a time after a barrier (the barrier's
# exit skew, the same for every column, is in each figure).
#
#   tools/cluster/bench_latency.sh [--delay D] [--layouts "2,2,2,2 3,3,2"]
#                                  [--orders "block cyclic"] [--colls "barrier scan"]
#                                  [-a ALGOS] [-r REPS] [-i ITERS] [--out DIR]
#
# Defaults: delay 500us, layouts "2,2,2,2 2,2,2 3,3,2", orders "block cyclic"
# (cyclic for the first layout only), colls "barrier scan exscan", algorithms
# "all" (topocoll-bench -a; "all,auto" adds topocoll's selection), 5
# repetitions of 40 calls, out/cluster_latency.  Writes DIR/<coll>_<layout>_<order>.csv,
# DIR/han_<coll>_<layout>_<order>.csv and DIR/pingpong_<layout>.txt; the hosts
# share this machine's cores (oversubscribed where the ranks outnumber them).
# Needs root (docs/cluster.md).
set -uo pipefail
cd "$(dirname "$0")/../.."
tool=$PWD/tools/cluster/topocoll-cluster
bench=$PWD/build-openmpi/tools/bench/topocoll-bench
pingpong=$PWD/build-openmpi/tools/bench/topocoll-pingpong
lib=$PWD/build-openmpi/libtopocoll_pmpi.so

delay=500us layouts="2,2,2,2 2,2,2 3,3,2" orders="block cyclic" colls="barrier scan exscan"
algos=all reps=5 iters=40 out=out/cluster_latency
usage() { sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
while [ $# -gt 0 ]; do
  case $1 in
    --delay) delay=$2; shift 2 ;;
    --layouts) layouts=$2; shift 2 ;;
    --orders) orders=$2; shift 2 ;;
    --colls) colls=$2; shift 2 ;;
    -a) algos=$2; shift 2 ;;
    -r) reps=$2; shift 2 ;;
    -i) iters=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) usage 0 ;;
    *) echo "bench_latency.sh: unknown option $1" >&2; usage ;;
  esac
done
for f in "$bench" "$pingpong" "$lib"; do
  [ -e "$f" ] || { echo "bench_latency.sh: $f is missing: run bash scripts/build.sh openmpi" >&2; exit 1; }
done
mkdir -p "$out"

export TOPOCOLL_CLUSTER_NAME=latency
trap '"$tool" down >/dev/null 2>&1' EXIT
trap 'exit 130' INT TERM
"$tool" down >/dev/null 2>&1
rc=0
first=1
for layout in $layouts; do
  hosts=$(echo "$layout" | tr ',' '\n' | wc -l)
  "$tool" down >/dev/null 2>&1
  "$tool" up --hosts "$hosts" --delay "$delay" || exit 1
  "$tool" run --ranks "$layout" --timeout 300 -- "$pingpong" -n 200 -r 5 \
    > "$out/pingpong_${layout//,/-}.txt" 2>&1 || rc=1
  echo "== $layout: $(tail -1 "$out/pingpong_${layout//,/-}.txt")"
  for order in $orders; do
    [ "$order" = block ] || [ $first = 1 ] || continue
    tag=${layout//,/-}_$order
    for coll in $colls; do
      mode=()
      [ "$coll" = barrier ] && mode=(--back-to-back)
      echo "-- $coll, $layout ($order)"
      "$tool" run --ranks "$layout" --order "$order" --timeout 600 --env LD_PRELOAD="$lib" -- \
        "$bench" -c "$coll" -s 8 -a "$algos" "${mode[@]}" -r "$reps" -i "$iters" -q \
        --csv "$out/${coll}_$tag.csv" || rc=1
      "$tool" run --ranks "$layout" --order "$order" --timeout 600 --env LD_PRELOAD="$lib" \
        --mpi-arg=--mca --mpi-arg=coll_han_priority --mpi-arg=100 -- \
        "$bench" -c "$coll" -s 8 -a "$algos" "${mode[@]}" -r "$reps" -i "$iters" -q \
        --csv "$out/han_${coll}_$tag.csv" | sed 's/    native/native=HAN/' || rc=1
    done
  done
  first=0
done
exit $rc
