#!/usr/bin/env python3
"""The applications benchmark's report (scripts/apps.sh; docs/apps.md).

    apps_report.py OUT [--load "1.0 1.2 1.3"] [--layout-note LAYOUT=TEXT]...

Reads OUT/runs.csv (one line per run: app, layout, np, mode, rep, wall
seconds, exit status, log name), the runs' logs in OUT/logs (the
applications' own figures) and the census runs' files in OUT/census
(topocoll's run summary, TOPOCOLL_STATS, and the census of the collectives
it does not serve, tools/apps/census.c), and writes

    OUT/summary.md    the table, what topocoll served, what it did not
    OUT/summary.csv   one row per application, layout and figure
    OUT/summary.json  the same, with the served and unserved collectives
    OUT/apps.png      the ratios to native with their spread (matplotlib)

Ratios are preloaded / native: wall time per alternating pair (the median
of the pairs' ratios, q25-q75 and min-max); the applications' own figures
per mode as medians (a time: lower is better; a rate: higher is better).
Runs of mode "disabled" (scripts/apps.sh --disabled: the interposer loaded
with TOPOCOLL_DISABLE=1) get their own wall-time ratio to native.
Each run's output is checked against the first native run of its layout:
LAMMPS's thermo lines, pw.x's total energy as printed, hpcc's Success flag.
"""
import argparse
import csv
import hashlib
import json
import os
import re
import statistics
import sys

# figure name -> (unit, better: 'lower' or 'higher')
FIGURES = {
    "melt": [("loop_s", "s", "lower"), ("comm_s", "s", "lower")],
    "eam": [("loop_s", "s", "lower"), ("comm_s", "s", "lower")],
    "qe": [("pwscf_s", "s", "lower"), ("fft_scatt_s", "s", "lower")],
    "hpcc": [("ptrans_gbs", "GB/s", "higher"), ("mpirandomaccess_gups", "GUP/s", "higher"),
             ("mpifft_gflops", "Gflop/s", "higher"), ("hpl_gflops", "Gflop/s", "higher")],
}
NAMES = {"melt": "LAMMPS melt (LJ, 4000 atoms)", "eam": "LAMMPS eam (Cu, 4000 atoms)",
         "qe": "pw.x SCF (Si8, 20 Ry)", "hpcc": "hpcc (N=1000)"}


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def qe_seconds(text, label):
    """Wall seconds of one pw.x clock ('1m 2.30s WALL', '0.65s WALL', '1h 2m WALL')."""
    m = re.search(r"^\s*" + re.escape(label) + r"\s*:.*CPU\s+(.*?)WALL", text, re.M)
    if not m:
        return None
    s = 0.0
    for v, u in re.findall(r"([\d.]+)\s*([hms])", m.group(1)):
        s += float(v) * {"h": 3600, "m": 60, "s": 1}[u]
    return s


def lammps_figures(text):
    fig, check = {}, None
    m = re.search(r"^Loop time of ([\d.eE+-]+) on", text, re.M)
    if m:
        fig["loop_s"] = float(m.group(1))
    m = re.search(r"^Comm\s*\|\s*([\d.eE+-]+)\s*\|\s*([\d.eE+-]+)\s*\|", text, re.M)
    if m:
        fig["comm_s"] = float(m.group(2))   # the average over ranks
    thermo = re.search(r"^\s*Step .*?\n(.*?)^Loop time", text, re.M | re.S)
    if thermo:
        check = hashlib.sha1(thermo.group(1).encode()).hexdigest()[:12]
    return fig, check


def qe_figures(text):
    fig = {}
    v = qe_seconds(text, "PWSCF")
    if v is not None:
        fig["pwscf_s"] = v
    xy, yz = qe_seconds(text, "fft_scatt_xy"), qe_seconds(text, "fft_scatt_yz")
    if xy is not None or yz is not None:
        fig["fft_scatt_s"] = (xy or 0) + (yz or 0)
    m = re.search(r"^!\s+total energy\s+=\s+(\S+)\s+Ry", text, re.M)
    return fig, (m.group(1) if m else None)


def hpcc_figures(text):
    fig = {}
    keys = {"PTRANS_GBs": "ptrans_gbs", "MPIRandomAccess_GUPs": "mpirandomaccess_gups",
            "MPIFFT_Gflops": "mpifft_gflops", "HPL_Tflops": "hpl_gflops"}
    for k, name in keys.items():
        m = re.search(r"^" + k + r"=([\d.eE+-]+)", text, re.M)
        if m:
            fig[name] = float(m.group(1)) * (1000 if k == "HPL_Tflops" else 1)
    m = re.search(r"^Success=(\d)", text, re.M)
    return fig, ("Success" if m and m.group(1) == "1" else "no Success")


