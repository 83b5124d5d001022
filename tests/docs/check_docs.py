#!/usr/bin/env python3
"""The manual's checks (label docs).

  check_docs.py links    ROOT            every relative link and image resolves,
                                         every section a page names exists, every
                                         guide is reachable from README.md
  check_docs.py words    ROOT            no dated run log, session history or
                                         process wording in a guide
  check_docs.py readme   ROOT [BUILD]    the README's first screen: its shell
                                         blocks parse (bash -n), the scripts it
                                         names exist, .ci/run calls the test
                                         script; with BUILD, `cmake --install`
                                         into a scratch prefix gives every
                                         installed path the commands use, and
                                         pkg-config answers for it
  check_docs.py generated ROOT [INFO]    docs/performance.md, its plots and
                                         results/README.md are what
                                         tools/report/perf_page.py makes from
                                         results/index.json; with INFO
                                         (topocoll-info), docs/algorithms.md is
                                         its catalog; docs/ holds at most 150
                                         files; every results/ directory is in
                                         the index and every set there exists
  check_docs.py tools    ROOT            every program a results/index.json
                                         command names exists (a script or a
                                         built tool) and parses
  check_docs.py selftest ROOT            each check fails on a broken copy

Standard library only; seconds.  Exit status 1 with one line per problem.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

MAX_DOCS_FILES = 150
FIRST_SCREEN_END = "\n## The manual"
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
# A dated run log: a calendar date, a clock time with a zone, or words that
# describe how the project was worked on rather than what it is.
DATE = re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b|\b\d\d:\d\d(?:-\d\d:\d\d)? UTC\b")
PROCESS = re.compile(r"\b(main job|(?:this|the same|one|that|a) session|helper's|helpers'|development log|"
                     r"the issue|issue #?\d+|other agents|not done:|TODO|FIXME)\b", re.I)
HASH = re.compile(r"\b(?:commit|revision) [0-9a-f]{7,40}\b")
# Paths of the data and plots that moved to results/ and perf_page.py's SVGs.
STALE = re.compile(r"\.\./shared/|docs/measurements|\bmeasurements/\w|docs/figures/\w+\.png")


def guides(root):
    out = ["README.md"]
    for d, _, files in os.walk(os.path.join(root, "docs")):
        out += [os.path.relpath(os.path.join(d, f), root) for f in sorted(files) if f.endswith(".md")]
    return sorted(out)


def markdown_pages(root):
    out = guides(root)
    for d, _, files in os.walk(os.path.join(root, "results")):
        out += [os.path.relpath(os.path.join(d, f), root) for f in sorted(files) if f.endswith(".md")]
    return out


def strip_code(text):
    """Text outside fenced blocks and inline code (links in code are examples)."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


# A section named by page and title: [x](page.md), "Title" or docs/page.md, "Title".
SECTION_REF = re.compile(r"(?:\]\(|\b(?:docs/)?)([\w./-]+\.md)(?:#[\w-]*)?\)?,\s+\"([^\"]+)\"")


def headings(path):
    text = re.sub(r"^```.*?^```", "", open(path).read(), flags=re.S | re.M)
    return {h.strip().strip("`") for h in re.findall(r"^#{1,6} (.*)$", text, flags=re.M)} | \
           set(re.findall(r"^#{1,6} (.*)$", text, flags=re.M))


def check_links(root):
    bad = []
    for rel in markdown_pages(root):
        text = re.sub(r"\s+", " ", open(os.path.join(root, rel)).read())
        for page, title in SECTION_REF.findall(text):
            cand = [os.path.normpath(os.path.join(root, os.path.dirname(rel), page)),
                    os.path.join(root, page), os.path.join(root, "docs", os.path.basename(page))]
            path = next((c for c in cand if os.path.isfile(c)), None)
            if path and not any(title == h or h.startswith(title) or title in h for h in headings(path)):
                bad.append(f"{rel}: no section \"{title}\" in {os.path.relpath(path, root)}")
    for rel in markdown_pages(root):
        text = strip_code(open(os.path.join(root, rel)).read())
        for target in LINK.findall(text):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            path = target.split("#", 1)[0]
            full = os.path.normpath(os.path.join(root, os.path.dirname(rel), path))
            if not full.startswith(os.path.abspath(root) + os.sep) and full != os.path.abspath(root):
                bad.append(f"{rel}: link leaves the repository: {target}")
            elif not os.path.exists(full):
                bad.append(f"{rel}: broken link: {target}")
        # a section of the same page: "Title" below / above
        own = headings(os.path.join(root, rel))
        for title in re.findall(r"\"([A-Z][^\"]{2,80})\",? (?:below|above)\b", text):
            if not any(title == h or h.startswith(title) for h in own):
                bad.append(f"{rel}: no section \"{title}\" in this page")
    seen = reachable(root)
    for rel in guides(root):
        if rel not in seen:
            bad.append(f"{rel}: no page links to it (not reachable from README.md)")
    return bad


