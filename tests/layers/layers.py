#!/usr/bin/env python3
"""The layers of src/ and the checks that keep them apart.

This file is the one place that states the layer order (docs/design.md
points here).  Lowest first; a file may include headers of its own layer and
of any lower one, never of a higher one:

    MPI-free (static library topocoll_core, compiled without mpi.h):
      core < topo < pattern < sched < coll < blocks < algo < select < verify < sim
    MPI layer (libtopocoll, libtopocoll_pmpi):
      detect < exec < api < interpose

The MPI layer sits on core..verify.  sim is MPI-free but is not part of
libtopocoll (only topocoll_core links it), so no MPI-layer file may include
a sim header.  Nothing in the MPI-free layers may include <mpi.h> or
<hwloc.h>, a header of the MPI layer, or a public header that includes
<mpi.h> (include/topocoll.h); include/topocoll_types.h is fine everywhere.

Subcommands (each exits 1 on a violation and names it):
  includes SRC_DIR INCLUDE_DIR [CMAKELISTS]
      every #include of src/**/*.[ch] against the order above; with
      CMAKELISTS, also that its TOPOCOLL_CORE_DIRS / TOPOCOLL_MPI_DIRS agree.
  mpi-free NM ARCHIVE [MPI_INCLUDE_DIRS CORE_INCLUDE_DIRS]
      no undefined MPI (or hwloc) symbol in the MPI-free archive, and none of
      MPI's include directories on the MPI-free objects' include path
      (lists separated by ';' or '|').
  exports NM HEADER LIBRARY [--interposer]
      the dynamic symbols LIBRARY defines are exactly the topocoll_*
      functions HEADER declares (plus, with --interposer, the MPI_ functions
      the interposer overrides) and the linker's own symbols.
  selftest
      runs each check on broken inputs (a temporary tree with an upward
      include, mpi.h in core, ...) and fails unless every one is caught.
"""
import os
import re
import subprocess
import sys
import tempfile

# ---- the order ---------------------------------------------------------------
MPI_FREE = ["core", "topo", "pattern", "sched", "coll", "blocks", "algo", "select",
            "verify", "sim"]
MPI_LAYER = ["detect", "exec", "api", "interpose"]
LAYERS = MPI_FREE + MPI_LAYER
RANK = {name: i for i, name in enumerate(LAYERS)}
ORDER = " < ".join(MPI_FREE) + " | " + " < ".join(MPI_LAYER)
# MPI-free layers the MPI layer may not include (not linked into libtopocoll).
NOT_IN_LIBRARY = {"sim"}
# System headers of the MPI layer's dependencies.
MPI_SYSTEM_HEADERS = re.compile(r"^(mpi\.h|mpio\.h|mpi_.*\.h|mpicxx\.h|hwloc\.h|hwloc/.*)$")
# Undefined symbols that mean an MPI (or hwloc) dependency.
MPI_SYMBOL = re.compile(r"^(P?MPIX?_|ompi_|opal_|orte_|MPIR_|MPID_|MPIU_|mpi_|pmpi_|hwloc_)")
# The interposer's overrides: the C MPI_ functions (src/interpose/pmpi.c) and
# their Fortran names (src/interpose/fortran.c: mpi_x, mpi_x_, mpi_x__,
# MPI_X, mpi_x_f08_, MPI_X_f08).
INTERPOSED = re.compile(r"^(MPI_[A-Z][a-z_]*(_f08)?|MPI_[A-Z][A-Z_]*|mpi_[a-z_]*[a-z](_+|_f08_)?|"
                        r"MPIX_[A-Z][a-z_]*_init)$")   # Open MPI's persistent collectives (MPIX_ extension)
# Symbols every shared object may define.
LINKER_SYMBOLS = {"_init", "_fini", "__bss_start", "_edata", "_end", "__data_start",
                  "data_start", "_IO_stdin_used"}

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def layer_of(path, src):
    rel = os.path.relpath(path, src)
    first = rel.split(os.sep)[0]
    return first if first != rel else None


