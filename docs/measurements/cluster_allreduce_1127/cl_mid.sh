#!/usr/bin/env bash
# allreduce on the emulated cluster, 4 hosts x 2 ranks, 1 Gbit/s: built-in auto and the hierarchical entries against tuned and HAN
set -uo pipefail
cd /work/main
tool=$PWD/tools/cluster/topocoll-cluster
B=$PWD/build-openmpi/tools/bench/topocoll-bench
O=$PWD/out/s1/cl; mkdir -p $O
export TOPOCOLL_CLUSTER_NAME=s1
trap '"$tool" down >/dev/null 2>&1' EXIT
"$tool" down >/dev/null 2>&1
"$tool" up --hosts 4 --rate 1gbit || exit 1
for rep in 3 4 5; do
for anchor in tuned han; do
  env=(); [ $anchor = han ] && env=(--env OMPI_MCA_coll_han_priority=100)
  echo "== $(date +%H:%M:%S) allreduce $anchor $rep" | tee -a $O/log
  "$tool" run --ranks 2,2,2,2 --timeout 1800 "${env[@]}" --env OMPI_MCA_op=^avx -- $B -c allreduce -a native,h1_shm_rsa,h2_shm_rsa -s 32K,64K,128K,256K,512K,1M,2M -r 3 --csv $O/mid_${anchor}_$rep.csv > $O/mid_${anchor}_$rep.txt 2>&1
done; done
echo "== $(date +%H:%M:%S) end" | tee -a $O/log
