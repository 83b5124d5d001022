#!/usr/bin/env bash
# The allreduce tuned on the emulated cluster (4 hosts x 2 ranks, 1 Gbit/s),
# then `auto` with that table against native, once with Open MPI's tuned
# component and once with HAN raised: scripts/tune_cluster.sh's tune and
# tuned phases.  Files in this directory (the run of 2026-11-28 00:42-00:49
# UTC, BUDGET=5m, taken with this script's first form, the same commands
# without the report, and over TCP BBR: docs/cluster.md).
here=$(cd "$(dirname "$0")" && pwd)
exec bash "$here/../../../scripts/tune_cluster.sh" --phases tune,tuned --time "${BUDGET:-5m}" \
  --colls allreduce --max 4M --algos native,auto --sizes 8,512,4K,32K,64K,256K,512K,1M,2M,4M \
  --out "$here"
