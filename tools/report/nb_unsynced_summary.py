#!/usr/bin/env python3
"""Summary of results/nonblocking_unsynced: a program that makes nonblocking
calls only (no blocking collective through the interposer).

  nb_unsynced_summary.py DIR

Reads DIR/{openmpi,mpich}_rN_{selected,selected_base,forced}.txt, the lines
of `topocoll-overhead -m nbonly` (topocoll's MPI_I<coll> against the MPI
library's PMPI_I<coll>, alternating batches, one ratio per cell and launch),
and prints per library and cell the median ratio over the launches with its
range: by selection with this build and with the base build, and with
message schedules forced.  Then, from DIR/suites_forced_stats_{before,after}.txt
(the run summaries of scripts/suites.sh's forced runs of MPICH's coll tests),
how many forced runs had their forced entry serve nonblocking calls.
"""
import glob
import os
import re
import statistics
import sys

LINE = re.compile(r"^(\w+)\s+np=(\d+) bytes=(\d+)\s+MPI_I\s+([\d.]+) us\s+PMPI_I\s+([\d.]+) us\s+ratio ([\d.]+)")
RUN = re.compile(r"^== (\S+) (\S+) np (\d+) forced TOPOCOLL_(\w+)=(\S+): (\w+)")


def ratios(directory, lib, form):
    """{(coll, bytes): [ratio per launch]} of one library and form."""
    cells = {}
    for path in sorted(glob.glob(os.path.join(directory, f"{lib}_r*_{form}.txt"))):
        for line in open(path):
            m = LINE.match(line)
            if m:
                cells.setdefault((m.group(1), int(m.group(3))), []).append(float(m.group(6)))
    return cells


def cell_text(values):
    if not values:
        return "-"
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def forced_served(path):
    """{run: nonblocking calls its forced entry served} of a run summary file."""
    runs, current = {}, None
    for line in open(path):
        m = RUN.match(line)
        if m:
            current = (m.group(2), m.group(3), m.group(4).lower(), m.group(5))
            runs[current] = 0
            continue
        if line.startswith("=="):
            current = None
            continue
        if current is None or not re.match(r"  \w", line) or line.startswith("  collective"):
            continue
        coll, entry = current[2], current[3]
        if line.split()[0] != coll:
            continue
        for served in re.finditer(r"(\w+) \(nonblocking\) (\d+)", line):
            if served.group(1) == entry:
                runs[current] += int(served.group(2))
    return runs


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else "."
    for lib in ("openmpi", "mpich"):
        forms = {form: ratios(directory, lib, form) for form in ("selected", "selected_base", "forced")}
        if not any(forms.values()):
            continue
        print(f"{lib}: MPI_I<coll> / PMPI_I<coll>, median over launches (range)")
        print(f"  {'coll':<10} {'bytes':>6} | {'selected':<18} | {'selected, base':<18} | forced messages")
        for key in sorted(forms["selected"], key=lambda k: (k[0], k[1])):
            print(f"  {key[0]:<10} {key[1]:>6} | {cell_text(forms['selected'].get(key)):<18} | "
                  f"{cell_text(forms['selected_base'].get(key)):<18} | {cell_text(forms['forced'].get(key))}")
    before = os.path.join(directory, "suites_forced_stats_before.txt")
    after = os.path.join(directory, "suites_forced_stats_after.txt")
    if os.path.exists(before) and os.path.exists(after):
        b, a = forced_served(before), forced_served(after)
        print(f"MPICH coll tests, forced runs (Open MPI): {sum(1 for v in b.values() if v)} of {len(b)} had the forced "
              f"entry serve nonblocking calls before, {sum(1 for v in a.values() if v)} of {len(a)} after")


if __name__ == "__main__":
    main()
