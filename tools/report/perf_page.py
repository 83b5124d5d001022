#!/usr/bin/env python3
"""Renders the measured data as pages: results/README.md (the index of every
data set) and docs/performance.md with one SVG plot per headline collective
(docs/figures/perf_<set>_<coll>.svg), from results/index.json and the
topocoll-bench CSV files it names.

  python3 tools/report/perf_page.py            # write the pages and plots
  python3 tools/report/perf_page.py --check    # exit 1 if any is not current

Standard library only; the output depends on the data alone (no dates, no
randomness), so --check compares bytes.  Per data set of the index with a
"headline" entry: each collective gets a table (size, the MPI library's time,
topocoll's selection `auto`, their ratio, per variant, and the physical bound
where the set names the network) and a log-log plot of the same columns.
Several files of one variant and collective (repeated launches) are merged:
the median over files of each (algorithm, size) median.
"""
import argparse
import csv
import glob
import json
import math
import os
import re
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def human_bytes(n):
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div and n % div == 0:
            return f"{n // div} {unit}"
    return f"{n} B"


def fmt_us(us):
    if us is None:
        return "-"
    if us >= 10000:
        return f"{us / 1000:.1f} ms"
    if us >= 100:
        return f"{us:.0f} us"
    return f"{us:.2f} us"


def bound_us(coll, size, b):
    """Lower bound from each host's link: the bytes a host must receive over
    it at the measured goodput, plus one message latency where the set
    measured it.  A barrier's bound is one latency: a host learns of the
    others' arrival only through messages, and where each host messages
    every other at once (small messages do not queue on the link) one step
    tells every host of every arrival; one message per step would take
    ceil(log2 hosts) latencies.  size is topocoll-bench's per-rank block."""
    hosts, ppn, rate = b["hosts"], b["ranks_per_host"], b["goodput_bytes_per_s"]
    p = hosts * ppn
    into_host = {
        "allgather": (p - ppn) * size,
        "alltoall": ppn * (p - ppn) * size,
        "alltoallw": ppn * (p - ppn) * size,
        "allreduce": 2.0 * (hosts - 1) / hosts * size,
        "bcast": size,
        "reduce": size,
        # the parts of a host's vectors that belong to other hosts leave over its link
        "reduce_scatter": (p - ppn) * size,
        "scan": size,
        "exscan": size,
        # the root's host receives (sends) every other host's blocks
        "gatherv": (p - ppn) * size,
        "scatterv": (p - ppn) * size,
    }.get(coll)
    # every call that crosses hosts waits at least one message latency
    # (topocoll-pingpong's one-way figure, where the set measured it)
    lat = b.get("one_way_latency_us", 0.0)
    if coll == "barrier":
        return lat if lat > 0 and hosts > 1 else None
    return None if into_host is None else into_host / rate * 1e6 + lat


def read_rows(path):
    with open(path, newline="") as f:
        return [r for r in csv.DictReader(f) if r.get("status") == "ok"]


def collect(set_dir, head):
    """{(coll, np): {variant: {algorithm: {bytes: [median_us, ...]}}}}"""
    if "files" in head:
        files = [os.path.join(set_dir, f) for f in head["files"]]
    else:
        files = sorted(glob.glob(os.path.join(set_dir, "*.csv")))
    regex = re.compile(head["variant_regex"]) if "variant_regex" in head else None
    data = {}
    for path in files:
        variant = ""
        if regex:
            m = regex.search(os.path.basename(path))
            if not m:
                continue
            variant = m.group(1)
        for r in read_rows(path):
            if r["algorithm"] not in ("native", "auto"):
                continue
            key = (r["coll"], int(r["np"]))
            d = data.setdefault(key, {}).setdefault(variant, {}).setdefault(r["algorithm"], {})
            d.setdefault(int(r["bytes"]), []).append(float(r["median_us"]))
    return data


