#!/usr/bin/env bash
# Outside test suites for the nonblocking and persistent collectives, run with
# topocoll's interposer preloaded: MPICH's own test/mpi/coll programs
# (nonblocking, nonblocking2, nonblocking3, iallred, ibarrier, the nb* builds
# of the blocking tests over MPI_I<coll> + MPI_Wait, and the persistent p_*
# programs where mpi.h is MPI 4) and the OSU Micro-Benchmarks' nonblocking
# collectives (osu_i<coll>) with their validation (-c).  Each program runs
# natively and preloaded (TOPOCOLL_STATS=1), and in the forced mode with one
# TOPOCOLL_<COLL>=<entry> at a time.  docs/development.md, "Outside test
# suites", is the manual.
#
#   scripts/suites.sh [fetch|build|run|all] [options]
#
#   fetch        MPICH's test sources: `apt-get source --download-only mpich`
#                (Debian's source package of the installed MPICH; needs deb-src
#                lines: `bash scripts/setup.sh --suites` adds them), unpacked
#                into the cache.  OSU: from TOPOCOLL_OSU_SRC, a release tarball
#                (osu-micro-benchmarks-X.Y.tar.gz) or an unpacked source tree;
#                no package registry carries it, so without it OSU is skipped.
#   build        compiles the programs per MPI flavour into the cache (-O2, the
#                suites' own flags; their warnings are not topocoll's)
#   run          (default) builds what is missing, then runs; writes
#                results.csv, stats.txt, summary.txt and logs/ under --out
#   all          fetch, build, run
#
#   --flavours L   openmpi,mpich (default: each whose build directory has the
#                  interposer)
#   --suites L     mpich,osu (default both)
#   --modes L      native,preload,forced (default all three)
#   --only RE      only the programs whose name matches the extended regex RE
#   --out DIR      results (default out/suites)
#   --preload F=P  the interposer for flavour F (default
#                  build-F/libtopocoll_pmpi.so; BUILD_DIR_OPENMPI and
#                  BUILD_DIR_MPICH name other build directories)
#   --check        for ctest: exit 77 (skip) when no suite's sources are in the
#                  cache, 1 when a program fails preloaded where it passes
#                  natively, else 0
#
# Open MPI runs each program at np 2 and 4 (oversubscribed on a small
# machine), MPICH at np 2; a program with its own process-count rule runs at
# the counts it accepts.  The cache is ${TOPOCOLL_SUITES_DIR:-~/.cache/topocoll_suites}.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD

cache=${TOPOCOLL_SUITES_DIR:-${HOME:-/root}/.cache/topocoll_suites}
action=run flavours="" suites=mpich,osu modes=native,preload,forced only="" out=out/suites check=0
declare -A preload=()
usage() { sed -n '2,41p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
case ${1:-} in fetch|build|run|all) action=$1; shift ;; esac
while [ $# -gt 0 ]; do
  case $1 in
    --flavours) flavours=$2; shift 2 ;;
    --suites) suites=$2; shift 2 ;;
    --modes) modes=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --preload)
      case $2 in openmpi=?*|mpich=?*) preload[${2%%=*}]=${2#*=} ;;
        *) echo "suites.sh: --preload takes openmpi=PATH or mpich=PATH, not '$2'" >&2; exit 2 ;; esac
      shift 2 ;;
    --check) check=1; shift ;;
    -h|--help) usage 0 ;;
    *) echo "suites.sh: unknown argument $1" >&2; usage ;;
  esac
done
for s in ${suites//,/ }; do
  case $s in mpich|osu) ;; *) echo "suites.sh: unknown suite '$s' (mpich, osu)" >&2; exit 2 ;; esac
done
for m in ${modes//,/ }; do
  case $m in native|preload|forced) ;; *) echo "suites.sh: unknown mode '$m' (native, preload, forced)" >&2; exit 2 ;; esac
done
has() { case ",$1," in *",$2,"*) return 0 ;; esac; return 1; }

