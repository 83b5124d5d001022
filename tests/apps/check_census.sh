#!/usr/bin/env bash
# Runs tests/apps/census_program under the census library (and topocoll's
# interposer after it) and checks the census's JSON report.
#
#   check_census.sh NP REPORT.json PYTHON CHECK.py LAUNCH... PROGRAM
#
# LAUNCH sets LD_PRELOAD and TOPOCOLL_CENSUS=REPORT.json for the ranks.  The
# program must print OK; topocoll's run summary (TOPOCOLL_STATS=1) must
# follow the census's at MPI_Finalize (the finalize chain reaches it).
set -u
[ $# -ge 5 ] || { echo "usage: $0 NP REPORT PYTHON CHECK LAUNCH..." >&2; exit 2; }
np=$1 report=$2 py=$3 check=$4
shift 4
rm -f "$report"
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
status=0
[ $rc -eq 0 ] || { echo "check_census: the program exited with status $rc" >&2; status=1; }
printf '%s\n' "$out" | grep -qx OK || { echo "check_census: no line OK" >&2; status=1; }
printf '%s\n' "$out" | grep -q '^topocoll stats:' ||
  { echo "check_census: no topocoll run summary: MPI_Finalize did not reach the interposer" >&2; status=1; }
if [ ! -f "$report" ]; then
  echo "check_census: no report $report" >&2
  exit 1
fi
"$py" "$check" "$np" "$report" || status=1
exit $status