def run_figures(out, app, log):
    base = os.path.join(out, "logs", log)
    text = read(base + ".out")
    if app in ("melt", "eam"):
        return lammps_figures(text)
    if app == "qe":
        return qe_figures(text)
    return hpcc_figures(read(base + ".hpccoutf.txt"))


def quantiles(v):
    v = sorted(v)
    if not v:
        return None
    if len(v) == 1:
        return {"median": v[0], "q25": v[0], "q75": v[0], "min": v[0], "max": v[0], "n": 1}
    q = statistics.quantiles(v, n=4, method="inclusive")
    return {"median": statistics.median(v), "q25": q[0], "q75": q[2], "min": v[0], "max": v[-1], "n": len(v)}


def served(stats_path):
    """topocoll's run summary: per collective and np, the algorithms and the calls handed on."""
    try:
        with open(stats_path) as f:
            s = json.load(f)
    except (OSError, ValueError):
        return []
    rows = []
    for c in s.get("collectives", []):
        lib = c.get("mpi_library", {})
        rows.append({"collective": c["collective"], "np": c["comm_size"], "calls": c["calls"],
                     "bytes": c.get("bytes", 0), "algorithms": c.get("algorithms", {}),
                     "mpi_library": {k: v for k, v in lib.items() if k != "calls"},
                     "handed": lib.get("calls", 0)})
    return rows


def unserved(census_path):
    try:
        with open(census_path) as f:
            return json.load(f).get("collectives", [])
    except (OSError, ValueError):
        return []


def human(b):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if b < 1024 or unit == "GiB":
            return f"{b:.0f} {unit}" if unit == "B" else f"{b:.1f} {unit}"
        b /= 1024.0
    return str(b)


def summarize(out):
    runs = []
    with open(os.path.join(out, "runs.csv")) as f:
        for r in csv.DictReader(f):
            r["wall_s"] = float(r["wall_s"])
            r["rc"] = int(r["rc"])
            r["figures"], r["check"] = run_figures(out, r["app"], r["log"])
            runs.append(r)
    results = []
    keys = []
    for r in runs:
        k = (r["app"], r["layout"])
        if k not in keys:
            keys.append(k)
    for app, layout in keys:
        mine = [r for r in runs if r["app"] == app and r["layout"] == layout]
        timed = [r for r in mine if r["mode"] in ("native", "topocoll", "disabled")]
        ref = next((r["check"] for r in timed if r["mode"] == "native" and r["rc"] == 0), None)
        differ = [f'{r["mode"]} {r["rep"]}' for r in mine if r["rc"] == 0 and r["check"] != ref]
        failed = [f'{r["mode"]} {r["rep"]}' for r in mine if r["rc"] != 0]
        by = {m: {int(r["rep"]): r for r in timed if r["mode"] == m and r["rc"] == 0}
              for m in ("native", "topocoll", "disabled")}
        pairs = sorted(set(by["native"]) & set(by["topocoll"]))
        dpairs = sorted(set(by["native"]) & set(by["disabled"]))
        res = {"app": app, "name": NAMES.get(app, app), "layout": layout, "np": int(mine[0]["np"]),
               "pairs": len(pairs), "check": ref, "outputs_differ": differ, "failed_runs": failed,
               "wall_s": {m: quantiles([r["wall_s"] for r in by[m].values()]) for m in by},
               "wall_ratio": quantiles([by["topocoll"][p]["wall_s"] / by["native"][p]["wall_s"] for p in pairs]),
               # the interposer loaded but passing every call on (scripts/apps.sh --disabled)
               "wall_ratio_disabled": quantiles([by["disabled"][p]["wall_s"] / by["native"][p]["wall_s"]
                                                 for p in dpairs]),
               "figures": {}}
        for name, unit, better in FIGURES.get(app, []):
            per = {m: quantiles([r["figures"][name] for r in by[m].values() if name in r["figures"]]) for m in by}
            ratios = [by["topocoll"][p]["figures"][name] / by["native"][p]["figures"][name] for p in pairs
                      if name in by["topocoll"][p]["figures"] and by["native"][p]["figures"].get(name)]
            res["figures"][name] = {"unit": unit, "better": better, "native": per["native"],
                                    "topocoll": per["topocoll"], "ratio": quantiles(ratios)}
        census_dir = os.path.join(out, "census")
        res["served"] = served(os.path.join(census_dir, f"{layout}-{app}.stats.json"))
        res["unserved"] = unserved(os.path.join(census_dir, f"{layout}-{app}.census.json"))
        res["explain"] = explain_summary(os.path.join(out, "logs", f"{layout}-{app}-census-0.err"))
        results.append(res)
    return results


