#!/usr/bin/env python3
"""The link-usage tables (2-5) of Jain, Lau, Kale, "Collectives on Two-tier
Direct Networks" (2012) beside topocoll-sim's numbers (docs/reproduction_twotier.md).

    tools/sim/twotier_tables.py [path/to/topocoll-sim]

Runs topocoll-sim on the paper's machine (twotier:64x16x16, in-order ranks)
for every cell of the paper's Tables 3, 4 and 5 (64 KiB per core for scatter,
gather, allgather and reduce-scatter; 1 GiB for broadcast and reduce), reads
its JSON, and prints Markdown: per table, each paper cell as printed, ours in
binary units with the exact byte count behind it, and whether they agree; then
Table 2's closed forms evaluated on the same machine beside the simulator's
two estimates. Standard library only; about 10 s of CPU (the O(p^2)-message
baselines dominate).
"""
import json
import os
import subprocess
import sys
import tempfile

NET = "twotier:64x16x16"
SN, NPS, CPN = 64, 16, 16
P = SN * NPS * CPN
KI, MI, GI = 1 << 10, 1 << 20, 1 << 30
N = GI                        # the paper's n: 1 GiB in every experiment
BW = 10e9                     # topocoll-sim's default: 10 GB/s on every tier
GAMMA = 0.25e-9               # and 0.25 ns per reduced byte
BETA = 1 / BW

# (collective, --bytes, [algorithms])
RUNS = [
    ("scatter", "64K", ["binomial", "twotier_sockets", "twotier"]),
    ("gather", "64K", ["binomial", "twotier_sockets", "twotier"]),
    ("bcast", "1G", ["scatter_allgather", "twotier_chunked_sockets", "twotier_sockets", "binomial"]),
    ("allgather", "64K", ["recursive_doubling", "ring", "twotier_sockets", "twotier"]),
    ("reduce_scatter_block", "64K", ["pairwise", "twotier_sockets", "twotier", "twotier_landing_sockets",
                                     "twotier_landing"]),
    ("reduce", "1G", ["rabenseifner", "twotier_sockets", "binomial", "twotier", "twotier_landing_sockets",
                      "twotier_landing"]),
]

METRICS = [("L1 links used", 0, "used"), ("L1 links min traffic", 0, "min_bytes"),
           ("L1 links max traffic", 0, "max_bytes"), ("L2 links used", 1, "used"),
           ("L2 links min traffic", 1, "min_bytes"), ("L2 links max traffic", 1, "max_bytes")]

# The paper's cells as printed, six values in METRICS order.  Gather is
# "exactly the same" as scatter in the paper, so both use these.
BINOMIAL_CELLS = ["1036", "1 MB", "141 MB", "56", "16.7 MB", "520 MB"]
TWOTIER_SCATTER_CELLS = ["960", "1 MB", "64 MB", "63", "1 MB", "16 MB"]
# Table 5's two-tier columns; both variants of ours are set beside them.
TWOTIER_RS_CELLS = ["15360", "65 MB", "65 MB", "4032", "16 MB", "16 MB"]
TWOTIER_REDUCE_CELLS = ["15360", "66 MB", "130 MB", "4032", "16 MB", "32 MB"]

