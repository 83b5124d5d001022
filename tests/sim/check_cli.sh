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
expect_error "unknown collective 'reduce_scater'; collectives: allgather" --coll reduce_scater
expect_error "--bw 'L1=5,L1=6': tier 'L1' given twice" --network twotier:2x2x1 --bw L1=5,L1=6
expect_error "--bw '1e300': expected GB/s" --bw 1e300

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
# help: options, the collectives, the exit codes
if "$sim" --help >"$dir/help" && grep -q -- '--network SPEC' "$dir/help" &&
   grep -q '^collectives: allgather bcast scatter gather reduce reduce_scatter_block' "$dir/help" &&
   grep -q '^exit status: 0 ' "$dir/help" && grep -q ' 2 a bad option' "$dir/help"; then
  pass=$((pass + 1))
else
  fail=$((fail + 1))
  echo "FAIL --help"
  cat "$dir/help"
fi

# expect_run "description" "awk test on stdout" args...: exit status 0
expect_run() {
  what=$1
  prog=$2
  shift 2
  if "$sim" "$@" >"$dir/out" 2>"$dir/err" && awk "$prog" "$dir/out"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $what: topocoll-sim $*"
    cat "$dir/out" "$dir/err"
  fi
}

# The multi-node rooted families (reduce h1_shm .. h4_p2p_chain16k, 18
# entries; bcast h_bin_shm1 .. h_chain64k_p2p, 12): the simulator takes their schedules (node-shared phases inside
# the network nodes) and its checks pass, block and cyclic.
for map in "" "--map 6x3/cyclic"; do
  # shellcheck disable=SC2086
  expect_run "reduce hierarchical $map" '/check: ok/ { n++ } END { exit n != 18 }' \
    --network twotier:2x3x3 --levels node $map --coll reduce --algos 'h?_*' --bytes 1K --check
  # shellcheck disable=SC2086
  expect_run "bcast hierarchical $map" '/check: ok/ { n++ } END { exit n != 12 }' \
    --network twotier:2x3x3 --levels node $map --coll bcast --algos 'h_*' --bytes 1K --check
done

# The hierarchical allreduce with single-copy node phases (h1_cma_rd ..
# h4_cma_ring32k, 12 entries): the simulator takes their schedules (the
# cross-memory reads inside a network node are local operations) and its
# checks pass, block and cyclic.
for map in "" "--map 6x3/cyclic"; do
  # shellcheck disable=SC2086
  expect_run "allreduce hierarchical single copy $map" '/check: ok/ { n++ } END { exit n != 12 }' \
    --network twotier:2x3x3 --levels node $map --coll allreduce --algos 'h?_cma_*' --bytes 1K --check
done

# an absurd bandwidth (1e-300 GB/s): ring on 2x2x1 at 1 byte per core puts
# 3 bytes on every link, 3 / 1e-291 = 3e+291 s, printed with its unit
expect_run "absurd bandwidth keeps the unit" '/^  L1 / { ok = ($NF == "s" && $(NF-1) == "3e+291") } END { exit !ok }' \
  --network twotier:2x2x1 --algos ring --bytes 1 --bw 1e-300 --total-only

# Exact totals past 2^64.  Ring allgather on a switch with 3 nodes of 1 core
# at 2^61 bytes per core: each rank sends 2 blocks up its node's link and
# each node receives 2 blocks down its own, so each of the 6 host links
# carries 2^62 bytes (4.00 EiB) and the tier total is 6 x 2^62 = 3 x 2^63 =
# 27670116110564327424 (24.0 EiB; 9223372036854775808 in 64 bits); bytes
# sent 6 x 2^61 = 13835058055282163712.
big=2305843009213693952
load=4611686018427387904
tot=27670116110564327424
expect_run "2^64 total, text" '/^  host / { ok = ($4 == "4.00" && $8 == "24.0" && $9 == "EiB") } /check: ok/ { c = 1 } END { exit !(ok && c) }' \
  --network switch:nodes=3,c=1 --algos ring --bytes $big --check --csv "$dir/big.csv" --json "$dir/big.json"
if grep -q "^tier,switch:nodes=3,c=1,allgather,ring,ok,3,$big,1,host,,6,6,$load,$load,$tot," "$dir/big.csv" &&
   grep -q "^total,.*,,$tot,6,13835058055282163712,0," "$dir/big.csv"; then
  pass=$((pass + 1))
else
  fail=$((fail + 1))
  echo "FAIL 2^64 total, CSV"
  cat "$dir/big.csv"