def explain_summary(path, top=6):
    """The most frequent explain lines of the census run (sizes kept, counts per line)."""
    counts = {}
    for line in read(path).splitlines():
        if line.startswith("topocoll explain: "):
            key = line[len("topocoll explain: "):]
            counts[key] = counts.get(key, 0) + 1
    return [{"calls": n, "line": k} for k, n in sorted(counts.items(), key=lambda kv: -kv[1])[:top]]


def fmt_q(q, digits=3):
    if not q:
        return "-"
    return f'{q["median"]:.{digits}f}'


def fmt_ratio(q):
    if not q:
        return "-"
    return f'{q["median"]:.3f} ({q["q25"]:.3f}-{q["q75"]:.3f}; {q["min"]:.3f}-{q["max"]:.3f})'


def served_text(rows):
    parts = []
    for s in rows:
        algos = ", ".join(f"{a} {n}" for a, n in sorted(s["algorithms"].items(), key=lambda kv: -kv[1]))
        parts.append(f'{s["collective"]} np{s["np"]} {s["calls"]} calls: {algos}')
    return "; ".join(parts) if parts else "-"


def write_markdown(out, results, load, notes):
    L = ["# Applications benchmark", ""]
    L.append("Ratios are preloaded / native (below 1: topocoll faster for times, slower for rates); "
             "spread as q25-q75; min-max over the alternating pairs.")
    if load:
        L.append(f"Load average when the report was written: {load} "
                 f"(taken under load: figures from a busy machine are indicative only).")
    L.append("")
    for lay, note in notes.items():
        L.append(f"- layout `{lay}`: {note}")
    L += ["", "| application | layout | pairs | native wall s | preloaded wall s | wall ratio (q25-q75; min-max) "
          "| figure | native | preloaded | ratio (q25-q75; min-max) | output |",
          "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        check = "identical" if not r["outputs_differ"] and not r["failed_runs"] else \
            "differs: " + ", ".join(r["outputs_differ"] + [f"{x} failed" for x in r["failed_runs"]])
        if r["app"] == "hpcc" and r["check"] != "Success":
            check = "no Success"
        first = True
        figs = r["figures"] or {"-": None}
        for name, f in figs.items():
            lead = [r["name"], r["layout"], str(r["pairs"]), fmt_q(r["wall_s"].get("native")),
                    fmt_q(r["wall_s"].get("topocoll")), fmt_ratio(r["wall_ratio"])] if first else [""] * 6
            if f:
                cells = [f'{name} ({f["unit"]}, {f["better"]} better)', fmt_q(f["native"], 4),
                         fmt_q(f["topocoll"], 4), fmt_ratio(f["ratio"])]
            else:
                cells = ["-", "-", "-", "-"]
            L.append("| " + " | ".join(lead + cells + [check if first else ""]) + " |")
            first = False
    disabled = [r for r in results if r["wall_ratio_disabled"]]
    if disabled:
        L += ["", "Interposer preloaded with `TOPOCOLL_DISABLE=1` (loaded, every call passed on) against native, "
              "wall time:", ""]
        for r in disabled:
            L.append(f'- {r["name"]}, {r["layout"]}: {fmt_ratio(r["wall_ratio_disabled"])} '
                     f'(preloaded and active: {fmt_ratio(r["wall_ratio"])})')
    L += ["", "## What topocoll served (its run summary, one run)", ""]
    for r in results:
        L.append(f'- {r["name"]}, {r["layout"]}: {served_text(r["served"])}')
    L += ["", "## Collective calls topocoll does not serve (the census, one run)", "",
          "| application | layout | collective | np | calls | bytes per call min / median bin / max | zero-byte calls | seconds |",
          "|---|---|---|---|---|---|---|---|"]
    for r in results:
        for c in r["unserved"]:
            L.append(f'| {r["name"]} | {r["layout"]} | {c["collective"]} | {c["comm_size"]} | {c["calls"]} | '
                     f'{human(c["min_bytes"])} / {human(c["median_bytes_bin"])} / {human(c["max_bytes"])} | '
                     f'{c["zero_byte_calls"]} | {c["seconds"]:.4f} |')
        if not r["unserved"]:
            L.append(f'| {r["name"]} | {r["layout"]} | (none) | | | | | |')
    L += ["", "## The choices behind the calls (TOPOCOLL_EXPLAIN=1, rank 0, most frequent lines)", ""]
    for r in results:
        L.append(f'- {r["name"]}, {r["layout"]}:')
        for e in r["explain"]:
            L.append(f'  - {e["calls"]} x `{e["line"]}`')
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(L) + "\n")