def public_mpi_headers(include_dir):
    """Public headers that include <mpi.h>, directly or through another one."""
    direct, uses = set(), {}
    for name in sorted(os.listdir(include_dir)):
        if not name.endswith(".h"):
            continue
        uses[name] = set()
        with open(os.path.join(include_dir, name), encoding="utf-8") as f:
            for line in f:
                m = INCLUDE_RE.match(line)
                if not m:
                    continue
                if MPI_SYSTEM_HEADERS.match(m.group(2)):
                    direct.add(name)
                else:
                    uses[name].add(m.group(2))
    mpi = set(direct)
    changed = True
    while changed:
        changed = False
        for name, deps in uses.items():
            if name not in mpi and deps & mpi:
                mpi.add(name)
                changed = True
    return mpi


def resolve(header, including_dir, src, include_dir):
    for base in (including_dir, src, include_dir):
        p = os.path.normpath(os.path.join(base, header))
        if os.path.isfile(p):
            return p
    return None


def check_include(where, layer, kind, header, including_dir, src, include_dir, mpi_public):
    """One #include line; returns an error text or None."""
    mpi_free = layer in MPI_FREE
    if kind == "<":
        if mpi_free and MPI_SYSTEM_HEADERS.match(header):
            return f"{where}: <{header}> in the MPI-free layer '{layer}'"
        return None
    target = resolve(header, including_dir, src, include_dir)
    if target is None:
        return f'{where}: "{header}" not found (relative, src/ or include/)'
    if os.path.commonpath([target, include_dir]) == include_dir:
        name = os.path.relpath(target, include_dir)
        if mpi_free and name in mpi_public:
            return (f'{where}: "{header}" includes <mpi.h>; the MPI-free layer '
                    f"'{layer}' may use topocoll_types.h only")
        return None
    if os.path.commonpath([target, src]) != src:
        return f'{where}: "{header}" is outside src/ and include/'
    tlayer = layer_of(target, src)
    if tlayer not in RANK:
        return f'{where}: "{header}" is not in a layer folder'
    if RANK[tlayer] > RANK[layer]:
        return (f"{where}: '{layer}' includes \"{header}\" of the higher layer '{tlayer}' "
                f"(order: {ORDER})")
    if tlayer in NOT_IN_LIBRARY and layer in MPI_LAYER:
        return (f"{where}: MPI layer '{layer}' includes \"{header}\" of '{tlayer}', "
                "which libtopocoll does not contain")
    return None


def check_includes(src, include_dir):
    src, include_dir = os.path.abspath(src), os.path.abspath(include_dir)
    mpi_public = public_mpi_headers(include_dir)
    errors, nfiles, nincludes = [], 0, 0
    for name in sorted(os.listdir(src)):
        p = os.path.join(src, name)
        if os.path.isdir(p) and name not in RANK:
            errors.append(f"src/{name}/: folder not in the layer order ({ORDER})")
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for fname in sorted(files):
            if not fname.endswith((".c", ".h")):
                continue
            path = os.path.join(root, fname)
            rel = os.path.relpath(path, os.path.dirname(src))
            layer = layer_of(path, src)
            if layer not in RANK:
                errors.append(f"{rel}: not inside a layer folder")
                continue
            nfiles += 1
            with open(path, encoding="utf-8") as f:
                for lineno, line in enumerate(f, 1):
                    m = INCLUDE_RE.match(line)
                    if not m:
                        continue
                    nincludes += 1
                    err = check_include(f"{rel}:{lineno}", layer, m.group(1), m.group(2),
                                        root, src, include_dir, mpi_public)
                    if err:
                        errors.append(err)
    return errors, nfiles, nincludes


def cmake_list(text, var):
    m = re.search(r"set\(\s*" + var + r"\s+([^)]*)\)", text)
    return m.group(1).split() if m else None