# ---- flavours ----------------------------------------------------------------
declare -A mpicc=([openmpi]=mpicc.openmpi [mpich]=mpicc.mpich)
declare -A nps=([openmpi]="2 4" [mpich]="2")
: "${preload[openmpi]:=${BUILD_DIR_OPENMPI:-build-openmpi}/libtopocoll_pmpi.so}"
: "${preload[mpich]:=${BUILD_DIR_MPICH:-build-mpich}/libtopocoll_pmpi.so}"
if [ -z "$flavours" ]; then
  for f in openmpi mpich; do [ -f "${preload[$f]}" ] && flavours+=${flavours:+,}$f; done
  if [ -z "$flavours" ] && [ "$action" != fetch ]; then
    echo "suites.sh: no interposer built (build-openmpi/libtopocoll_pmpi.so, build-mpich/...): run scripts/build.sh" >&2
    exit 2
  fi
fi
for f in ${flavours//,/ }; do
  case $f in openmpi|mpich) ;; *) echo "suites.sh: unknown flavour '$f' (openmpi, mpich)" >&2; exit 2 ;; esac
  if [ "$action" != fetch ]; then
    [ -f "${preload[$f]}" ] || { echo "suites.sh: ${preload[$f]} not found (scripts/build.sh $f)" >&2; exit 2; }
    preload[$f]=$(cd "$(dirname "${preload[$f]}")" && pwd)/$(basename "${preload[$f]}")
    command -v "${mpicc[$f]}" >/dev/null || { echo "suites.sh: ${mpicc[$f]} not found" >&2; exit 2; }
  fi
done

# launch FLAVOUR NP: the launcher's words up to the program
launch() {
  case $1 in
    openmpi) echo "mpirun --oversubscribe --allow-run-as-root --bind-to none --mca mpi_yield_when_idle 1 --mca op ^avx -np $2" ;;
    mpich) echo "mpiexec.mpich -np $2" ;;
  esac
}

# ---- fetch -------------------------------------------------------------------
mpich_src() { ls -d "$cache"/src/mpich-*/test/mpi 2>/dev/null | tail -1; }
osu_src() { [ -f "$cache/src/osu/util/osu_util.c" ] && echo "$cache/src/osu"; }

fetch_mpich() {
  [ -n "$(mpich_src)" ] && { echo "suites: MPICH tests already in $(mpich_src)"; return 0; }
  mkdir -p "$cache/dl" "$cache/src" || return 1
  if ! ls "$cache"/dl/mpich_*.orig.tar.* >/dev/null 2>&1; then
    echo "suites: apt-get source --download-only mpich"
    if ! (cd "$cache/dl" && apt-get source --download-only mpich); then
      echo "suites: apt-get source failed: Debian's deb-src lines are needed (bash scripts/setup.sh --suites, as root)" >&2
      return 1
    fi
  fi
  local tarball
  tarball=$(ls "$cache"/dl/mpich_*.orig.tar.* | tail -1)
  echo "suites: unpacking test/mpi from $(basename "$tarball")"
  tar -xf "$tarball" -C "$cache/src" --wildcards --no-wildcards-match-slash 'mpich-*/test/mpi/include/*' 'mpich-*/test/mpi/util/*' \
      'mpich-*/test/mpi/coll/*' 'mpich-*/test/mpi/dtpools/include/*' 'mpich-*/COPYRIGHT' || return 1
  [ -n "$(mpich_src)" ]
}

