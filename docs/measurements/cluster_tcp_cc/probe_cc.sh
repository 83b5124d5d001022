#!/usr/bin/env bash
# allreduce entries on the emulated cluster (4 hosts x 2 ranks, 1 Gbit/s) with
# the hosts' TCP congestion control set to CC (topocoll-cluster up --tcp-cc):
# RS rounds of one topocoll-bench run each, OUT/${TAG}_<round>.csv.
# The runs of this directory (2026-11-28, 02:31-02:37 UTC, the idle machine):
#   CC=bbr   TAG=bbr512   RS="1 2 3 4 5 6" ALGOS=native,h1_shm_rsa,h1_shm_ring,h2_shm_ring,h2_shm_rsa SIZES=512K
#   CC=cubic TAG=cubic512 RS="1 2 3"       (same entries and size)
#   CC=bbr   TAG=pair_bbr   RS=1 ALGOS=native,h1_shm_rsa,h2_shm_rsa SIZES=256K,512K,1M,2M
#   CC=cubic TAG=pair_cubic RS=1 (same), right after it
# (the files carry no round suffix where RS was one round).
# summary: ../cluster_allreduce_1128/ab/summary.py PREFIX DIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
tool=$PWD/tools/cluster/topocoll-cluster
O=${OUT:-$here}; mkdir -p "$O"
export TOPOCOLL_CLUSTER_NAME=probe
trap '"$tool" down >/dev/null 2>&1' EXIT
"$tool" down >/dev/null 2>&1
"$tool" up --hosts 4 --rate 1gbit --tcp-cc "${CC:?}" || exit 1
for r in ${RS:-1}; do
  echo "== $(date +%T) $CC $r"
  "$tool" run --ranks 2,2,2,2 --timeout 900 --env OMPI_MCA_op=^avx -- \
    "$PWD/build-openmpi/tools/bench/topocoll-bench" -c allreduce -a "${ALGOS:?}" -s "${SIZES:?}" -r 3 \
    --csv "$O/${TAG:?}_$r.csv" > "$O/${TAG}_$r.txt" 2>&1
done