fi
if command -v python3 >/dev/null 2>&1; then
  python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))["algorithms"][0]
t = a["tiers"][0]
assert t["total_bytes"] == "27670116110564327424", t
assert t["max_bytes"] == "4611686018427387904" and a["bytes_routed"] == "27670116110564327424", a
assert a["bytes_sent"] == "13835058055282163712" and a["messages"] == 6, a
assert t["used"] == 6 and a["bytes_inside_nodes"] == 0 and a["checked"], a
' "$dir/big.json"
  jrc=$?
else
  grep -q '"total_bytes": "27670116110564327424"' "$dir/big.json"
  jrc=$?
fi
if [ $jrc -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL 2^64 total, JSON"; fi

# The paper's machine, recursive doubling at 64 GiB per core: the ranks send
# 16384 x 16383 x 2^36 bytes (just under 2^64) and the L1 links carry about
# 29.8 EiB in all (13.8 EiB when the 64-bit sum wrapped)
expect_run "64x16x16 at 64G" '/^  L1 / { ok = ($8 == "29.8" && $9 == "EiB") } /check: ok/ { c = 1 } END { exit !(ok && c) }' \
  --network twotier:64x16x16 --algos recursive_doubling --bytes 64G --check --total-only
# ... at 4 TiB per core the ranks would send 16384 x 16383 x 2^42 bytes
# (about 2^70): refused (status 1) with that exact sum
"$sim" --network twotier:64x16x16 --algos recursive_doubling --bytes 4T --total-only >"$dir/out" 2>"$dir/err"
rc=$?
if [ $rc -eq 1 ] && grep -q 'recursive_doubling: error: the ranks send 1180519563123373375488 bytes in all' "$dir/out"; then
  pass=$((pass + 1))
else
  fail=$((fail + 1))
  echo "FAIL 64x16x16 at 4T: status $rc"
  cat "$dir/out" "$dir/err"
fi
# ... and at 1 PiB per core the allgather buffer (16384 x 2^50 = 2^64 bytes)
# is beyond what a schedule addresses: refused up front
expect_error "16384 ranks x 1125899906842624 bytes per core: a buffer of p blocks would pass 2^63-1" \
  --network twotier:64x16x16 --algos recursive_doubling --bytes 1024T

# A 2x2x1 ring at 2^62 bytes per core (its L1 total wrapped to 0): the
# allgather buffer, 4 x 2^62 = 2^64 bytes, is refused up front
expect_error "4 ranks x 4611686018427387904 bytes per core: a buffer of p blocks would pass 2^63-1" \
  --network twotier:2x2x1 --algos ring --bytes 4611686018427387904 --check

# Memory.  200 million ranks: refused from the estimate before anything is
# placed (the limit is given so that the answer does not depend on this
# machine's memory); a bad limit is named.
expect_error "above the memory limit of 8.0 GiB (--mem-limit); --ranks places fewer, --total-only needs" \
  --network switch:nodes=200000000 --algos ring --mem-limit 8G
expect_error "--mem-limit '5x': expected a size of at least 1M" --mem-limit 5x
# The step table of a ring on 400,000 nodes would pass 110 MiB: refused
# while rank 0's rounds are counted (status 1, a failed simulation).
"$sim" --network switch:nodes=400000 --algos ring --mem-limit 110M >"$dir/out" 2>"$dir/err"
if [ $? -eq 1 ] && grep -qF "above the memory limit of 110.0 MiB (--mem-limit); --total-only needs none" "$dir/out"; then
  pass=$((pass + 1))
else
  fail=$((fail + 1))
  echo "FAIL 400000-node ring under 110M:"
  cat "$dir/out" "$dir/err"
fi
# A limit that leaves 1 MiB for per-step loads (1023 steps x 2048 links
# need 8 MiB) re-runs over windows and gives the same estimates.
"$sim" --network switch:nodes=1024 --algos ring --check >"$dir/free" 2>&1
"$sim" --network switch:nodes=1024 --algos ring --check --mem-limit 34M >"$dir/tight" 2>&1
if grep -q "1 pass," "$dir/free" && grep -Eq "\[[2-9][0-9]* passes" "$dir/tight" &&
   [ "$(grep 'estimate:' "$dir/free" | sed 's/\[.*//')" = "$(grep 'estimate:' "$dir/tight" | sed 's/\[.*//')" ] &&
   grep -q "check: ok" "$dir/tight"; then
  pass=$((pass + 1))
else
  fail=$((fail + 1))
  echo "FAIL windows under --mem-limit:"
  cat "$dir/free" "$dir/tight"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
