#!/usr/bin/python3
"""Report of a topocoll-tune run: per collective and communicator, the
measured times of every entry against size with the selected one marked
(PNG, when matplotlib is installed), and a markdown summary: the rules of
the table with their origin, ratio to native, spread and evidence, and per
measured size the selected entry against native and the fastest entry.

    plot_tune.py --state TABLE.state --table TABLE.json --out DIR

(`topocoll-tune --report DIR` runs this.)  Writes DIR/report.md and
DIR/<collective>_<communicator>.png.  Exit status 0, 1 when an input cannot
be read, 3 when the markdown was written but matplotlib is missing (no PNG).
"""
import argparse
import json
import os
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def rules_of(table):
    """(collective, index, rule) for every rule of the table, in order."""
    out = []
    for coll, rules in table.items():
        if coll.startswith("_") or not isinstance(rules, list):
            continue
        for i, r in enumerate(rules):
            out.append((coll, i, r))
    return out


def in_range(rng, v, max_exclusive):
    if not rng:
        return True
    lo, hi = rng
    if v < lo:
        return False
    if hi == 0:
        return True
    return v < hi if max_exclusive else v <= hi


def selected(rules, coll, np_, nodes, nbytes):
    """The rule index and first candidate the table gives (None: no rule)."""
    for c, i, r in rules:
        if c != coll:
            continue
        if not in_range(r.get("np"), np_, False) or not in_range(r.get("nodes"), nodes, False):
            continue
        if r.get("pow2") and (np_ & (np_ - 1)):
            continue
        if not in_range(r.get("bytes"), nbytes, True):
            continue
        return i, r["algorithms"][0]
    return None, "native"


def human(n):
    for unit, f in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= f and n % f == 0:
            return "%d%s" % (n // f, unit)
    return str(n)


def groups_of(state):
    g = {}
    for p in state.get("points", []):
        key = (p["coll"], p["comm"])
        g.setdefault(key, []).append(p)
    for pts in g.values():
        pts.sort(key=lambda p: p["bytes"])
    return g


def plot(path, coll, comm, pts, rules):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = sorted({e for p in pts for e in p["entries"]})
    fig, ax = plt.subplots(figsize=(8, 5))
    for name in names:
        xs, ys, lo, hi = [], [], [], []
        for p in pts:
            e = p["entries"].get(name)
            if e:
                xs.append(p["bytes"])
                ys.append(e["median"])
                lo.append(e["median"] - e["q25"])
                hi.append(e["q75"] - e["median"])
        style = dict(linestyle="--", color="black", linewidth=1.6) if name == "native" else dict(linewidth=0.9)
        ax.errorbar(xs, ys, yerr=[lo, hi], label=name, capsize=2, **style)
    sx, sy = [], []
    for p in pts:
        _, alg = selected(rules, coll, p["np"], p["nodes"], p["bytes"])
        e = p["entries"].get(alg)
        if e:
            sx.append(p["bytes"])
            sy.append(e["median"])
    ax.plot(sx, sy, "o", markersize=11, markerfacecolor="none", markeredgecolor="red",
            markeredgewidth=2, label="selected", zorder=5)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("bytes per rank")
    ax.set_ylabel("time per call (us, median of batches; bars q25-q75)")
    ax.set_title("%s, communicator %s (np %d, %d nodes)" % (coll, comm, pts[0]["np"], pts[0]["nodes"]))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def rules_md(rules):
    lines = ["## Rules", "",
             "| collective | rule | np | nodes | bytes | algorithm | origin | ratio to native | spread | "
             "evidence (bytes: ratio) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for coll, i, r in rules:
        ev = ", ".join("%s: %.2f" % (human(int(e[0])), e[1]) for e in r.get("evidence", []) if len(e) >= 2)
        sp = r.get("spread")
        lines.append("| %s | %d | %s | %s | %s | `%s` | %s | %s | %s | %s |" % (
            coll, i, r.get("np", "any"), r.get("nodes", "any"), r.get("bytes", "any"),
            "`, `".join(r["algorithms"]), r.get("origin", "-"),
            "%.2fx" % r["ratio"] if "ratio" in r else "-",
            "%.2f-%.2f" % (sp[0], sp[1]) if sp else "-", ev or "-"))
    return lines


def sizes_md(coll, comm, pts, rules):
    lines = ["", "### %s, communicator %s (np %d, %d nodes)" % (coll, comm, pts[0]["np"], pts[0]["nodes"]), "",
             "| bytes | native (us) | selected | by rule | selected (us) | ratio | spread (q25-q75 / native) "
             "| fastest | fastest ratio |",
             "|---|---|---|---|---|---|---|---|---|"]
    for p in pts:
        nat = p["entries"].get("native")
        idx, alg = selected(rules, coll, p["np"], p["nodes"], p["bytes"])
        e = p["entries"].get(alg)
        fast = min(p["entries"].items(), key=lambda kv: kv[1]["median"])
        if not nat or not e:
            lines.append("| %s | - | `%s` | %s | not measured | - | - | `%s` | - |" % (
                human(p["bytes"]), alg, idx if idx is not None else "-", fast[0]))
            continue
        m = nat["median"]
        lines.append("| %s | %.2f | `%s` | %s | %.2f | %.2fx | %.2f-%.2f | `%s` | %.2fx |" % (
            human(p["bytes"]), m, alg, idx if idx is not None else "-", e["median"], e["median"] / m,
            e["q25"] / m, e["q75"] / m, fast[0], fast[1]["median"] / m))
    return lines


def header_md(table, state):
    lines = ["# topocoll-tune report", ""]
    meta = table.get("_tuned", {})
    if meta:
        lines.append("Tuned with %s on %s; np %s, topology %s; margin %s; %s points%s." % (
            meta.get("tool", "?"), meta.get("mpi", "?"), meta.get("np", "?"), meta.get("topology", "?"),
            meta.get("margin", "?"), meta.get("points", "?"),
            "" if meta.get("complete", True) else " (incomplete run)"))
        lines.append("")
    model = table.get("_model") or state.get("model")
    if model:
        lines += ["Cost model parameters (fitted; levels not listed keep the built-in values):", "",
                  "| level | alpha (us) | bandwidth (GB/s) |", "|---|---|---|"]
        for lvl in ("socket", "node", "network"):
            v = model.get(lvl)
            if v:
                lines.append("| %s | %.3g | %.3g |" % (lvl, v["alpha"] * 1e6, 1e-9 / v["beta"]))
        lines.append("")
    lines.append("Ratios are times over native's median at the same size (below 1 is faster); the spread is "
                 "the selected entry's q25-q75 over native's median.")
    lines.append("")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--state", required=True)
    ap.add_argument("--table", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    try:
        state, table = load(args.state), load(args.table)
    except (OSError, ValueError) as e:
        print("plot_tune.py: %s" % e, file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)
    rules = rules_of(table)
    groups = groups_of(state)
    md = header_md(table, state) + rules_md(rules) + ["", "## Measured sizes"]
    for (coll, comm), pts in sorted(groups.items()):
        md += sizes_md(coll, comm, pts, rules)
        md.append("")
        md.append("![%s %s](%s_%s.png)" % (coll, comm, coll, comm))
    with open(os.path.join(args.out, "report.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("plot_tune.py: matplotlib is not installed (python3-matplotlib): report.md written, no PNG",
              file=sys.stderr)
        return 3
    for (coll, comm), pts in sorted(groups.items()):
        plot(os.path.join(args.out, "%s_%s.png" % (coll, comm)), coll, comm, pts, rules)
    return 0


if __name__ == "__main__":
    sys.exit(main())
