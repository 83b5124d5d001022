#!/usr/bin/env bash
# Where HPC Challenge's MPIRandomAccess loses speed under the preload:
# alternating hpcc runs at np 2 (ranks bound to cores) in these modes,
#   native     the MPI library alone
#   topocoll   libtopocoll_pmpi.so preloaded
#   disabled   preloaded with TOPOCOLL_DISABLE=1 (loaded, every call passed on)
#   dup1       no topocoll: comm_shim.c preloaded, one MPI_Comm_dup at MPI_Init
#   dup6       the same with six duplicates
#   win_dup5   the shim's node-shared window and five duplicates (about the
#              communicators and windows topocoll's MPI_COMM_WORLD context makes)
#   iallreduce one MPI_Iallreduce on MPI_COMM_WORLD at MPI_Init, no communicator
#   pass       no topocoll: pass_shim.c preloaded, the request-completion
#              calls interposed and passed on (the least any PMPI tool that
#              sees them adds)
#   empty      no topocoll: empty_shim.c preloaded, a library that defines
#              no MPI function (the cost of being preloaded at all)
# and hpcc's own figures per run (MPIRandomAccess and MPIFFT, PTRANS); the
# modes' order rotates from round to round.
#
#   tools/apps/randomaccess_trace.sh BUILD_DIR OUT [N]
#
# Writes OUT/runs.csv (mode, rep, figures) and OUT/summary.md (median and
# quartiles per mode, the ratio of medians to native).  Needs hpcc (Debian's
# package) and Open MPI's mpicc; N alternating rounds (default 20); MODES
# (environment) picks modes, e.g. MODES="native pass topocoll".
set -euo pipefail
build=$(cd "${1:?usage: randomaccess_trace.sh BUILD_DIR OUT [N]}" && pwd)
out=${2:?usage: randomaccess_trace.sh BUILD_DIR OUT [N]}
n=${3:-20}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"; out=$(cd "$out" && pwd)
. "$here/rounds.sh"
command -v hpcc > /dev/null || { echo "randomaccess_trace.sh: hpcc not found (apt-get install hpcc)" >&2; exit 2; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mpicc -O2 -shared -fPIC "$here/comm_shim.c" -o "$work/libcomm_shim.so"
mpicc -O2 -shared -fPIC "$here/pass_shim.c" -o "$work/libpass_shim.so"
mpicc -O2 -shared -fPIC "$here/empty_shim.c" -o "$work/libempty_shim.so"
sed "s/@P@/1/;s/@Q@/2/" "$here/inputs/hpccinf.txt.in" > "$work/hpccinf.txt"
pre=$build/libtopocoll_pmpi.so shim=$work/libcomm_shim.so
declare -A env=(
  [native]="" [topocoll]="LD_PRELOAD=$pre" [disabled]="LD_PRELOAD=$pre TOPOCOLL_DISABLE=1"
  [dup1]="LD_PRELOAD=$shim TC_SHIM_DUPS=1" [dup6]="LD_PRELOAD=$shim TC_SHIM_DUPS=6"
  [win_dup5]="LD_PRELOAD=$shim TC_SHIM_DUPS=5 TC_SHIM_WINDOW=1"
  [iallreduce]="LD_PRELOAD=$shim TC_SHIM_IALLREDUCE=1" [pass]="LD_PRELOAD=$work/libpass_shim.so"
  [empty]="LD_PRELOAD=$work/libempty_shim.so")
modes=${MODES:-native topocoll disabled dup1 dup6 win_dup5 iallreduce pass empty}
for m in $modes; do
  [ -n "${env[$m]+set}" ] || { echo "randomaccess_trace.sh: unknown mode '$m'" >&2; exit 2; }
done
keys="MPIRandomAccess_GUPs MPIRandomAccess_LCG_GUPs MPIFFT_Gflops PTRANS_GBs"
echo "mode,rep,${keys// /,}" > "$out/runs.csv"
uptime > "$out/load_before.txt"
run_one() {   # mode round
  local row=$1,$2 k
  (cd "$work" && rm -f hpccoutf.txt &&
   mpirun --allow-run-as-root --mca op ^avx -np 2 --bind-to core "${x[@]}" hpcc > /dev/null 2>&1) || true
  for k in $keys; do row="$row,$(grep -s "^$k=" "$work/hpccoutf.txt" | sed 's/.*=//' || true)"; done
  echo "$row" >> "$out/runs.csv"
}
rounds "$n" run_one
uptime > "$out/load_after.txt"
python3 - "$out" <<'PY'
import csv, math, statistics as st, sys
out = sys.argv[1]
rows = list(csv.DictReader(open(f"{out}/runs.csv")))
keys = [k for k in rows[0] if k not in ("mode", "rep")]
modes = list(dict.fromkeys(r["mode"] for r in rows))
def vals(m, k):
    return [float(r[k]) for r in rows if r["mode"] == m and r[k]]
with open(f"{out}/summary.md", "w") as f:
    f.write(f"hpcc at np 2, {len(rows) // len(modes)} alternating rounds; median (q25-q75), ratio of medians to native\n\n")
    f.write("| mode | " + " | ".join(keys) + " |\n|---|" + "---|" * len(keys) + "\n")
    for m in modes:
        cells = []
        for k in keys:
            v, b = vals(m, k), vals("native", k)
            if len(v) < 2 or len(b) < 2:
                cells.append("-")
                continue
            q = st.quantiles(v, n=4)
            cells.append(f"{st.median(v):.4g} ({q[0]:.4g}-{q[2]:.4g}) {st.median(v) / st.median(b):.3f}")
        f.write(f"| {m} | " + " | ".join(cells) + " |\n")
    # the same rounds paired: each round's figure over native's in that round
    f.write("\nPer round against native's run of the same round: geometric mean of the ratios "
            "(about 95 % interval: two standard errors)\n\n")
    f.write("| mode | " + " | ".join(keys) + " |\n|---|" + "---|" * len(keys) + "\n")
    for m in modes:
        if m == "native":
            continue
        cells = []
        for k in keys:
            base = {r["rep"]: float(r[k]) for r in rows if r["mode"] == "native" and r[k]}
            logs = [math.log(float(r[k]) / base[r["rep"]]) for r in rows
                    if r["mode"] == m and r[k] and base.get(r["rep"], 0) > 0 and float(r[k]) > 0]
            if len(logs) < 3:
                cells.append("-")
                continue
            mu, se = st.mean(logs), st.stdev(logs) / math.sqrt(len(logs))
            cells.append(f"{math.exp(mu):.3f} ({math.exp(mu - 2 * se):.3f}-{math.exp(mu + 2 * se):.3f})")
        f.write(f"| {m} | " + " | ".join(cells) + " |\n")
print(open(f"{out}/summary.md").read())
PY