PAPER = {
    "table3": ("Table 3: scatter (64 KB to each core) and broadcast (1 GB)", [
        ("Scatter, Binomial", "scatter", "binomial", BINOMIAL_CELLS),
        ("Scatter, Two-tier", "scatter", "twotier_sockets", TWOTIER_SCATTER_CELLS),
        ("Broadcast, DeGeijn", "bcast", "scatter_allgather", ["1588", "2 MB", "1.1 GB", "95", "32 MB", "1.09 GB"]),
        ("Broadcast, Two-tier", "bcast", "twotier_chunked_sockets", ["15360", "64 MB", "128 MB", "3937", "64 MB", "64 MB"]),
    ]),
    "table3g": ("Gather (the paper: \"exactly same results are found for Gather\")", [
        ("Gather, Binomial", "gather", "binomial", BINOMIAL_CELLS),
        ("Gather, Two-tier", "gather", "twotier_sockets", TWOTIER_SCATTER_CELLS),
    ]),
    "table4": ("Table 4: allgather (64 KB per core)", [
        ("Recursive Doubling", "allgather", "recursive_doubling", ["10496", "16 MB", "15.1 GB", "384", "4.2 GB", "4.3 GB"]),
        ("Ring", "allgather", "ring", ["1080", "1 GB", "1 GB", "634", "1 GB", "1 GB"]),
        ("Two-tier", "allgather", "twotier_sockets", ["15360", "65 MB", "65 MB", "4032", "16 MB", "16 MB"]),
    ]),
    "table5": ("Table 5: reduce-scatter (1 GB overall, 64 KB per core) and reduce (1 GB)", [
        ("Reduce-Scatter, Pairwise Exchange", "reduce_scatter_block", "pairwise", ["15360", "2 GB", "2 GB", "4032", "4 GB", "4 GB"]),
        ("Reduce-Scatter, Two-tier", "reduce_scatter_block", "twotier_sockets", TWOTIER_RS_CELLS),
        ("Reduce, Rabenseifner", "reduce", "rabenseifner", ["15360", "2 GB", "3 GB", "4032", "4 GB", "5 GB"]),
        ("Reduce, Two-tier", "reduce", "twotier_sockets", TWOTIER_REDUCE_CELLS),
    ]),
    "table5l": ("Table 5, two-tier columns, reduced where the L2 data land", [
        ("Reduce-Scatter, Two-tier", "reduce_scatter_block", "twotier_landing_sockets", TWOTIER_RS_CELLS),
        ("Reduce, Two-tier", "reduce", "twotier_landing_sockets", TWOTIER_REDUCE_CELLS),
    ]),
}

UNITS = {"KB": 1e3, "MB": 1e6, "GB": 1e9}


def binary(b):
    """Bytes in binary units, as topocoll-sim prints them."""
    for unit, size in (("GiB", GI), ("MiB", MI), ("KiB", KI)):
        if b >= size * 0.9995:
            v = b / size
            return ("%.3g" % v if v < 100 else "%.0f" % v) + " " + unit
    return "%d B" % b


def agrees(paper, ours):
    """'yes' when the paper's printed value reads as ours in binary units or
    in decimal units at the paper's precision; 'no' otherwise."""
    if " " not in paper:
        return "yes" if int(paper) == ours else "no"
    num, unit = paper.split()
    val, digits = float(num), len(num.split(".")[1]) if "." in num else 0
    q = 10 ** -digits
    bin_size = 1024 ** (" KMG".index(unit[0]))
    dec_size = UNITS[unit]
    for size, how in ((bin_size, "binary"), (dec_size, "decimal")):
        x = ours / size
        # printed with `digits` decimals: rounded or truncated
        if abs(round(x, digits) - val) < q / 2 or abs(int(x / q + 1e-9) * q - val) < q / 2:
            return "yes (%s)" % how
    return "no"


def run_sim(sim, coll, size, algos, out):
    cmd = [sim, "--network", NET, "--coll", coll, "--bytes", size, "--algos", ",".join(algos),
           "--compare", "--json", out]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        return {a["name"]: a for a in json.load(f)["algorithms"]}


def tier_value(alg, tier, key):
    return alg["tiers"][tier][key]


def print_table(title, rows, res):
    print("#### " + title + "\n")
    head = "| metric |"
    sep = "|---|"
    for label, coll, algo, _ in rows:
        head += " %s: paper | topocoll-sim `%s` | agree |" % (label, algo)
        sep += "---:|---:|---|"
    print(head)
    print(sep)
    for m, (name, tier, key) in enumerate(METRICS):
        line = "| %s |" % name
        for label, coll, algo, paper in rows:
            ours = tier_value(res[coll][algo], tier, key)
            shown = str(ours) if key == "used" else "%s (%d B)" % (binary(ours), ours)
            line += " %s | %s | %s |" % (paper[m], shown, agrees(paper[m], ours))
        print(line)
    print()


def ms(t):
    return "%.1f ms" % (t * 1e3)


