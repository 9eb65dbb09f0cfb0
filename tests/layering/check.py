#!/usr/bin/env python3
"""The layering facts of issue 14, each one checked (tests/layering/check.py BUILD).

Includes are read from the sources; calls between files from the object
files' symbol tables (nm): file A calls file B when A uses a symbol B
defines.  Prints one line per fact and "layering: N passed, N failed".
"""
import glob
import os
import re
import subprocess
import sys

ROOT = os.environ.get("LAYERING_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
MAX_LINES = 800
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(*globs):
    for g in globs:
        for p in sorted(glob.glob(os.path.join(ROOT, g))):
            yield os.path.relpath(p, ROOT)


def includes(path):
    with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
        found = INCLUDE.findall(f.read())
    return [os.path.normpath(os.path.join(os.path.dirname(path), i))
            if i.startswith("..") else i for i in found]


def none_include(files, bad):
    """Files of files whose includes match the regex bad."""
    return [f"{f} includes {i}" for f in files for i in includes(f) if re.search(bad, i)]


def long_files():
    out = []
    for f in sources("src/*/*.[ch]", "src/*/*/*.[ch]", "cmd/*.[ch]"):
        with open(os.path.join(ROOT, f), encoding="utf-8", errors="replace") as fh:
            n = sum(1 for _ in fh)
        if n > MAX_LINES:
            out.append(f"{f}: {n} lines")
    return out


CMD_CHECK_MAX = 200
FORMAT_NAME = re.compile(r'strcmp\([^)]*"(table|wide|json|yaml|junit|html|prometheus)"')


def check_command():
    """Issue 40 point 2: `check` parses flags, runs the session (src/run)
    and prints; what a format is (a document, holds the DGD part, text)
    is a column of report/format.c, not a strcmp in cmd/."""
    out = []
    for f in ("cmd/check.c", "cmd/pipeline.c"):
        with open(os.path.join(ROOT, f), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        out += [f"{f}: compares the format name {m.group(1)!r}" for m in FORMAT_NAME.finditer(text)]
        if f == "cmd/check.c" and text.count("\n") >= CMD_CHECK_MAX:
            out.append(f"{f}: {text.count(chr(10))} lines (under {CMD_CHECK_MAX})")
    return out


KUBE_ROOMS = ("config", "tls", "http", "exec", "api")
KUBE_CLIENT_INSIDE = ("src/kube/http/", "src/kube/tls/curl_tls.c", "src/kube/exec/upgrade.c")


def kube_rooms():
    """Issue 40 point 4: src/kube/ is cut by concept into rooms --
    config/ (kubeconfig and auth), tls/, http/ (the API client: requests,
    answers, retries, proxy, URL paths), exec/ (exec and WebSocket), api/
    (the API reads: pods, DGDs, claims, logs) -- and each room says
    what it may use of the others."""
    out = [f"{f}: outside the rooms" for f in sources("src/kube/*.[ch]")]
    rooms = {r: list(sources(f"src/kube/{r}/*.[ch]")) for r in KUBE_ROOMS}
    out += [f"src/kube/{d}: not a room" for d in sorted(os.listdir(os.path.join(ROOT, "src/kube")))
            if os.path.isdir(os.path.join(ROOT, "src/kube", d)) and d not in KUBE_ROOMS]
    # The API reads reach the server through the client's interface only.
    out += [f"{f} includes {i}" for f in rooms["api"] for i in includes(f)
            if i.startswith("kube/") and not i.startswith("kube/api/") and i != "kube/http/http.h"]
    # kubeconfig and auth know no connection: no TLS, exec or API read.
    out += none_include(rooms["config"], r"^kube/(tls|exec|api)/")
    out += none_include(rooms["tls"], r"^kube/(config|exec|api)/")
    # The client's internals: its own room, its TLS and its exec upgrade.
    out += [f"{f} includes {i}" for r in KUBE_ROOMS for f in rooms[r] for i in includes(f)
            if i.endswith("http_int.h") and not f.startswith(KUBE_CLIENT_INSIDE)]
    return out


def circles():
    """Strongly connected groups of object files in the call graph."""
    base = os.path.join(ROOT, BUILD)
    # Only objects of sources that exist: a moved file leaves a stale .o.
    objs = [o for o in sorted(glob.glob(base + "/src/*/*.o") + glob.glob(base + "/src/*/*/*.o") +
                              glob.glob(base + "/cmd/*.o"))
            if os.path.exists(os.path.join(ROOT, os.path.relpath(o, base)[:-2] + ".c"))]
    if not objs:
        return [f"no object files under {base}"]
    defs, uses = {}, {}
    for o in objs:
        name = os.path.relpath(o, base)[:-2]
        nm = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
        for line in nm.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in "TDBR":
                defs[p[2]] = name
            elif len(p) == 2 and p[0] == "U":
                uses.setdefault(name, set()).add(p[1])
    graph = {os.path.relpath(o, base)[:-2]: set() for o in objs}
    for a, syms in uses.items():
        graph[a] |= {defs[s] for s in syms if defs.get(s) not in (None, a)}
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):   # Tarjan
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append("circle: " + " ".join(sorted(comp)))

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return found


FACTS = [
    ("src/check/ does not include kube/",
     lambda: none_include(sources("src/check/*.[ch]"), r"(^|/)kube/")),
    ("src/kube/ does not include probe/",
     lambda: none_include(sources("src/kube/*.[ch]", "src/kube/*/*.[ch]"), r"(^|/)probe/")),
    ("src/kube/ in rooms by concept (config, tls, http, exec, api), each using only what it may",
     kube_rooms),
    ("src/recipe/ does not include check/",
     lambda: none_include(sources("src/recipe/*.[ch]"), r"(^|/)check/")),
    ("src/model/ is a leaf (util/ at most)",
     lambda: none_include(sources("src/model/*.[ch]"),
                          r"(^|/)(kube|probe|check|recipe|run|report|evidence|engine)/")),
    ("no cmd/ file includes probe/facts.h",
     lambda: none_include(sources("cmd/*.[ch]"), r"probe/facts\.h$")),
    (f"no file in src/ or cmd/ over {MAX_LINES} lines", long_files),
    ("no two files call each other in a circle", circles),
    (f"cmd/check.c under {CMD_CHECK_MAX} lines, no format name compared in check's cmd/",
     check_command),
]


def main():
    passed = failed = 0
    for name, fact in FACTS:
        bad = fact()
        if bad:
            failed += 1
            print(f"FAIL {name}")
            for b in bad:
                print(f"  {b}")
        else:
            passed += 1
            print(f"ok {name}")
    print(f"layering: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
