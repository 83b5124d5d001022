#!/usr/bin/env bash
# Speed of the simulator (a benchmark, not a test): CPU time, wall time and
# peak memory (/usr/bin/time -v) of topocoll-sim
#   1. for every algorithm with a schedule of the six collectives of Tables
#      3-5 of Jain, Lau, Kale, "Collectives on Two-tier Direct Networks"
#      (2012) on the paper's machine (twotier:64x16x16, 16,384
#      ranks) at the paper's sizes (64 KiB per core for scatter, gather,
#      allgather and reduce-scatter; 1 GiB for broadcast and reduce), with the
#      step-by-step estimate and with --total-only;
#   2. growth with ranks from 2^14 to 2^20 for O(p log p) algorithms and the
#      paper's two-tier algorithms, on two-tier and Dragonfly networks;
#   3. growth of the O(p^2)-message algorithms (ring, pairwise exchange)
#      from 2^12 to 2^15 ranks.
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

# measure ARGS...: prints "user s | wall | peak MiB | messages" (one table row's tail)
measure() {
  /usr/bin/time -v "$sim" --compare "$@" >"$tmp/out" 2>"$tmp/time" || {
    echo "failed: $(tail -n 1 "$tmp/out") | | |"
    return
  }
  local user wall rss msgs
  user=$(awk -F': ' '/User time/ {print $2}' "$tmp/time")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$tmp/time")
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$tmp/time")
  msgs=$(awk '/^messages  / {print $2}' "$tmp/out")
  echo "$user | $wall | $rss | $msgs"
}

size_of() { case $1 in bcast | reduce) echo 1G ;; *) echo 64K ;; esac; }

echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "### Tables 3-5: every algorithm, twotier:64x16x16 (16,384 ranks), the paper's sizes"
echo
echo "| collective | size | algorithm | estimate | user s | wall | peak MiB | messages |"
echo "|---|---|---|---|---:|---:|---:|---:|"
for c in scatter gather bcast allgather reduce_scatter_block reduce; do
  b=$(size_of "$c")
  for a in $("$sim" --coll "$c" --list | awk '!/no schedule/ && !/^h[0-9s]/ {print $1}'); do
    echo "| $c | $b | $a | step-by-step | $(measure --coll "$c" --bytes "$b" --algos "$a") |"
    echo "| $c | $b | $a | total-only | $(measure --coll "$c" --bytes "$b" --algos "$a" --total-only) |"
  done
done

echo
echo "### Growth with ranks (step-by-step estimate)"
echo
echo "| network | ranks | collective | algorithm | user s | wall | peak MiB | messages |"
echo "|---|---:|---|---|---:|---:|---:|---:|"
# two-tier: 16 cores per node, nodes per supernode and supernodes grow in turn
twotier() {
  case $1 in
    12) echo 16x16x16 ;; 13) echo 32x16x16 ;;
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
  net="twotier:$(twotier "$k")"
  for ca in allgather:recursive_doubling allgather:bruck allgather:twotier_sockets \
            reduce_scatter_block:twotier_sockets bcast:twotier_chunked_sockets reduce:rabenseifner; do
    c=${ca%%:*} a=${ca#*:}
    echo "| $net | $((1 << k)) | $c | $a | $(measure --network "$net" --coll "$c" --bytes "$(size_of "$c")" --algos "$a") |"
  done
  net="dragonfly:$(dragonfly "$k")"
  for a in recursive_doubling bruck; do
    echo "| $net | $((1 << k)) | allgather | $a | $(measure --network "$net" --algos "$a" --bytes 64K) |"
  done
done

echo
echo "### Growth of the O(p^2)-message algorithms (step-by-step estimate)"
echo
echo "| network | ranks | collective | algorithm | user s | wall | peak MiB | messages |"
echo "|---|---:|---|---|---:|---:|---:|---:|"
for k in 12 13 14 15; do
  net="twotier:$(twotier "$k")"
  echo "| $net | $((1 << k)) | allgather | ring | $(measure --network "$net" --algos ring --bytes 64K) |"
  echo "| $net | $((1 << k)) | reduce_scatter_block | pairwise | $(measure --network "$net" --coll reduce_scatter_block --algos pairwise --bytes 64K) |"
done
