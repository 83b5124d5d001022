#!/usr/bin/env bash
# Tune, then run: topocoll-tune (the run-time learner driven by a benchmark
# loop) learns every collective on scripts/main.sh's layout (4 ranks, virtual 2
# nodes x 2 ranks, the launcher flags of scripts/main.sh) and writes
# out/tuning.json (a TOPOCOLL_TUNING_FILE, or TOPOCOLL_LEARN_FILE), plus
# out/tuning.ompi (Open MPI coll_tuned dynamic rules).  Then:
#
#   TOPOCOLL_TUNING_FILE=$PWD/out/tuning.json bash scripts/main.sh
#
# Extra arguments go to topocoll-tune (default budget: --time 10m); a run
# cut short by its budget continues with `bash scripts/tune.sh --resume`
# (the keys in out/tuning.json are not learned again).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
bash scripts/build.sh openmpi
mkdir -p out
budget=(--time 10m)
for a in "$@"; do [ "$a" = "--time" ] && budget=(); done
mpiexec.openmpi --allow-run-as-root --oversubscribe --bind-to none \
    --mca mpi_yield_when_idle 1 --mca op ^avx -np 4 \
    build-openmpi/tools/tune/topocoll-tune -t 2x2 "${budget[@]}" -o out/tuning.json \
    --export-ompi out/tuning.ompi "$@"
echo "tuning table: out/tuning.json (run: TOPOCOLL_TUNING_FILE=\$PWD/out/tuning.json bash scripts/main.sh)"
