#!/usr/bin/env bash
# pw.x (Quantum ESPRESSO's SCF of 8 silicon atoms, tools/apps/inputs) in
# alternating rounds of several modes, the modes' order rotating per round,
# to tell which part of the preloaded library a difference in wall time
# comes from:
#   native    the MPI library alone
#   topocoll  libtopocoll_pmpi.so preloaded
#   disabled  preloaded with TOPOCOLL_DISABLE=1 (loaded, every call passed on)
#   learn0    preloaded with TOPOCOLL_LEARN=0 (the selection table decides)
#   ctxnever  preloaded with TOPOCOLL_CONTEXT_AFTER=1000000 (no context on a
#             communicator but MPI_COMM_WORLD: the MPI library serves the rest)
#   ctx64     preloaded with TOPOCOLL_CONTEXT_AFTER=64
#
#   tools/apps/qe_modes.sh BUILD_DIR OUT [N] [np2|2x2]
#
# N rounds (default 20), layout 2x2 (default: 4 ranks, the virtual topology
# of 2 nodes x 2, oversubscribed where the machine has fewer cores) or np2
# (2 ranks bound to cores); MODES (environment) picks modes.  Writes
# OUT/runs.csv (mode, round, mpirun wall s, PWSCF wall s, total energy) and
# OUT/summary.txt (per mode the median wall time and the per-round ratio to
# native's run of the same round: median, quartiles, geometric mean with two
# standard errors).  Needs Debian's quantum-espresso (pw.x, ld1.x).
set -euo pipefail
build=$(cd "${1:?usage: qe_modes.sh BUILD_DIR OUT [N] [np2|2x2]}" && pwd)
out=${2:?usage: qe_modes.sh BUILD_DIR OUT [N] [np2|2x2]}
n=${3:-20} layout=${4:-2x2}
inputs=$(cd "$(dirname "$0")/inputs" && pwd)
command -v pw.x > /dev/null || { echo "qe_modes.sh: pw.x not found (apt-get install quantum-espresso)" >&2; exit 2; }
mkdir -p "$out"; out=$(cd "$out" && pwd)
. "$(dirname "$0")/rounds.sh"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
(cd "$work" && ld1.x < "$inputs/si.ld1.in" > ld1.out 2>&1) || { echo "qe_modes.sh: ld1.x failed" >&2; exit 1; }
cp "$inputs/si8.scf.in" "$work/"
pre=$build/libtopocoll_pmpi.so
declare -A env=(
  [native]="" [topocoll]="LD_PRELOAD=$pre" [disabled]="LD_PRELOAD=$pre TOPOCOLL_DISABLE=1"
  [learn0]="LD_PRELOAD=$pre TOPOCOLL_LEARN=0" [ctxnever]="LD_PRELOAD=$pre TOPOCOLL_CONTEXT_AFTER=1000000"
  [ctx64]="LD_PRELOAD=$pre TOPOCOLL_CONTEXT_AFTER=64")
modes=${MODES:-native topocoll disabled ctxnever}
for m in $modes; do
  [ -n "${env[$m]+set}" ] || { echo "qe_modes.sh: unknown mode '$m'" >&2; exit 2; }
done
case $layout in
  np2) run=(-np 2 --bind-to core) ;;
  2x2) run=(-np 4 -x TOPOCOLL_TOPOLOGY=2x2)
       [ "$(nproc)" -lt 4 ] && run+=(--oversubscribe --bind-to none --mca mpi_yield_when_idle 1) ;;
  *) echo "qe_modes.sh: unknown layout '$layout' (np2, 2x2)" >&2; exit 2 ;;
esac
echo "mode,round,wall_s,pwscf_s,energy" > "$out/runs.csv"
uptime > "$out/load_before.txt"
run_one() {   # mode round
  local t0 t1 pwscf energy
  t0=$(date +%s.%N)
  (cd "$work" && mpirun --allow-run-as-root --mca op ^avx -x OMP_NUM_THREADS=1 "${run[@]}" "${x[@]}" \
     pw.x -in si8.scf.in > pw.out 2>&1) || true
  t1=$(date +%s.%N)
  pwscf=$(sed -n 's/^ *PWSCF *:.* \([0-9.]*\)s WALL.*/\1/p' "$work/pw.out" | tail -1)
  energy=$(sed -n 's/^! *total energy *= *\([-0-9.]*\) Ry.*/\1/p' "$work/pw.out" | tail -1)
  echo "$1,$2,$(echo "$t1 - $t0" | bc),$pwscf,$energy" >> "$out/runs.csv"
}
rounds "$n" run_one
uptime > "$out/load_after.txt"
python3 - "$out" "$layout" <<'PY'
import csv, math, statistics as st, sys
out, layout = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(f"{out}/runs.csv")))
modes = list(dict.fromkeys(r["mode"] for r in rows))
by = {(r["mode"], r["round"]): r for r in rows}
with open(f"{out}/summary.txt", "w") as f:
    f.write(f"pw.x (Si8, 20 Ry), layout {layout}, {len(rows) // len(modes)} alternating rounds, the modes' order rotating\n")
    f.write("total energies: " + ", ".join(sorted({r['energy'] for r in rows})) + "\n\n")
    f.write("mode       median wall s | per round / native: median (q25-q75), geometric mean (two standard errors)\n")
    for m in modes:
        walls = [float(r["wall_s"]) for r in rows if r["mode"] == m]
        line = f"{m:10} {st.median(walls):12.3f} |"
        if m != "native":
            rat = [float(by[(m, k)]["wall_s"]) / float(by[("native", k)]["wall_s"])
                   for (mm, k) in by if mm == m and ("native", k) in by]
            if len(rat) < 2:
                f.write(line + f" {rat[0]:.3f} (one round)\n")
                continue
            q = st.quantiles(rat, n=4)
            logs = [math.log(x) for x in rat]
            g, se = st.mean(logs), st.stdev(logs) / math.sqrt(len(logs))
            line += (f" {st.median(rat):.3f} ({q[0]:.3f}-{q[2]:.3f}), {math.exp(g):.3f} "
                     f"({math.exp(g - 2 * se):.3f}-{math.exp(g + 2 * se):.3f})")
        f.write(line + "\n")
print(open(f"{out}/summary.txt").read())
PY
