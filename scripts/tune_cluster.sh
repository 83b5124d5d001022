#!/usr/bin/env bash
# Tune, then compare, on the emulated cluster (docs/cluster.md): HOSTS hosts x
# PPN ranks with rate-limited links (default 4 x 2, 1gbit).  Needs root and an
# idle machine (the links and the timings are the point).
#
#   bash scripts/tune_cluster.sh [--hosts N] [--ppn K] [--rate R] [--time 10m]
#                                [--colls allgather,bcast,...] [--reps N] [--out DIR]
#                                [--max BYTES] [--sizes LIST] [--algos LIST]
#                                [--phases default,tune,tuned]
#
# Phases (--phases, default all three, in this order):
# 1. default: topocoll-bench of every collective in --colls with the built-in default
#    (no tuning file: the model's choices), against Open MPI's tuned
#    component and against HAN (OMPI_MCA_coll_han_priority=100): `native` is
#    the library's own, `auto` is topocoll's.
# 2. tune: topocoll-tune over the cluster (--time budget, sizes to --max): the
#    run-time learner driven by a benchmark loop, writing DIR/tuning.json,
#    DIR/tuning.ompi and its progress DIR/tune_progress.log.
# 3. tuned: the same benchmarks with TOPOCOLL_TUNING_FILE=DIR/tuning.json.
# The benchmarks time every entry, or --algos (e.g. native,auto); every Open
# MPI rank gets OMPI_MCA_op=^avx (Open MPI 4.1's AVX-512 MPI_SUM on 8-bit
# types is wrong, open-mpi/ompi#8045).
# Results: DIR/<phase>_<coll>_<tuned|han>.csv and .txt (phase: default, tuned),
# and DIR/summary.md (auto / native per size, from tools/cluster/bench_table.py
# style CSVs).  Acceptance: after the tune, auto <= 1.05x
# native at every size, and >= 1.5x faster where the links are the bottleneck.
set -uo pipefail
cd "$(dirname "$0")/.."
tool=$PWD/tools/cluster/topocoll-cluster
bench=$PWD/build-openmpi/tools/bench/topocoll-bench
tune=$PWD/build-openmpi/tools/tune/topocoll-tune

hosts=4 ppn=2 rate=1gbit budget=10m reps=3 out=out/cluster/tune
colls=allgather,bcast,reduce,allreduce,alltoall
sizes=8,64,512,4K,32K,256K,1M max=1M algos="" phases=default,tune,tuned
while [ $# -gt 0 ]; do
  case $1 in
    --hosts) hosts=$2; shift 2 ;;
    --ppn) ppn=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --time) budget=$2; shift 2 ;;
    --colls) colls=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --max) max=$2; shift 2 ;;
    --algos) algos=$2; shift 2 ;;
    --phases) phases=$2; shift 2 ;;
    -h|--help) sed -n '2,/^[^#]/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "tune_cluster.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
for b in "$bench" "$tune"; do
  [ -x "$b" ] || { echo "tune_cluster.sh: $b is missing: run bash scripts/build.sh openmpi" >&2; exit 1; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)

export TOPOCOLL_CLUSTER_NAME=tune
trap '"$tool" down >/dev/null 2>&1' EXIT
trap 'exit 130' INT TERM
"$tool" down >/dev/null 2>&1
"$tool" up --hosts "$hosts" --rate "$rate" || exit 1
per=$(printf "$ppn%.0s," $(seq "$hosts")); per=${per%,}
run() { "$tool" run --ranks "$per" --timeout 3600 --env OMPI_MCA_op=^avx "$@"; }
phase() { [[ ",$phases," == *",$1,"* ]]; }
pick=(); [ -n "$algos" ] && pick=(-a "$algos")

# bench PHASE [--env NAME=VALUE]...: every collective, against tuned and HAN.
bench_all() {
  local phase=$1; shift
  local c anchor
  for c in ${colls//,/ }; do
    for anchor in tuned han; do
      local env=("$@")
      [ $anchor = han ] && env+=(--env OMPI_MCA_coll_han_priority=100)
      echo "== $phase $c against $anchor" >&2
      run "${env[@]}" -- "$bench" -c "$c" "${pick[@]}" -s "$sizes" -r "$reps" \
        --csv "$out/${phase}_${c}_${anchor}.csv" > "$out/${phase}_${c}_${anchor}.txt" 2>&1 ||
        echo "tune_cluster.sh: $phase $c ($anchor) failed: see $out/${phase}_${c}_${anchor}.txt" >&2
    done
  done
}

phase default && bench_all default
if phase tune; then
  echo "== tune (budget $budget)" >&2
  run -- "$tune" --time "$budget" --colls "$colls" --max "$max" -o "$out/tuning.json" \
    --export-ompi "$out/tuning.ompi" 2> >(tee "$out/tune_progress.log" >&2) ||
    { echo "tune_cluster.sh: the tune failed" >&2; exit 1; }
fi
phase tuned && bench_all tuned --env "TOPOCOLL_TUNING_FILE=$out/tuning.json"

# auto / native per size, every run side by side.
python3 - "$out" "$colls" > "$out/summary.md" <<'PY'
import csv, os, sys
out, colls = sys.argv[1], sys.argv[2].split(",")
print("| collective | anchor | phase | bytes | native (us) | auto (us) | auto / native | fastest |")
print("|---|---|---|---|---|---|---|---|")
for c in colls:
    for anchor in ("tuned", "han"):
        for phase in ("default", "tuned"):
            path = os.path.join(out, "%s_%s_%s.csv" % (phase, c, anchor))
            if not os.path.exists(path):
                continue
            rows = list(csv.DictReader(open(path)))
            by = {}
            for r in rows:
                by.setdefault(r.get("bytes"), {})[r.get("algorithm")] = float(r.get("median_us") or r.get("time_us") or 0)
            for b, t in by.items():
                if "native" not in t or "auto" not in t or not t["native"]:
                    continue
                fast = min(t, key=t.get)
                print("| %s | %s | %s | %s | %.1f | %.1f | %.2fx | %s |" % (c, anchor, phase, b, t["native"],
                      t["auto"], t["auto"] / t["native"], fast))
PY
echo "results: $out (summary.md, tuning.json, *.txt)"
