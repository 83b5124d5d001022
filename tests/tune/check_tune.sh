#!/usr/bin/env bash
# topocoll-tune tests (no timing assertions: only what the files say and
# what the libraries do with them).
#
#   check_tune.sh load    TUNE BENCH NP SPEC -- LAUNCHER...  a short tune of allgather and bcast;
#                                          the library loads the table, and every explain line of
#                                          a run names the file and the algorithm of its rule
#   check_tune.sh resume  TUNE NP -- LAUNCHER...    --stop-after 1, then --resume: the measured
#                                          point is kept, the rest is measured, same table shape
#   check_tune.sh comms   TUNE -- LAUNCHER...       --comms world,pernode,half at np 4 on 2x2: rules
#                                          for (np 4, 2 nodes), (np 2, 2 nodes), (np 2, 1 node)
#   check_tune.sh options TUNE -- LAUNCHER...       malformed options: exit status 2 and a message
#   check_tune.sh ompi    TUNE PROG -- LAUNCHER...  Open MPI export: the run is correct and its
#                                          point-to-point traffic is that of the named algorithm
#   check_tune.sh mpich   TUNE PROG BASE_SH -- LAUNCHER...  MPICH export loads and runs correctly
#   check_tune.sh report  TUNE DATA -- LAUNCHER...  --from DATA/tune_2x2.json --report: the markdown
#                                          names every rule of the table and every measured size,
#                                          one PNG per collective and communicator (a skipped
#                                          case, not a pass, without python3-matplotlib)
#
# LAUNCHER is the MPI launcher up to and including its process-count flag.
set -u
mode=${1:?mode}; shift
dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT
fail=0 passed=0 skipped=0
ok()  { passed=$((passed + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
split_launcher() { while [ $# -gt 0 ] && [ "$1" != "--" ]; do shift; done; shift; launcher=("$@"); }

check_table() {   # table: loads as JSON, has rules with evidence
  python3 - "$1" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
rules = [r for k, v in t.items() if not k.startswith("_") for r in v]
assert "_tuned" in t, "no _tuned description"
assert rules, "no rules"
m = t.get("_model")
assert isinstance(m, dict) and "fitted" in m and any(l in m for l in ("socket", "node", "network")), \
    "no fitted _model section: %s" % m
for lvl in ("socket", "node", "network"):
    if lvl in m:
        assert m[lvl]["alpha"] > 0 and m[lvl]["beta"] > 0, "model %s: %s" % (lvl, m[lvl])
for r in rules:
    for f in ("np", "nodes", "bytes", "algorithms", "origin", "ratio", "spread", "evidence", "note"):
        assert f in r, "rule without %s: %s" % (f, r)
    assert r["origin"] == "measured"
    # a switch beats native beyond its spread; a built-in choice the tune kept
    # (nothing beat it, native included) may sit inside native's noise
    kept = "(the built-in choice: neither native nor another entry beat it" in r["note"]
    assert r["algorithms"][0] == "native" or kept or r["spread"][1] < 1.0, "a switch that does not beat native: %s" % r
print("%d rules" % len(rules))
PY
}

do_load() {
  local tune=$1 bench=$2 np=$3 spec=$4; shift 4; split_launcher "$@"
  local topo=(); [ "$spec" != "-" ] && topo=(-t "$spec")
  if "${launcher[@]}" "$np" "$tune" "${topo[@]}" --colls allgather,bcast --sizes 8,4K -r 2 --keep 2 \
       --time 3m -o "$dir/t.json" 2> "$dir/tune.err"; then ok "tune at np $np"; else
    cat "$dir/tune.err"; bad "tune at np $np exited $?"; return; fi
  grep -q "est\. .* left" "$dir/tune.err" && ok "progress on stderr" || bad "no progress lines"
  check_table "$dir/t.json" && ok "table shape" || bad "table shape"
  # the load at tune time: np ranks unbound on this script's nproc processing
  # units, or Open MPI told to yield when idle (the MPI library's verdict)
  local yields=0 i
  for ((i = 0; i + 1 < ${#launcher[@]}; i++)); do
    [ "${launcher[i]}" = mpi_yield_when_idle ] && [ "${launcher[i + 1]}" = 1 ] && yields=1
  done
  python3 - "$dir/t.json" "$np" "$(nproc)" "$yields" <<'PY' && ok "rules say oversubscribed as detected" || bad "oversubscribed"
import json, sys
t, np_, pus, yields = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
want = np_ > pus or yields
assert t["_tuned"].get("oversubscribed") is want, "_tuned: %s, want %s" % (t["_tuned"], want)
for k, v in t.items():
    if not k.startswith("_"):
        for r in v:
            assert r.get("oversubscribed") is want, "rule %s, want oversubscribed %s" % (r, want)
PY
  # racing: the bases (native, the built-in choice) run every batch; an entry
  # out of the race keeps at least the batches before it; the grid's start
  python3 - "$dir/t.json.state" <<'PY' && ok "state: the bases ran in full, raced entries kept their batches" || bad "race state"
import json, sys
s = json.load(open(sys.argv[1]))
assert s.get("grid_min") == 8, "grid_min %s, want 8 (--sizes 8,4K)" % s.get("grid_min")
for p in s["points"]:
    e = p["entries"]
    full = e["native"]["batches"]
    assert not e["native"].get("raced"), "native raced: %s" % p
    b = p.get("builtin")
    if b in e:
        assert not e[b].get("raced") and e[b]["batches"] == full, "built-in choice raced: %s" % p
    for name, st in e.items():
        assert st["batches"] <= full, "%s has more batches than native: %s" % (name, p)
        if st.get("raced"):
            assert st["batches"] >= 2, "%s left the race before two batches: %s" % (name, p)
        else:
            assert st["batches"] == full, "%s stopped without being raced: %s" % (name, p)
PY
  for coll in allgather bcast; do
    TOPOCOLL_TUNING_FILE=$dir/t.json TOPOCOLL_EXPLAIN=1 "${launcher[@]}" "$np" "$bench" "${topo[@]}" -c $coll \
      -a auto -s 8,4K -r 1 -i 1 -w 0 -q > "$dir/run.out" 2>&1 || { cat "$dir/run.out"; bad "$coll run"; continue; }
    if grep -q "tuning file ignored" "$dir/run.out"; then bad "$coll: the library ignored the file"; continue; fi
    python3 - "$dir/t.json" "$dir/run.out" "$coll" <<'PY' && ok "$coll: explain names the file's choice" || bad "$coll: explain"
import json, re, sys
path, out, coll = sys.argv[1], sys.argv[2], sys.argv[3]
t = json.load(open(path))
pat = re.compile(r"topocoll explain: (\w+) np=(\d+) nodes=(\d+) bytes=(\d+) rank=\d+ -> (\S+) \((.*)\)")
seen = set()
for line in open(out):
    m = pat.search(line)
    if not m or m.group(1) != coll:
        continue
    np_, nodes, b, algo, why = int(m.group(2)), int(m.group(3)), int(m.group(4)), m.group(5), m.group(6)
    want = [r for r in t[coll] if r["np"][0] <= np_ <= r["np"][1] and r["nodes"][0] <= nodes <= r["nodes"][1]
            and r["bytes"][0] <= b and (r["bytes"][1] == 0 or b < r["bytes"][1])]
    assert want, "no rule for %s" % line
    assert algo == want[0]["algorithms"][0], "chose %s, the file says %s" % (algo, want[0]["algorithms"][0])
    assert why.startswith("tuning file " + path + " rule"), "not from the file: %s" % why
    seen.add(b)
assert seen == {8, 4096}, "explain lines for sizes %s" % sorted(seen)
PY
  done
}

do_resume() {
  local tune=$1 np=$2; shift 2; split_launcher "$@"
  local args=(--colls reduce --sizes 8,64,512 -r 2 --keep 1 -o "$dir/r.json" -q)
  "${launcher[@]}" "$np" "$tune" "${args[@]}" --stop-after 1 || { bad "first run"; return; }
  python3 -c "
import json,sys
s=json.load(open('$dir/r.json.state')); assert len(s['points'])==1, len(s['points'])
t=json.load(open('$dir/r.json')); assert t['_tuned']['complete'] is False
open('$dir/first','w').write(json.dumps(s['points'][0]))" && ok "--stop-after 1: one point, partial table" || bad "--stop-after state"
  "${launcher[@]}" "$np" "$tune" "${args[@]}" --resume || { bad "resumed run"; return; }
  python3 -c "
import json
s=json.load(open('$dir/r.json.state')); assert len(s['points'])==3, len(s['points'])
first=json.load(open('$dir/first')); p0=dict(s['points'][0]); p0.pop('confirm', None)
assert p0==first, 'the measured point changed'   # a switch there may since have been measured again
t=json.load(open('$dir/r.json')); assert t['_tuned']['complete'] is True
assert sorted(k for k in t if not k.startswith('_'))==['reduce']
assert sorted({b for r in t['reduce'] for e in r['evidence'] for b in [e[0]]})==[8,64,512]" \
    && ok "--resume: kept the point, measured the rest, same shape" || bad "--resume"
  check_table "$dir/r.json" >/dev/null && ok "resumed table shape" || bad "resumed table shape"
}

do_comms() {
  local tune=$1; shift; split_launcher "$@"
  "${launcher[@]}" 4 "$tune" -t 2x2 --comms world,pernode,half --colls bcast --sizes 8,1K -r 2 --keep 1 \
    -o "$dir/c.json" -q || { bad "tune with three layouts"; return; }
  python3 - "$dir/c.json" <<'PY' && ok "rules for every layout" || bad "layouts"
import json, sys
t = json.load(open(sys.argv[1]))
got = sorted({(r["np"][0], r["nodes"][0]) for r in t["bcast"]})
assert got == [(2, 1), (2, 2), (4, 2)], got
for r in t["bcast"]:
    assert r["np"][0] == r["np"][1] and r["nodes"][0] == r["nodes"][1], r
PY
  check_table "$dir/c.json" >/dev/null && ok "table shape" || bad "table shape"
}

do_options() {
  local tune=$1; shift; split_launcher "$@"
  local cases=("--time abc" "--time 0" "--time -5m" "--factor 1" "--min 0" "--min 1K --max 8"
               "--comms nowhere" "--comms world,,x" "--colls nosuch" "--reps 0" "--reps x" "--margin 2"
               "--noise -1" "--keep -1" "--stop-after 0" "--bogus" "--sizes 8:x" "--mpich-base b.json"
               "--from t.json" "-o" "extra")
  # The launches wait on the launcher's start-up far more than they compute:
  # four at a time, each into its own files, then checked in order.
  local i
  for i in "${!cases[@]}"; do
    # shellcheck disable=SC2086
    { "${launcher[@]}" 1 "$tune" ${cases[$i]} > "$dir/o$i.out" 2>&1; echo $? > "$dir/o$i.rc"; } &
    [ $(((i + 1) % 4)) -eq 0 ] && wait
  done
  wait
  for i in "${!cases[@]}"; do
    local c=${cases[$i]} rc
    rc=$(cat "$dir/o$i.rc")
    if [ "$rc" = 2 ] && grep -q "^topocoll-tune: " "$dir/o$i.out"; then ok "'$c' rejected"; else
      cat "$dir/o$i.out"; bad "'$c': exit $rc"; fi
  done
  "${launcher[@]}" 1 "$tune" --resume --state "$dir/none.state" -o "$dir/x.json" > "$dir/o.out" 2>&1
  [ $? -eq 1 ] && grep -q "cannot resume" "$dir/o.out" && ok "--resume without a state file" || bad "--resume without state"
  "${launcher[@]}" 1 "$tune" --help > "$dir/o.out" 2>&1 && grep -q "^Usage" "$dir/o.out" && ok "--help" || bad "--help"
}

# A table with known winners at np 4 (one node): allgather ring up to 1 KiB, Bruck above.
fixture() {
  cat > "$1" <<'JSON'
{ "allgather": [
  { "np": [4, 4], "nodes": [1, 1], "bytes": [0, 1024], "algorithms": ["ring"], "origin": "measured", "ratio": 0.9, "spread": [0.8, 0.95] },
  { "np": [4, 4], "nodes": [1, 1], "bytes": [1024, 0], "algorithms": ["bruck"], "origin": "measured", "ratio": 0.9, "spread": [0.8, 0.95] } ],
  "bcast": [ { "np": [4, 4], "nodes": [1, 1], "bytes": [0, 0], "algorithms": ["binomial"], "origin": "measured", "ratio": 0.9, "spread": [0.8, 0.95] } ],
  "reduce": [ { "np": [4, 4], "nodes": [1, 1], "bytes": [0, 0], "algorithms": ["native"], "origin": "measured", "ratio": 1, "spread": [0.9, 1.1] } ],
  "_tuned": { "tool": "fixture" } }
JSON
}

# Point-to-point traffic of one run of PROG (Open MPI's pml monitoring), one line per peer.
traffic() {
  local prog=$1 count=$2; shift 2
  rm -f "$dir"/mon.*
  "${launcher[@]}" 4 --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 \
    --mca pml_monitoring_filename "$dir/mon" "$@" "$prog" "$count" > "$dir/prog.out" 2>&1 || return 1
  grep -qx OK "$dir/prog.out" || return 1
  cat "$dir"/mon.*.prof | grep "^I" | cut -f1-5 | sort
}

do_ompi() {
  local tune=$1 prog=$2; shift 2; split_launcher "$@"
  fixture "$dir/f.json"
  "${launcher[@]}" 1 "$tune" --from "$dir/f.json" --export-ompi "$dir/f.ompi" || { bad "export"; return; }
  local dyn=(--mca coll_tuned_use_dynamic_rules 1)
  for n in 64 4096; do
    local want=4 other=2; [ $n -ge 1024 ] && want=2 other=4
    local file forced notforced
    file=$(traffic "$prog" $n "${dyn[@]}" --mca coll_tuned_dynamic_rules_filename "$dir/f.ompi") || { bad "run with the export ($n B)"; continue; }
    ok "correct results with the export ($n B per rank)"
    forced=$(traffic "$prog" $n "${dyn[@]}" --mca coll_tuned_allgather_algorithm $want)
    notforced=$(traffic "$prog" $n "${dyn[@]}" --mca coll_tuned_allgather_algorithm $other)
    if [ -n "$file" ] && [ "$file" = "$forced" ] && [ "$file" != "$notforced" ]; then
      ok "$n B: traffic of Open MPI's allgather algorithm $want, as the export names"
    else bad "$n B: the traffic is not that of algorithm $want"; fi
  done
}

do_mpich() {
  local tune=$1 prog=$2 base_sh=$3; shift 3; split_launcher "$@"
  fixture "$dir/f.json"
  bash "$base_sh" > "$dir/base.json" || { bad "no MPICH base selection"; return; }
  "${launcher[@]}" 1 "$tune" --from "$dir/f.json" --export-mpich "$dir/f.mpich" --mpich-base "$dir/base.json" \
    || { bad "export"; return; }
  python3 - "$dir/f.mpich" <<'PY' && ok "export names MPICH's algorithms" || bad "export content"
import json, sys
t = json.load(open(sys.argv[1]))
intra = t["collective=allgather"]["comm_type=intra"]
assert list(intra)[:2] == ["comm_size<4", "comm_size<=4"], list(intra)
four = intra["comm_size<=4"]
assert four["total_msg_size<4096"] == {"algorithm=MPIR_Allgather_intra_ring": {}}, four
assert four["total_msg_size=any"] == {"algorithm=MPIR_Allgather_intra_brucks": {}}, four
assert "collective=ibcast" in t, "the base's other collectives are kept"
PY
  for n in 64 4096; do
    MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$dir/f.mpich "${launcher[@]}" 4 "$prog" $n > "$dir/prog.out" 2>&1
    if grep -qx OK "$dir/prog.out"; then ok "MPICH runs correctly with the export ($n B)"; else
      cat "$dir/prog.out"; bad "MPICH with the export ($n B)"; fi
  done
}

do_report() {
  local tune=$1 data=$2; shift 2; split_launcher "$@"
  cp "$data/tune_2x2.json" "$data/tune_2x2.json.state" "$dir/" || { bad "copy the saved tune"; return; }
  "${launcher[@]}" 1 "$tune" --from "$dir/tune_2x2.json" --report "$dir/rep" > "$dir/r.out" 2>&1
  local rc=$?
  local have_mpl=0
  /usr/bin/python3 -c "import matplotlib" 2>/dev/null && have_mpl=1
  if [ $have_mpl -eq 1 ]; then
    [ $rc -eq 0 ] && ok "--report exits 0" || { cat "$dir/r.out"; bad "--report exited $rc"; }
  else
    [ $rc -eq 1 ] && grep -q "matplotlib" "$dir/r.out" && ok "--report without matplotlib says so" ||
      { cat "$dir/r.out"; bad "--report without matplotlib: exit $rc"; }
  fi
  [ -s "$dir/rep/report.md" ] && ok "report.md written" || { bad "no report.md"; return; }
  python3 - "$dir/tune_2x2.json" "$dir/tune_2x2.json.state" "$dir/rep/report.md" <<'PY' && ok "report names every rule and size" || bad "report content"
import json, sys
t, s, md = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), open(sys.argv[3]).read()
n = 0
for coll, rules in t.items():
    if coll.startswith("_"):
        continue
    for i, r in enumerate(rules):
        row = "| %s | %d | %s | %s | %s | `%s` | %s |" % (coll, i, r["np"], r["nodes"], r["bytes"],
                                                      "`, `".join(r["algorithms"]), r["origin"])
        assert row in md, "rule %s %d not in the report: %s" % (coll, i, row)
        n += 1
assert n > 0, "the saved table has no rules"
for p in s["points"]:
    head = "### %s, communicator %s" % (p["coll"], p["comm"])
    assert head in md, head
    assert "network" in md and "alpha" in md, "no model parameters"
print("%d rules named" % n)
PY
  local groups
  groups=$(python3 -c 'import json,sys; print(" ".join(sorted({"%s_%s" % (p["coll"], p["comm"]) for p in json.load(open(sys.argv[1]))["points"]})))' "$dir/tune_2x2.json.state")
  for g in $groups; do
    if [ $have_mpl -eq 0 ]; then skipped=$((skipped + 1)); echo "skipped: $g.png (no matplotlib)"; continue; fi
    [ -s "$dir/rep/$g.png" ] && head -c 8 "$dir/rep/$g.png" | grep -q PNG && ok "$g.png" || bad "no $g.png"
  done
}

case "$mode" in
  report) do_report "$@" ;;
  load) do_load "$@" ;;
  resume) do_resume "$@" ;;
  comms) do_comms "$@" ;;
  options) do_options "$@" ;;
  ompi) do_ompi "$@" ;;
  mpich) do_mpich "$@" ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac
if [ $skipped -gt 0 ]; then echo "$passed passed, $fail failed, $skipped skipped"; else
  echo "$passed passed, $fail failed"; fi
[ $fail -eq 0 ] && [ $passed -gt 0 ]
