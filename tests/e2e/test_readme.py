#!/usr/bin/python3
"""README's examples are what the tool prints today: they are regenerated
from a run against the demo cluster (tests/tools/readme_examples.py, the
same code as `make readme-examples`) and compared with README.md."""
import os
import re
import subprocess
import unittest

from plugin import PLUGIN

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN = os.path.join(ROOT, "tests", "tools", "readme_examples.py")


def host_neutral(text):
    # The demo's pods are sandboxes on the machine that runs them, so a
    # finding that quotes the kernel release quotes that machine's.
    return re.sub(r"\bkernel [0-9][^ ,;]*", "kernel K", text)


@unittest.skipUnless(os.geteuid() == 0, "the demo cluster's sandboxes need root")
class ReadmeExamples(unittest.TestCase):
    def test_examples_match_a_fresh_run(self):
        p = subprocess.run(["/usr/bin/python3", GEN, "--print", PLUGIN], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        with open(os.path.join(ROOT, "README.md")) as f:
            readme = f.read()
        fresh = p.stdout.decode()
        self.assertIn("<!-- example: check -n demo -->\n\n    $ kubectl dynamo-interconnect check -n demo\n    POD ",
                      fresh)
        self.assertEqual(host_neutral(readme), host_neutral(fresh),
                         "README examples out of date: run `make readme-examples`")


if __name__ == "__main__":
    unittest.main()
