#!/usr/bin/env bash
# Configures and builds topocoll against one MPI flavour, warnings as errors.
#
#   scripts/build.sh openmpi|mpich [extra cmake arguments...]
#
# Builds in build-<flavour> at the repository root (BUILD_DIR overrides it).
# Later -D arguments win, e.g. -DTOPOCOLL_WERROR=OFF.  BUILD_TARGETS (names
# separated by spaces) builds only those targets and what they need.
set -euo pipefail
cd "$(dirname "$0")/.."

flavor=${1:-}
[ $# -gt 0 ] && shift
case "$flavor" in
  openmpi) mpicc=/usr/bin/mpicc.openmpi; mpiexec=/usr/bin/mpiexec.openmpi ;;
  mpich)   mpicc=/usr/bin/mpicc.mpich;   mpiexec=/usr/bin/mpiexec.mpich ;;
  *) echo "usage: $0 openmpi|mpich [cmake arguments...]" >&2; exit 2 ;;
esac
dir=${BUILD_DIR:-build-$flavor}
jobs=$(nproc 2>/dev/null || echo 2)

cmake -S . -B "$dir" -DMPI_C_COMPILER="$mpicc" -DMPIEXEC_EXECUTABLE="$mpiexec" \
      -DTOPOCOLL_WERROR=ON "$@"
read -ra targets <<<"${BUILD_TARGETS:-}"
if [ ${#targets[@]} -gt 0 ]; then
  cmake --build "$dir" -j "$jobs" --target "${targets[@]}"
else
  cmake --build "$dir" -j "$jobs"
fi
