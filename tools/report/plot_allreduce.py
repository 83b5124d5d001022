#!/usr/bin/env python3
"""Figures and tables of the one-node shared-memory allreduce (docs/allreduce.md).

Reads, for each LABEL given, from the measurements folder (default
docs/measurements), what tools/report/run_allreduce_measurements.sh wrote:
  allreduce_bench_LABEL.csv   topocoll-bench --coll allreduce (median_us, ratio_to_native)
  allreduce_model_LABEL.csv   topocoll-model: the calibrated model's predictions
  allreduce_OMP.csv           topocoll-omp-allreduce (--omp LABEL=OMP pairs them)
and writes PNG families like those of Li, Hoefler, Snir, "NUMA-Aware
Shared-Memory Collective Communication for MPI" (2013) into the figures folder
(default docs/figures):
  allreduce_LABEL_bcast.png    one-stage vs two-stage broadcast (reduce_bcast, fan-in 2/4/8)
  allreduce_LABEL_tiled.png    naive / cyclic / hierarchical tiled reduce
  allreduce_LABEL_native.png   every algorithm's time over native's
  allreduce_LABEL_openmp.png   topocoll against the OpenMP reductions (with --omp)
  allreduce_LABEL_model.png    the model's predictions against the measured times
and, per label, a Markdown table of predictions next to measured times with
the predicted and the measured crossover (allreduce_model_vs_measured_LABEL.md
in the measurements folder).  Labels containing "oversub" are titled as
oversubscribed runs.

Usage: plot_allreduce.py [--dir D] [--figures F] [--omp LABEL=OMPLABEL ...] LABEL...
"""
import argparse
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_bench(path):
    """{algorithm: {bytes: (median_us, ratio)}} of the rows with status ok."""
    out = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row.get("status") != "ok":
                continue
            ratio = float(row["ratio_to_native"]) if row.get("ratio_to_native") else None
            out.setdefault(row["algorithm"], {})[int(row["bytes"])] = (float(row["median_us"]), ratio)
    return out


def read_model(path):
    """({entry: {bytes: predicted_us}}, {bytes: chosen entry}, the model's line)."""
    pred, chosen, line = {}, {}, ""
    with open(path, newline="") as f:
        first = f.readline()
        line = first[1:].strip() if first.startswith("#") else ""
        for row in csv.DictReader(f):
            b = int(row["bytes"])
            pred.setdefault(row["entry"], {})[b] = float(row["predicted_us"])
            if row["chosen"] == "1":
                chosen[b] = row["entry"]
    return pred, chosen, line


def title(label, what):
    note = " (oversubscribed, 2 cores: shape only)" if "oversub" in label else ""
    return f"allreduce {label}: {what}{note}"


def size_label(b):
    for unit, shift in (("M", 20), ("K", 10)):
        if b >= 1 << shift and b % (1 << shift) == 0:
            return f"{b >> shift}{unit}"
    return str(b)


