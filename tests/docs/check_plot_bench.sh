#!/usr/bin/env bash
# tools/report/plot_bench.py draws the Kandalla et al. figure families from a
# data set of results/ (the command docs/hierarchical.md gives): six PNG files,
# each a real image.  Skipped (77) where matplotlib is not installed.
set -u
root=$1
# the system's python3 first: its matplotlib is the Debian package
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
"$py" -c 'import matplotlib' 2>/dev/null || { echo "matplotlib not installed: skipped"; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$py" "$root/tools/report/plot_bench.py" "$root/results/hier_allgather/hier_2x2x2.csv" \
    --out "$out" --title "2 nodes x 2 sockets x 2" || { echo "plot_bench.py failed"; exit 1; }
n=0
for f in "$out"/*.png; do
  [ -f "$f" ] || continue
  head -c 8 "$f" | od -An -tx1 | grep -q '89 50 4e 47' || { echo "not a PNG: $f"; exit 1; }
  n=$((n + 1))
done
[ "$n" -ge 6 ] || { echo "expected 6 figures, got $n"; exit 1; }
echo "plot_bench: $n figures"
