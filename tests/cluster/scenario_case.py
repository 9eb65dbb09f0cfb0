"""What the test cluster's own tests of one scenario key share
(test_metrics.py, test_counters.py): a cluster on a scenario written for
the class, and "each bad entry is refused"."""
import os
import shutil
import tempfile
import unittest

import fc


class ScenarioCase(unittest.TestCase):
    """A test cluster for the class on SCENARIO (YAML text), with FILES
    ({name: text}) written beside it; removed after the class."""
    SCENARIO = ""
    FILES = {}

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="fc-case-")
        for name, text in dict(cls.FILES, **{"s.yaml": cls.SCENARIO}).items():
            with open(os.path.join(cls.dir, name), "w") as f:
                f.write(text)
        cls.c = fc.Cluster(os.path.join(cls.dir, "s.yaml"))

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()
        shutil.rmtree(cls.dir, ignore_errors=True)


def assert_refused(test, read, bads):
    """read(entry, die) calls die for each entry of bads."""
    for bad in bads:
        msgs = []
        read(bad, msgs.append)
        test.assertTrue(msgs, bad)
