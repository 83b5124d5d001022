#!/usr/bin/env bash
# Speed of the simulator (not a test): CPU time, wall time and peak memory
# (/usr/bin/time -v) of topocoll-sim
#   1. for every flat allgather algorithm at 16,384 ranks (twotier:64x16x16,
#      64 KiB per core), with the step-by-step estimate and --total-only;
#   2. for O(p log p) algorithms as the rank count grows from 2^14 to 2^20,
#      on two-tier and Dragonfly networks.
# Prints Markdown tables (docs/simulator.md keeps a copy).
#
#   tools/sim/bench_speed.sh [path/to/topocoll-sim] [max log2 ranks (20)]
#
# One process at a time; on a shared machine, CPU ("user") time is the
# figure to compare, wall time includes waiting for a core.
set -euo pipefail

sim=${1:-build-openmpi/tools/sim/topocoll-sim}
maxlog=${2:-20}
[ -x "$sim" ] || { echo "usage: $0 path/to/topocoll-sim [max log2 ranks]" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "$0: needs /usr/bin/time (GNU time)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# measure LABEL ARGS...: one table row "| label | user s | wall s | peak MiB | simulated |"
measure() {
  local label=$1
  shift
  /usr/bin/time -v "$sim" --compare "$@" >"$tmp/out" 2>"$tmp/time" || {
    echo "| $label | failed: $(tail -n 1 "$tmp/out") | | | |"
    return
  }
  local user wall rss
  user=$(awk -F': ' '/User time/ {print $2}' "$tmp/time")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$tmp/time")
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$tmp/time")
  local msgs
  msgs=$(awk '/^messages  / {print $2}' "$tmp/out")
  echo "| $label | $user | $wall | $rss | $msgs |"
}

echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "### Every flat allgather algorithm, twotier:64x16x16 (16,384 ranks), 64 KiB per core"
echo
echo "| algorithm, estimate | user s | wall | peak MiB | messages |"
echo "|---|---:|---:|---:|---:|"
algos=$("$sim" --list | awk '!/no schedule/ && !/^h[0-9s]/ {print $1}')
for a in $algos; do
  measure "$a, step-by-step" --algos "$a"
  measure "$a, total-only" --algos "$a" --total-only
done

echo
echo "### Growth with ranks (O(p log p) algorithms, 64 KiB per core, step-by-step estimate)"
echo
echo "| network | ranks | algorithm | user s | wall | peak MiB | messages |"
echo "|---|---:|---|---:|---:|---:|---:|"
# two-tier: 16 cores per node, nodes per supernode and supernodes grow in turn
twotier() {
  case $1 in
    14) echo 64x16x16 ;; 15) echo 128x16x16 ;; 16) echo 128x32x16 ;; 17) echo 256x32x16 ;;
    18) echo 256x64x16 ;; 19) echo 512x64x16 ;; 20) echo 1024x64x16 ;;
  esac
}
# dragonfly: 16 cores per node, 4 nodes per router, 16 routers per group,
# 2^(k-10) groups, h = ceil((g-1)/16) global ports per router
dragonfly() {
  local g=$((1 << ($1 - 10)))
  echo "g=$g,a=16,h=$(((g - 1 + 15) / 16 > 0 ? (g - 1 + 15) / 16 : 1)),t=4,c=16"
}
for k in $(seq 14 "$maxlog"); do
  for a in recursive_doubling bruck gather_bcast; do
    row=$(measure "$a" --network "twotier:$(twotier "$k")" --algos "$a")
    echo "| twotier:$(twotier "$k") | $((1 << k)) |${row#|}"
  done
  for a in recursive_doubling bruck; do
    row=$(measure "$a" --network "dragonfly:$(dragonfly "$k")" --algos "$a")
    echo "| dragonfly:$(dragonfly "$k") | $((1 << k)) |${row#|}"
  done
done