def write_csv(out, results):
    with open(os.path.join(out, "summary.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["app", "layout", "np", "figure", "unit", "better", "pairs", "native_median", "topocoll_median",
                    "ratio_median", "ratio_q25", "ratio_q75", "ratio_min", "ratio_max", "outputs_identical"])
        for r in results:
            ok = int(not r["outputs_differ"] and not r["failed_runs"])
            rows = [("wall_s", "s", "lower", r["wall_s"].get("native"), r["wall_s"].get("topocoll"), r["wall_ratio"])]
            if r["wall_ratio_disabled"]:
                rows.append(("wall_s_disabled", "s", "lower", r["wall_s"].get("native"),
                             r["wall_s"].get("disabled"), r["wall_ratio_disabled"]))
            rows += [(n, f["unit"], f["better"], f["native"], f["topocoll"], f["ratio"]) for n, f in r["figures"].items()]
            for name, unit, better, nat, top, ratio in rows:
                q = ratio or {}
                w.writerow([r["app"], r["layout"], r["np"], name, unit, better, r["pairs"],
                            nat["median"] if nat else "", top["median"] if top else "", q.get("median", ""),
                            q.get("q25", ""), q.get("q75", ""), q.get("min", ""), q.get("max", ""), ok])


def plot(out, results):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator
    except ImportError:
        print("apps_report: matplotlib missing: no plot", file=sys.stderr)
        return
    layouts = []
    for r in results:
        if r["layout"] not in layouts:
            layouts.append(r["layout"])
    fig, axes = plt.subplots(1, len(layouts), figsize=(6 * len(layouts), 4.5), squeeze=False)
    for ax, lay in zip(axes[0], layouts):
        labels, med, lo, hi = [], [], [], []
        for r in results:
            if r["layout"] != lay:
                continue
            items = [("wall", r["wall_ratio"], "lower"), ("wall, disabled", r["wall_ratio_disabled"], "lower")]
            items += [(n, f["ratio"], f["better"]) for n, f in r["figures"].items()]
            for n, q, better in items:
                if not q:
                    continue
                labels.append(f'{r["app"]} {n}' + (" (rate)" if better == "higher" else ""))
                med.append(q["median"])
                lo.append(q["median"] - q["q25"])
                hi.append(q["q75"] - q["median"])
        y = range(len(labels))
        ax.barh(list(y), [m - 1 for m in med], left=1, xerr=[lo, hi], color="tab:blue", alpha=0.7, capsize=3)
        ax.axvline(1, color="black", lw=0.8)
        ax.set_xscale("log")   # a ratio and its inverse equally far from 1
        lo_x, hi_x = ax.get_xlim()
        steps = (0.1, 0.25, 0.5, 1, 2, 4, 10) if hi_x / lo_x > 5 else (0.25, 0.5, 0.7, 0.85, 1, 1.2, 1.5, 2, 4)
        ticks = [v for v in steps if lo_x <= v <= hi_x]
        ax.xaxis.set_major_locator(FixedLocator(ticks))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_yticks(list(y))
        ax.set_yticklabels(labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("preloaded / native (median, q25-q75)")
        ax.set_title(lay)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "apps.png"), dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--load", default="")
    ap.add_argument("--layout-note", action="append", default=[])
    a = ap.parse_args()
    notes = dict(n.split("=", 1) for n in a.layout_note if "=" in n)
    results = summarize(a.out)
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump({"load": a.load, "layouts": notes, "results": results}, f, indent=1)
    write_markdown(a.out, results, a.load, notes)
    write_csv(a.out, results)
    plot(a.out, results)
    print(f"apps_report: {os.path.join(a.out, 'summary.md')}, summary.csv, summary.json, apps.png")
    for r in results:
        print(f'  {r["app"]:5s} {r["layout"]:8s} wall ratio {fmt_ratio(r["wall_ratio"])}'
              f'{"" if not r["outputs_differ"] else "  OUTPUT DIFFERS: " + ", ".join(r["outputs_differ"])}')


if __name__ == "__main__":
    main()
