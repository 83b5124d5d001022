#!/usr/bin/python3
"""Plot topocoll-a2a-paper results as the figures of Träff, Rougier, "MPI
Collectives and Datatypes for Hierarchical All-to-all Communication" (2014):

  fig4  communicator creation time against p (the paper's split, topocoll's
        first call of the bridge composition on a fresh communicator, and
        its steady call for comparison);
  fig5  regular problem on MPI_COMM_WORLD, time against total size p*m;
  fig6  the same on a random permutation of it;
  fig7  the composition with MPI_Alltoall, MPI_Alltoallv (pack) and
        MPI_Alltoallw over the bridge;
  fig8  irregular communicator (nodes alternating n and 1 ranks), world
        order and permuted, side by side.

Times are the mean after Tukey's filter (the CSV's mean_us).  One PNG per
figure and setup: OUT/alltoall_<setup>_fig<N>.png.

    plot_alltoall.py RESULTS.csv [...] --out DIR [--note TEXT] [--link-gbit R]
                     [--table FILE.md]

--link-gbit R draws, on figures 5, 6 and 8, the link bound: the time the
bytes that must leave the busiest node need on its link at R Gbit/s (an
emulated cluster's rate), less what the token bucket's burst (1 ms at the
rate) lets through at once: a lower bound on any algorithm's time.
--table writes, per setup and communicator of figures 5, 6 and 8, a markdown
table: MPI_Alltoall's time, auto's and pairwise's ratio to it, the best
hierarchical entry and its ratio (below 1 is faster), the link bound, and
where the best hierarchical entry stops beating pairwise and native.
"""
import argparse
import csv
import os
import sys

NATIVE = ("MPI_Alltoall", "MPI_Alltoallv", "MPI_Alltoallw")
STYLE = {"MPI_Alltoall": ("k", "--"), "MPI_Alltoallv": ("0.4", "--"),
         "MPI_Alltoallw": ("0.6", ":"), "pairwise": ("tab:red", "-"),
         "auto": ("tab:green", "-")}


def load(paths):
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            for i, r in enumerate(csv.DictReader(f)):
                try:
                    r["figure"] = int(r["figure"])
                    for k in ("p", "nodes", "block_bytes", "total_bytes", "kept"):
                        r[k] = int(r[k])
                    for k in ("mean_us", "median_us", "q1_us", "q3_us", "min_us"):
                        r[k] = float(r[k])
                except (KeyError, TypeError, ValueError) as e:
                    sys.exit(f"{path}: row {i + 2}: missing or malformed field ({e})")
                rows.append(r)
    return rows


def size_label(b):
    for unit, div in (("M", 1 << 20), ("K", 1 << 10)):
        if b >= div and b % div == 0:
            return f"{b // div}{unit}"
    return str(b)


def series(rows, algo):
    pts = sorted((r["total_bytes"], r["mean_us"]) for r in rows
                 if r["algorithm"] == algo and r["status"] == "ok")
    return [x for x, _ in pts], [y for _, y in pts]


OTHER_COLORS = ["tab:blue", "tab:orange", "tab:purple", "tab:brown", "tab:pink", "tab:olive",
                "tab:cyan", "tab:gray", "navy", "darkgoldenrod"]
MARKERS = "osD^v<>ph*"


