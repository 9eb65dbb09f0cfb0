#!/usr/bin/python3
"""Rewrites the DGD findings' check enum of
schema/interconnect-report.schema.json from the binary's table
(tests/tools/di_checks dgd), as man_checks.py prints the man page's
CHECKS: a DGD check added to src/check/dgd.def needs no hand edit of the
schema.  python3 tests/tools/schema_enums.py [build/tools/di_checks]
rewrites the file in place; e2e test_check_cli fails while it is stale."""
import json, os, re, subprocess, sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SCHEMA = os.path.join(ROOT, "schema", "interconnect-report.schema.json")
tool = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "tools", "di_checks")
names = [l.split("\t")[0] for l in
         subprocess.run([tool, "dgd"], stdout=subprocess.PIPE, text=True, check=True).stdout.splitlines()]
with open(SCHEMA, encoding="utf-8") as f:
    text = f.read()
# The one "check" enum of the schema: a DGD finding's (dgd[].findings[]).
new, n = re.subn(r'("check": \{ "enum": )\[[^\]]*\]', lambda m: m.group(1) + json.dumps(names), text)
if n != 1:
    sys.exit("schema_enums: %d DGD check enums in %s, want 1" % (n, SCHEMA))
if new != text:
    with open(SCHEMA, "w", encoding="utf-8") as f:
        f.write(new)
