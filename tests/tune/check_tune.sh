#!/usr/bin/env bash
# topocoll-tune tests (no timing assertions: only what the files say and
# what the libraries do with them).
#
#   check_tune.sh load    TUNE BENCH NP SPEC -- LAUNCHER...  a short tune of allgather and bcast:
#                                          the table holds the learner's outcomes (native tried, the
#                                          winner the fastest it agreed on); the library loads it as a
#                                          tuning file (explain names its rules) and as a learn file
#                                          (warm start: nothing explored, its rules unchanged after)
#   check_tune.sh resume  TUNE NP -- LAUNCHER...    --stop-after 1, then --resume: the learned key
#                                          comes from the file (not explored again), the rest is learned
#   check_tune.sh comms   TUNE -- LAUNCHER...       --comms world,pernode,half at np 4 on 2x2: rules
#                                          for (np 4, 2 nodes), (np 2, 2 nodes), (np 2, 1 node)
#   check_tune.sh options TUNE -- LAUNCHER...       malformed options and a malformed file to resume
#                                          from: exit status 2 (1), a message
#   check_tune.sh ompi    TUNE PROG -- LAUNCHER...  Open MPI export of a learned file: the run is
#                                          correct and its point-to-point traffic is that of the
#                                          named algorithm
#   check_tune.sh mpich   TUNE PROG BASE_SH -- LAUNCHER...  MPICH export loads and runs correctly
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

check_table() {   # table: loads as JSON, its rules are the learner's outcomes
  python3 - "$1" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
rules = [r for k, v in t.items() if not k.startswith("_") for r in v]
assert t.get("_tuned", {}).get("tool") == "topocoll-tune", "no _tuned description"
assert rules, "no rules"
m = t.get("_model")
assert isinstance(m, dict) and "fitted" in m and any(l in m for l in ("socket", "node", "network")), \
    "no fitted _model section: %s" % m
for lvl in ("socket", "node", "network"):
    if lvl in m:
        assert m[lvl]["alpha"] > 0 and m[lvl]["beta"] > 0, "model %s: %s" % (lvl, m[lvl])
for r in rules:
    for f in ("np", "nodes", "bytes", "algorithms", "origin", "evidence", "note"):
        assert f in r, "rule without %s: %s" % (f, r)
    assert r["origin"] == "learned", r
    assert r["np"][0] == r["np"][1] and r["nodes"][0] == r["nodes"][1], "one shape per rule: %s" % r
    lo, hi = r["bytes"]
    assert hi > lo and (lo == 0 or (lo & (lo - 1)) == 0), "a size class [2^k, 2^(k+1)): %s" % r
    ev, win = r["evidence"], r["algorithms"][0]
    tried = dict((n, s) for n, s in ev["tried"])
    assert "native" in tried, "native not among the candidates: %s" % r
    assert win in tried and tried[win] == ev["winner_s"] > 0, "the winner's agreed time: %s" % r
    live = [s for s in tried.values() if s > 0]
    # Native keeps the key unless another beats it by the learner's margin
    # (3 % and 0.02 us, the price of leaving the MPI library's own path).
    best = min(live)
    if win == "native":
        assert ev["winner_s"] <= best * 1.03 + 0.02e-6, "native kept against a clear winner: %s" % r
    else:
        assert ev["winner_s"] <= best, "the winner is not the fastest it agreed on: %s" % r
    assert ev["calls"] > 0 and ev["explore_s"] >= 0, r
    if ev["native_s"] > 0:
        assert abs(r["ratio"] - ev["winner_s"] / ev["native_s"]) < 1e-9, r
print("%d rules" % len(rules))
PY
}

do_load() {
  local tune=$1 bench=$2 np=$3 spec=$4; shift 4; split_launcher "$@"
  local topo=(); [ "$spec" != "-" ] && topo=(-t "$spec")
  if "${launcher[@]}" "$np" "$tune" "${topo[@]}" --colls allgather,bcast --sizes 8,4K \
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
  python3 - "$dir/t.json" <<'PY' && ok "a rule per collective and size" || bad "rules per point"
import json, sys
t = json.load(open(sys.argv[1]))
for coll in ("allgather", "bcast"):
    got = sorted(r["bytes"][0] for r in t[coll])
    assert got == [8, 4096], "%s: classes from %s" % (coll, got)
assert t["_tuned"]["complete"] is True and t["_tuned"]["learned"] == 4, t["_tuned"]
PY
  "${launcher[@]}" 1 "$tune" --from "$dir/t.json" --export-ompi "$dir/t.ompi" && grep -q "# allgather" "$dir/t.ompi" \
    && ok "the learned table exports for Open MPI" || bad "export of the learned table"
  for coll in allgather bcast; do
    TOPOCOLL_LEARN=0 TOPOCOLL_TUNING_FILE=$dir/t.json TOPOCOLL_EXPLAIN=1 "${launcher[@]}" "$np" "$bench" "${topo[@]}" \
      -c $coll -a auto -s 8,4K -r 1 -i 1 -w 0 -q > "$dir/run.out" 2>&1 || { cat "$dir/run.out"; bad "$coll run"; continue; }
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
  # the same file as TOPOCOLL_LEARN_FILE: a warm start (nothing explored at
  # the tuned sizes), and the file's rules unchanged after the run
  cp "$dir/t.json" "$dir/warm.json"
  TOPOCOLL_LEARN=1 TOPOCOLL_LEARN_FILE=$dir/warm.json TOPOCOLL_EXPLAIN=1 "${launcher[@]}" "$np" "$bench" "${topo[@]}" -c allgather \
    -a auto -s 8,4K -r 1 -i 20 -w 0 --learn-warmup 0 -q > "$dir/warm.out" 2>&1 || { cat "$dir/warm.out"; bad "warm run"; }
  python3 - "$dir/t.json" "$dir/warm.json" "$dir/warm.out" <<'PY' && ok "warm start: no exploration, rules kept" || bad "warm start"
import json, sys
before, after, out = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), open(sys.argv[3]).read()
lines = [l for l in out.splitlines() if "topocoll explain: allgather" in l]
assert lines, "no explain lines"
assert not [l for l in lines if "exploring" in l], "explored a key of the file: %s" % lines
for b in (8, 4096):
    assert [l for l in lines if "bytes=%d " % b in l and "from the learn file" in l], "no warm-started choice at %d B" % b
