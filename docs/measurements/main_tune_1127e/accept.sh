#!/bin/bash
cd /work/main
D=${D:-out/main_tune}; mkdir -p $D
date +%T > $D/start
bash scripts/tune.sh > $D/tune.log 2>&1
cp out/tuning.json out/tuning.json.state $D/
date +%T > $D/tuned
M="mpiexec.openmpi --allow-run-as-root --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 --mca op ^avx -np 4"
for i in 1 2 3 4 5; do
  $M -x TOPOCOLL_TUNING_FILE=$PWD/out/tuning.json build-openmpi/tools/bench/topocoll-bench -t 2x2 -q --csv $D/tuned_$i.csv > /dev/null
  $M build-openmpi/tools/bench/topocoll-bench -t 2x2 -q --csv $D/builtin_$i.csv > /dev/null
done
date +%T > $D/end