def svg_plot(title, sizes, series, path):
    """series: [(label, {size: us}, style)], style 'solid'|'dash'|'dot'."""
    w, h, ml, mr, mt, mb = 640, 380, 70, 170, 30, 45
    pts = [v for _, s, _ in series for v in s.values() if v]
    lo, hi = min(pts), max(pts)
    import math
    ylo, yhi = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    if yhi == ylo:
        yhi += 1
    xs = sorted(sizes)
    xlo, xhi = math.log2(xs[0]), math.log2(xs[-1])
    if xhi == xlo:
        xhi += 1

    def X(s):
        return ml + (math.log2(s) - xlo) / (xhi - xlo) * (w - ml - mr)

    def Y(v):
        return mt + (yhi - math.log10(v)) / (yhi - ylo) * (h - mt - mb)

    colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#555555"]
    dash = {"solid": "", "dash": ' stroke-dasharray="6,4"', "dot": ' stroke-dasharray="2,3"'}
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{ml}" y="18" font-size="13">{title}</text>']
    for e in range(ylo, yhi + 1):
        y = Y(10 ** e)
        out.append(f'<line x1="{ml}" y1="{y:.1f}" x2="{w - mr}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{ml - 6}" y="{y + 4:.1f}" text-anchor="end">{fmt_us(10 ** e)}</text>')
    for s in xs:
        x = X(s)
        out.append(f'<line x1="{x:.1f}" y1="{mt}" x2="{x:.1f}" y2="{h - mb}" stroke="#eee"/>')
        out.append(f'<text x="{x:.1f}" y="{h - mb + 14}" text-anchor="middle">'
                   f'{human_bytes(s).replace(" ", "")}</text>')
    out.append(f'<text x="{(ml + w - mr) / 2:.0f}" y="{h - 8}" text-anchor="middle">'
               f'bytes per rank</text>')
    for i, (label, s, style) in enumerate(series):
        c = colors[i % len(colors)]
        p = " ".join(f"{X(k):.1f},{Y(v):.1f}" for k, v in sorted(s.items()) if v)
        out.append(f'<polyline fill="none" stroke="{c}" stroke-width="2"{dash[style]} points="{p}"/>')
        ly = mt + 14 + 18 * i
        out.append(f'<line x1="{w - mr + 10}" y1="{ly - 4}" x2="{w - mr + 34}" y2="{ly - 4}" '
                   f'stroke="{c}" stroke-width="2"{dash[style]}/>')
        out.append(f'<text x="{w - mr + 40}" y="{ly}">{label}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def med(values):
    return statistics.median(values) if values else None


def headline_section(entry, machines, figures_rel, plots):
    head = entry["headline"]
    set_dir = os.path.join(ROOT, "results", entry["id"])
    data = collect(set_dir, head)
    title = entry["title"][:1].upper() + entry["title"][1:]
    lines = [f"## {title}", "",
             f"Machine: {machines[entry['machine']]}.", "",
             f"Command: `{entry['command']}`", "",
             f"Data: [results/{entry['id']}/](../results/{entry['id']}/) ({entry['files']}); "
             "when it was measured: [results/README.md](../results/README.md).", ""]
    variants = head.get("variants", {"": ""})
    nat = head.get("native_label", "MPI")
    for (coll, np_), per in sorted(data.items()):
        sizes = sorted({s for v in per.values() for a in v.values() for s in a})
        bound = head.get("bound")
        cols, series = [], []
        for v, vlabel in variants.items():
            if v not in per:
                continue
            suffix = f" ({vlabel})" if vlabel else ""
            cols.append((v, suffix))
            series.append((f"{nat}{suffix}", {s: med(per[v].get("native", {}).get(s, [])) for s in sizes}, "dash"))
            series.append((f"topocoll{suffix}", {s: med(per[v].get("auto", {}).get(s, [])) for s in sizes}, "solid"))
        hdr = ["size"]
        for _, suffix in cols:
            hdr += [f"{nat}{suffix}", f"topocoll{suffix}", f"ratio{suffix}"]
        if bound:
            hdr.append("link bound")
            series.append(("link bound", {s: bound_us(coll, s, bound) for s in sizes}, "dot"))
        lines += [f"### {coll}, {np_} ranks", "",
                  "| " + " | ".join(hdr) + " |", "|" + "---:|" * len(hdr)]
        for s in sizes:
            row = [human_bytes(s)]
            for v, _ in cols:
                n = med(per[v].get("native", {}).get(s, []))
                a = med(per[v].get("auto", {}).get(s, []))
                row += [fmt_us(n), fmt_us(a), f"{a / n:.2f}" if n and a else "-"]
            if bound:
                row.append(fmt_us(bound_us(coll, s, bound)))
            lines.append("| " + " | ".join(row) + " |")
        for v, suffix in cols:
            r = [med(per[v]["auto"][x]) / med(per[v]["native"][x]) for x in sizes
                 if per[v].get("auto", {}).get(x) and per[v].get("native", {}).get(x)]
            if r:
                lines.append(f"\ntopocoll / {nat}{suffix}: {min(r):.2f}-{max(r):.2f}x over these sizes, "
                             f"median {statistics.median(r):.2f}x.")
        name = f"perf_{entry['id']}_{coll}.svg"
        plots[name] = svg_plot(f"{coll}, {np_} ranks: {entry['machine']}", sizes, series, name)
        lines += ["", f"![{coll}, {np_} ranks]({figures_rel}/{name})", ""]
    return lines


def overlap_rows(set_dir):
    """{(coll, np, tests): {algorithm: {bytes: row}}} from the overlap CSVs."""
    data = {}
    for path in sorted(glob.glob(os.path.join(set_dir, "*.csv"))):
        for r in read_rows(path):
            key = (r["coll"], int(r["np"]), int(r.get("test_calls") or 0))
            data.setdefault(key, {}).setdefault(r["algorithm"], {})[int(r["bytes"])] = r
    return data


def num(row, col):
    v = row.get(col, "") if row else ""
    return float(v) if v not in ("", None) else None


def overlap_section(entry, machines):
    """Nonblocking: pure time of the MPI library's and topocoll's (auto), the
    ratio, topocoll's blocking call and its persistent start, the overlap."""
    set_dir = os.path.join(ROOT, "results", entry["id"])
    data = overlap_rows(set_dir)
    title = entry["title"][:1].upper() + entry["title"][1:]
    lines = [f"## {title}", "",
             f"Machine: {machines[entry['machine']]}.", "",
             f"Command: `{entry['command']}`", "",
             f"Data: [results/{entry['id']}/](../results/{entry['id']}/) ({entry['files']}); "
             "when it was measured: [results/README.md](../results/README.md).", "",
             "Pure: start and wait, no computation; ratio: topocoll / MPI library; "
             "topocoll blocking: the blocking call by topocoll's selection, which may take an entry with "
             "node-shared memory that has no nonblocking form (the named entries' own blocking times are in "
             "the data); pure / blocking: their ratio; persistent: start and wait of `topocoll_<coll>_init`'s request; overlap: "
             "with computation of the pure time inserted (and `tests` MPI_Test calls in it).", ""]
    for (coll, np_, tests), per in sorted(data.items()):
        nat, auto = per.get("native", {}), per.get("auto", {})
        sizes = sorted(set(nat) | set(auto))
        lines += [f"### {coll}, {np_} ranks" + (f", {tests} MPI_Test calls in the computation" if tests else ""), "",
                  "| size | MPI library pure | topocoll pure | ratio | topocoll blocking | pure / blocking "
                  "| persistent | overlap MPI library | overlap topocoll | served by |",
                  "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
        for b in sizes:
            n, a = nat.get(b), auto.get(b)
            np_us, ap_us, ab_us, pe = num(n, "t_pure_us"), num(a, "t_pure_us"), num(a, "t_blocking_us"), \
                num(a, "t_persistent_us")
            on, oa = num(n, "overlap_pct"), num(a, "overlap_pct")
            lines.append("| " + " | ".join([
                human_bytes(b), fmt_us(np_us), fmt_us(ap_us),
                f"{ap_us / np_us:.2f}" if np_us and ap_us else "-", fmt_us(ab_us),
                f"{ap_us / ab_us:.2f}" if ab_us and ap_us else "-", fmt_us(pe),
                f"{on:.0f} %" if on is not None else "-", f"{oa:.0f} %" if oa is not None else "-",
                (a or {}).get("served_by", "-")]) + " |")
        lines.append("")
    return lines


APP_NAMES = {"melt": "LAMMPS melt", "eam": "LAMMPS eam", "qe": "pw.x SCF", "hpcc": "hpcc"}


def apps_section(entry, machines):
    """The applications benchmark (scripts/apps.sh): per listed subset, every
    application's wall time and own figures, preloaded against native, and
    the subset's plot."""
    title = entry["title"][:1].upper() + entry["title"][1:]
    lines = [f"## {title}", "",
             f"Command: `{entry['command']}`", "",
             f"Data: [results/{entry['id']}/](../results/{entry['id']}/) ({entry['files']}); "
             "when it was measured: [results/README.md](../results/README.md); what each figure is: "
             "[apps.md](apps.md).", "",
             "Ratio: preloaded / native, median over the alternating pairs (q25-q75); below 1 is faster for "
             "times, slower for rates.", ""]
    for sub in entry["apps"]:
        with open(os.path.join(ROOT, "results", entry["id"], sub["dir"], "summary.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        lines += [f"### {sub['label']}", "",
                  "| application | layout | figure | native | preloaded | ratio (q25-q75) | pairs | output |",
                  "|---|---|---|---:|---:|---|---:|---|"]
        for r in rows:
            ratio = float(r["ratio_median"])
            lines.append("| " + " | ".join([
                APP_NAMES.get(r["app"], r["app"]), r["layout"], f"{r['figure']} ({r['unit']}, {r['better']} better)",
                f"{float(r['native_median']):.4g}", f"{float(r['topocoll_median']):.4g}",
                f"{ratio:.3f} ({float(r['ratio_q25']):.3f}-{float(r['ratio_q75']):.3f})", r["pairs"],
                "identical" if r["outputs_identical"] == "1" else "differs"]) + " |")
        lines += ["", f"![{sub['label']}](../results/{entry['id']}/{sub['dir']}/apps.png)", ""]
    return lines


def render(index):
    plots = {}
    perf = ["# Performance", "",
            "<!-- generated by tools/report/perf_page.py from results/index.json: do not edit -->", "",
            "What topocoll's own selection (`auto`: the algorithm the library picks, as an",
            "unchanged program gets it through the interposer) costs against the MPI",
            "library's collective (`native`, called directly), per collective and kind of",
            "machine.  Times are `topocoll-bench` medians (of the repetitions' medians,",
            "and of the launches where a set repeats them); ratio = topocoll / MPI",
            "library, below 1 is faster.  Where the network is known, the link bound is",
            "the bytes each host must receive over its link at the measured goodput (a",
            "floor no algorithm can beat, except by the few percent the links' token",
            "bucket lets through at once at the nominal 1 Gbit/s); the one-node sets have",
            "no such line (their floor is memory bandwidth, see [allreduce](allreduce.md)).",
            "Where a set measured the one-way latency between two hosts",
            "(`topocoll-pingpong`), the bound adds it once; a barrier's bound is that one",
            "latency (every host can tell every other of its arrival in one step; one message",
            "per step would take ceil(log2 hosts) of them).",
            "Each set was measured with the library as it",
            "was on its date.  Every table and plot is regenerated from the",
            "data by `python3 tools/report/perf_page.py`; [results/](../results/README.md)",
            "lists every data set.  On your own machine, measure with",
            "[the benchmark](bench.md) and tune with [topocoll-tune](tuning.md).", ""]
    for e in index["sets"]:
        if "headline" in e:
            perf += headline_section(e, index["machines"], "figures", plots)
        elif e.get("overlap"):
            perf += overlap_section(e, index["machines"])
        elif e.get("apps"):
            perf += apps_section(e, index["machines"])
    idx = ["# Results", "",
           "<!-- generated by tools/report/perf_page.py from results/index.json: do not edit -->", "",
           index["about"], "", "Machines:", ""]
    for k, v in index["machines"].items():
        idx.append(f"- `{k}`: {v}")
    idx += ["", "| data set | what | machine | date | command |", "|---|---|---|---|---|"]
    for e in index["sets"]:
        cmd = e["command"].replace("|", "\\|")
        idx.append(f"| [{e['id']}/]({e['id']}/) | {e['title']}; {e['files']} | {e['machine']} | "
                   f"{e['date']} | `{cmd}` |")
    idx.append("")
    out = {"docs/performance.md": "\n".join(perf).rstrip("\n") + "\n",
           "results/README.md": "\n".join(idx)}
    for name, text in plots.items():
        out[f"docs/figures/{name}"] = text
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if a page or plot is not current")
    args = ap.parse_args()
    with open(os.path.join(ROOT, "results", "index.json")) as f:
        index = json.load(f)
    out = render(index)
    stale = []
    for rel, text in out.items():
        path = os.path.join(ROOT, rel)
        old = open(path).read() if os.path.exists(path) else None
        if old != text:
            stale.append(rel)
            if not args.check:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(text)
    figs = os.path.join(ROOT, "docs", "figures")
    extra = [f"docs/figures/{n}" for n in sorted(os.listdir(figs))
             if f"docs/figures/{n}" not in out] if os.path.isdir(figs) else []
    if args.check:
        for rel in stale:
            print(f"not current: {rel} (run python3 tools/report/perf_page.py)")
        for rel in extra:
            print(f"not generated from results/index.json: {rel}")
        return 1 if stale or extra else 0
    for rel in extra:
        os.remove(os.path.join(ROOT, rel))
    return 0


if __name__ == "__main__":
    sys.exit(main())
