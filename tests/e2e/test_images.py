#!/usr/bin/python3
"""The real images: every tests/cluster/scenarios/img-*.yaml scenario (worker
pods as the Dynamo operator renders them, over profiles whose image side
follows the image's public build recipe, tests/cluster/profiles/gen_images.py)
runs on the test cluster, and each pod's verdict in `check -o json` must be
the one tests/e2e/images_expected.yaml wrote down before the tool was run:
a healthy image on a healthy node is READY.

One cluster per scenario, all in one class (started once).  The table image
x verdict (expected / actual per pod) is printed in the test output, and so
is every miss with the checks and links that made the verdict.

Environment: DI_PLUGIN (the binary; default ./kubectl-dynamo_interconnect).
"""
import os
import subprocess
import sys
import unittest

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from base import E2ECase, scenario_report  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIOS = os.path.join(ROOT, "tests", "cluster", "scenarios")
PROFILES = os.path.join(ROOT, "tests", "cluster", "profiles")
VERDICTS = ("READY", "NOT READY", "UNVERIFIED")
WORST = {"READY": 0, "UNVERIFIED": 1, "NOT READY": 2}   # checks.md N: overall = worst pod
EXIT = {"READY": 0, "NOT READY": 2, "UNVERIFIED": 3}

# Scenarios that miss today for a reason in the plugin (never in the
# scenario): their test is marked expectedFailure, and the lead removes the
# entry once the fix lands (an unexpected success then fails the suite).
# Each names the check and the JSON detail of the first run.
KNOWN_MISSES = {}


def load_expected():
    with open(os.path.join(HERE, "images_expected.yaml")) as f:
        return yaml.safe_load(f)["scenarios"]


def reasons(pod):
    """The checks behind a verdict, worst first: fails, warns, then skips
    that carry a remedy, as "name(status): detail"; and the links that are
    not proven."""
    order = {"fail": 0, "warn": 1, "skipped": 2}
    picked = [c for c in pod.get("checks", []) if c["status"] in ("fail", "warn")
              or (c["status"] == "skipped" and c.get("remedy"))]
    picked.sort(key=lambda c: order[c["status"]])
    out = ["%s(%s): %s" % (c["name"], c["status"], c.get("detail", "")) for c in picked]
    for link in pod.get("links", []) or []:
        if isinstance(link, dict) and link.get("status") not in (None, "proven"):
            out.append("link %s %s: %s %s" % (link.get("name"), link.get("status"),
                                              link.get("check") or "", link.get("detail") or ""))
    return out


def table_text(rows):
    """rows: (scenario, pod role, expected, actual) per pod."""
    w = max([len("image")] + [len(r[0]) for r in rows])
    lines = ["real images x verdict (pods; expected -> actual):",
             "  " + "image".ljust(w) + "  " + "prefill".ljust(26) + "decode"]
    by = {}
    for sc, role, exp, act in rows:
        by.setdefault(sc, {})[role] = "%s -> %s%s" % (exp, act, "" if exp == act else "  MISS")
    for sc in by:
        lines.append("  " + sc.ljust(w) + "  " + by[sc].get("prefill", "-").ljust(26)
                     + by[sc].get("decode", "-"))
    agree = sum(1 for r in rows if r[2] == r[3])
    lines.append("  agree: %d of %d pods" % (agree, len(rows)))
    return "\n".join(lines)


def role(pod_name):
    return "prefill" if "prefill" in pod_name else "decode"


class TestImages(E2ECase):
    """Filled with one test per scenario below."""

    @classmethod
    def fixture(cls):
        cls.expected = load_expected()
        cls.results = {}
        rows, misses = [], []
        for sc in cls.expected:
            rc, doc, err = scenario_report(os.path.join(SCENARIOS, sc["name"] + ".yaml"))
            cls.results[sc["name"]] = (rc, doc, err)
            pods = {p["name"]: p for p in (doc or {}).get("pods", [])}
            for pod, exp in sc["pods"].items():
                got = pods.get(pod)
                actual = got["verdict"] if got else "error"
                rows.append((sc["name"], role(pod), exp["verdict"], actual))
                if actual != exp["verdict"]:
                    misses.append("  %s %s: expected %s, actual %s%s\n      %s" % (
                        sc["name"], pod, exp["verdict"], actual,
                        " (known: %s)" % KNOWN_MISSES[sc["name"]] if sc["name"] in KNOWN_MISSES else "",
                        "\n      ".join(reasons(got)) if got else err.strip()[-300:]))
        print("\n" + table_text(rows))
        if misses:
            print("real-image misses (scenario pod: expected, actual; checks and links behind the verdict):")
            print("\n".join(misses))
        sys.stdout.flush()

    def test_profiles_current(self):
        """The committed img-* profiles are what gen_images.py writes."""
        p = subprocess.run(["/usr/bin/python3", os.path.join(PROFILES, "gen_images.py"), "--check"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout.decode(errors="replace"))

    def test_expectations_cover_scenarios(self):
        """Every img-* scenario has its expectations and each names a reason;
        every img-* profile has a SOURCE.md."""
        files = sorted(f[:-5] for f in os.listdir(SCENARIOS) if f.startswith("img-") and f.endswith(".yaml"))
        self.assertEqual(files, sorted(sc["name"] for sc in self.expected))
        for sc in self.expected:
            self.assertTrue(os.path.isfile(os.path.join(PROFILES, sc["name"], "SOURCE.md")), sc["name"])
            for pod, exp in sc["pods"].items():
                self.assertIn(exp["verdict"], VERDICTS, (sc["name"], pod))
                self.assertTrue(exp.get("why"), (sc["name"], pod))
        self.assertTrue(set(KNOWN_MISSES) <= set(files), sorted(set(KNOWN_MISSES) - set(files)))

    def check_scenario(self, sc):
        rc, doc, err = self.results[sc["name"]]
        self.assertIsNotNone(doc, "%s: no JSON report (rc %s): %s" % (sc["name"], rc, err[-1000:]))
        pods = {p["name"]: p for p in doc["pods"]}
        self.assertEqual(sorted(pods), sorted(sc["pods"]), sc["name"])
        for pod, exp in sc["pods"].items():
            got = pods[pod]
            self.assertTrue(got["probed"], got.get("error"))
            self.assertEqual(got["verdict"], exp["verdict"],
                             "%s %s: %s (checks: %s)" % (sc["name"], pod, exp["why"],
                                                         "; ".join(reasons(got))))
        worst = max((e["verdict"] for e in sc["pods"].values()), key=WORST.get)
        self.assertEqual((doc["verdict"]["status"], rc), (worst, EXIT[worst]), sc["name"])


def _add_tests():
    for sc in load_expected():
        def test(self, sc=sc):
            self.check_scenario(sc)
        test.__doc__ = "real image scenario %s" % sc["name"]
        if sc["name"] in KNOWN_MISSES:
            test = unittest.expectedFailure(test)
        setattr(TestImages, "test_" + sc["name"].replace("-", "_"), test)


_add_tests()

if __name__ == "__main__":
    unittest.main()