for coll in ("allgather", "bcast"):
    assert before[coll] == after[coll], "%s: the file's rules changed" % coll
PY
}

do_resume() {
  local tune=$1 np=$2; shift 2; split_launcher "$@"
  local args=(--colls reduce --sizes 8,64,512 -o "$dir/r.json")
  "${launcher[@]}" "$np" "$tune" "${args[@]}" -q --stop-after 1 || { bad "first run"; return; }
  python3 -c "
import json
t=json.load(open('$dir/r.json')); assert t['_tuned']['complete'] is False
assert [r['bytes'][0] for r in t['reduce']]==[8], t['reduce']
open('$dir/first','w').write(json.dumps(t['reduce'][0]))" && ok "--stop-after 1: one key, partial table" || bad "--stop-after"
  "${launcher[@]}" "$np" "$tune" "${args[@]}" --resume 2> "$dir/resume.err" || { cat "$dir/resume.err"; bad "resumed run"; return; }
  grep -q "resuming from $dir/r.json (1 learned rules)" "$dir/resume.err" && grep -q "reduce 8: .*from the file" "$dir/resume.err" \
    && ok "--resume: the key of the file settles from it" || { cat "$dir/resume.err"; bad "--resume messages"; }
  python3 -c "
import json
t=json.load(open('$dir/r.json')); assert t['_tuned']['complete'] is True
first=json.load(open('$dir/first')); r0=dict(t['reduce'][0]); r0.pop('oversubscribed', None); first.pop('oversubscribed', None)
assert r0==first, 'the learned key changed: %s' % r0
assert sorted(k for k in t if not k.startswith('_'))==['reduce']
assert [r['bytes'][0] for r in t['reduce']]==[8,64,512], t['reduce']" \
    && ok "--resume: kept the key, learned the rest, same shape" || bad "--resume"
  check_table "$dir/r.json" >/dev/null && ok "resumed table shape" || bad "resumed table shape"
}

do_comms() {
  local tune=$1; shift; split_launcher "$@"
  "${launcher[@]}" 4 "$tune" -t 2x2 --comms world,pernode,half --colls bcast --sizes 8,1K \
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
               "--comms nowhere" "--comms world,,x" "--colls nosuch" "--max-calls 0" "--max-calls x"
               "--keep 1" "--stop-after 0" "--bogus" "--sizes 8:x" "--mpich-base b.json"
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
  echo '{"reduce": [{"np": [1, 1], "origin": "learned"' > "$dir/x.json"
  "${launcher[@]}" 1 "$tune" --resume -o "$dir/x.json" > "$dir/o.out" 2>&1
  [ $? -eq 1 ] && grep -q "$dir/x.json" "$dir/o.out" && ok "--resume from a malformed file: a message naming it" ||
    { cat "$dir/o.out"; bad "--resume from a malformed file"; }
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

# The same winners as the learner writes them (TOPOCOLL_LEARN_FILE): size classes, native as the fallback.
learned_fixture() {
  cat > "$1" <<'JSON'
{ "allgather": [
  { "np": [4, 4], "nodes": [1, 1], "bytes": [64, 128], "algorithms": ["ring", "native"], "origin": "learned", "ratio": 0.9,
    "note": "learned", "evidence": { "ppn": 4, "op_class": 0, "winner_s": 9e-6, "native_s": 1e-5, "calls": 80,
    "tried": [["ring", 9e-6], ["native", 1e-5], ["bruck", -2e-5]] } },
  { "np": [4, 4], "nodes": [1, 1], "bytes": [4096, 8192], "algorithms": ["bruck", "native"], "origin": "learned", "ratio": 0.9,
    "note": "learned", "evidence": { "ppn": 4, "op_class": 0, "winner_s": 9e-5, "native_s": 1e-4, "calls": 80,
    "tried": [["bruck", 9e-5], ["native", 1e-4]] } } ],
  "_learned": { "by": "fixture" } }
JSON
}

do_ompi() {
  local tune=$1 prog=$2; shift 2; split_launcher "$@"
  learned_fixture "$dir/f.json"
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

case "$mode" in
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
