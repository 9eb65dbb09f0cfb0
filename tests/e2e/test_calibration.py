#!/usr/bin/python3
"""Calibration: every scenario of tests/calibration/scenarios (pods built
from real captures, see tests/calibration/captures/SOURCES.md) runs on the
test cluster, and each pod's verdict in `check -o json` must be the one
tests/calibration/expected.yaml wrote down from the evidence before the
tool was run; a NOT READY pod must fail in the expected family.

One cluster per scenario, all scenarios in one class (started once).  The
confusion matrix (expected x actual over READY / NOT READY / UNVERIFIED,
plus the NOT READY pods failed in another family) is printed in the test
output, and so is every miss with the checks that made the verdict.

Environment: DI_PLUGIN (the binary; default ./kubectl-dynamo_interconnect).
"""
import os
import subprocess
import sys
import unittest

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from base import E2ECase, scenario_report  # noqa: E402

CALIBRATION = os.path.join(ROOT, "tests", "calibration")
VERDICTS = ("READY", "NOT READY", "UNVERIFIED")
WORST = {"READY": 0, "UNVERIFIED": 1, "NOT READY": 2}   # checks.md N: overall = worst pod
EXIT = {"READY": 0, "NOT READY": 2, "UNVERIFIED": 3}


def load_expected():
    with open(os.path.join(CALIBRATION, "expected.yaml")) as f:
        doc = yaml.safe_load(f)
    return doc["scenarios"]


def failing_families(pod):
    return sorted(set(c["family"] for c in pod["checks"] if c["status"] == "fail"))


def reasons(pod):
    """The checks behind a verdict, worst first: fails, warns, then skips
    that carry a remedy (could not look), as "name(status)"."""
    order = {"fail": 0, "warn": 1, "skipped": 2}
    picked = [c for c in pod["checks"] if c["status"] in ("fail", "warn")
              or (c["status"] == "skipped" and c.get("remedy"))]
    picked.sort(key=lambda c: order[c["status"]])
    return ["%s(%s)" % (c["name"], c["status"]) for c in picked]


def matrix_text(rows):
    """rows: (expected verdict, actual verdict, wrong family) per pod."""
    width = max(len(v) for v in VERDICTS + ("expected \\ actual", "error"))
    cols = VERDICTS + ("error",)
    lines = ["calibration confusion matrix (pods; rows expected, columns actual):",
             "  " + "expected \\ actual".ljust(width) + "".join(c.rjust(12) for c in cols)]
    for e in VERDICTS:
        counts = [sum(1 for r in rows if r[0] == e and r[1] == a) for a in cols]
        lines.append("  " + e.ljust(width) + "".join(str(n).rjust(12) for n in counts))
    agree = sum(1 for r in rows if r[0] == r[1])
    lines.append("  agree: %d of %d pods; NOT READY on another family: %d"
                 % (agree, len(rows), sum(1 for r in rows if r[2])))
    return "\n".join(lines)


class TestCalibration(E2ECase):
    """Filled with one test per scenario below."""

    @classmethod
    def fixture(cls):
        cls.expected = load_expected()
        cls.results = {}
        rows, misses = [], []
        for sc in cls.expected:
            rc, doc, err = scenario_report(os.path.join(CALIBRATION, "scenarios", sc["name"] + ".yaml"))
            cls.results[sc["name"]] = (rc, doc, err)
            pods = {p["name"]: p for p in (doc or {}).get("pods", [])}
            for pod, exp in sc["pods"].items():
                got = pods.get(pod)
                actual = got["verdict"] if got else "error"
                fams = failing_families(got) if got else []
                wrong = (exp["verdict"] == "NOT READY" and actual == "NOT READY"
                         and exp["family"] not in fams)
                rows.append((exp["verdict"], actual, wrong))
                if actual != exp["verdict"] or wrong:
                    misses.append("  %s %s: expected %s%s, actual %s%s; %s" % (
                        sc["name"], pod, exp["verdict"],
                        " (%s)" % exp["family"] if "family" in exp else "", actual,
                        " (%s)" % ",".join(fams) if fams else "",
                        " ".join(reasons(got)) if got else err.strip()[-300:]))
        print("\n" + matrix_text(rows))
        if misses:
            print("calibration misses (scenario pod: expected, actual; checks behind the verdict):")
            print("\n".join(misses))
        sys.stdout.flush()

    def test_profiles_current(self):
        """The committed profiles and logs are what gen_profiles.py writes
        from the captures (a hand edit, or a capture changed without a
        rerun, shows here)."""
        p = subprocess.run(["/usr/bin/python3", os.path.join(CALIBRATION, "gen_profiles.py"), "--check"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout.decode(errors="replace"))

    def test_expectations_cover_scenarios(self):
        """Every scenario file has its expectations, and every expectation
        names a written-down reason."""
        files = sorted(f[:-5] for f in os.listdir(os.path.join(CALIBRATION, "scenarios")) if f.endswith(".yaml"))
        self.assertEqual(files, sorted(sc["name"] for sc in self.expected))
        for sc in self.expected:
            for pod, exp in sc["pods"].items():
                self.assertIn(exp["verdict"], VERDICTS, (sc["name"], pod))
                self.assertTrue(exp.get("why"), (sc["name"], pod))
                self.assertEqual("family" in exp, exp["verdict"] == "NOT READY", (sc["name"], pod))

    def check_scenario(self, sc):
        rc, doc, err = self.results[sc["name"]]
        self.assertIsNotNone(doc, "%s: no JSON report (rc %s): %s" % (sc["name"], rc, err[-1000:]))
        pods = {p["name"]: p for p in doc["pods"]}
        self.assertEqual(sorted(pods), sorted(sc["pods"]), sc["name"])
        for pod, exp in sc["pods"].items():
            with self.subTest(scenario=sc["name"], pod=pod):
                got = pods[pod]
                self.assertTrue(got["probed"], got.get("error"))
                self.assertEqual(got["verdict"], exp["verdict"],
                                 "%s %s: %s (checks: %s)" % (sc["name"], pod, exp["why"],
                                                             " ".join(reasons(got))))
                if exp["verdict"] == "NOT READY":
                    self.assertIn(exp["family"], failing_families(got),
                                  "%s %s: %s" % (sc["name"], pod, exp["why"]))
        worst = max((e["verdict"] for e in sc["pods"].values()), key=WORST.get)
        self.assertEqual((doc["verdict"]["status"], rc), (worst, EXIT[worst]), sc["name"])


def _add_tests():
    for sc in load_expected():
        def test(self, sc=sc):
            self.check_scenario(sc)
        test.__doc__ = "calibration scenario %s" % sc["name"]
        setattr(TestCalibration, "test_" + sc["name"].replace("-", "_"), test)


_add_tests()

if __name__ == "__main__":
    unittest.main()
