"""Counters that move (fc_counters.py, issue 45): a pod's `counters:`
files start at their value and advance with time, a fixed one stays, a
reader never sees half a number, and a bad entry is refused at start."""
import os
import time
import unittest

import fc
import fc_counters
from scenario_case import ScenarioCase, assert_refused

XMIT = "/sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data"
DOWN = "/sys/class/infiniband/mlx5_0/ports/1/counters/link_downed"
SCENARIO = """namespace: demo
pods:
  - name: p
    node: n1
    profile: %s
    counters:
      %s: {start: 1000, per_s: 1000000}
      %s: 7
""" % (os.path.join(fc.HERE, "profiles", "minimal"), XMIT, DOWN)


def sh(c, script):
    res = fc.ws_exec(c, fc.exec_path("demo", "p", ["sh", "-c", script]))
    return fc.decode_exec(res)[1].decode()


class TestRead(unittest.TestCase):
    def test_entries(self):
        got = fc_counters.read_counters({XMIT: {"start": 5, "per_s": 9}, DOWN: 3}, self.fail)
        self.assertEqual(got, [(XMIT, 5, 9), (DOWN, 3, 0)])
        self.assertEqual(fc_counters.make_entries(got)[1], [DOWN, {"text": "3\n"}])

    def test_bad_entries_die(self):
        assert_refused(self, fc_counters.read_counters, (
            {"rel/path": 1}, {XMIT: -1}, {XMIT: {"start": 1, "per_s": 1.5}},
            {XMIT: {"start": 1, "rate": 2}}, {XMIT: True}, {"/a/../b": 1}, {XMIT: "12"}))


@unittest.skipUnless(os.geteuid() == 0, "sandboxes need root")
class TestMoving(ScenarioCase):
    SCENARIO = SCENARIO

    def test_moves_and_fixed_stays(self):
        first = int(sh(self.c, "cat " + XMIT))
        self.assertGreaterEqual(first, 1000)
        deadline = time.monotonic() + 60
        while True:
            now = int(sh(self.c, "cat " + XMIT))
            self.assertGreaterEqual(now, first)
            if now > first:
                break
            self.assertLess(time.monotonic(), deadline, "the counter never moved")
            time.sleep(0.2)
        self.assertEqual(sh(self.c, "cat " + DOWN), "7\n")

    def test_reads_are_whole_numbers(self):
        # 200 reads while the server rewrites it: each a number and a newline
        out = sh(self.c, "i=0; while [ $i -lt 200 ]; do cat %s; i=$((i+1)); done" % XMIT)
        lines = out.split("\n")
        self.assertEqual(lines[-1], "")
        for ln in lines[:-1]:
            self.assertRegex(ln, r"^[0-9]+$")
        # the temporary file is a dot file: a glob does not list it
        self.assertEqual(sh(self.c, "cd %s && echo *" % os.path.dirname(XMIT)).split(),
                         ["link_downed", "port_xmit_data"])


if __name__ == "__main__":
    unittest.main()
