#!/usr/bin/python3
"""Idle connections (issue 13): every connection has TCP keepalive on (the
kernel's keepalive timer shows in /proc/net/tcp while an exec is silent),
and a v5 exec sends WebSocket Pings while the command prints nothing, as
client-go's executor does every 5 s; v4 sessions send none."""
import os
import subprocess
import time
import unittest

from base import ROOT, E2ECase

HERE = os.path.dirname(os.path.abspath(__file__))

TOOLS = os.environ.get("DI_TOOLS") or os.path.join(ROOT, "build", "tools")
DI_EXEC = os.path.join(os.path.abspath(TOOLS), "di_exec")
SCENARIO = os.path.join(HERE, "scenarios", "frontdoor.yaml")


def client_timers(port):
    """The 'tr' timer field of established sockets connected to port."""
    out = []
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(name) as f:
            next(f)
            for line in f:
                fields = line.split()
                rem, state, timer = fields[2], fields[3], fields[5]
                if state == "01" and int(rem.rsplit(":", 1)[1], 16) == port:
                    out.append(timer.split(":")[0])
    return out


class Idle(E2ECase):
    def setUp(self):
        if not os.access(DI_EXEC, os.X_OK):
            self.fail("%s not built (make unit-tests)" % DI_EXEC)
        # a server per test: the one exec it logs is this test's
        self.c = self.new_cluster(SCENARIO, mode=self.MODE)

    def di(self, seconds):
        return subprocess.Popen([DI_EXEC, "--kubeconfig", self.c.kubeconfig, "--context", "fakecluster",
                                 "-n", "fd", "--timeout-ms", "60000", "w-decode-0", "--",
                                 "sleep", str(seconds)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def test_silent_exec(self):
        p = self.di(12)
        timers = set()
        t_end = time.monotonic() + 10
        while time.monotonic() < t_end and p.poll() is None and "02" not in timers:
            timers |= set(client_timers(self.c.port))
            time.sleep(0.2)
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, err)
        # "2": the keepalive timer runs on our end of the connection
        self.assertIn("02", timers, timers)
        (q,) = [q for q in self.c.log() if q["path"].endswith("/exec")]
        if self.MODE == "v5":
            self.assertGreaterEqual(q["pings_received"], 1, q)
        else:
            self.assertEqual(q["pings_received"], 0, q)


class IdleV4(Idle):
    MODE = "v4"


if __name__ == "__main__":
    unittest.main()
