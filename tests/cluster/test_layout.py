"""The test cluster's own layout: the fault table and README.md agree, and
no file is over 800 lines (issue 14)."""
import contextlib
import io
import os
import re
import unittest

import fc_faults

HERE = os.path.dirname(os.path.abspath(__file__))


def readme_faults():
    """Fault names in README.md's fault tables (rows of "| `name` |")."""
    with open(os.path.join(HERE, "README.md")) as f:
        text = f.read()
    section = text[text.index("## Faults"):]
    section = section[:section.index("\n## ", 1)] if "\n## " in section[1:] else section
    return set(re.findall(r"^\| `([a-z0-9-]+)` \|", section, re.M))


class TestFaultTable(unittest.TestCase):
    def test_readme_lists_exactly_the_table(self):
        self.assertEqual(readme_faults(), set(fc_faults.FAULTS))

    def test_every_fault_acts_somewhere(self):
        for f in fc_faults.TABLE:
            self.assertTrue(f.hooks, f.name)
            self.assertIn(f.arg, ("pod", "count", "value", "pod-or-count"), f.name)

    def test_unknown_fault_is_refused(self):
        # die() exits 1 after a one-line error naming the known faults
        err = io.StringIO()
        with self.assertRaises(SystemExit) as cm, contextlib.redirect_stderr(err):
            fc_faults.Faults(["no-such-fault"])
        self.assertEqual(cm.exception.code, 1)
        self.assertIn("unknown fault 'no-such-fault'", err.getvalue())

    def test_counted_and_targeted(self):
        f = fc_faults.Faults(["list-429", "exec-429=pod-a", "exec-hang=pod-b", "conn-reset=2"])
        t = fc_faults.FAULTS
        self.assertEqual([f.applies(t["list-429"]) for _ in range(3)], [True, True, False])
        self.assertEqual([f.applies(t["conn-reset"]) for _ in range(3)], [True, True, False])
        self.assertTrue(f.applies(t["exec-429"], "pod-a"))
        self.assertFalse(f.applies(t["exec-429"], "pod-b"))
        self.assertEqual(f.for_exec("pod-b").name, "exec-hang")
        self.assertEqual(f.for_exec("pod-a").name, "")


class TestFileSizes(unittest.TestCase):
    def test_no_file_over_800_lines(self):
        for top, dirs, files in os.walk(HERE):
            dirs[:] = [d for d in dirs if d not in ("__pycache__", "profiles", "discovery")]
            for name in files:
                if name.endswith(".py") or name == "fakecluster":
                    p = os.path.join(top, name)
                    with open(p, errors="replace") as f:
                        n = sum(1 for _ in f)
                    self.assertLessEqual(n, 800, os.path.relpath(p, HERE))
