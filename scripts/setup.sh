#!/usr/bin/env bash
# Installs what topocoll needs to build, test and plot, on Debian/Ubuntu.
# Idempotent: when dpkg already lists every package, apt is not touched.
# Run as root (or with sudo available).
set -euo pipefail

# Needed to build and test (both MPI flavours, the clang build, the Fortran
# programs through the interposer).
required=(make cmake pkg-config openmpi-bin libopenmpi-dev mpich libmpich-dev
          libhwloc-dev libjansson-dev clang gfortran)
# Useful, not needed by scripts/test.sh: memory checking, plots.
optional=(valgrind python3-matplotlib)
# >>> emulated cluster (tools/cluster, tests/cluster): ip and tc, python3
optional+=(iproute2 python3)
# <<< emulated cluster
# Real applications for tests/apps and scripts/apps.sh (docs/apps.md): about
# 64 MB to download, 370 MB installed, 10-20 s to install; their four tests
# take about 40 s.  Without them those tests are skipped.
optional+=(lammps hpcc quantum-espresso)

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

missing=()
for p in "${required[@]}" "${optional[@]}"; do
  installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "setup: missing ${missing[*]} and not root (no sudo): install them and rerun" >&2
  exit 1
fi

echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
if ! "${sudo[@]}" apt-get update ||
   ! "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"; then
  echo "setup: apt-get failed" >&2
fi

still=()
for p in "${required[@]}"; do installed "$p" || still+=("$p"); done
if [ ${#still[@]} -gt 0 ]; then
  echo "setup: required packages still missing: ${still[*]}" >&2
  exit 1
fi
for p in "${optional[@]}"; do
  installed "$p" || echo "setup: warning: optional package $p is not installed" >&2
done
echo "setup: done"