def reachable(root):
    """Pages reachable from README.md by relative links."""
    seen, todo = set(), ["README.md"]
    while todo:
        rel = todo.pop()
        if rel in seen or not rel.endswith(".md") or not os.path.isfile(os.path.join(root, rel)):
            continue
        seen.add(rel)
        for target in LINK.findall(strip_code(open(os.path.join(root, rel)).read())):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            path = os.path.normpath(os.path.join(os.path.dirname(rel), target.split("#", 1)[0]))
            if os.path.isdir(os.path.join(root, path)):
                path = os.path.join(path, "README.md")
            todo.append(path)
    return seen


def check_words(root):
    bad = []
    for rel in guides(root):
        for n, line in enumerate(open(os.path.join(root, rel)), 1):
            if DATE.search(line):
                bad.append(f"{rel}:{n}: dated run log: {DATE.search(line).group(0)}")
            for rx, what in ((PROCESS, "process wording"), (HASH, "commit hash"),
                             (STALE, "stale data path")):
                m = rx.search(line)
                if m:
                    bad.append(f"{rel}:{n}: {what}: {m.group(0)}")
    return bad


def first_screen(root):
    text = open(os.path.join(root, "README.md")).read()
    if FIRST_SCREEN_END not in text:
        return None, ["README.md: no '## The manual' section ends the first screen"]
    head = text.split(FIRST_SCREEN_END, 1)[0]
    blocks = re.findall(r"^```(\w*)\n(.*?)^```", head, flags=re.S | re.M)
    return blocks, []


def check_readme(root, build=None):
    blocks, bad = first_screen(root)
    if blocks is None:
        return bad
    text = open(os.path.join(root, "README.md")).read()
    head = text.split(FIRST_SCREEN_END, 1)[0]
    if len(head.splitlines()) > 70:
        bad.append(f"README.md: the first screen is {len(head.splitlines())} lines (at most 70)")
    sh = [b for lang, b in blocks if lang == "sh"]
    if not sh:
        bad.append("README.md: no shell commands on the first screen")
    for b in sh:
        r = subprocess.run(["bash", "-n"], input=b, text=True, capture_output=True)
        if r.returncode:
            bad.append(f"README.md: shell block does not parse: {r.stderr.strip()}")
    cmds = "\n".join(sh)
    for script in re.findall(r"\bbash (scripts/\S+\.sh)", cmds):
        if not os.path.isfile(os.path.join(root, script)):
            bad.append(f"README.md: {script} does not exist")
    for needed in ("scripts/main.sh", "scripts/test.sh", "LD_PRELOAD", "TOPOCOLL_STATS",
                   "cmake --install", "pkg-config"):
        if needed not in cmds:
            bad.append(f"README.md: the first screen does not show {needed}")
    cmake = "\n".join(b for lang, b in blocks if lang == "cmake")
    if "find_package(topocoll" not in cmake or "topocoll::topocoll" not in cmake:
        bad.append("README.md: no find_package(topocoll) / topocoll::topocoll block")
    ci = os.path.join(root, ".ci", "run")
    if os.path.isfile(ci) and "scripts/test.sh" not in open(ci).read():
        bad.append(".ci/run does not call scripts/test.sh")
    if build:
        bad += check_install(cmds, build)
    return bad


def check_install(cmds, build):
    bad = []
    with tempfile.TemporaryDirectory() as prefix:
        r = subprocess.run(["cmake", "--install", build, "--prefix", prefix],
                           capture_output=True, text=True)
        if r.returncode:
            return [f"cmake --install failed: {r.stderr.strip()[-300:]}"]
        used = set(re.findall(r"\$HOME/topocoll/([\w./-]+)", cmds))
        if not used:
            bad.append("README.md: no installed path ($HOME/topocoll/...) in the commands")
        for p in sorted(used):
            if not os.path.exists(os.path.join(prefix, p)):
                bad.append(f"README.md: $HOME/topocoll/{p} is not in an installed prefix")
        if not os.path.isdir(os.path.join(prefix, "lib", "cmake", "topocoll")):
            bad.append("the install has no lib/cmake/topocoll (find_package)")
        if shutil.which("pkg-config"):
            env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(prefix, "lib", "pkgconfig"))
            r = subprocess.run(["pkg-config", "--cflags", "--libs", "topocoll"], env=env,
                               capture_output=True, text=True)
            if r.returncode or "-ltopocoll" not in r.stdout:
                bad.append(f"pkg-config --libs topocoll: {r.stdout.strip()} {r.stderr.strip()}")
    return bad