def check_cmake(cmakelists):
    """The build's folder lists agree with the order (sim and interpose are
    built by their own rules)."""
    with open(cmakelists, encoding="utf-8") as f:
        text = f.read()
    errors = []
    want = {"TOPOCOLL_CORE_DIRS": [l for l in MPI_FREE if l != "sim"],
            "TOPOCOLL_MPI_DIRS": [l for l in MPI_LAYER if l != "interpose"]}
    for var, layers in want.items():
        got = cmake_list(text, var)
        if got is None:
            errors.append(f"{cmakelists}: set({var} ...) not found")
        elif got != layers:
            errors.append(f"{cmakelists}: {var} is {' '.join(got)}; the layer order says "
                          f"{' '.join(layers)}")
    return errors


def cmd_includes(args):
    src, include_dir = args[0], args[1]
    errors, nfiles, nincludes = check_includes(src, include_dir)
    if len(args) > 2:
        errors += check_cmake(args[2])
    print(f"layers: {ORDER}")
    print(f"{nfiles} files, {nincludes} #include lines checked")
    for e in errors:
        print("LAYER VIOLATION " + e)
    print(f"{len(errors)} violation(s)")
    return 1 if errors or nfiles == 0 else 0


# ---- symbols -------------------------------------------------------------------
def run_nm(nm, args):
    out = subprocess.run([nm] + args, check=True, capture_output=True, text=True)
    return out.stdout


def mpi_undefined(nm_text):
    """(object, symbol) of each undefined MPI/hwloc symbol in `nm -A` output."""
    bad = []
    for line in nm_text.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[-2] == "U" and MPI_SYMBOL.match(parts[-1]):
            bad.append((parts[0].rstrip(":"), parts[-1]))
    return bad


def mpi_include_dirs_used(mpi_dirs, core_dirs):
    mpi = {os.path.normpath(d) for d in re.split(r"[;|]", mpi_dirs) if d}
    return [d for d in re.split(r"[;|]", core_dirs) if d and os.path.normpath(d) in mpi]


def cmd_mpi_free(args):
    nm, archive = args[0], args[1]
    text = run_nm(nm, ["-A", archive])
    objects = {l.split(":")[1] for l in text.splitlines() if l.count(":") >= 2}
    undefined = sum(1 for l in text.splitlines() if len(l.split()) >= 3 and l.split()[-2] == "U")
    bad = mpi_undefined(text)
    print(f"{archive}: {len(objects)} objects, {undefined} undefined references")
    for obj, sym in bad:
        print(f"MPI SYMBOL {obj}: undefined {sym}")
    rc = 1 if bad or not objects else 0
    if len(args) > 3:
        if not args[2]:
            print("no MPI include directories given")
            rc = 1
        used = mpi_include_dirs_used(args[2], args[3])
        print(f"MPI include directories: {args[2]}")
        print(f"MPI-free objects' include directories: {args[3]}")
        for d in used:
            print(f"MPI INCLUDE {d} is on the MPI-free objects' include path")
        rc = 1 if used else rc
    print(f"{len(bad)} MPI reference(s)")
    return rc


def public_functions(header):
    """The topocoll_ functions (and extern variables) a public header declares."""
    with open(header, encoding="utf-8") as f:
        text = re.sub(r"/\*.*?\*/", " ", f.read(), flags=re.S)
    functions = set(re.findall(r"\b(topocoll_[A-Za-z0-9_]+)\s*\(", text))
    functions |= list_declared(text, os.path.dirname(header))
    variables = set(re.findall(r"\bextern\b[^;(]*?\b(topocoll_[A-Za-z0-9_]+)\s*(?:\[[^\]]*\])?\s*;",
                               text))
    return functions | variables


