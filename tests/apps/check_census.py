#!/usr/bin/env python3
"""Checks the census library's report of tests/apps/census_program.c.

    check_census.py NP CENSUS.json

The program makes, on MPI_COMM_WORLD of NP ranks: 1 MPI_Ibarrier, and 3
MPI_Barrier, 1 MPI_Scan, 2 MPI_Gatherv of rank+1 ints and 1 MPI_Allreduce,
which the census must leave out (topocoll serves them).
"""
import json
import sys


def main():
    np_, path = int(sys.argv[1]), sys.argv[2]
    with open(path) as f:
        report = json.load(f)
    rows = {(r["collective"], r["comm_size"]): r for r in report["collectives"]}
    want = {
        "MPI_Ibarrier": dict(calls=1, bytes=0, zero_byte_calls=np_),
    }
    errors = []
    if report.get("ranks") != np_:
        errors.append(f'ranks {report.get("ranks")}, expected {np_}')
    for coll, fields in want.items():
        row = rows.get((coll, np_))
        if row is None:
            errors.append(f"no row for {coll} at np {np_}")
            continue
        if row["ranks"] != np_:
            errors.append(f'{coll}: counted on {row["ranks"]} ranks, expected {np_}')
        for k, v in fields.items():
            if row[k] != v:
                errors.append(f"{coll}: {k} {row[k]}, expected {v}")
    extra = sorted({c for c, _ in rows} - set(want))
    if extra:
        errors.append(f"counted collectives the program did not call, or topocoll serves: {', '.join(extra)}")
    for e in errors:
        print(f"check_census: {e}", file=sys.stderr)
    if not errors:
        print(f"check_census: {len(want)} collectives counted as made, at np {np_}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