def check_generated(root, info=None):
    bad = []
    r = subprocess.run([sys.executable, os.path.join(root, "tools", "report", "perf_page.py"),
                        "--check"], capture_output=True, text=True)
    if r.returncode:
        bad += (r.stdout + r.stderr).strip().splitlines() or ["perf_page.py --check failed"]
    if info:
        r = subprocess.run([info, "catalog"], capture_output=True, text=True)
        if r.returncode or r.stdout != open(os.path.join(root, "docs", "algorithms.md")).read():
            bad.append("docs/algorithms.md is not `topocoll-info catalog` (regenerate it)")
    n = sum(len(f) for _, _, f in os.walk(os.path.join(root, "docs")))
    if n > MAX_DOCS_FILES:
        bad.append(f"docs/ holds {n} files (at most {MAX_DOCS_FILES}): data goes to results/")
    index = json.load(open(os.path.join(root, "results", "index.json")))
    ids = {s["id"] for s in index["sets"]}
    for s in index["sets"]:
        if not os.path.isdir(os.path.join(root, "results", s["id"])):
            bad.append(f"results/index.json: set {s['id']} has no directory")
        for key in ("title", "machine", "date", "command", "files"):
            if not s.get(key):
                bad.append(f"results/index.json: set {s['id']} has no {key}")
    for d in sorted(os.listdir(os.path.join(root, "results"))):
        if os.path.isdir(os.path.join(root, "results", d)) and d not in ids:
            bad.append(f"results/{d}/ is not in results/index.json")
    return bad


def check_tools(root):
    """Every program a data set's command names exists and parses: a shell
    script under bash -n, a Python one compiled (the measuring tools are kept
    runnable, and results/index.json names no program that is gone)."""
    bad = []
    index = json.load(open(os.path.join(root, "results", "index.json")))
    progs = set()
    for s in index["sets"]:
        progs |= set(re.findall(r"\b((?:scripts|tools)/[\w./-]+)", s["command"]))
    for rel in sorted(progs):
        path = os.path.join(root, rel)
        if not os.path.isfile(path):
            if not os.path.isfile(os.path.join(root, "CMakeLists.txt")) or \
                    os.path.basename(rel) not in open_tree_cmake(root):
                bad.append(f"results/index.json: {rel} does not exist")
            continue
        if rel.endswith(".sh"):
            r = subprocess.run(["bash", "-n", path], capture_output=True, text=True)
            built = open_tree_cmake(root)
            for prog in sorted(set(re.findall(r"/(topocoll-[a-z0-9-]+)\b", open(path).read()))):
                if f"add_executable({prog}" not in built and \
                        not os.path.isfile(os.path.join(root, "tools", "cluster", prog)):
                    bad.append(f"{rel} runs {prog}, which no tools/ CMakeLists.txt builds")
        elif rel.endswith(".py"):
            r = subprocess.run([sys.executable, "-m", "py_compile", path], capture_output=True, text=True)
        else:
            continue
        if r.returncode:
            bad.append(f"{rel} does not parse: {r.stderr.strip()[:200]}")
    return bad


def open_tree_cmake(root):
    """The text of every CMakeLists.txt under tools/ (built programs' names)."""
    text = ""
    for d, _, files in os.walk(os.path.join(root, "tools")):
        if "CMakeLists.txt" in files:
            text += open(os.path.join(d, "CMakeLists.txt")).read()
    return text


def selftest(root):
    """Each check must fail on a copy with one planted fault."""
    bad = []
    faults = {
        "links": ("docs/guide.md", "\nSee [nowhere](no_such_page.md).\n"),
        "words": ("docs/guide.md", "\nMeasured in the main job on 2026-11-28.\n"),
        "readme": ("README.md", None),
        "generated": ("results/index.json", None),
        "tools": ("results/index.json", None),
    }
    for check, (rel, append) in faults.items():
        with tempfile.TemporaryDirectory() as tmp:
            copy = os.path.join(tmp, "r")
            shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".git", "build*", "out", "src", "tests", "include"))
            path = os.path.join(copy, rel)
            clean = CHECKS[check](copy)
            if clean:   # the copy must pass before the fault is planted
                bad.append(f"selftest: the {check} check fails on the unbroken copy: {clean[0]}")
                continue
            if check == "readme":   # a shell block that does not parse
                t = open(path).read().replace("```sh\n", "```sh\nif then (\n", 1)
                open(path, "w").write(t)
            elif check == "tools":   # a command naming a program that is gone
                t = json.load(open(path))
                t["sets"][0]["command"] = "bash tools/report/no_such_script.sh"
                json.dump(t, open(path, "w"))
            elif check == "generated":   # data changed, page not regenerated
                t = json.load(open(path))
                t["machines"] = {k: v + " (changed)" for k, v in t["machines"].items()}
                json.dump(t, open(path, "w"))
            else:
                open(path, "a").write(append)
            if not CHECKS[check](copy):
                bad.append(f"selftest: the {check} check did not fail on a planted fault in {rel}")
    return bad


CHECKS = {"links": check_links, "words": check_words, "readme": check_readme,
          "generated": check_generated, "tools": check_tools}


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in list(CHECKS) + ["selftest"]:
        print(__doc__, file=sys.stderr)
        return 2
    root = os.path.abspath(sys.argv[2])
    extra = sys.argv[3:]
    if sys.argv[1] == "selftest":
        bad = selftest(root)
    else:
        bad = CHECKS[sys.argv[1]](root, *extra)
    for line in bad:
        print(line)
    print(f"{sys.argv[1]}: {'ok' if not bad else str(len(bad)) + ' problem(s)'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
