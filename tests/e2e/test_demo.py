#!/usr/bin/python3
"""`make demo KEEP=1` (tests/tools/demo.sh): the cluster outlives the
script, the two printed export lines and the printed command work in a
fresh shell (nothing inherited but what they set), and the printed stop
command stops it and removes its state."""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from plugin import PLUGIN

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "tests", "tools", "demo.sh")


@unittest.skipUnless(os.geteuid() == 0, "the demo cluster's sandboxes need root")
class DemoKeep(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="e2e-demo-")
        self.dir = os.path.join(self.tmp, "demo")
        self.env = dict(os.environ, KEEP="1", DEMO_DIR=self.dir, DEMO_PLUGIN=PLUGIN)
        self.env.pop("SUDO_USER", None)

    def tearDown(self):
        subprocess.run(["sh", DEMO, "stop"], env=self.env, stdout=subprocess.DEVNULL)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_keep_then_fresh_shell_then_stop(self):
        p = subprocess.run(["sh", DEMO], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=self.env, timeout=600)
        out = p.stdout.decode()
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        exports = re.findall(r"(?m)^  (export (?:KUBECONFIG|PATH)=.*)$", out)
        self.assertEqual(len(exports), 2, out)
        cmd = re.search(r"(?m)^  (kubectl(?: dynamo-interconnect|-dynamo_interconnect) check -n demo)$", out)
        self.assertTrue(cmd, out)
        stop = re.search(r"(?m)^Stop it with: (make -C \S+ demo-stop)$", out)
        self.assertTrue(stop, out)
        with open(os.path.join(self.dir, "pid")) as f:
            pid = int(f.read())
        os.kill(pid, 0)   # still running after the script ended
        # A fresh shell: only a minimal PATH and HOME, then what was printed.
        script = "; ".join(exports + [cmd.group(1) + " -o json"])
        f = subprocess.run(["env", "-i", "HOME=/nonexistent", "PATH=/usr/bin:/bin", "sh", "-c", script],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600, cwd="/")
        self.assertEqual(f.returncode, 2, f.stderr.decode())
        self.assertEqual(json.loads(f.stdout)["verdict"]["status"], "NOT READY")
        # The printed stop command, as printed (make from anywhere).
        s = subprocess.run(stop.group(1).split() + ["DEMO_DIR=" + self.dir], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, env=dict(self.env, DEMO_DIR=self.dir), timeout=120)
        self.assertEqual(s.returncode, 0, s.stdout.decode())
        self.assertFalse(os.path.exists(self.dir))
        with self.assertRaises(ProcessLookupError):
            os.kill(pid, 0)


if __name__ == "__main__":
    unittest.main()