def draw_sizes(ax, rows, title, gbit, busiest):
    algos = []
    for r in rows:
        if r["algorithm"] not in algos:
            algos.append(r["algorithm"])
    k = 0
    for a in algos:
        xs, ys = series(rows, a)
        if not xs:
            continue
        color, ls = STYLE.get(a, (None, "-"))
        if color is None:
            color = OTHER_COLORS[k % len(OTHER_COLORS)]
        ax.plot(xs, ys, marker=MARKERS[k % len(MARKERS)], markersize=3, linestyle=ls, color=color,
                label=a)
        k += 1
    if gbit and rows:
        pts = sorted({(r["total_bytes"], r["p"], r["nodes"], r["block_bytes"]) for r in rows})
        bx = [t for t, p, nn, m in pts]
        by = [busiest(p, nn, m, gbit) for t, p, nn, m in pts]
        if all(v is not None for v in by):
            ax.plot(bx, by, color="tab:purple", linestyle="-.", label=f"link bound {gbit:g} Gbit/s")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("total problem size p*m (bytes)")
    ax.set_ylabel("mean time after Tukey's filter (us)")
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ticks = sorted({r["total_bytes"] for r in rows})[::2]
    if ticks:
        ax.set_xticks(ticks)
        ax.set_xticklabels([size_label(t) for t in ticks], rotation=45, fontsize=7)
    ax.legend(fontsize=6, ncol=2)


def link_us(volume, gbit):
    """Least time, in us, to move `volume` bytes over a link limited by
    topocoll-cluster's tbf: rate gbit Gbit/s, burst 1 ms at the rate (at
    least 16 KB) that a full bucket lets through at once."""
    rate = gbit * 1e9 / 8
    burst = max(rate * 1e-3, 16000.0)
    return max(0.0, volume - burst) / rate * 1e6


def busiest_regular(p, nn, m, gbit):
    """Regular: each node's n = p / nn ranks send m bytes to each of the
    p - n ranks elsewhere: n (p - n) m bytes leave over the node's link."""
    if nn < 2:
        return None
    n = p / nn
    return link_us(n * (p - n) * m, gbit)


def busiest_irregular(p, nn, m, gbit):
    """Irregular (nodes of n and 1 ranks): the big node sends n (p - n) m."""
    if nn < 2:
        return None
    small = nn // 2
    n = (p - small) / (nn - small)
    return link_us(n * (p - n) * m, gbit)


