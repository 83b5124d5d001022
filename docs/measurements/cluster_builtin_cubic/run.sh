#!/usr/bin/env bash
# `auto` with the built-in table (no tuning file) against native on the
# emulated cluster (4 hosts x 2 ranks, 1 Gbit/s, TCP cubic), once with Open
# MPI's tuned component and once with HAN raised: scripts/tune_cluster.sh's
# default phase, default_<coll>_<anchor>.csv/.txt.
# The run of this directory: COLLS=bcast,reduce,allgather (2026-11-28; taken
# with this script's first form, the same benchmark commands).
here=$(cd "$(dirname "$0")" && pwd)
exec bash "$here/../../../scripts/tune_cluster.sh" --phases default \
  --colls "${COLLS:-bcast,reduce,allgather}" --algos native,auto \
  --sizes "${SIZES:-8,512,4K,32K,64K,256K,1M}" --out "$here"
