#!/usr/bin/env bash
# Prints the MPIR-level collective selection JSON that an MPICH library has
# compiled in (its default MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE), for
# topocoll-tune --mpich-base.  MPICH 4.0 needs every collective in a tuning
# file, so topocoll-tune's export starts from this one.
#
#   mpich-base.sh [LIBMPICH]   (default: the library mpicc.mpich links)
set -euo pipefail
lib=${1:-}
if [ -z "$lib" ]; then
  for c in /usr/lib/x86_64-linux-gnu/libmpich.so.12 /usr/lib/*/libmpich.so.12 /usr/lib/libmpich.so.12; do
    [ -e "$c" ] && { lib=$c; break; }
  done
fi
[ -n "$lib" ] && [ -e "$lib" ] || { echo "mpich-base.sh: no libmpich found; name it" >&2; exit 2; }
# the MPIR-level table: MPIR_ algorithms and the collectives' inter trees
out=$(strings -n 64 "$lib" | grep '^{"collective=' | grep '"algorithm=MPIR_Bcast_intra_binomial"' | head -1)
[ -n "$out" ] || { echo "mpich-base.sh: $lib has no MPIR selection JSON" >&2; exit 1; }
printf '%s\n' "$out"
