#!/usr/bin/env bash
# alltoall on the emulated cluster (1 Gbit/s links, TCP cubic, Open MPI 4.1.4),
# RUNS rounds on RANKS (default 2,2,2,2):
#   paper_<round>.csv  topocoll-a2a-paper -f 5,6 (world and the fixed-seed
#                      permutation, mean of 200 after Tukey's filter), SIZES_P
#                      (total p m), ALGOS_P
#   bench_<round>.csv  topocoll-bench -c alltoall -r 3 (bytes: one block),
#                      SIZES_B, ALGOS_B  (left out where ALGOS_B is empty)
# The runs of this directory (2026-11-28, the idle machine):
#   RUNS="1 2" ALGOS_P=MPI_Alltoall,auto,h1_shm,h2_shm,h4_shm,pairwise SIZES_P=64:128K
#              ALGOS_B=native,auto,linear_w2,pairwise,linear_w1 SIZES_B=8K,16K,32K,64K,256K,1M
#   RANKS=2,1,2,1 TAG=l2121_ RUNS="1 2" ALGOS_P=(as above) SIZES_P=60:128K
#   RUNS="3 4 5" ALGOS_P=MPI_Alltoall,auto,h2_shm SIZES_P=64:64K (and RANKS=2,1,2,1 TAG=l2121_ SIZES_P=60:64K)
# and, by hand on the same cluster, two rounds of (floor_*):
#   run --ranks 1,1,1,1 -- topocoll-bench -c alltoall -a native,pairwise,linear,linear_w1 -s 4K,8K,16K,32K -r 5
#   run --ranks 2,2,2,2 -- topocoll-bench -c alltoall -a native,h2_shm,h4_shm -s 1K,2K,4K,8K -r 5
# and once (window_1): run --ranks 2,2,2,2 -- topocoll-bench -c alltoall
#   -a native,linear,linear_w1,linear_w2,linear_w4,pairwise,h1_p2p,h2_shm -s 256K,1M -r 3
# and twice more (window_2-3): -a native,linear_w2,linear_w4 -s 256K,1M -r 3
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
tool=$PWD/tools/cluster/topocoll-cluster
B=$PWD/build-openmpi/tools/bench
O=${OUT:-$here}; mkdir -p "$O"
export TOPOCOLL_CLUSTER_NAME=alltoall
trap '"$tool" down >/dev/null 2>&1' EXIT
"$tool" down >/dev/null 2>&1
"$tool" up --hosts 4 --rate 1gbit || exit 1
ranks=${RANKS:-2,2,2,2}
tag=${TAG:-}
for rep in ${RUNS:?}; do
  echo "== $(date +%T) paper $ranks $rep" | tee -a "$O/log"
  "$tool" run --ranks "$ranks" --timeout 1800 -- "$B/topocoll-a2a-paper" -f 5,6 -i 200 \
    -a "${ALGOS_P:?}" -s "${SIZES_P:?}" --label "${tag}paper_$rep" --csv "$O/${tag}paper_$rep.csv" \
    > "$O/${tag}paper_$rep.txt" 2>&1
  [ -n "${ALGOS_B:-}" ] || continue
  echo "== $(date +%T) bench $ranks $rep" | tee -a "$O/log"
  "$tool" run --ranks "$ranks" --timeout 1800 -- "$B/topocoll-bench" -c alltoall -a "$ALGOS_B" \
    -s "${SIZES_B:?}" -r 3 --csv "$O/${tag}bench_$rep.csv" > "$O/${tag}bench_$rep.txt" 2>&1
done
