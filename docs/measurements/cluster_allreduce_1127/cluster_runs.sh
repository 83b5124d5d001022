#!/usr/bin/env bash
# COLL (default allreduce) on the emulated cluster, 4 hosts x 2 ranks, 1 Gbit/s: RUNS rounds,
# each one run against Open MPI's tuned and one against HAN, written as
# OUT/${PREFIX}_{tuned,han}_<round>.csv.  The runs of this directory:
#   PREFIX=allreduce RUNS="1 2" ALGOS=native,auto,h1_shm_rsa,h1_shm_ring,h2_shm_rsa SIZES=8,512,4K,64K,256K,1M,4M
#   PREFIX=mid RUNS="3 4 5" ALGOS=native,h1_shm_rsa,h2_shm_rsa SIZES=32K,64K,128K,256K,512K,1M,2M
#   PREFIX=auto RUNS="1 2" ALGOS=native,auto SIZES=8,4K,16K,32K,64K,128K,256K,512K,1M,2M,4M
# (docs/measurements/cluster_alltoall_pieces/README.md and cluster_allreduce_ring_pieces/README.md list
# later runs, with COLL=alltoall and allreduce.)
set -uo pipefail
cd "$(dirname "$0")/../../.."
tool=$PWD/tools/cluster/topocoll-cluster
B=$PWD/build-openmpi/tools/bench/topocoll-bench
O=${OUT:-$PWD/out/cluster_allreduce}; mkdir -p "$O"
: "${PREFIX:?}" "${RUNS:?}" "${ALGOS:?}" "${SIZES:?}"
COLL=${COLL:-allreduce}
export TOPOCOLL_CLUSTER_NAME=allreduce
trap '"$tool" down >/dev/null 2>&1' EXIT
"$tool" down >/dev/null 2>&1
"$tool" up --hosts 4 --rate 1gbit || exit 1
for rep in $RUNS; do
  for anchor in tuned han; do
    env=(); [ $anchor = han ] && env=(--env OMPI_MCA_coll_han_priority=100)
    echo "== $(date +%H:%M:%S) $COLL $PREFIX $anchor $rep" | tee -a "$O/log"
    "$tool" run --ranks 2,2,2,2 --timeout 1800 "${env[@]}" --env OMPI_MCA_op=^avx -- \
      $B -c "$COLL" -a "$ALGOS" -s "$SIZES" -r 3 --csv "$O/${PREFIX}_${anchor}_$rep.csv" \
      > "$O/${PREFIX}_${anchor}_$rep.txt" 2>&1
  done
done
