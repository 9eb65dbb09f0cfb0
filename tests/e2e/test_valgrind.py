#!/usr/bin/python3
"""valgrind memcheck over representative integration runs: check (table,
JSON, every pod, a hung exec cut by --probe-timeout, a run cut by
--timeout), pods, node --pod, nixl --pod against the test cluster.  No
memcheck error and no definite leak (possible/reachable leaks belong to
libcurl/OpenSSL's process-lifetime caches).  --error-exitcode is 99 so that
it cannot be mistaken for one of the plugin's own codes 0-3.

Runs only on the plain build (valgrind and ASan do not mix).
"""
import os
import shutil
import subprocess
import unittest

from base import E2ECase
from plugin import PLUGIN

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "scenarios", "readonly.yaml")
VALGRIND = shutil.which("valgrind")


def sanitized(path):
    """True when the binary was built with ASan (build/san)."""
    with open(path, "rb") as f:
        return b"__asan_init" in f.read()


@unittest.skipIf(VALGRIND is None, "valgrind not installed (tests/tools/deps.sh)")
class TestValgrind(E2ECase):
    # The hung pod is w-two (namespace other): the runs with -A meet it,
    # while node and nixl --pod w-prefill-0 and its peer w-decode-0 answer
    # at once (a hung peer held nixl for its 60 s default probe deadline).
    FAULTS = ["exec-hang=w-two"]

    @classmethod
    def scenario(cls):
        cls.asan = sanitized(PLUGIN)
        return None if cls.asan else SCENARIO

    def memcheck(self, *argv):
        if self.asan:
            return   # the ASan pass checks memory its own way
        e = dict(os.environ, HOME="/nonexistent")
        e.pop("KUBECONFIG", None)
        cmd = [VALGRIND, "-q", "--error-exitcode=99", "--leak-check=full",
               "--errors-for-leak-kinds=definite", "--show-leak-kinds=definite",
               PLUGIN] + list(argv) + ["--kubeconfig", self.c.kubeconfig]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e, timeout=300)
        err = p.stderr.decode(errors="replace")
        self.assertNotEqual(p.returncode, 99, err[-4000:])
        self.assertNotIn("==ERROR", err)
        self.assertIn(p.returncode, (0, 1, 2, 3), err[-4000:])
        return p.returncode

    def test_check_all_with_a_hung_pod(self):
        self.memcheck("check", "-A", "-o", "json", "--probe-timeout", "3s")

    def test_check_table_cut_by_timeout(self):
        # -A: the hung pod is in the run, so --timeout always cuts it
        self.memcheck("check", "-A", "--probe-timeout", "30s", "--timeout", "3s")

    def test_pods(self):
        self.assertEqual(self.memcheck("pods", "-A", "-o", "wide"), 0 if not self.asan else None)

    def test_node_and_nixl(self):
        self.memcheck("node", "--pod", "w-prefill-0", "-o", "yaml")
        self.memcheck("nixl", "--pod", "w-prefill-0")

    def test_error_path(self):
        self.memcheck("node", "--pod", "no-such-pod")


if __name__ == "__main__":
    unittest.main()
