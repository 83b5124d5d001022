#!/usr/bin/env bash
# A/B of builds on the emulated cluster (4 hosts, 1 Gbit/s): RS rounds, in
# each round every build of BUILDS (build directories of the repository)
# runs topocoll-bench once; files OUT/${TAG}_<build>_<round>.csv.  The runs
# of this directory (builds renamed after the run: before = 376b1ef, window =
# the exchange in the window and the executor's looks, overlap = 53ddcb3):
#   TAG=ab RS="1 2" RANKS=2,2,2,2 ALGOS=native,h1_shm_rsa,h2_shm_rsa SIZES=256K,1M,4M
#   TAG=ab RS="3 4 5" RANKS=2,2,2,2 ALGOS=h1_shm_rsa,h2_shm_rsa SIZES=256K,1M,4M
#   TAG=ov RS="1 2 3 4" RANKS=2,2,2,2 ALGOS=h1_shm_rsa,h2_shm_rsa SIZES=256K,1M,4M
#   TAG=flat RANKS=1,1,1,1 ALGOS=native,reduce_scatter_allgather,ring SIZES=128K,256K,512K,1M,2M,4M
#   TAG=h2 RANKS=1,1,1,1 ALGOS=reduce_scatter_allgather,h1_shm_rsa,h2_shm_rsa,h2_p2p_rsa SIZES=256K,512K,1M,2M,4M
# CC: the hosts' TCP congestion control (topocoll-cluster up --tcp-cc; default
# cubic).  The runs above were taken before the tool set it, over this
# machine's own BBR (CC=kernel here); ../../cluster_tcp_cc/ holds runs of
# this script with CC=bbr and CC=cubic (its README lists them).
# summary.py TAG prints each entry's times and their share of the link bound.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../../.."
tool=$PWD/tools/cluster/topocoll-cluster
O=${OUT:-$here}; mkdir -p "$O"
export TOPOCOLL_CLUSTER_NAME=probe
trap '"$tool" down >/dev/null 2>&1' EXIT
"$tool" down >/dev/null 2>&1
"$tool" up --hosts 4 --rate 1gbit --tcp-cc "${CC:-cubic}" || exit 1
for r in ${RS:-1}; do for b in ${BUILDS:-build-openmpi}; do
  echo "== $(date +%T) $b $r ${RANKS:-2,2,2,2}"
  "$tool" run --ranks "${RANKS:-2,2,2,2}" --timeout 900 --env OMPI_MCA_op=^avx -- \
    "$PWD/$b/tools/bench/topocoll-bench" -c allreduce -a "${ALGOS:?}" -s "${SIZES:?}" -r 3 \
    --csv "$O/${TAG:?}_${b}_$r.csv" > "$O/${TAG}_${b}_$r.txt" 2>&1
done; done
