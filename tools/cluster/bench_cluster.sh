#!/usr/bin/env bash
# The allgather benchmark on an emulated cluster: brings up HOSTS hosts with
# rate-limited links (tools/cluster/topocoll-cluster), runs
# build-openmpi/tools/bench/topocoll-bench with PPN ranks per host across them
# (topocoll detects the hosts as nodes: no virtual topology), tears down.
#
#   tools/cluster/bench_cluster.sh [-s SIZES] [-r REPS] [--csv FILE] [--json FILE]
#                                  [--hosts N] [--ppn K] [--rate R] [--order block|cyclic]
#                                  [--timeout S] [-- more topocoll-bench options]
#
# Defaults: 4 hosts x 2 ranks, links limited to 1gbit, sizes 8,64,512,4K,32K,256K,1M,
# 3 repetitions, out/cluster/bench_4x2.csv and .json.  Teardown happens on
# exit whatever happened.  Needs root (see docs/cluster.md).
set -uo pipefail
cd "$(dirname "$0")/../.."
tool=$PWD/tools/cluster/topocoll-cluster
bench=$PWD/build-openmpi/tools/bench/topocoll-bench

hosts=4 ppn=2 rate=1gbit order=block timeout=1800
sizes=8,64,512,4K,32K,256K,1M reps=3 csv= json=
extra=()
usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
while [ $# -gt 0 ]; do
  case $1 in
    -s|--sizes) sizes=$2; shift 2 ;;
    -r|--reps) reps=$2; shift 2 ;;
    --csv) csv=$2; shift 2 ;;
    --json) json=$2; shift 2 ;;
    --hosts) hosts=$2; shift 2 ;;
    --ppn) ppn=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --order) order=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    -h|--help) usage 0 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "bench_cluster.sh: unknown option $1" >&2; usage ;;
  esac
done
[ -n "$csv" ] || csv=out/cluster/bench_${hosts}x${ppn}.csv
[ -n "$json" ] || json=out/cluster/bench_${hosts}x${ppn}.json
mkdir -p "$(dirname "$csv")" "$(dirname "$json")"
if [ ! -x "$bench" ]; then
  echo "bench_cluster.sh: $bench is missing: run bash scripts/build.sh openmpi" >&2
  exit 1
fi
ratearg=()
[ "$rate" = none ] || ratearg=(--rate "$rate")

export TOPOCOLL_CLUSTER_NAME=bench
trap '"$tool" down >/dev/null 2>&1' EXIT
trap 'exit 130' INT TERM
"$tool" down >/dev/null 2>&1   # one left by an interrupted run
t0=$(date +%s.%N)
"$tool" up --hosts "$hosts" "${ratearg[@]}" || exit 1
t1=$(date +%s.%N)
per=$(printf "$ppn%.0s," $(seq "$hosts")); per=${per%,}
"$tool" run --ranks "$per" --order "$order" --timeout "$timeout" -- \
  "$bench" -s "$sizes" -r "$reps" --csv "$csv" --json "$json" "${extra[@]}"
rc=$?
t2=$(date +%s.%N)
"$tool" down
t3=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v h="$hosts" -v k="$ppn" -v r="$rate" 'BEGIN {
  printf "bench_cluster: %d hosts x %d ranks, links %s: up %.2f s, benchmark %.1f s, down %.2f s\n",
         h, k, r, b - a, c - b, d - c }'
echo "results: $csv, $json"
exit $rc
