#!/usr/bin/env bash
# `auto` with the built-in table (no tuning file) against native on the
# emulated cluster (4 hosts x 2 ranks, 1 Gbit/s, TCP cubic), once with Open
# MPI's tuned component and once with HAN raised: builtin_<coll>_<anchor>.csv.
# The run of this directory: COLLS=bcast,reduce,allgather (2026-11-28).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
tool=$PWD/tools/cluster/topocoll-cluster
B=$PWD/build-openmpi/tools
export TOPOCOLL_CLUSTER_NAME=builtin_cubic
trap '"$tool" down >/dev/null 2>&1' EXIT
"$tool" down >/dev/null 2>&1
"$tool" up --hosts 4 --rate 1gbit || exit 1
for c in $(echo "${COLLS:-bcast,reduce,allgather}" | tr , ' '); do
  for anchor in tuned han; do
    env=(--env OMPI_MCA_op=^avx)
    [ $anchor = han ] && env+=(--env OMPI_MCA_coll_han_priority=100)
    echo "== $(date +%T) bench $c $anchor" | tee -a "$here/log"
    "$tool" run --ranks 2,2,2,2 --timeout 1200 "${env[@]}" -- \
      "$B/bench/topocoll-bench" -c "$c" -a native,auto -s "${SIZES:-8,512,4K,32K,64K,256K,1M}" -r 3 \
      --csv "$here/builtin_${c}_$anchor.csv" > "$here/builtin_${c}_$anchor.txt" 2>&1
  done
done