def curves(ax, data, names, ylabel="microseconds (median)", ratio=False):
    palette = plt.get_cmap("tab20").colors
    styles = ["-", "--", ":", "-."]
    for i, name in enumerate(n for n in names if n in data):
        pts = sorted(data[name].items())
        ys = [(v[1] if ratio else v[0]) for _, v in pts]
        if ratio and any(y is None for y in ys):
            continue
        ax.plot([b for b, _ in pts], ys, marker="o", markersize=3, label=name, color=palette[i % 20],
                linestyle=styles[(i // 20) % 4] if name != "auto" else "-",
                linewidth=2.5 if name in ("auto", "native") else 1.2)
    ax.set_xscale("log", base=2)
    if not ratio:
        ax.set_yscale("log")
    ax.set_xlabel("bytes per rank")
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)


def save(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print("wrote", path)


def fig_bcast(bench, label, figdir):
    fig, ax = plt.subplots(figsize=(7, 4.5))
    curves(ax, bench, [f"shm_rb{f}_{s}" for f in (2, 4, 8) for s in ("1s", "2s")])
    ax.set_title(title(label, "one-stage vs two-stage broadcast"), fontsize=9)
    save(fig, os.path.join(figdir, f"allreduce_{label}_bcast.png"))


def fig_tiled(bench, label, figdir):
    names = ["shm_tiled_naive"] + [f"shm_tiled_{k}_{t}" for k in ("cyclic", "hier") for t in ("256", "2k", "16k", "128k")]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    curves(ax, bench, names)
    ax.set_title(title(label, "naive / cyclic / hierarchical tiled reduce"), fontsize=9)
    save(fig, os.path.join(figdir, f"allreduce_{label}_tiled.png"))


def fig_native(bench, label, figdir):
    names = [a for a in bench if a != "native"]
    fig, ax = plt.subplots(figsize=(8, 5))
    curves(ax, bench, names, ylabel="time / native's (median)", ratio=True)
    ax.axhline(1.0, color="black", linewidth=1)
    ax.set_yscale("log")
    ax.set_title(title(label, "every algorithm against native"), fontsize=9)
    save(fig, os.path.join(figdir, f"allreduce_{label}_native.png"))


def fig_openmp(bench, omp, label, figdir):
    data = {k: v for k, v in bench.items() if k in ("native", "auto", "shm_tiled_naive", "shm_dissemination")}
    data.update(omp)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    curves(ax, data, ["native", "auto", "shm_tiled_naive", "shm_dissemination", "omp_reduction", "omp_tiled"])
    ax.set_title(title(label, "topocoll (processes) vs OpenMP (threads)"), fontsize=9)
    save(fig, os.path.join(figdir, f"allreduce_{label}_openmp.png"))


def fig_model(bench, pred, chosen, label, figdir):
    names = ["native", "shm_tiled_naive", "shm_rb2_1s", "shm_dissemination", "shm_tiled_cyclic_16k"]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, name in enumerate(names):
        c = colors[i % len(colors)]
        if name in bench:
            pts = sorted(bench[name].items())
            ax.plot([b for b, _ in pts], [v[0] for _, v in pts], marker="o", markersize=3, color=c,
                    label=f"{name} measured")
        if name in pred:
            pts = sorted(pred[name].items())
            ax.plot([b for b, _ in pts], [v for _, v in pts], linestyle="--", color=c, label=f"{name} model")
    px, mx = crossovers(bench, chosen)
    if px:
        ax.axvline(px, color="gray", linestyle="--", linewidth=1, label=f"predicted crossover {size_label(px)}")
    if mx:
        ax.axvline(mx, color="gray", linestyle=":", linewidth=1, label=f"measured crossover {size_label(mx)}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("bytes per rank")
    ax.set_ylabel("microseconds")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6, ncol=2)
    ax.set_title(title(label, "model (dashed) vs measured"), fontsize=9)
    save(fig, os.path.join(figdir, f"allreduce_{label}_model.png"))


def shm_names(bench):
    return [a for a in bench if a.startswith("shm_")]


def crossovers(bench, chosen):
    """(predicted, measured): the smallest size at which the model picks a
    shared-memory entry / at which the best measured shm entry beats native
    at that size and at the next measured one (a single noisy cell neither
    makes nor breaks it); None when never."""
    sizes = sorted(bench.get("native", {}))
    pred = None
    for b in sorted(chosen):
        if chosen[b] != "native":
            pred = b
            break

    def shm_wins(c):
        best = min((bench[a][c][0] for a in shm_names(bench) if c in bench[a]), default=None)
        return best is not None and best < bench["native"][c][0]

    measured = None
    for i, b in enumerate(sizes):
        if shm_wins(b) and (i + 1 == len(sizes) or shm_wins(sizes[i + 1])):
            measured = b
            break
    return pred, measured


# The table's columns (every entry is in the CSVs and the figures).
TABLE_ENTRIES = ["native", "shm_dissemination", "shm_rb2_1s", "shm_rb2_2s", "shm_rb8_1s", "shm_tiled_naive",
                 "shm_tiled_cyclic_2k", "shm_tiled_cyclic_16k", "shm_tiled_hier_16k"]


def table(bench, pred, chosen, line, label, outdir):
    sizes = sorted(bench.get("native", {}))
    names = [a for a in TABLE_ENTRIES if a in bench and (a == "native" or a in pred)]
    out = [f"Model: {line}", "", "Predicted / measured microseconds per entry (median of the bench's repetitions):", ""]
    out.append("| bytes | model picks | " + " | ".join(names) + " | auto measured |")
    out.append("|---" * (len(names) + 3) + "|")
    for b in sizes:
        cells = []
        for n in names:
            p = pred.get(n, {}).get(b)
            m = bench.get(n, {}).get(b)
            cells.append(f"{p:.2f} / {m[0]:.2f}" if p is not None and m else "-")
        auto = bench.get("auto", {}).get(b)
        out.append(f"| {size_label(b)} | {chosen.get(b, '-')} | " + " | ".join(cells) +
                   f" | {auto[0]:.2f} |" if auto else " | - |")
    px, mx = crossovers(bench, chosen)
    out += ["", f"Crossover (native -> shared memory): predicted {size_label(px) if px else 'none'}, "
                f"measured {size_label(mx) if mx else 'none'} (measured: the first size at which the best shm "
                f"entry beats native there and at the next measured size)."]
    path = os.path.join(outdir, f"allreduce_model_vs_measured_{label}.md")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    print("wrote", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", default="docs/measurements")
    ap.add_argument("--figures", default="docs/figures")
    ap.add_argument("--omp", action="append", default=[], help="LABEL=OMPLABEL")
    ap.add_argument("labels", nargs="+")
    args = ap.parse_args()
    omp_of = dict(x.split("=", 1) for x in args.omp)
    os.makedirs(args.figures, exist_ok=True)
    for label in args.labels:
        bpath = os.path.join(args.dir, f"allreduce_bench_{label}.csv")
        if not os.path.exists(bpath):
            print(f"{bpath}: missing", file=sys.stderr)
            return 1
        bench = read_bench(bpath)
        fig_bcast(bench, label, args.figures)
        fig_tiled(bench, label, args.figures)
        fig_native(bench, label, args.figures)
        mpath = os.path.join(args.dir, f"allreduce_model_{label}.csv")
        if os.path.exists(mpath):
            pred, chosen, line = read_model(mpath)
            fig_model(bench, pred, chosen, label, args.figures)
            table(bench, pred, chosen, line, label, args.dir)
        if label in omp_of:
            omp = read_bench(os.path.join(args.dir, f"allreduce_{omp_of[label]}.csv"))
            fig_openmp(bench, omp, label, args.figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
