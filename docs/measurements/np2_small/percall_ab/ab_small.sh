#!/bin/bash
# A/B of the per-call path, np 2 bound to cores, no yield: old = a build of commit 302cbd9 in /tmp/oldwt/build, new = build-openmpi
COLL=${COLL:-allreduce}; ALGOS=${ALGOS:-native,auto,shm_inline}; SIZES=${SIZES:-8,64,128,512}; RUNS=${RUNS:-4}
for i in $(seq $RUNS); do for v in old new; do
  if [ $v = old ]; then B=/tmp/oldwt/build; else B=build-openmpi; fi
  mpiexec --allow-run-as-root -np 2 --bind-to core --mca op ^avx $B/tools/bench/topocoll-bench -q -c $COLL -a $ALGOS -s $SIZES -r 7 --csv out/s1/${COLL}_${v}_$i.csv > /dev/null
done; done
