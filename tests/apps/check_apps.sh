#!/usr/bin/env bash
# Real applications with topocoll's interposer preloaded give the results
# they give natively (correctness only: no timing).
#
#   check_apps.sh APP INPUTS PMPI LAUNCH...
#
#   APP     melt   LAMMPS's LJ melt (tools/apps/inputs/in.melt, 250 steps):
#                  thermo lines identical to the native run's
#           hpcc   HPC Challenge (N=1000): the preloaded run reports Success=1
#                  and no FAILED check, as the native run does
#           qe     pw.x SCF of 8 Si atoms: the same "!    total energy" line,
#                  to its printed precision, as the native run
#   INPUTS  tools/apps/inputs
#   PMPI    libtopocoll_pmpi.so
#   LAUNCH  the launcher with its process count (mpiexec ... -np N), then
#           optionally env NAME=VALUE... for the ranks (e.g. a virtual topology)
#
# Exits 77 (CTest's SKIP_RETURN_CODE) with the reason when the application's
# program is not installed (Debian packages lammps, hpcc, quantum-espresso;
# scripts/setup.sh installs them).  The runs work in a temporary directory.
set -u
app=${1:-}; inputs=${2:-}; pmpi=${3:-}
[ $# -ge 4 ] || { echo "usage: $0 melt|hpcc|qe INPUTS PMPI LAUNCH..." >&2; exit 2; }
shift 3
launch=("$@")
case $app in
  melt) prog=lmp pkg=lammps ;;
  hpcc) prog=hpcc pkg=hpcc ;;
  qe) prog=pw.x pkg=quantum-espresso ;;
  *) echo "check_apps: unknown application '$app'" >&2; exit 2 ;;
esac
if ! command -v "$prog" >/dev/null; then
  echo "check_apps: SKIP: $prog is not installed (Debian package $pkg; scripts/setup.sh installs it)"
  exit 77
fi
[ -f "$pmpi" ] || { echo "check_apps: $pmpi is missing" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/topocoll-apps.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
export OMP_NUM_THREADS=1

# the process count, from the launcher's -np/-n argument
np=
for ((i = 0; i < ${#launch[@]} - 1; i++)); do
  case ${launch[i]} in -np|-n) np=${launch[i+1]} ;; esac
done
[ -n "$np" ] || { echo "check_apps: no -np in the launcher" >&2; exit 2; }

# runs the application; $1: native or preload; output in $1.out / $1.err
run() {
  local mode=$1 pre=()
  [ "$mode" = preload ] && pre=(env "LD_PRELOAD=$pmpi" TOPOCOLL_STATS=1)
  case $app in
    melt) "${launch[@]}" "${pre[@]}" lmp -nocite -log none -in "$inputs/in.melt" ;;
    hpcc) rm -f hpccoutf.txt; "${launch[@]}" "${pre[@]}" hpcc && cp hpccoutf.txt "$mode.hpccoutf.txt" ;;
    qe) "${launch[@]}" "${pre[@]}" pw.x -in si8.scf.in ;;
  esac > "$mode.out" 2> "$mode.err"
  local rc=$?
  if [ $rc -ne 0 ]; then
    echo "check_apps: the $mode run exited with status $rc; its output:" >&2
    tail -n 30 "$mode.out" "$mode.err" >&2
    exit 1
  fi
}

# what must be identical: the thermo lines, Success, the total energy
result() {
  case $app in
    melt) sed -n '/^ *Step /,/^Loop time/p' "$1.out" | grep -v '^Loop time' ;;
    # (how many PASSED lines PTRANS prints depends on its timing: not compared)
    hpcc) grep -E '^(Success|Failure)=' "$1.hpccoutf.txt"
          echo "FAILED lines: $(grep -c 'FAILED' "$1.hpccoutf.txt")" ;;
    qe) grep -E '^!\s+total energy' "$1.out"; grep -E 'convergence has been achieved' "$1.out" ;;
  esac
}

case $app in
  hpcc)
    p=1 q=$np
    [ "$np" = 4 ] && p=2 q=2
    sed "s/@P@/$p/;s/@Q@/$q/" "$inputs/hpccinf.txt.in" > hpccinf.txt ;;
  qe)
    ld1.x < "$inputs/si.ld1.in" > ld1.out 2>&1 || { echo "check_apps: ld1.x failed:" >&2; tail ld1.out >&2; exit 1; }
    sed "s|outdir = './tmp'|outdir = '$work/tmp'|" "$inputs/si8.scf.in" > si8.scf.in ;;
esac

run native
run preload
native=$(result native)
preload=$(result preload)
echo "native:"; echo "$native"
echo "preloaded:"; echo "$preload"
status=0
if [ -z "$native" ]; then
  echo "check_apps: the native run printed no result to compare" >&2
  status=1
elif [ "$native" != "$preload" ]; then
  echo "check_apps: the preloaded run's result differs from the native one:" >&2
  diff <(echo "$native") <(echo "$preload") >&2
  status=1
fi
if [ "$app" = hpcc ] && ! grep -qx 'Success=1' preload.hpccoutf.txt; then
  echo "check_apps: hpcc preloaded did not report Success=1" >&2
  status=1
fi
# topocoll must have been loaded and have served calls: its run summary.
if ! grep -q '^topocoll stats:' preload.err; then
  echo "check_apps: the preloaded run printed no topocoll run summary: was the interposer loaded?" >&2
  status=1
else
  sed -n '/^topocoll stats:/,$p' preload.err | cut -c1-200
fi
[ $status -eq 0 ] && echo "check_apps: $app at np $np: preloaded result identical to native"
exit $status
