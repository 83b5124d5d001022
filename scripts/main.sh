#!/usr/bin/env bash
# The main measurement: set-up, Open MPI build, then the allgather benchmark on 4
# ranks over a virtual 2-node x 2-rank topology.  It prints its table and
# writes out/bench_allgather.csv and out/bench_allgather.json.
# Extra arguments go to topocoll-bench (e.g. -s 8,1024 -r 5).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
bash scripts/build.sh openmpi
mkdir -p out
mpiexec.openmpi --allow-run-as-root --oversubscribe --bind-to none \
    --mca mpi_yield_when_idle 1 --mca op ^avx -np 4 \
    build-openmpi/tools/bench/topocoll-bench -t 2x2 \
    --csv out/bench_allgather.csv --json out/bench_allgather.json "$@"
echo "results: out/bench_allgather.csv, out/bench_allgather.json"