def list_declared(text, include_dir):
    """The functions a header declares per row of the collectives' list: a
    macro X(UPPER, lower, Mpi, SHAPE) whose body pastes `lower` into
    topocoll_ names, expanded by TOPOCOLL_COLLS(X)."""
    path = os.path.join(include_dir, "topocoll_colls.h")
    if not os.path.exists(path):
        return set()
    with open(path, encoding="utf-8") as f:
        rows = re.findall(r"X\((\w+),\s*(\w+),\s*(\w+),\s*(\w+)\)", f.read())
    joined = text.replace("\\\n", " ")
    out = set()
    for name, body in re.findall(r"#define\s+(\w+)\(UPPER, lower, Mpi, SHAPE\)([^\n]*)", joined):
        if not re.search(r"\bTOPOCOLL_COLLS\(" + name + r"\)", joined):
            continue
        for pattern in re.findall(r"\b(topocoll_[A-Za-z0-9_#]*##[A-Za-z0-9_#]*)\s*\(", body):
            for upper, lower, _, _ in rows:
                if upper == "UPPER":   # the comment's row template
                    continue
                out.add(pattern.replace("##lower##", lower).replace("##lower", lower))
    return out


def dynamic_defined(nm_text):
    syms = []
    for line in nm_text.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            syms.append((parts[-2], parts[-1].split("@")[0]))
    return syms


def check_exports(syms, public, interposer):
    """Errors for a library's (type, name) dynamic definitions."""
    errors, names = [], {n for _, n in syms}
    for kind, name in syms:
        if name in LINKER_SYMBOLS:
            continue
        if name in public:
            continue
        if interposer and INTERPOSED.match(name) and kind in ("T", "W"):
            continue
        errors.append(f"EXPORTED {kind} {name}: not a public function of include/topocoll.h")
    for name in sorted(public - names):
        errors.append(f"MISSING {name}: declared in include/topocoll.h, not exported")
    if interposer and not any(INTERPOSED.match(n) for n in names):
        errors.append("MISSING: the interposer exports no MPI_ function")
    return errors


def cmd_exports(args):
    nm, header, lib = args[0], args[1], args[2]
    interposer = "--interposer" in args[3:]
    syms = dynamic_defined(run_nm(nm, ["-D", "--defined-only", lib]))
    for kind, name in syms:
        print(f"  {kind} {name}")
    print(f"{os.path.basename(lib)}: {len(syms)} exported symbols")
    errors = check_exports(syms, public_functions(header), interposer)
    for e in errors:
        print(e)
    print(f"{len(errors)} problem(s)")
    return 1 if errors else 0


# ---- self-test: every check must catch a broken input ----------------------------
def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def fixture_tree(root, extra):
    """A small clean tree, plus `extra` {relative path: text}."""
    files = {
        "include/topocoll_types.h": "#pragma once\n",
        "include/topocoll.h": "#include <mpi.h>\n#include \"topocoll_types.h\"\n",
        "src/core/config.h": '#include "topocoll_types.h"\n',
        "src/topo/topo.h": '#include "core/config.h"\n',
        "src/algo/catalog.h": '#include "topo/topo.h"\n',
        "src/sim/sim.h": '#include "algo/catalog.h"\n',
        "src/exec/exec.h": '#include <mpi.h>\n#include "topo/topo.h"\n',
        "src/api/api.c": '#include "topocoll.h"\n#include "exec/exec.h"\n',
    }
    files.update(extra)
    for rel, text in files.items():
        write(os.path.join(root, rel), text)
    return os.path.join(root, "src"), os.path.join(root, "include")


