#!/usr/bin/env python3
"""The exposed time of topocoll's nonblocking call against the MPI library's,
with a change and without it (measure_newer.sh overlap_base): per layout,
collective and size, the ratio (t_total - t_cpu of auto) / (the same of
native) in each launch, its range and median over the launches, for the base
build and the new one.

    overlap_base_summary.py DIR [DIR...]   (rN_{new,base}_ov_LAYOUT_COLL.csv)
"""
import csv
import glob
import os
import statistics
import sys


def read(dirs):
    rows, launches = {}, set()
    for d in dirs:
        for f in glob.glob(os.path.join(d, 'r*_*_ov_*_*.csv')):
            launch, which, _, layout, coll = os.path.basename(f)[:-4].split('_', 4)
            launch = os.path.join(d, launch)
            launches.add(launch)
            for row in csv.DictReader(open(f)):
                if row['status'] != 'ok':
                    continue
                exposed = float(row['t_total_us']) - float(row['t_cpu_us'])
                rows.setdefault((layout, coll, int(row['bytes']), which, launch), {})[row['algorithm']] = exposed
    return rows, sorted(launches)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rows, launches = read(sys.argv[1:])
    print('layout coll       bytes | base: auto/native exposed time, range, median (launches) '
          '| new: the same')
    for layout in ('v2x2', 'np2'):
        for coll in ('allreduce', 'alltoall', 'allgather', 'bcast'):
            for size in (8, 512, 65536):
                line = f'{layout:5} {coll:10} {size:6} |'
                for which in ('base', 'new'):
                    ratios = []
                    for launch in launches:
                        x = rows.get((layout, coll, size, which, launch), {})
                        if 'auto' in x and x.get('native', 0) > 0:
                            ratios.append(x['auto'] / x['native'])
                    if ratios:
                        line += (f' {min(ratios):5.2f}-{max(ratios):5.2f} median '
                                 f'{statistics.median(ratios):5.2f} ({len(ratios)}) |')
                    else:
                        line += ' (none) |'
                print(line)


if __name__ == '__main__':
    main()