def fig4(plt, rows, setup, note, out):
    fig, ax = plt.subplots(figsize=(6, 4))
    for a in sorted({r["algorithm"] for r in rows}):
        pts = sorted((r["p"], r["mean_us"]) for r in rows if r["algorithm"] == a and r["status"] == "ok")
        ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", label=a)
    ax.set_xticks(sorted({r["p"] for r in rows}))
    ax.set_xlabel("p (ranks of the first 1, 2, ... nodes)")
    ax.set_ylabel("mean time after Tukey's filter (us)")
    ax.set_yscale("log")
    ax.set_title(f"Communicator creation (Fig. 4): {setup}\n{note}", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    return save(plt, fig, out)


def save(plt, fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(path)
    return path


def plot_setup(plt, rows, setup, note, out_dir, gbit):
    base = os.path.join(out_dir, f"alltoall_{setup}_fig")
    by = {f: [r for r in rows if r["figure"] == f] for f in (4, 5, 6, 7, 8)}
    if by[4]:
        fig4(plt, by[4], setup, note, base + "4.png")
    titles = {5: "Regular problem, MPI_COMM_WORLD (Fig. 5)",
              6: "Regular problem, randomly permuted communicator (Fig. 6)",
              7: "Bridge with Alltoall / Alltoallv (pack) / Alltoallw (Fig. 7)"}
    for f in (5, 6, 7):
        if not by[f]:
            continue
        fig, ax = plt.subplots(figsize=(7, 5))
        p, nn = by[f][0]["p"], by[f][0]["nodes"]
        draw_sizes(ax, by[f], f"{titles[f]}: {setup}, p={p}, {nn} nodes\n{note}",
                   gbit if f != 7 else None, busiest_regular)
        save(plt, fig, f"{base}{f}.png")
    if by[8]:
        comms = [c for c in ("irregular", "irregular_permuted") if any(r["comm"] == c for r in by[8])]
        fig, axes = plt.subplots(1, len(comms), figsize=(6.5 * len(comms), 5), squeeze=False)
        for ax, c in zip(axes[0], comms):
            rs = [r for r in by[8] if r["comm"] == c]
            draw_sizes(ax, rs, f"Irregular communicator (Fig. 8), {c}: {setup}, p={rs[0]['p']}, "
                       f"{rs[0]['nodes']} nodes\n{note}", gbit, busiest_irregular)
        save(plt, fig, base + "8.png")


HIER_PREFIX = ("h1_", "h2_", "h4_", "bridge")


def table(rows, gbit):
    """Markdown lines for one communicator's rows (figure 5, 6 or 8)."""
    irregular = rows[0]["figure"] == 8
    bound = busiest_irregular if irregular else busiest_regular
    ok = {(r["algorithm"], r["total_bytes"]): r for r in rows if r["status"] == "ok"}
    sizes = sorted({t for _, t in ok})
    head = "| total p*m | MPI_Alltoall us | auto | pairwise | best hierarchical |"
    sep = "|---|---|---|---|---|"
    if gbit:
        head += " link bound us |"
        sep += "---|"
    out, wins = [head, sep], {"pairwise": [], "MPI_Alltoall": []}
    for t in sizes:
        nat = ok.get(("MPI_Alltoall", t))
        if nat is None:
            continue
        cell = lambda a: f"{ok[(a, t)]['mean_us'] / nat['mean_us']:.2f}x" if (a, t) in ok else "-"
        hs = [r for (a, tt), r in ok.items() if tt == t and a.startswith(HIER_PREFIX)]
        best = min(hs, key=lambda r: r["mean_us"], default=None)
        bcell = f"{best['algorithm']} {best['mean_us'] / nat['mean_us']:.2f}x" if best else "-"
        line = f"| {size_label(t)} | {nat['mean_us']:.1f} | {cell('auto')} | {cell('pairwise')} | {bcell} |"
        if gbit:
            b = bound(nat["p"], nat["nodes"], nat["block_bytes"], gbit)
            line += f" {b:.1f} |" if b is not None else " - |"
        out.append(line)
        for ref in wins:
            r = ok.get((ref, t))
            if best and r:
                wins[ref].append((t, best["mean_us"] < r["mean_us"]))
    out.append("")
    for ref, w in wins.items():
        first_loss = next((t for t, won in w if not won), None)
        last_win = max((t for t, won in w if won), default=None)
        upto = [t for t, won in w if first_loss is None or t < first_loss]
        out.append(f"Best hierarchical entry against {ref}: faster at every size up to "
                   f"{size_label(upto[-1]) if upto else 'none'}"
                   f"{'' if first_loss is None else ', first slower at ' + size_label(first_loss)}"
                   f"; last faster at {size_label(last_win) if last_win else 'none'}.")
    return out


def write_tables(rows, path, gbit):
    lines = []
    for setup in sorted({r["setup"] for r in rows}):
        for f in (5, 6, 8):
            for c in ("world", "permuted", "irregular", "irregular_permuted"):
                rs = [r for r in rows if r["setup"] == setup and r["figure"] == f and r["comm"] == c]
                if rs:
                    lines += [f"### {setup}, figure {f}, {c} (p={rs[0]['p']}, {rs[0]['nodes']} nodes)", ""]
                    lines += table(rs, gbit) + [""]
    with open(path, "w") as fh:
        fh.write("\n".join(lines))
    print(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--note", default="")
    ap.add_argument("--link-gbit", type=float, default=None)
    ap.add_argument("--table", default=None)
    a = ap.parse_args()
    rows = load(a.csv)
    if not rows:
        sys.exit("no rows")
    if a.table:
        write_tables(rows, a.table, a.link_gbit)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(a.out, exist_ok=True)
    for setup in sorted({r["setup"] for r in rows}):
        plot_setup(plt, [r for r in rows if r["setup"] == setup], setup, a.note, a.out, a.link_gbit)


if __name__ == "__main__":
    main()
