#!/usr/bin/python3
"""A user's known-issues file (issue 43, docs/known-issues.md):
`--known-issues FILE` adds or overrides rows of the built-in table by id,
and changes the verdict as documented; a malformed file is refused in one
line naming file, line and field, exit 1, before any request reaches the
API server; `known-issues -o yaml|json` prints the rows in the file's own
format, so what it prints is a valid --known-issues file.

- Override: on knownbad-nixl-telemetry (NIXL 1.3.1 with
  NIXL_TELEMETRY_ENABLE=n, NOT READY on the built-in row
  nixl-2266-telemetry-off) a file giving that id severity warn leaves both
  workers READY with nixl-known-bad warn.
- Add: on img-dynamo-vllm-ib (READY, NIXL 1.3.1 with the operator's
  NIXL_TELEMETRY_ENABLE=y) a new row for NIXL 1.3.1 when that variable is
  y, severity fail, makes both workers NOT READY with the row's effect,
  source and paste (suggestedEnv).

Environment: DI_PLUGIN (the binary; default ./kubectl-dynamo_interconnect).
"""
import json
import os
import unittest

import yaml

from base import ROOT, E2ECase, PairWorkers, check_json
from plugin import run

SCENARIOS = os.path.join(ROOT, "tests", "cluster", "scenarios")

OVERRIDE = """version: 1
issues:
  - id: nixl-2266-telemetry-off
    check: nixl-known-bad
    versions: {nixl: "1.3.0-1.3.2 1.4.0-"}
    when:
      - env-false: NIXL_TELEMETRY_ENABLE
    severity: warn
    effect: our fleet's own reading of the telemetry bug
    fix: NIXL 1.3.2
    source: site/runbook#7
    url: https://example.com/runbook/7
"""

ADD = """version: 1
issues:
  - id: site-nixl-131-telemetry-on
    check: nixl-known-bad
    versions: {nixl: "1.3.1-1.3.2"}
    when:
      - env-equals: NIXL_TELEMETRY_ENABLE=y
    severity: fail
    effect: our site's report of a stall with telemetry on
    fix: until NIXL 1.3.2
    paste: NIXL_TELEMETRY_ENABLE=n
    source: site/runbook#8
    url: https://example.com/runbook/8
"""


def write(dirname, name, text):
    path = os.path.join(dirname, name)
    with open(path, "w") as f:
        f.write(text)
    return path


class WithFile(PairWorkers):
    """Mixin of an E2ECase: `check -n demo -o json --known-issues FILE`
    with FILE holding ROWS."""
    TMP = "kbfile"
    ROWS = None

    @classmethod
    def fixture(cls):
        path = write(cls.tmp, "rows.yaml", cls.ROWS)
        cls.rc, out, cls.err = check_json(cls.c, "-n", "demo", "--known-issues", path, timeout=300)
        cls.doc = json.loads(out)


class Override(WithFile, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "knownbad-nixl-telemetry.yaml")
    ROWS = OVERRIDE
    VERDICT = "READY"

    def test_row_replaced(self):
        for p in self.doc["pods"]:
            c = self.check(p, "nixl-known-bad")
            self.assertEqual(c["status"], "warn", c)
            self.assertIn("our fleet's own reading", c["detail"])
            self.assertIn("(site/runbook#7)", c["detail"])


class Add(WithFile, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "img-dynamo-vllm-ib.yaml")
    ROWS = ADD
    VERDICT = "NOT READY"

    def test_row_added(self):
        for p in self.doc["pods"]:
            c = self.check(p, "nixl-known-bad")
            self.assertEqual(c["status"], "fail", c)
            self.assertIn("NIXL 1.3.1 with NIXL_TELEMETRY_ENABLE=y", c["detail"])
            self.assertIn("(site/runbook#8)", c["detail"])
            self.assertEqual(c.get("suggestedEnv"), {"NIXL_TELEMETRY_ENABLE": "n"}, c)


class BadFile(E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "img-dynamo-vllm-ib.yaml")
    TMP = "kbfile"

    def test_refused_before_any_request(self):
        path = write(self.tmp, "bad.yaml", ADD.replace("severity: fail", "severity: high"))
        for argv in (["check", "--kubeconfig", self.c.kubeconfig, "-n", "demo"],
                     ["node", "--kubeconfig", self.c.kubeconfig, "--pod", "x", "-n", "demo"]):
            rc, out, err = run(argv + ["--known-issues", path])
            self.assertEqual(rc, 1, err)
            self.assertEqual(err, "error: %s:8: issues[0] (id site-nixl-131-telemetry-on) "
                             "severity: must be fail or warn\n" % path)
            self.assertEqual(out, "")
        self.assertEqual(self.c.log(), [])

    def test_missing_and_not_yaml(self):
        rc, _, err = run(["known-issues", "--known-issues", os.path.join(self.tmp, "none.yaml")])
        self.assertEqual((rc, err.count("\n")), (1, 1), err)
        self.assertIn("none.yaml: No such file or directory", err)
        path = write(self.tmp, "notyaml.yaml", "issues: [\n")
        rc, _, err = run(["env", "--known-issues", path, os.path.join(self.tmp, "none")])
        self.assertEqual((rc, err.count("\n")), (1, 1), err)
        self.assertIn("notyaml.yaml:2:1: not YAML", err)


class Listing(unittest.TestCase):
    def test_table(self):
        rc, out, err = run(["known-issues"])
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertEqual(lines[0].split(), ["ID", "CHECK", "SEVERITY", "VERSIONS", "WHEN", "SOURCE"])
        self.assertTrue(any(l.startswith("nixl-2266-telemetry-off ") for l in lines), out)

    def test_round_trip(self):
        """-o yaml is a valid --known-issues file: read back, the same rows;
        -o json is the same document."""
        rc, y1, err = run(["known-issues", "-o", "yaml"])
        self.assertEqual(rc, 0, err)
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
            f.write(y1)
        self.addCleanup(os.unlink, f.name)
        rc, y2, err = run(["known-issues", "--known-issues", f.name, "-o", "yaml"])
        self.assertEqual((rc, y2), (0, y1), err)
        rc, j, err = run(["known-issues", "-o", "json"])
        self.assertEqual(json.loads(j), yaml.safe_load(y1))
        with open(os.path.join(ROOT, "data", "known-issues.yaml")) as src:
            self.assertEqual(yaml.safe_load(y1), yaml.safe_load(src))


if __name__ == "__main__":
    unittest.main()
