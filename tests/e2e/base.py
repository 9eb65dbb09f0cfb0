"""The one test-cluster fixture of the end-to-end tests (issue 24, item 5).

Every tests/e2e/test_*.py class that needs a server, a scratch directory or
one `check -o json` run subclasses E2ECase and says what it needs in class
attributes; the fixture is written here once:

    SCENARIO   the scenario: a file of tests/cluster/scenarios, a path, or
               a dict (written to cls.tmp, so TMP set); None: no server.
               scenario() may compute it instead (write_scenario()
               writes one into cls.tmp).
    MODE, FAULTS, LATENCY, ENV, ARGS
               fakecluster's --mode, --fault (each), --latency-ms, its
               environment and any other arguments (fc.Cluster's).
    SHARED     True: the module's one server of that scenario and those
               options (fc.shared_cluster), which classes asking the same
               share; its tests must count requests as before/after
               deltas.  False: a server of the class's own.
    TMP        a prefix: cls.tmp is a fresh mkdtemp directory.
    CHECK      a list: `check --kubeconfig KC -o json CHECK...` runs once
               on the server; cls.rc, cls.out, cls.err, and cls.doc (the
               parsed report, None when stdout is not JSON).

After that, fixture() (a classmethod, empty here) does the class's own
work once.  A test that needs a server of its own (its faults count from
the server's start) takes new_cluster(); a helper outside a test class,
`with running(SCENARIO) as c`.  What is started is undone with the class
(addClassCleanup), shared servers with the module (addModuleCleanup):
cleanups run even when the setup fails half way, which tearDownClass would
not.
"""
import contextlib
import json
import os
import shutil
import sys
import tempfile
import unittest

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "cluster"))
import fc  # noqa: E402  (the test cluster's own test helper)

from plugin import run  # noqa: E402


def parse_json(out):
    """The document of a JSON stdout, None when it is not JSON (the test
    then asserts on what came instead)."""
    try:
        return json.loads(out)
    except ValueError:
        return None


def check_json(c, *argv, timeout=120):
    """(exit code, stdout, stderr) of `check --kubeconfig KC -o json ARGV`
    on cluster c."""
    return run(["check", "--kubeconfig", c.kubeconfig, "-o", "json"] + list(argv), timeout=timeout)


@contextlib.contextmanager
def running(scenario, **options):
    """`with running(SCENARIO) as c`: a server of its own for the block
    (fc.Cluster's options), stopped and removed after it."""
    c = fc.Cluster(scenario, **options)
    try:
        yield c
    finally:
        c.cleanup()


def scenario_report(path, *argv):
    """(exit code, the JSON report or None, stderr) of `check -n demo -o
    json ARGV` on a server of its own for scenario PATH, stopped after; when
    stdout is no JSON its start is kept in the stderr returned."""
    with running(path) as c:
        rc, out, err = check_json(c, "-n", "demo", *argv, timeout=300)
    doc = parse_json(out)
    return rc, doc, err if doc is not None else err + out[:2000]


class E2ECase(unittest.TestCase):
    """A test class on the test cluster; see the module's text."""

    SCENARIO = None
    MODE = "v5"
    FAULTS = ()
    LATENCY = None
    ENV = None
    ARGS = ()
    SHARED = False
    TMP = None
    CHECK = None

    @classmethod
    def setUpClass(cls):
        if cls.TMP:
            cls.tmp = tempfile.mkdtemp(prefix=cls.TMP)
            cls.addClassCleanup(shutil.rmtree, cls.tmp, ignore_errors=True)
        scenario = cls.scenario()
        if scenario:
            cls.c = cls.start_cluster(scenario)
        if cls.CHECK is not None:
            cls.rc, cls.out, cls.err = check_json(cls.c, *cls.CHECK, timeout=300)
            cls.doc = parse_json(cls.out)
        cls.fixture()

    @classmethod
    def scenario(cls):
        if isinstance(cls.SCENARIO, dict):
            return cls.write_scenario(cls.SCENARIO)
        return cls.SCENARIO

    @classmethod
    def write_scenario(cls, doc, name="scenario.yaml"):
        """Scenario DOC as a file in cls.tmp (TMP set); its path."""
        path = os.path.join(cls.tmp, name)
        with open(path, "w") as f:
            yaml.safe_dump(doc, f)
        return path

    @classmethod
    def fixture(cls):
        """The class's own work once its server is up; cleanups it needs go
        to cls.addClassCleanup."""

    def new_cluster(self, scenario, **options):
        """A server of this test's own (fc.Cluster's options), stopped when
        the test ends, passed or not."""
        return _enter(running(scenario, **options), self.addCleanup)

    @classmethod
    def cluster_options(cls):
        return {"mode": cls.MODE, "faults": list(cls.FAULTS), "latency": cls.LATENCY,
                "env": cls.ENV, "args": list(cls.ARGS)}

    @classmethod
    def start_cluster(cls, scenario):
        if cls.SHARED:
            unittest.addModuleCleanup(fc.stop_shared)
            return fc.shared_cluster(scenario, **cls.cluster_options())
        return _enter(running(scenario, **cls.cluster_options()), cls.addClassCleanup)



EXIT = {"READY": 0, "NOT READY": 2, "UNVERIFIED": 3}


class PairWorkers:
    """Mixin of an E2ECase whose scenario is one prefill and one decode
    worker (test_stack, test_knownbad): one `check -o json`, both pods
    reported, each with the verdict VERDICT and the run's exit code."""
    CHECK = ["-n", "demo"]
    VERDICT = None

    def check(self, pod, name):
        for c in pod["checks"]:
            if c["name"] == name:
                return c
        self.fail("check %s not reported for %s" % (name, pod["name"]))

    def test_pods(self):
        self.assertEqual(len(self.doc["pods"]), 2, self.err)

    def test_verdict(self):
        for p in self.doc["pods"]:
            bad = [(c["name"], c["status"], c["detail"]) for c in p["checks"]
                   if c["status"] in ("fail", "warn")]
            self.assertEqual(p["verdict"], self.VERDICT, (p["name"], bad))
        self.assertEqual(self.rc, EXIT[self.VERDICT], self.err)

def _enter(cm, add_cleanup):
    """What TestCase.enterContext/enterClassContext do (Python >= 3.11),
    written out so that the tests also run on Ubuntu 22.04's Python 3.10."""
    value = cm.__enter__()
    add_cleanup(cm.__exit__, None, None, None)
    return value
