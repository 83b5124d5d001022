#!/bin/sh
# topocoll-sim's command line: bad input exits 2 with one line naming the
# problem; a small compare run with checks writes well-formed CSV and JSON.
#   check_cli.sh <topocoll-sim> <scratch directory>
# Ends with "N passed, M failed"; exits 1 on any failure.
sim=$1
dir=$2
mkdir -p "$dir" || exit 1
pass=0
fail=0

# expect_error "needle" args...: exit status 2, one stderr line containing needle
expect_error() {
  needle=$1
  shift
  "$sim" "$@" >"$dir/out" 2>"$dir/err"
  rc=$?
  lines=$(wc -l <"$dir/err")
  if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && grep -qF -- "$needle" "$dir/err"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL topocoll-sim $*: status $rc, expected 2 and '$needle', stderr:"
    cat "$dir/err"
  fi
}

expect_error "network spec 'twotier:64x16': expected SNxNPSxCPN" --network twotier:64x16
expect_error "10 groups need 9 global ports per group, but a*h = 4" --network dragonfly:g=10,a=2,h=2
expect_error "unknown network kind 'mesh'" --network mesh:4x4
expect_error "unknown allgather algorithm 'nosuch'" --network twotier:2x2x1 --algos ring,nosuch
expect_error "--bytes '12Q'" --bytes 12Q
expect_error "unknown collective 'nosuch'" --coll nosuch
expect_error "describes 8 ranks but the communicator has 4" --network twotier:2x2x1 --map 8x1
expect_error "4 nodes but the network has 2 groups" --network twotier:2x2x1 --map 4x1
expect_error "map '2x2': node 0 holds 2 ranks but network nodes have 1 core" --network twotier:2x2x1 --levels node --map 2x2
expect_error "the network has no tier 'L3' (its tiers: L1, L2)" --network twotier:2x2x1 --bw L3=4
expect_error "unknown option '--frobnicate'" --frobnicate
expect_error "option --network needs a value" --network
expect_error "--levels 'supernode': expected node or group" --levels supernode

# a good run
if "$sim" --network twotier:4x4x2 --algos ring,recursive_doubling,linear,bruck --bytes 1K --compare --check \
     --steps --csv "$dir/r.csv" --json "$dir/r.json" >"$dir/out" 2>"$dir/err" &&
   [ "$(grep -c 'check ok' "$dir/out")" -eq 4 ]; then
  pass=$((pass + 1))
else
  fail=$((fail + 1))
  echo "FAIL compare run:"
  cat "$dir/out" "$dir/err"
fi
# CSV: 22 fields on every line, 4 algorithms x (2 tiers + 1 total) + step rows
if [ -s "$dir/r.csv" ] && awk -F, 'NF != 22 { bad = 1 } END { exit bad }' "$dir/r.csv" &&
   [ "$(grep -c '^total,' "$dir/r.csv")" -eq 4 ] && [ "$(grep -c '^tier,' "$dir/r.csv")" -eq 8 ]; then
  pass=$((pass + 1))
else
  fail=$((fail + 1))
  echo "FAIL CSV shape"
  head -5 "$dir/r.csv"
fi
# JSON: parses (python3 when present), names the four algorithms
if command -v python3 >/dev/null 2>&1; then
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [a["name"] for a in d["algorithms"]] == ["ring","recursive_doubling","linear","bruck"]; assert d["algorithms"][0]["tiers"][0]["used"] > 0' "$dir/r.json"
  jrc=$?
else
  head -c 1 "$dir/r.json" | grep -q '{'
  jrc=$?
fi
if [ $jrc -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL JSON"; fi
# --links: ring on 2 supernodes x 2 nodes x 1 core, 1 KiB per core: by hand,
# every one of the 6 links (4 L1, 2 L2) carries 3 blocks = 3072 bytes
if "$sim" --network twotier:2x2x1 --algos ring --bytes 1K --links "$dir/l.csv" >/dev/null 2>"$dir/err" &&
   [ "$(head -n 1 "$dir/l.csv")" = "algorithm,link,tier,from,to,bytes" ] &&
   awk -F, 'NR > 1 { n++; if ($1 != "ring" || $6 != 3072) bad = 1; if ($3 == "L2") l2++ }
            END { exit bad || n != 6 || l2 != 2 }' "$dir/l.csv" &&
   grep -q '^ring,[0-9]*,L2,s1.n0,s0.n1,3072$' "$dir/l.csv"; then
  pass=$((pass + 1))
else
  fail=$((fail + 1))
  echo "FAIL --links"
  cat "$dir/l.csv" "$dir/err"
fi
# help
if "$sim" --help | grep -q -- '--network SPEC'; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL --help"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