def selftest():
    cases = [  # (name, extra files, expected violations, text that must appear)
        ("clean tree", {}, 0, None),
        ("upward include", {"src/topo/bad.c": '#include "algo/catalog.h"\n'}, 1,
         "src/topo/bad.c:1"),
        ("mpi.h in core", {"src/core/bad.c": "#include <stdio.h>\n#include <mpi.h>\n"}, 1,
         "src/core/bad.c:2"),
        ("hwloc in algo", {"src/algo/bad.c": "#include <hwloc.h>\n"}, 1, "src/algo/bad.c:1"),
        ("topocoll.h in sched", {"src/sched/bad.c": '#include "topocoll.h"\n'}, 1,
         "src/sched/bad.c:1"),
        ("MPI header in topo", {"src/topo/bad.h": '#include "exec/exec.h"\n'}, 1,
         "src/topo/bad.h:1"),
        ("sim from the MPI layer", {"src/api/bad.c": '#include "sim/sim.h"\n'}, 1,
         "src/api/bad.c:1"),
        ("interpose from api", {"src/interpose/x.h": "\n", "src/api/bad.c": '#include "interpose/x.h"\n'},
         1, "src/api/bad.c:1"),
        ("unknown folder", {"src/misc/x.c": "\n"}, 2, "src/misc"),
        ("missing header", {"src/core/bad.c": '#include "core/nosuch.h"\n'}, 1, "nosuch"),
    ]
    failures = 0
    for name, extra, want, text in cases:
        with tempfile.TemporaryDirectory() as tmp:
            src, inc = fixture_tree(tmp, extra)
            errors, _, _ = check_includes(src, inc)
        ok = len(errors) == want and (text is None or any(text in e for e in errors))
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} includes: {name}: {len(errors)} violation(s)"
              + "".join(f"\n       {e}" for e in errors))
    with tempfile.TemporaryDirectory() as tmp:
        cm = os.path.join(tmp, "CMakeLists.txt")
        write(cm, "set(TOPOCOLL_CORE_DIRS core topo pattern sched coll blocks algo verify select)\n"
                  "set(TOPOCOLL_MPI_DIRS detect exec api)\n")
        errors = check_cmake(cm)
    ok = len(errors) == 1 and "TOPOCOLL_CORE_DIRS" in errors[0]
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} cmake: folder lists out of order: {errors}")
    nm_text = ("libx.a:a.o:                 U memcpy\nlibx.a:a.o:0000 T tc_x\n"
               "libx.a:b.o:                 U PMPI_Send\nlibx.a:c.o:                 U ompi_mpi_comm_world\n")
    bad = mpi_undefined(nm_text)
    ok = [s for _, s in bad] == ["PMPI_Send", "ompi_mpi_comm_world"]
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} mpi-free: undefined MPI symbols found: {bad}")
    used = mpi_include_dirs_used("/usr/include/mpich;/x", "/src;/usr/include/mpich/")
    ok = used == ["/usr/include/mpich/"]
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} mpi-free: MPI include directory on the path: {used}")
    public = {"topocoll_allgather", "topocoll_bcast"}
    syms = [("T", "topocoll_allgather"), ("T", "topocoll_bcast"), ("T", "tc_sched_init"),
            ("B", "tc_config"), ("T", "MPI_Allgather"), ("A", "_edata")]
    errors = check_exports(syms, public, interposer=False)
    ok = len(errors) == 3 and all("EXPORTED" in e for e in errors)
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} exports: internal symbols caught: {errors}")
    errors = check_exports(syms[:1] + syms[4:], public, interposer=True)
    ok = len(errors) == 1 and "MISSING topocoll_bcast" in errors[0]
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} exports: unexported public function caught: {errors}")
    with tempfile.TemporaryDirectory() as tmp:
        h = os.path.join(tmp, "topocoll.h")
        write(h, "/* topocoll_not_this(x) */\ntypedef struct topocoll_place { int n; } topocoll_place;\n"
                 "int topocoll_allgather(const void *b,\n    int n);\n"
                 "extern const char topocoll_version[];\n")
        found = public_functions(h)
    ok = found == {"topocoll_allgather", "topocoll_version"}
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} exports: public names read from a header: {sorted(found)}")
    print(f"{failures} self-test failure(s)")
    return 1 if failures else 0


def main(argv):
    cmds = {"includes": (cmd_includes, 2), "mpi-free": (cmd_mpi_free, 2),
            "exports": (cmd_exports, 3)}
    if len(argv) == 2 and argv[1] == "selftest":
        return selftest()
    if len(argv) < 2 or argv[1] not in cmds or len(argv) - 2 < cmds[argv[1]][1]:
        print(__doc__, file=sys.stderr)
        return 2
    return cmds[argv[1]][0](argv[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