fetch_osu() {
  [ -n "$(osu_src)" ] && { echo "suites: OSU already in $(osu_src)"; return 0; }
  local src=${TOPOCOLL_OSU_SRC:-} tmp dir util coll
  if [ -z "$src" ]; then
    echo "suites: OSU Micro-Benchmarks not fetched: no package registry reachable here carries them;" \
         "set TOPOCOLL_OSU_SRC to a release tarball or source tree" >&2
    return 1
  fi
  tmp=$(mktemp -d) || return 1
  if [ -d "$src" ]; then dir=$src
  else tar -xf "$src" -C "$tmp" || { rm -rf "$tmp"; return 1; }; dir=$tmp
  fi
  # Releases 5.x keep util/ and mpi/collective/ at the top, 7.x under c/.
  util=$(find "$dir" -name osu_util.c -path '*util*' | head -1)
  coll=$(find "$dir" -name osu_iallreduce.c -path '*mpi/collective*' | head -1)
  if [ -z "$util" ] || [ -z "$coll" ]; then
    echo "suites: $src has no osu_util.c or mpi/collective/osu_iallreduce.c" >&2; rm -rf "$tmp"; return 1
  fi
  mkdir -p "$cache/src/osu/util" "$cache/src/osu/collective"
  cp "$(dirname "$util")"/* "$cache/src/osu/util/" 2>/dev/null
  cp "$(dirname "$coll")"/*.c "$cache/src/osu/collective/"
  rm -rf "$tmp"
  echo "suites: OSU sources in $cache/src/osu"
}

# ---- build -------------------------------------------------------------------
# MPICH's test programs: name, source, extra flags.  The nb* programs are the
# blocking tests built with USE_MTEST_NBC (MTest_<Coll> = MPI_I<coll> + MPI_Wait),
# as MPICH's own Makefile builds them.
mpich_programs() {
  local s
  for s in nonblocking nonblocking2 nonblocking3 iallred ibarrier; do echo "$s $s.c"; done
  for s in nballtoall1:alltoall1 nbredscat:redscat nbredscat3:redscat3 nbredscatinter:redscatinter \
           nbcoll2:coll2 nbicbarrier:icbarrier nbicallgather:icallgather nbicallgatherv:icallgatherv \
           nbicallreduce:icallreduce nbicbcast:icbcast nbicalltoall:icalltoall nbicalltoallv:icalltoallv \
           nbicalltoallw:icalltoallw nbicgather:icgather nbicgatherv:icgatherv nbicreduce:icreduce \
           nbicscatter:icscatter nbicscatterv:icscatterv; do
    echo "${s%%:*} ${s#*:}.c -DUSE_MTEST_NBC"
  done
  for s in "$1"/coll/p_*.c; do [ -f "$s" ] && echo "$(basename "$s" .c) $(basename "$s") persistent"; done
}

# A minimal mpitestconf.h for a Linux C11 system (what MPICH's configure
# would find; only util/mtest*.c and the coll programs read it).
write_mtest_conf() {
  cat > "$1/mpitestconf.h" <<'EOF'
#ifndef MPITESTCONF_H_INCLUDED
#define MPITESTCONF_H_INCLUDED
#define HAVE_INTTYPES_H 1
#define HAVE_STDARG_H 1
#define HAVE_STDINT_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_STRINGS_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_USLEEP 1
#define HAVE_STRDUP 1
#define HAVE_LONG_LONG 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_PTHREAD_H 1
#define HAVE__BOOL 1
#define HAVE_MPI_WIN_CREATE 1
#define STDC_HEADERS 1
#define SIZEOF_INT 4
#define SIZEOF_LONG 8
#define SIZEOF_LONG_LONG 8
#define SIZEOF_SHORT 2
#define SIZEOF_VOID_P 8
#define POINTERINT_t long
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
#endif
EOF
}

mpi4() { printf '#include <mpi.h>\n#if MPI_VERSION < 4\n#error MPI 3\n#endif\n' | "$1" -E -x c - >/dev/null 2>&1; }

build_mpich() {
  local f=$1 src dir cc name file flag inc
  src=$(mpich_src); [ -n "$src" ] || return 1
  dir=$cache/build-$f/mpich; cc=${mpicc[$f]}
  mkdir -p "$dir" || return 1
  [ -f "$dir/mpitestconf.h" ] || write_mtest_conf "$dir"
  inc=(-I"$dir" -I"$src/include" -I"$src/dtpools/include")
  local o
  for o in mtest mtest_common mtest_single; do
    [ -f "$dir/$o.o" ] || "$cc" -c -O2 -w "${inc[@]}" "$src/util/$o.c" -o "$dir/$o.o" >>"$dir/build.log" 2>&1 ||
      { echo "suites: MPICH's util/$o.c did not build with $cc ($dir/build.log)" >&2; return 1; }
  done
  local built=0 failed=0 is4=""
  while read -r name file flag; do
    [ -x "$dir/$name" ] && continue
    if [ "$flag" = persistent ]; then
      [ -n "$is4" ] || { mpi4 "$cc" && is4=yes || is4=no; }
      [ "$is4" = yes ] || continue   # MPI_<Coll>_init is MPI 4
      flag=""
    fi
    file=$src/coll/$file
    case $name in
      nonblocking2|nonblocking3)
        # Their datatype arrays are int *: an MPICH handle fits, an Open MPI
        # one (a pointer) does not.  The one change made to a suite's source.
        sed -E 's/\bint \*(send|recv)types\b/MPI_Datatype *\1types/' "$file" >"$dir/$name.c"
        file=$dir/$name.c ;;
    esac
    if "$cc" -O2 -w ${flag:+"$flag"} "${inc[@]}" "$file" "$dir"/mtest*.o -lm -o "$dir/$name" >>"$dir/build.log" 2>&1; then
      built=$((built + 1))
    else
      failed=$((failed + 1)); echo "suites: $name did not build ($f)" >&2
    fi
  done < <(mpich_programs "$src")
  echo "suites: MPICH tests for $f: $built built now, $failed failed, in $dir"
}

build_osu() {
  local f=$1 src dir cc u t
  src=$(osu_src); [ -n "$src" ] || return 1
  dir=$cache/build-$f/osu; cc=${mpicc[$f]}
  mkdir -p "$dir" || return 1
  for u in "$src"/util/osu_util*.c; do
    case $u in *nccl*|*pgas*|*rocm*|*cuda*) continue ;; esac
    [ -f "$dir/$(basename "$u" .c).o" ] ||
      "$cc" -c -O2 -w -I"$src/util" "$u" -o "$dir/$(basename "$u" .c).o" >>"$dir/build.log" 2>&1 ||
      echo "suites: OSU's $(basename "$u") did not build with $cc (left out)" >&2
  done
  local built=0 failed=0
  for t in "$src"/collective/osu_i*.c; do
    t=$(basename "$t" .c)
    [ -x "$dir/$t" ] && continue
    if "$cc" -O2 -w -I"$src/util" "$src/collective/$t.c" "$dir"/osu_util*.o -lm -o "$dir/$t" >>"$dir/build.log" 2>&1; then
      built=$((built + 1))
    else
      failed=$((failed + 1)); echo "suites: $t did not build ($f)" >&2
    fi
  done
  echo "suites: OSU for $f: $built built now, $failed failed, in $dir"
}

# ---- run ---------------------------------------------------------------------
# Process counts a program accepts, where they differ from the flavour's.
program_nps() {
  local f=$1 p=$2
  case $p in
    iallred|p_barrier|p_order) echo 2 ;;              # exactly 2 (the program asserts it)
    nbcoll2) [ "$f" = openmpi ] && echo "2 5" || echo 2 ;;  # must divide 10
    *) echo "${nps[$f]}" ;;
  esac
}

# Forced entries: TOPOCOLL_<COLL>=<entry>, each with the programs that call
# that collective (OSU's own and MPICH's broad ones).
forced_sets=(
  "TOPOCOLL_ALLREDUCE=ring osu_iallreduce iallred nonblocking nonblocking3"
  "TOPOCOLL_ALLREDUCE=recursive_doubling osu_iallreduce iallred nonblocking nonblocking3"
  "TOPOCOLL_ALLGATHER=bruck osu_iallgather nonblocking nonblocking3"
  "TOPOCOLL_ALLTOALL=pairwise osu_ialltoall nballtoall1 nonblocking nonblocking3"
  "TOPOCOLL_BCAST=binomial osu_ibcast nonblocking nonblocking3 p_bcast"
  "TOPOCOLL_REDUCE=rabenseifner osu_ireduce nonblocking nonblocking3"
  "TOPOCOLL_REDUCE_SCATTER=ring osu_ireduce_scatter nbredscat nonblocking nonblocking3"
  "TOPOCOLL_BARRIER=dissemination osu_ibarrier ibarrier nonblocking nonblocking3 p_barrier"
)

osu_args() {
  case $1 in
    osu_ibarrier) echo "-i 10 -x 2" ;;   # no data: no -c, no -m
    *) echo "-c -m 1:16384 -i 10 -x 2" ;;
  esac
}

# verdict SUITE PROGRAM LOG RC: pass or fail from the program's own words
verdict() {
  local suite=$1 prog=$2 log=$3 rc=$4
  [ "$rc" -eq 0 ] || { echo fail; return; }
  case $suite in
    mpich) grep -q 'No Errors' "$log" && echo pass || echo fail ;;
    osu)
      if [ "$prog" = osu_ibarrier ]; then
        grep -Eq '^ *[0-9]+\.[0-9]+ ' "$log" && echo pass || echo fail
      elif grep -q 'Fail' "$log" || ! grep -q 'Pass' "$log"; then echo fail
      else echo pass
      fi ;;
  esac
}

# served LOG: the run summary's rows as "coll/np calls: algorithms; ..."
# (a row: collective, np, calls, bytes, three times, then the algorithms)
served() {
  awk '/^topocoll stats:/ {on=1; next}
       on && /^  collective/ {next}
       on && /^  [a-z_]+ +[0-9]+ / {
         u = 0; k = NF + 1
         for (i = 4; i <= NF; i++) if ($i ~ /^(ns|us|ms|s)$/ && ++u == 3) { k = i + 1; break }
         s = ""; for (i = k; i <= NF; i++) s = s (i > k ? " " : "") $i
         printf "%s%s/np%s %s calls: %s", (n++ ? "; " : ""), $1, $2, $3, s; next }
       on {on=0}' "$1" | tr -d '"'
}

# stats_block LOG: the run summary as printed
stats_block() {
  awk '/^topocoll stats:/ {on=1; print; next} on && /^  / {print; next} {on=0}' "$1"
}

csv=""
run_one() {  # suite flavour program np mode env-assignment
  local suite=$1 f=$2 prog=$3 np=$4 mode=$5 force=${6:-} exe args log rc t0 t1 v envs=()
  exe=$cache/build-$f/$suite/$prog
  log=$out/logs/$f-$suite-$prog-np$np-$mode${force:+-${force#TOPOCOLL_}}.log
  if [ ! -x "$exe" ]; then
    echo "$suite,$f,$prog,$np,$mode,$force,not-built,,," >>"$csv"; return
  fi
  [ "$suite" = osu ] && args=$(osu_args "$prog") || args=""
  [ "$mode" = native ] || envs=(LD_PRELOAD="${preload[$f]}" TOPOCOLL_STATS=1)
  [ -n "$force" ] && envs+=("$force")
  t0=$(date +%s.%N)
  # shellcheck disable=SC2046,SC2086
  (cd "$(dirname "$exe")" && timeout -k 10 180 $(launch "$f" "$np") env "${envs[@]}" "./$prog" $args) >"$log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  v=$(verdict "$suite" "$prog" "$log" "$rc")
  [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && v=timeout
  printf '%s,%s,%s,%s,%s,%s,%s,%s,%.2f,"%s"\n' "$suite" "$f" "$prog" "$np" "$mode" "$force" "$v" "$rc" \
    "$(echo "$t1 - $t0" | bc)" "$(served "$log")" >>"$csv"
  if [ "$mode" != native ]; then
    { echo "== $f $prog np $np $mode${force:+ $force}: $v"
      stats_block "$log"
    } >>"$out/stats.txt"
  fi
  printf '  %-8s %-7s %-22s np %s %-8s %-40s %s\n' "$suite" "$f" "$prog" "$np" "$mode" "$force" "$v"
}

programs_of() {  # suite flavour: the built programs' names
  local dir=$cache/build-$2/$1
  case $1 in
    mpich) mpich_programs "$(mpich_src)" | while read -r n _ flag; do
             if [ "$flag" != persistent ] || [ -x "$dir/$n" ]; then echo "$n"; fi; done ;;
    osu) for t in "$(osu_src)"/collective/osu_i*.c; do basename "$t" .c; done ;;
  esac
}

run_all() {
  mkdir -p "$out/logs" || exit 2
  csv=$out/results.csv
  echo "suite,flavour,program,np,mode,forced,result,rc,seconds,served" >"$csv"
  : >"$out/stats.txt"
  local f s p np set force progs built
  for f in ${flavours//,/ }; do
    for s in ${suites//,/ }; do
      [ -d "$cache/build-$f/$s" ] || continue
      for p in $(programs_of "$s" "$f"); do
        [ -n "$only" ] && ! [[ $p =~ $only ]] && continue
        for np in $(program_nps "$f" "$p"); do
          has "$modes" native && run_one "$s" "$f" "$p" "$np" native
          has "$modes" preload && run_one "$s" "$f" "$p" "$np" preload
        done
      done
      has "$modes" forced || continue
      built=" $(programs_of "$s" "$f" | tr '\n' ' ') "
      for set in "${forced_sets[@]}"; do
        read -r force progs <<<"$set"
        for p in $progs; do
          [ -n "$only" ] && ! [[ $p =~ $only ]] && continue
          case $built in *" $p "*) ;; *) continue ;; esac
          for np in $(program_nps "$f" "$p"); do run_one "$s" "$f" "$p" "$np" forced "$force"; done
        done
      done
    done
  done
}

# summary: counts per flavour, suite and mode; a preloaded failure is a
# regression unless the same program fails natively at that np too.
summarize() {
  python3 - "$csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
native = {(r["flavour"], r["suite"], r["program"], r["np"]): r["result"] for r in rows if r["mode"] == "native"}
groups, bad = {}, []
for r in rows:
    key = (r["flavour"], r["suite"], r["mode"])
    g = groups.setdefault(key, {"pass": 0, "fail": 0, "fail natively too": 0, "not built": 0})
    res = r["result"]
    if res == "not-built":
        g["not built"] += 1
    elif res == "pass":
        g["pass"] += 1
    elif r["mode"] != "native" and native.get((r["flavour"], r["suite"], r["program"], r["np"]), "pass") != "pass":
        g["fail natively too"] += 1
    else:
        g["fail"] += 1
        if r["mode"] != "native":
            bad.append(r)
print("suites: runs per flavour, suite and mode")
for (f, s, m), g in sorted(groups.items()):
    print(f"  {f:8s} {s:6s} {m:8s} " + ", ".join(f"{v} {k}" for k, v in g.items() if v or k in ("pass", "fail")))
for r in bad:
    print(f"suites: FAILS preloaded, passes natively: {r['flavour']} {r['program']} np {r['np']} {r['mode']} {r['forced']}")
sys.exit(1 if bad else 0)
EOF
}

# ---- main --------------------------------------------------------------------
fetch_all() {
  local s ok=0
  for s in ${suites//,/ }; do "fetch_$s" && ok=1; done
  [ $ok -eq 1 ]
}
build_all() {
  local f s
  for f in ${flavours//,/ }; do
    for s in ${suites//,/ }; do
      case $s in mpich) [ -n "$(mpich_src)" ] ;; osu) [ -n "$(osu_src)" ] ;; esac || continue
      "build_$s" "$f"
    done
  done
}

case $action in
  fetch) fetch_all; exit $? ;;
  all) fetch_all ;;
esac
present=""
for s in ${suites//,/ }; do
  case $s in mpich) [ -n "$(mpich_src)" ] && present+=" $s" ;; osu) [ -n "$(osu_src)" ] && present+=" $s" ;; esac
done
if [ -z "$present" ]; then
  echo "suites: no suite's sources in $cache (scripts/suites.sh fetch; OSU needs TOPOCOLL_OSU_SRC)"
  [ $check -eq 1 ] && exit 77
  exit 1
fi
build_all
[ "$action" = build ] && exit 0
run_all
summarize | tee "$out/summary.txt"
exit "${PIPESTATUS[0]}"
