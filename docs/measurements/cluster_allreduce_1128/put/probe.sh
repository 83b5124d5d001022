#!/usr/bin/env bash
# h1_shm_rsa, h2_shm_rsa and native at 256 KiB - 2 MiB on the emulated cluster
# (4 hosts x 2 ranks, 1 Gbit/s), with Open MPI's TCP transport as it is (put)
# and without its RDMA pipeline protocol (noput: btl_tcp_flags without put),
# two rounds alternating; OUT/{put,noput}_<round>.csv.
cd "$(dirname "$0")/../../../.."
T=tools/cluster/topocoll-cluster; export TOPOCOLL_CLUSTER_NAME=probe
B=$PWD/build-openmpi/tools/bench/topocoll-bench
O=${OUT:-docs/measurements/cluster_allreduce_1128/put}; mkdir -p $O
$T down >/dev/null 2>&1; $T up --hosts 4 --rate 1gbit >/dev/null
for r in 1 2; do for v in put noput; do
  env=(--env OMPI_MCA_op=^avx); [ $v = noput ] && env+=(--env OMPI_MCA_btl_tcp_flags=send,inplace,need-ack,need-csum)
  echo "== $(date +%T) $v $r"
  $T run --ranks 2,2,2,2 --timeout 600 "${env[@]}" -- $B -c allreduce -a native,h1_shm_rsa,h2_shm_rsa -s 256K,512K,1M,2M -r 3 --csv $O/${v}_$r.csv > $O/${v}_$r.txt 2>&1
  grep -A6 "^    bytes" $O/${v}_$r.txt | grep -v "^---"
done; done
$T down