def table2(res):
    nb, ng = N * BETA, N * GAMMA
    f = (P - 1) / P
    rows = [
        ("Scatter", "(p-1)/p nβ", f * nb, ("scatter", "binomial"),
         "nβ max{1/nps, 1/sn}", nb * max(1 / NPS, 1 / SN), ("scatter", "twotier_sockets")),
        ("Gather", "(p-1)/p nβ", f * nb, ("gather", "binomial"),
         "nβ max{1/nps, 1/sn}", nb * max(1 / NPS, 1 / SN), ("gather", "twotier_sockets")),
        ("Allgather", "(p-1)/p nβ", f * nb, ("allgather", "ring"),
         "nβ (1/nps + 1/sn + 1/(sn nps))", nb * (1 / NPS + 1 / SN + 1 / (SN * NPS)),
         ("allgather", "twotier_sockets")),
        ("Allgather", "(p-1)/p nβ", f * nb, ("allgather", "recursive_doubling"), None, None, None),
        ("Broadcast", "2 (p-1)/p nβ", 2 * f * nb, ("bcast", "scatter_allgather"),
         "nβ (3/nps)", nb * 3 / NPS, ("bcast", "twotier_chunked_sockets")),
        ("Reduce-Scatter", "(p-1)/p (nβ + nγ)", f * (nb + ng), ("reduce_scatter_block", "pairwise"),
         "nβ (1/nps + 1/sn + 1/(sn nps)) + 2nγ", nb * (1 / NPS + 1 / SN + 1 / (SN * NPS)) + 2 * ng,
         ("reduce_scatter_block", "twotier_sockets")),
        ("Reduce-Scatter", "(p-1)/p (nβ + nγ)", f * (nb + ng), ("reduce_scatter_block", "pairwise"),
         "nβ (1/nps + 1/sn + 1/(sn nps)) + 2nγ", nb * (1 / NPS + 1 / SN + 1 / (SN * NPS)) + 2 * ng,
         ("reduce_scatter_block", "twotier_landing_sockets")),
        ("Reduce", "(p-1)/p (2nβ + nγ)", f * (2 * nb + ng), ("reduce", "rabenseifner"),
         "nβ (1/nps + 2/sn) + 2nγ", nb * (1 / NPS + 2 / SN) + 2 * ng, ("reduce", "twotier_sockets")),
        ("Reduce", "(p-1)/p (2nβ + nγ)", f * (2 * nb + ng), ("reduce", "rabenseifner"),
         "nβ (1/nps + 2/sn) + 2nγ", nb * (1 / NPS + 2 / SN) + 2 * ng, ("reduce", "twotier_landing_sockets")),
    ]
    print("#### Table 2: closed forms on 64 x 16 x 16, n = 1 GiB, β = 0.1 ns/B (10 GB/s), γ = 0.25 ns/B\n")
    print("| operation | base cost | value | simulated (algorithm): total-load / step-by-step | busiest rank reduces "
          "| two-tier cost | value | simulated (algorithm): total-load / step-by-step | busiest rank reduces |")
    print("|---|---|---:|---|---:|---|---:|---|---:|")
    for op, bf, bv, (bc, ba), tf, tv, tt in rows:
        a = res[bc][ba]
        line = "| %s | %s | %s | `%s`: %s / %s | %s |" % (op, bf, ms(bv), ba, ms(a["t_load_s"]), ms(a["t_steps_s"]),
                                                            binary(a["rank_reduced_max_bytes"]))
        if tf:
            b = res[tt[0]][tt[1]]
            line += " %s | %s | `%s`: %s / %s | %s |" % (tf, ms(tv), tt[1], ms(b["t_load_s"]), ms(b["t_steps_s"]),
                                                           binary(b["rank_reduced_max_bytes"]))
        else:
            line += " | | | |"
        print(line)
    print()


def main():
    sim = sys.argv[1] if len(sys.argv) > 1 else "build-openmpi/tools/sim/topocoll-sim"
    if not os.access(sim, os.X_OK):
        sys.exit("usage: twotier_tables.py path/to/topocoll-sim")
    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        for coll, size, algos in RUNS:
            res[coll] = run_sim(sim, coll, size, algos, os.path.join(tmp, coll + ".json"))
    print("<!-- generated by tools/sim/twotier_tables.py; do not edit by hand -->\n")
    for key in ("table3", "table3g", "table4", "table5", "table5l"):
        title, rows = PAPER[key]
        print_table(title, rows, res)
    table2(res)


if __name__ == "__main__":
    main()
