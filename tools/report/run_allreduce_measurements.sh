#!/usr/bin/env bash
# The measurements behind docs/allreduce.md ("Model", "Measurements") and the
# figures of tools/report/plot_allreduce.py, for one configuration:
#
#   tools/report/run_allreduce_measurements.sh BUILD OUTDIR LABEL NP [TOPOLOGY] [MPIEXEC FLAGS...]
#
# writes OUTDIR/allreduce_{model,bench}_LABEL.{csv,txt}: the calibrated model's
# predictions (topocoll-model) and topocoll-bench --coll allreduce with every
# one-node entry, native and auto interleaved; with LABEL starting "omp", the
# OpenMP comparison (topocoll-omp-allreduce, NP threads) instead.
# SIZES (environment) overrides the bench's 8:16M; OMP_SIZES and MODEL_SIZES
# (LO:HI, doubling) those of the OpenMP tool and the model; REPS the
# repetitions (5).
set -u
build=$1 out=$2 label=$3 np=$4 topo=${5:-}
shift 5 2>/dev/null || shift $#
sizes=${SIZES:-8:16M}
reps=${REPS:-5}
tools=$build/tools/bench
algos=native,auto,recursive_doubling,reduce_scatter_allgather,ring,shm_dissemination
algos=$algos,shm_rb2_1s,shm_rb2_2s,shm_rb4_1s,shm_rb4_2s,shm_rb8_1s,shm_rb8_2s,shm_tiled_naive
algos=$algos,shm_tiled_cyclic_256,shm_tiled_cyclic_2k,shm_tiled_cyclic_16k,shm_tiled_cyclic_128k
algos=$algos,shm_tiled_hier_256,shm_tiled_hier_2k,shm_tiled_hier_16k,shm_tiled_hier_128k
mkdir -p "$out"
if [[ $label == omp* ]]; then
  # the reduction clause's private copies of res[:n] live on the threads' stacks
  ulimit -s unlimited 2>/dev/null || ulimit -s 65536
  OMP_STACKSIZE=64M OMP_PROC_BIND=close OMP_PLACES=cores "$tools/topocoll-omp-allreduce" -p "$np" -s "${OMP_SIZES:-8:16M}" -r "$reps" \
    --csv "$out/allreduce_$label.csv" > "$out/allreduce_$label.txt" 2>&1
  exit $?
fi
mpi=(mpiexec --allow-run-as-root --mca op ^avx "$@" -np "$np")
targ=()
[ -n "$topo" ] && targ=(-t "$topo")
"${mpi[@]}" "$tools/topocoll-model" "${targ[@]}" -s "${MODEL_SIZES:-8:16M}" --csv "$out/allreduce_model_$label.csv" \
  > "$out/allreduce_model_$label.txt" 2>&1
"${mpi[@]}" "$tools/topocoll-bench" --coll allreduce -s "$sizes" -r "$reps" -a "$algos" "${targ[@]}" \
  --csv "$out/allreduce_bench_$label.csv" > "$out/allreduce_bench_$label.txt" 2>&1
