#!/usr/bin/python3
"""Issue 44 point 1: the default `check` table fits the terminal (80
columns off a terminal) with every pod on one line and its name whole;
`-o wide` carries a column per family; on a terminal the details wrap
between words, in a pipe never.  Content is asserted, never timing."""
import os
import re
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "cluster"))
from fc import Cluster  # noqa: E402

from plugin import run  # noqa: E402
from test_output import run_tty  # noqa: E402

DEMO_PODS = 7
NOT_OK = ("fail", "warn", "skipped")


def on_a_tty(argv, cols):
    """stdout on a pseudo-terminal cols wide (COLUMNS says otherwise, and
    loses): all it showed, \r\n as \n."""
    return run_tty(argv + ["--color=never"], cols, {"COLUMNS": "999"})[1]


def table_of(out):
    """The lines before the first empty one."""
    lines = out.split("\n")
    return lines[:lines.index("")] if "" in lines else lines


def wide_rows(out):
    """-o wide's rows as {pod: {header: cell}}."""
    t = table_of(out)
    head = t[0].split()
    return {l.split()[0]: dict(zip(head, l.split())) for l in t[1:]}


def not_ok_cell(line, head):
    """The NOT OK cell of a default-table line: what starts under it."""
    return line[head.index("NOT OK"):]


def named(cell):
    """{family: status} a NOT OK cell names ("A,B fail; C warn")."""
    got = {}
    for part in cell.split("; "):
        if part.startswith("+"):
            continue
        fams, status = part.rsplit(" ", 1)
        for f in fams.split(","):
            got[f] = status
    return got


