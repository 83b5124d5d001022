#!/usr/bin/env python3
"""topocoll's choice against the MPI library's own over several launches
(measure_newer.sh colls_auto): per layout, collective and size, the ratio
to native's time of auto (topocoll's selection) and, where measured, of
interposed (MPI_<Coll> through what was preloaded: the null shim, the least
any PMPI layer adds, or topocoll's interposer) in each launch; per ratio its range, its median over the launches
and how many launches were above 1.05.

    auto_native_summary.py DIR [DIR...]   (rN_LAYOUT_COLL.csv)
"""
import csv
import glob
import os
import statistics
import sys

COLUMNS = ('auto', 'interposed')


def read(dirs):
    ratios = {}
    for d in dirs:
        for f in sorted(glob.glob(os.path.join(d, 'r*_*_*.csv'))):
            _, layout, coll = os.path.basename(f)[:-4].split('_', 2)
            times = {}
            for row in csv.DictReader(open(f)):
                if row['status'] == 'ok':
                    times[(int(row['bytes']), row['algorithm'])] = float(row['median_us'])
            for (size, algo), t in times.items():
                native = times.get((size, 'native'), 0)
                if algo in COLUMNS and native > 0:
                    ratios.setdefault((layout, coll, size), {}).setdefault(algo, []).append(t / native)
    return ratios


def cell(r):
    if not r:
        return '(not measured)'
    above = sum(x > 1.05 for x in r)
    return f'{min(r):4.2f}-{max(r):4.2f} median {statistics.median(r):4.2f}, {above:2} of {len(r)} >1.05'


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    ratios = read(sys.argv[1:])
    print('per launch, time / native\'s: min-max, median, launches above 1.05')
    print(f'{"layout":6} {"coll":14} {"bytes":>7} | {"auto (topocoll)":36} | interposed (MPI_<Coll>: the preload\'s)')
    for (layout, coll, size) in sorted(ratios, key=lambda k: (k[0] != 'np2', k[1], k[2])):
        r = ratios[(layout, coll, size)]
        print(f'{layout:6} {coll:14} {size:7} | {cell(r.get("auto")):36} | {cell(r.get("interposed"))}')


if __name__ == '__main__':
    main()
