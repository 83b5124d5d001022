#!/usr/bin/env bash
# Every collective tuned on the emulated cluster (4 hosts x 2 ranks, 1 Gbit/s,
# TCP cubic), then `auto` with that table against native, once with Open MPI's
# tuned component and once with HAN raised: scripts/tune_cluster.sh's tune and
# tuned phases.  Files in this directory: tuning.json (+ .state),
# tune_progress.log, tuned_<coll>_<anchor>.csv/.txt.
# The run of this directory: BUDGET=20m (2026-11-28, the idle machine; taken
# with this script's first form, the same tune and benchmark commands
# without the report).
here=$(cd "$(dirname "$0")" && pwd)
exec bash "$here/../../../scripts/tune_cluster.sh" --phases tune,tuned --time "${BUDGET:-20m}" \
  --colls "${COLLS:-allgather,bcast,reduce,allreduce,alltoall}" --algos native,auto \
  --sizes 8,512,4K,32K,64K,256K,1M --out "$here"