class TestTableFits(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.c = Cluster("demo.yaml")
        cls.kc = ["-n", "demo", "--kubeconfig", cls.c.kubeconfig]
        cls.wide = run(["check", "-o", "wide"] + cls.kc)[1]

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()

    def test_pipe_every_pod_one_line_in_80_columns(self):
        rc, out, err = run(["check"] + self.kc, env={"COLUMNS": "200"})
        t = table_of(out)
        self.assertEqual(t[0].split(), ["POD", "ROLE", "NODE", "VERDICT", "NOT", "OK"], out)
        self.assertEqual(len(t), 1 + DEMO_PODS, out)
        for line in t:
            self.assertLessEqual(len(line), 80, line)

    def test_cells_agree_with_wide(self):
        # Wide enough that nothing is shortened: the NOT OK cell names
        # exactly the family columns of -o wide that are not ok.
        out = on_a_tty(["check"] + self.kc, 200)
        t = table_of(out)
        wide = wide_rows(self.wide)
        self.assertEqual(len(t), 1 + DEMO_PODS, out)
        for line in t[1:]:
            pod = line.split()[0]
            want = {h: c for h, c in wide[pod].items() if c in NOT_OK}
            cell = not_ok_cell(line, t[0])
            self.assertEqual(named(cell) if want else {}, want, line)
            self.assertEqual(cell == "<none>", not want, line)
            self.assertEqual(line.split()[3], wide[pod]["VERDICT"], line)

    def test_demo_cells(self):
        rc, out, err = run(["check"] + self.kc)
        t = table_of(out)
        by = {l.split()[0]: not_ok_cell(l, t[0]) for l in t[1:]}
        self.assertEqual(by["qwen-decode-3"], "ENV,LOGS fail")
        self.assertEqual(by["qwen-decode-0"], "<none>")
        # Shortened, worst first, the rest counted.
        self.assertEqual(by["qwen-decode-2"], "GPUDIRECT fail; +2 more")

    def test_too_narrow_for_a_name_counts(self):
        out = on_a_tty(["check"] + self.kc, 60)
        t = table_of(out)
        by = {l.split()[0]: not_ok_cell(l, t[0]) for l in t[1:]}
        self.assertEqual(by["qwen-decode-2"], "1 fail, 2 warn")
        self.assertEqual(by["qwen-decode-3"], "ENV,LOGS fail")

    def test_narrow_terminal_drops_node_never_cuts_a_name(self):
        out = on_a_tty(["check"] + self.kc, 60)
        t = table_of(out)
        self.assertEqual(t[0].split(), ["POD", "ROLE", "VERDICT", "NOT", "OK"], out)
        pods = sorted(l.split()[0] for l in t[1:])
        self.assertEqual(pods, sorted(wide_rows(self.wide)), out)
        for line in t:
            self.assertLessEqual(len(line), 60, line)

    def test_wide_has_every_family(self):
        head = table_of(self.wide)[0].split()
        for fam in ("RDMA", "GPUDIRECT", "GDRCOPY", "NVLINK", "UCX", "NIXL", "EFA",
                    "ENV", "LIMITS", "SPEC", "LOGS", "VERDICT"):
            self.assertIn(fam, head)
        self.assertEqual(wide_rows(self.wide)["qwen-decode-2"]["GPUDIRECT"], "fail")

    def test_by_node_fits_and_wide_has_families(self):
        rc, out, err = run(["check", "--by-node"] + self.kc)
        t = table_of(out)
        self.assertEqual(t[0].split(), ["NODE", "PODS", "VERDICT", "NOT", "OK"], out)
        for line in t:
            self.assertLessEqual(len(line), 80, line)
        by = {l.split()[0]: not_ok_cell(l, t[0]) for l in t[1:]}
        self.assertEqual(by["gpu-h100-07"], "ENV,LOGS fail")
        rc, out, err = run(["check", "--by-node", "-o", "wide"] + self.kc)
        head = table_of(out)[0].split()
        self.assertIn("GPUDIRECT", head)
        self.assertEqual(wide_rows(out)["gpu-h100-05"]["GPUDIRECT"], "fail")

    def test_no_headers_is_the_rows(self):
        rc, out, err = run(["check", "--no-headers"] + self.kc)
        self.assertEqual(len(out.strip().split("\n")), DEMO_PODS, out)
        self.assertTrue(all(len(l) <= 80 for l in out.split("\n")), out)


class TestWrap(unittest.TestCase):
    """Point 1's second half: details wrap between words on a terminal."""

    @classmethod
    def setUpClass(cls):
        cls.c = Cluster("demo.yaml")
        cls.kc = ["-n", "demo", "--kubeconfig", cls.c.kubeconfig]

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()

    def words(self, text):
        return re.sub(r"\s+", " ", text).strip()

    def assert_wrapped(self, tty, pipe, cols, at=None):
        """at: where the wrapped text starts on a table line."""
        for line in tty.split("\n"):
            start = len(line) - len(line.lstrip(" ")) if at is None else at
            # A word longer than the room stands alone, never cut.
            if len(line[start:].split()) > 1 or (at is None and start == 0):
                self.assertLessEqual(len(line), cols, line)
        # The same words in the same order: wrapped only between words.
        self.assertEqual(self.words(tty), self.words(pipe))
        self.assertTrue(any(len(l) > cols for l in pipe.split("\n")),
                        "a pipe never wraps: some line is long")

    def test_check_findings(self):
        pipe = run(["check", "--color=never"] + self.kc)[1]
        self.assert_wrapped(on_a_tty(["check"] + self.kc, 80), pipe, 80)

    def test_by_node(self):
        pipe = run(["check", "--by-node", "--color=never"] + self.kc)[1]
        self.assert_wrapped(on_a_tty(["check", "--by-node"] + self.kc, 80), pipe, 80)

    def test_node_details_under_their_column(self):
        argv = ["node", "--pod", "qwen-decode-2"] + self.kc
        pipe = run(argv + ["--color=never"])[1]
        tty = on_a_tty(argv, 80)
        lines = tty.split("\n")
        at = lines[0].index("DETAIL")
        self.assert_wrapped(tty[:tty.index("\n\n")], pipe[:pipe.index("\n\n")], 80, at)
        self.assert_wrapped(tty[tty.index("\n\n"):], pipe[pipe.index("\n\n"):], 80)
        i = next(k for k, l in enumerate(lines) if l.startswith("gpudirect-peermem"))
        # The detail goes on under DETAIL, not at the line's start.
        self.assertTrue(lines[i + 1].startswith(" " * at) and lines[i + 1][at] != " ",
                        lines[i:i + 3])


if __name__ == "__main__":
    unittest.main()
