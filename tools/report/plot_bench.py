#!/usr/bin/python3
"""Plot topocoll-bench results (CSV or JSON) as latency-versus-size figures.

Each figure is a family of algorithms, one line per algorithm (native is
always drawn, dashed, as the reference).  The built-in families are the
figure families of Kandalla, Subramoni, Santhanaraman, Koop, Panda,
"Designing Multi-Leader-Based Allgather Algorithms for Multi-Core Clusters"
(2009): single leader point-to-point
against conventional (Fig. 3), single leader shared memory (Fig. 4), 1 / 2 /
4 leaders (Figs. 5-6), spread against packed leaders (Fig. 7) and the
overall comparison (Fig. 8).  Algorithms missing from the data are left
out of a figure (a figure with no line but native is not written).

    plot_bench.py RESULTS.csv|RESULTS.json --out DIR [--title TEXT]
                  [--family NAME=alg1,alg2,...]...
"""
import argparse
import csv
import json
import os
import sys

FAMILIES = [
    ("fig3_single_leader_p2p", "Single leader, point-to-point (Fig. 3)",
     ["ring", "recursive_doubling", "h1_gather_rd_bcast", "h1_gather_ring_bcast",
      "h1_ring_rd_new", "h1_rd_rd_new"]),
    ("fig4_single_leader_shm", "Single leader, shared memory (Fig. 4)",
     ["recursive_doubling", "h1_shm_rd_shm", "h1_shm_ring_shm", "h1_gather_rd_shm"]),
    ("fig5_leaders_p2p", "1, 2, 4 leaders per node, point-to-point (Fig. 5)",
     ["recursive_doubling", "h1_gather_rd_bcast", "h2_gather_rd_bcast", "h4_gather_rd_bcast"]),
    ("fig6_leaders_shm", "1, 2, 4 leaders per node, shared memory (Fig. 6)",
     ["recursive_doubling", "h1_shm_rd_shm", "h2_shm_rd_shm", "h4_shm_rd_shm"]),
    ("fig7_spread_packed", "Leaders spread over sockets vs packed on one (Fig. 7)",
     ["hs_shm_rd_shm", "hsp_shm_rd_shm", "hs_gather_rd_bcast", "hsp_gather_rd_bcast"]),
    ("fig8_overall", "Overall comparison (Fig. 8)",
     ["auto", "ring", "recursive_doubling", "h1_gather_rd_bcast", "h1_shm_rd_shm",
      "hs_shm_rd_shm", "h4_shm_rd_shm"]),
]


def load(path):
    """Rows as dicts with algorithm, bytes (int), median_us (float), status."""
    if path.endswith(".json"):
        with open(path) as f:
            doc = json.load(f)
        rows = doc.get("results")
        if not isinstance(rows, list):
            sys.exit(f"{path}: no 'results' list")
    else:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    out = []
    for i, r in enumerate(rows):
        try:
            ok = str(r.get("status", "ok")) == "ok"
            out.append({"algorithm": r["algorithm"], "bytes": int(r["bytes"]),
                        "median_us": float(r["median_us"]) if ok else None})
        except (KeyError, TypeError, ValueError) as e:
            sys.exit(f"{path}: row {i + 1}: missing or malformed field ({e})")
    return out


def series(rows, algo):
    pts = sorted((r["bytes"], r["median_us"]) for r in rows
                 if r["algorithm"] == algo and r["median_us"] is not None)
    return [p[0] for p in pts], [p[1] for p in pts]


def size_label(b):
    for unit, div in (("M", 1 << 20), ("K", 1 << 10)):
        if b >= div and b % div == 0:
            return f"{b // div}{unit}"
    return str(b)


def plot(rows, name, title, algos, out_dir, suptitle):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    present = [a for a in algos if series(rows, a)[0]]
    if not present:
        return None
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    x, y = series(rows, "native")
    if x:
        ax.plot(x, y, "k--", marker="o", markersize=3, label="native")
    for a in present:
        x, y = series(rows, a)
        ax.plot(x, y, marker=".", label=a)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    sizes = sorted({r["bytes"] for r in rows})
    ax.set_xticks(sizes[::2])
    ax.set_xticklabels([size_label(s) for s in sizes[::2]], rotation=45)
    ax.set_xlabel("bytes per rank")
    ax.set_ylabel("latency (us, median of repetitions)")
    ax.set_title(f"{title}\n{suptitle}", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = os.path.join(out_dir, f"{name}.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("--out", required=True)
    ap.add_argument("--title", default="")
    ap.add_argument("--prefix", default="", help="prepended to every file name")
    ap.add_argument("--family", action="append", default=[],
                    help="NAME=alg1,alg2: a figure of your own (replaces the built-in ones)")
    args = ap.parse_args()
    rows = load(args.results)
    families = FAMILIES
    if args.family:
        families = []
        for spec in args.family:
            if "=" not in spec or not spec.split("=", 1)[1]:
                sys.exit(f"--family '{spec}': expected NAME=alg1,alg2,...")
            n, algs = spec.split("=", 1)
            families.append((n, n, algs.split(",")))
    os.makedirs(args.out, exist_ok=True)
    for name, title, algos in families:
        path = plot(rows, args.prefix + name, title, algos, args.out, args.title)
        print(path if path else f"{name}: no data for its algorithms, skipped")


if __name__ == "__main__":
    main()
