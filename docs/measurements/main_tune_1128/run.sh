#!/bin/bash
# The main job tuned, then five pairs of launches with and without the table
# (accept.sh of main_tune_1127e with D set), three more pairs with -r 15, and
# five pairs of the built-in table with --bind-to none / core:overload-allowed.
cd "$(dirname "$0")/../../.."
D=docs/measurements/main_tune_1128 bash docs/measurements/main_tune_1127e/accept.sh
M="mpiexec.openmpi --allow-run-as-root --oversubscribe --mca mpi_yield_when_idle 1 --mca op ^avx -np 4"
B=build-openmpi/tools/bench/topocoll-bench
for i in 1 2 3; do
  $M --bind-to none -x TOPOCOLL_TUNING_FILE=$PWD/out/tuning.json $B -t 2x2 -q -r 15 --csv $D/r15_tuned_$i.csv
  $M --bind-to none $B -t 2x2 -q -r 15 --csv $D/r15_builtin_$i.csv
done > /dev/null
for i in 1 2 3 4 5; do
  $M --bind-to none $B -t 2x2 -q --csv $D/bind_none$i.csv
  $M --bind-to core:overload-allowed $B -t 2x2 -q --csv $D/bind_core$i.csv
done > /dev/null
python3 $D/resolution.py $D
