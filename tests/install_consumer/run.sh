#!/usr/bin/env bash
# The install_consumer test: install the build tree into a temporary prefix,
# then build tests/install_consumer against it twice, with CMake
# (find_package(topocoll)) and with `pkg-config --cflags --libs topocoll`, and
# run both consumers under mpiexec.
#
#   run.sh BUILD_DIR CONSUMER_SOURCE_DIR C_COMPILER MPI_C_COMPILER MPIEXEC [MPIEXEC_FLAGS...]
set -euo pipefail
[ $# -ge 5 ] || { echo "usage: $0 BUILD_DIR SOURCE_DIR C_COMPILER MPI_C_COMPILER MPIEXEC [FLAGS...]" >&2; exit 2; }
build=$1 src=$2 cc=$3 mpicc=$4 mpiexec=$5
shift 5

work=$(mktemp -d "${TMPDIR:-/tmp}/topocoll-install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

step() { echo "== $*"; }

step "cmake --install $build --prefix $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; exit 1; }
[ -f "$prefix/include/topocoll.h" ] || { echo "install: no include/topocoll.h" >&2; exit 1; }
cfg=$(find "$prefix" -name topocollConfig.cmake | head -n 1)
pc=$(find "$prefix" -name topocoll.pc | head -n 1)
[ -n "$cfg" ] || { echo "install: no topocollConfig.cmake" >&2; exit 1; }
[ -n "$pc" ] || { echo "install: no topocoll.pc" >&2; exit 1; }
libdir=$(dirname "$(dirname "$(dirname "$cfg")")")      # <libdir>/cmake/topocoll/...
echo "   config: $cfg"
echo "   pkg-config file: $pc"

step "configure and build the consumer with find_package(topocoll)"
cmake -S "$src" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
      -DMPI_C_COMPILER="$mpicc" -DCMAKE_BUILD_TYPE=Release >"$work/configure.log" 2>&1 \
  || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" || exit 1

step "run it: $mpiexec $*"
out=$("$mpiexec" "$@" "$work/build/consumer" 2>&1) || { echo "$out"; echo "consumer (cmake) failed" >&2; exit 1; }
echo "$out"
grep -q '^consumer OK' <<<"$out" || { echo "consumer (cmake): no \"consumer OK\"" >&2; exit 1; }

step "build the consumer with pkg-config"
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs topocoll)
echo "   pkg-config --cflags --libs topocoll: $flags"
# shellcheck disable=SC2086  # flags are words
"$mpicc" -std=c11 -Wall -Wextra "$src/main.c" $flags -Wl,-rpath,"$libdir" -o "$work/consumer_pc" || exit 1
out=$("$mpiexec" "$@" "$work/consumer_pc" 2>&1) || { echo "$out"; echo "consumer (pkg-config) failed" >&2; exit 1; }
echo "$out"
grep -q '^consumer OK' <<<"$out" || { echo "consumer (pkg-config): no \"consumer OK\"" >&2; exit 1; }
echo "install_consumer: passed"
