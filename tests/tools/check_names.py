#!/usr/bin/python3
"""tests/tools/check_names.py: fails on a check name spelled as a string
literal in src/ or cmd/ outside the rule tables (issue 40 point 1).

A rule is one row of a table (src/check/table.def, ...) and code names it
by its id (CK_*), so a typo is a compile error; a name spelled again as a
string elsewhere silently stops matching when the row is renamed (the
root-cause fold once named 33 checks that way, with no test).  Allowed:
the tables themselves (TABLES), comments, docs and the tests'
expectations (outside src/ and cmd/).

Names: the second field of every CHECK() row of table.def, DGD_CHECK()
row of dgd.def and FINDING() row of rules.def (the cross-pod findings).
DEBT: the literals not yet replaced by ids, per file, at most; it only
shrinks (issue 40 started at 183 in 16 files).  A file past its debt
fails with every literal of it listed.
Prints each hit as file:line: "name", then
"check-names: N passed, N failed" for tests/run.sh; exit 1 on a hit.
--count prints only the number of hits per file (for the report).
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
TABLES = {"src/check/table.def", "src/check/dgd.def", "src/verdict/rules.def"}
ROW = re.compile(r'^(?:CHECK|DGD_CHECK|FINDING)\(\s*\w+\s*,\s*"([^"]+)"', re.M)
# A C string literal or a comment, in the order they appear: a "/*" inside
# a string is text, a '"' inside a comment is not a literal.
TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|/\*.*?\*/|//[^\n]*|\'(?:[^\'\\\n]|\\.)*\'',
                   re.S)


# Left to do, per file (issue 40); lower a count with each step, never raise it.
DEBT = {
}

# A literal that spells a check's name but names something else.
NOT_A_CHECK = {
    ("src/check/links.c", '"nixl-backend"'): "the link's name (JSON links[].name)",
    ("src/check/known.h", '"nixl-backend"'): "a known-issues condition (the recipe's NIXL backend)",
    ("cmd/check.c", '"transfer"'): "the --transfer flag",
    ("cmd/nixl.c", '"transfer"'): "the --transfer flag",
}


def names():
    out = set()
    for t in sorted(TABLES):
        with open(os.path.join(ROOT, t), encoding="utf-8") as f:
            out.update(ROW.findall(f.read()))
    return out


def sources():
    for top in ("src", "cmd"):
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            for fn in sorted(files):
                if fn.endswith((".c", ".h", ".def")):
                    p = os.path.relpath(os.path.join(d, fn), ROOT)
                    if p not in TABLES:
                        yield p


def hits(known):
    for p in sorted(sources()):
        with open(os.path.join(ROOT, p), encoding="utf-8") as f:
            text = f.read()
        for m in TOKEN.finditer(text):
            tok = m.group(0)
            if tok.startswith('"') and tok[1:-1] in known and (p, tok) not in NOT_A_CHECK:
                yield p, text.count("\n", 0, m.start()) + 1, tok


def main():
    known = names()
    if len(known) < 10:
        print("check-names: 0 passed, 1 failed (read %d names from the tables)" % len(known))
        return 1
    found = list(hits(known))
    if "--count" in sys.argv:
        per = {}
        for p, _, _ in found:
            per[p] = per.get(p, 0) + 1
        for p in sorted(per):
            print("%4d %s" % (per[p], p))
        print("%4d in %d files" % (len(found), len(per)))
        return 0
    per = {}
    for p, _, _ in found:
        per[p] = per.get(p, 0) + 1
    over = {p for p in per if per[p] > DEBT.get(p, 0)}
    for p, line, tok in found:
        if p in over:
            print("check-name: %s:%d: %s (name the row's id, not its string)" % (p, line, tok))
    if over:
        print("check-names: 0 passed, 1 failed (%d files past their debt)" % len(over))
        return 1
    if "-v" in sys.argv:
        for p, line, tok in found:
            print("check-name (debt): %s:%d: %s" % (p, line, tok))
    print("check-names: 1 passed, 0 failed (%d literals left, in %d files)" % (len(found), len(per)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
