#!/usr/bin/env bash
# Everything: set-up, then for Open MPI and for MPICH a -Werror build and the
# whole CTest suite, then a clang build of the Open MPI flavour (-Werror too,
# as scripts/build.sh makes every build) and its unit and layers tests, then
# the address/undefined and thread sanitizer builds.
# Logs go to out/test/.
# Ends with one line "N passed, M failed" over all of it; exits 1 on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh || { echo "0 passed, 1 failed"; exit 1; }

logs=out/test
mkdir -p "$logs"
passed=0 failed=0
summaries=()

# ctest_run NAME BUILD_DIR [ctest args]: runs ctest, adds its counts.
ctest_run() {
  local name=$1 dir=$2 log=$logs/ctest-$1.log line total nfail start
  shift 2
  start=$SECONDS
  # the full output (-V) goes to the log; the console gets one line per test
  # plus the case counts each test program printed
  (cd "$dir" && ctest --output-on-failure -V "$@") > "$log" 2>&1
  grep -E '^ *[0-9]+/[0-9]+ Test +#|tests passed|^[0-9]+: .*[0-9]+ passed, [0-9]+ failed' "$log"
  cases=$(grep -E '^[0-9]+: ([a-z ]+: )?[0-9]+ passed, [0-9]+ failed' "$log" |
          sed -E 's/^[0-9]+: ([a-z ]+: )?([0-9]+) passed, ([0-9]+) failed.*/\2 \3/' |
          awk '{p += $1; f += $2} END {printf "%d cases passed, %d failed", p, f}')
  line=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1)
  if [ -z "$line" ]; then
    line="ctest gave no summary"
    failed=$((failed + 1))
  else
    nfail=$(sed -E 's/^[0-9]+% tests passed, ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$line")
    total=$(sed -E 's/^[0-9]+% tests passed, ([0-9]+) tests? failed out of ([0-9]+).*/\2/' <<<"$line")
    passed=$((passed + total - nfail))
    failed=$((failed + nfail))
  fi
  summaries+=("$name: $line; inside them $cases ($((SECONDS - start)) s)")
}

# build NAME FLAVOR [cmake args]: counts a failed build as one failure.
build() {
  local name=$1 flavor=$2 log=$logs/build-$1.log start=$SECONDS
  shift 2
  if BUILD_DIR=build-$name bash scripts/build.sh "$flavor" "$@" >"$log" 2>&1; then
    summaries+=("$name: build ok ($((SECONDS - start)) s, $(grep -c 'warning:' "$log") warnings)")
    return 0
  fi
  tail -n 40 "$log"
  summaries+=("$name: BUILD FAILED (see $log)")
  failed=$((failed + 1))
  return 1
}

# The verifier sweeps (label verify) link no MPI: they run once, in the
# Open MPI build; the MPICH build runs everything else.
# ctest -j2: tests of one process (the MPI-free ones, np 1 MPI runs) share
# the two slots; an MPI run of np >= 2 asks for both (PROCESSORS, see the end
# of tests/CMakeLists.txt), so it never overlaps anything.
for flavor in openmpi mpich; do
  echo "==== $flavor"
  if build "$flavor" "$flavor"; then
    if [ "$flavor" = mpich ]; then
      ctest_run "$flavor" "build-$flavor" -j2 -LE verify
    else
      ctest_run "$flavor" "build-$flavor" -j2
    fi
  fi
done

echo "==== openmpi, clang, -Werror"
if OMPI_CC=clang build openmpi-clang openmpi -DCMAKE_C_COMPILER=clang; then
  ctest_run openmpi-clang build-openmpi-clang -j2 -L "unit|layers"
fi

# AddressSanitizer + UndefinedBehaviorSanitizer: the tests without MPI with
# leak checking (the verifier sweeps on one case in four: they are 3-4x
# slower here); MPI runs with leak checking off (Open MPI's own allocations
# at exit are not ours; docs/bench.md shows the benchmark under valgrind with
# tools/bench/valgrind-mpi.supp for leaks there).
# The sanitizer builds build only the programs their tests run (the clang
# build above compiles everything with -Werror): topocoll_local_tests (labels
# unit and verify, tests/CMakeLists.txt) and the MPI programs below.
echo "==== openmpi, address + undefined sanitizers"
if BUILD_TARGETS="topocoll_local_tests test_matrix test_alltoallv test_bad_input test_allreduce_ops topocoll-bench test_learn_on_scratch" \
   build openmpi-asan openmpi -DTOPOCOLL_SANITIZE=address,undefined; then
  TOPOCOLL_VERIFY_STRIDE=4 ctest_run openmpi-asan-local build-openmpi-asan -j2 -L "unit|verify"
  ASAN_OPTIONS=detect_leaks=0 ctest_run openmpi-asan-mpi build-openmpi-asan \
    -R "openmpi_(allgather_matrix_np(3|4)|alltoallv_np4|bad_input_np2|bench_np4|allreduce_ops_(tiled_hier|hier)_cma_np4|learn_on_scratch_np3)$"
fi

# ThreadSanitizer: the unit tests (among them the MPI-free shared state from
# many threads) and the MPI_THREAD_MULTIPLE stress test at np 2 under Open
# MPI; the test sets TSAN_OPTIONS with tests/tsan.supp (reports inside the
# MPI library and its runtime only), any report fails it.
echo "==== openmpi, thread sanitizer"
if BUILD_TARGETS="topocoll_local_tests test_threads" \
   build openmpi-tsan openmpi -DTOPOCOLL_SANITIZE=thread -DTOPOCOLL_BUILD_TOOLS=OFF; then
  ctest_run openmpi-tsan build-openmpi-tsan -j2 -R "^unit_|^openmpi_threads_np2$"
fi

# >>> emulated cluster (tests/cluster/run_cluster_tests.sh, docs/cluster.md)
# 3 emulated hosts (network, UTS, IPC and mount namespaces, a bridge in its own
# namespace): topocoll with real node detection, Open MPI and (best effort)
# MPICH, a fault, and a check that teardown leaves nothing.  Needs root and
# unshare; skipped with a message (not counted) without them.
echo "==== emulated cluster (tests/cluster)"
if [ "$(id -u)" -ne 0 ] || [ ! -x /usr/bin/python3 ] || ! command -v ip >/dev/null 2>&1 ||
   ! unshare --net --uts --ipc --mount true >/dev/null 2>&1; then
  echo "cluster: skipped: needs root, python3, iproute2 and a working unshare (namespaces)"
  summaries+=("cluster: skipped (needs root, python3, iproute2 and unshare)")
else
  cluster_start=$SECONDS
  timeout -k 10 600 bash tests/cluster/run_cluster_tests.sh 2>&1 | tee "$logs/cluster.log"
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$logs/cluster.log" | tail -n 1)
  if [ -z "$line" ]; then
    line="no summary (see $logs/cluster.log)"
    failed=$((failed + 1))
  else
    passed=$((passed + $(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$line")))
    failed=$((failed + $(sed -E 's/^[0-9]+ passed, ([0-9]+) failed$/\1/' <<<"$line")))
  fi
  summaries+=("cluster: $line ($((SECONDS - cluster_start)) s)")
fi
# <<< emulated cluster

echo
echo "==== summary (logs in $logs/)"
printf '%s\n' "${summaries[@]}"
echo "total: $SECONDS s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
