#!/usr/bin/env bash
# Every collective tuned on the emulated cluster (4 hosts x 2 ranks, 1 Gbit/s,
# TCP cubic), then `auto` with that table against native, once with Open MPI's
# tuned component and once with HAN raised.  Files in this directory:
# tuning.json (+ .state), tune_progress.log, tuned_<coll>_<anchor>.csv/.txt.
# The run of this directory: BUDGET=20m (2026-11-28, the idle machine).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
tool=$PWD/tools/cluster/topocoll-cluster
B=$PWD/build-openmpi/tools
colls=${COLLS:-allgather,bcast,reduce,allreduce,alltoall}
export TOPOCOLL_CLUSTER_NAME=tune_cubic
trap '"$tool" down >/dev/null 2>&1' EXIT
"$tool" down >/dev/null 2>&1
"$tool" up --hosts 4 --rate 1gbit || exit 1
echo "== $(date +%T) tune" | tee "$here/log"
"$tool" run --ranks 2,2,2,2 --timeout 3600 --env OMPI_MCA_op=^avx -- \
  "$B/tune/topocoll-tune" --colls "$colls" --time "${BUDGET:-20m}" --max 1M \
  -o "$here/tuning.json" 2> "$here/tune_progress.log" > /dev/null
echo "== $(date +%T) tune done" | tee -a "$here/log"
for c in ${colls//,/ }; do
  for anchor in tuned han; do
    env=(--env OMPI_MCA_op=^avx --env "TOPOCOLL_TUNING_FILE=$here/tuning.json")
    [ $anchor = han ] && env+=(--env OMPI_MCA_coll_han_priority=100)
    echo "== $(date +%T) bench $c $anchor" | tee -a "$here/log"
    "$tool" run --ranks 2,2,2,2 --timeout 1200 "${env[@]}" -- \
      "$B/bench/topocoll-bench" -c "$c" -a native,auto -s 8,512,4K,32K,64K,256K,1M -r 3 \
      --csv "$here/tuned_${c}_$anchor.csv" > "$here/tuned_${c}_$anchor.txt" 2>&1
  done
done
echo "== $(date +%T) end" | tee -a "$here/log"
