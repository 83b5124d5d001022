#!/usr/bin/env bash
# Installs what topocoll needs to build, test and plot, on Debian/Ubuntu.
# Idempotent: when dpkg already lists every package, apt is not touched.
# Run as root (or with sudo available).
#
#   scripts/setup.sh            the packages below
#   scripts/setup.sh --suites   also Debian's deb-src lines (the same mirrors as
#                               the deb lines), so that scripts/suites.sh fetch
#                               can take MPICH's test programs from Debian's
#                               mpich source package
set -euo pipefail

suites=0
case ${1:-} in
  --suites) suites=1 ;;
  "") ;;
  *) echo "usage: $0 [--suites]" >&2; exit 2 ;;
esac

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

# deb-src entries mirroring the deb ones (deb822 .sources files or one-line
# sources.list), written once to topocoll_src.*; apt-get update after.
enable_deb_src() {
  local d=/etc/apt/sources.list.d f added=0
  if grep -rqsE '^(deb-src |Types:.*deb-src)' /etc/apt/sources.list "$d"; then
    echo "setup: deb-src lines present"
    return 0
  fi
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: deb-src lines are missing and adding them needs root" >&2
    return 1
  fi
  for f in "$d"/*.sources; do
    [ -f "$f" ] || continue
    case $f in *topocoll_src.sources) continue ;; esac
    grep -q '^Types: *deb *$' "$f" || continue
    sed 's/^Types: *deb *$/Types: deb-src/' "$f" >>"$d/topocoll_src.sources"
    echo >>"$d/topocoll_src.sources"
    added=1
  done
  if [ -f /etc/apt/sources.list ] && grep -q '^deb ' /etc/apt/sources.list; then
    grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' >"$d/topocoll_src.list"
    added=1
  fi
  if [ $added -eq 0 ]; then
    echo "setup: no deb lines found to mirror as deb-src" >&2
    return 1
  fi
  echo "setup: deb-src lines added ($d/topocoll_src.*)"
  apt-get update
}
if [ $suites -eq 1 ]; then
  enable_deb_src || exit 1
fi

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
