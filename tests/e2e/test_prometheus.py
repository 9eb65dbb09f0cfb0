#!/usr/bin/python3
"""check -o prometheus and --pushgateway (issue 27 item 3): the text
exposition format that `promtool check metrics` accepts, label values from
the cluster escaped (a pod name with a newline), one state-set series per
verdict, and a push to a REAL Pushgateway (Debian prometheus-pushgateway)
started here on 127.0.0.1 and read back with GET /metrics.  A push that
fails is exit 4 with one line, told apart from NOT READY (2).

Scenario: tests/e2e/scenarios/hostile-escapes.yaml (namespace hostile).
Series that cannot collide (issue 37 item 4): tests/e2e/scenarios/
hostile-formats.yaml, a DGD whose components "w\x01" and "w\x02" (and
"w" and "w\0x", one name once C cuts at the NUL) gave one series twice,
which the Pushgateway refused (HTTP 400).
"""
import os
import shutil
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.request

from base import ROOT, E2ECase
from plugin import run

SCENARIO = os.path.join(ROOT, "tests", "e2e", "scenarios", "hostile-escapes.yaml")
COLLIDE = os.path.join(ROOT, "tests", "e2e", "scenarios", "hostile-formats.yaml")
NEWLINE_POD = 'pod="he-decode-0\\nfake-row   gpu-x   ok   READY"'
PROMTOOL = shutil.which("promtool")
GATEWAY = shutil.which("prometheus-pushgateway")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def promtool(*args, data=None):
    p = subprocess.run([PROMTOOL] + list(args), input=data, capture_output=True,
                       text=True, timeout=60)
    return p.returncode, p.stdout + p.stderr


def series(text):
    """{series (name and labels as printed): value} of a text exposition."""
    out = {}
    for line in text.split("\n"):
        if line and not line.startswith("#"):
            k, _, v = line.rpartition(" ")
            out[k] = v
    return out


def series_list(text):
    return [l.rpartition(" ")[0] for l in text.split("\n") if l and not l.startswith("#")]


def start_gateway(cls):
    """A real Pushgateway on a free port for the class, stopped with it."""
    cls.port = free_port()
    cls.dir = tempfile.mkdtemp(prefix="pgw")
    cls.addClassCleanup(shutil.rmtree, cls.dir, ignore_errors=True)
    cls.gw = subprocess.Popen([GATEWAY, "--web.listen-address=127.0.0.1:%d" % cls.port],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cls.dir)
    cls.addClassCleanup(stop_gateway, cls.gw)
    cls.url = "http://127.0.0.1:%d" % cls.port
    for _ in range(300):     # until it listens (a readiness wait, no timing asserted)
        try:
            urllib.request.urlopen(cls.url + "/-/ready", timeout=2).read()
            break
        except OSError:
            time.sleep(0.1)


def stop_gateway(gw):
    gw.terminate()
    gw.wait(timeout=30)


@unittest.skipUnless(PROMTOOL, "promtool (Debian package prometheus) not installed")
class TestMetrics(E2ECase):
    SCENARIO = SCENARIO

    @classmethod
    def fixture(cls):
        cls.rc, cls.text, cls.err = run(["check", "--kubeconfig", cls.c.kubeconfig, "-n",
                                         "hostile", "-o", "prometheus"], timeout=300)

    def test_promtool_accepts_it(self):
        self.assertEqual(self.rc, 2, self.err)
        rc, out = promtool("check", "metrics", data=self.text)
        self.assertEqual(rc, 0, out)
        self.assertEqual(out.strip(), "", "promtool lint findings")

    def test_every_metric_has_help_and_type(self):
        names = {k.split("{")[0] for k in series(self.text)}
        for n in names:
            self.assertTrue(n.startswith("dynamo_interconnect_"), n)
            self.assertIn("# HELP %s " % n, self.text)
            self.assertIn("# TYPE %s gauge" % n, self.text)

    def test_state_sets_hold_the_verdicts(self):
        s = series(self.text)
        self.assertEqual(s['dynamo_interconnect_verdict{verdict="not_ready"}'], "1")
        self.assertEqual(s['dynamo_interconnect_verdict{verdict="ready"}'], "0")
        self.assertEqual(s["dynamo_interconnect_exit_code"], "2")
        self.assertEqual(s["dynamo_interconnect_pods"], "2")
        self.assertEqual(s["dynamo_interconnect_probe_errors"], "1")
        dep = ('dynamo_interconnect_deployment_verdict{namespace="hostile",'
               'deployment="he",verdict="not_ready"}')
        self.assertEqual(s[dep], "1")
        for v in ("ready", "not_ready", "unverified"):
            k = ('dynamo_interconnect_pod_verdict{namespace="hostile",pod="he-prefill-0",'
                 'role="prefill",node="gpu-e1",verdict="%s"}' % v)
            self.assertEqual(s[k], "1" if v == "not_ready" else "0")
        self.assertGreater(float(s["dynamo_interconnect_run_duration_seconds"]), 0)

    def test_label_values_escaped_and_no_raw_control_bytes(self):
        self.assertIn(NEWLINE_POD, self.text)
        self.assertNotIn("\x1b", self.text)
        for line in self.text.splitlines():
            self.assertFalse(line.startswith("fake-row"), line)

    def test_family_status_one_per_family(self):
        s = series(self.text)
        fams = [k for k, v in s.items() if k.startswith("dynamo_interconnect_pod_family_status{")
                and 'pod="he-prefill-0"' in k and v == "1"]
        names = [k.split('family="')[1].split('"')[0] for k in fams]
        self.assertTrue(names)
        self.assertEqual(len(names), len(set(names)), "one status held per family")


@unittest.skipUnless(PROMTOOL, "promtool (Debian package prometheus) not installed")
class TestAlertRules(unittest.TestCase):
    RULES = os.path.join(ROOT, "deploy", "alerts.yaml")

    def test_check_rules(self):
        rc, out = promtool("check", "rules", self.RULES)
        self.assertEqual(rc, 0, out)

    def test_rule_unit_tests(self):
        rc, out = promtool("test", "rules", os.path.join(ROOT, "deploy", "alerts_test.yaml"))
        self.assertEqual(rc, 0, out)


@unittest.skipUnless(GATEWAY, "prometheus-pushgateway not installed")
class TestPushgateway(E2ECase):
    SCENARIO = SCENARIO

    @classmethod
    def fixture(cls):
        start_gateway(cls)

    def check(self, *argv):
        return run(["check", "--kubeconfig", self.c.kubeconfig, "-n", "hostile"] + list(argv),
                   timeout=300)

    def test_pushed_series_are_on_the_gateway(self):
        rc, _, err = self.check("-o", "json", "--pushgateway", self.url)
        self.assertEqual(rc, 2, err)
        got = urllib.request.urlopen(self.url + "/metrics", timeout=30).read().decode()
        # The gateway adds the grouping key (job, namespace) and instance="".
        self.assertIn('dynamo_interconnect_verdict{instance="",job="dynamo_interconnect",'
                      'namespace="hostile",verdict="not_ready"} 1', got)
        self.assertIn(NEWLINE_POD, got)
        self.assertIn("dynamo_interconnect_probe_errors{", got)

    def test_refused_is_exit_4_one_line(self):
        rc, out, err = self.check("--pushgateway", "http://127.0.0.1:%d" % free_port())
        self.assertEqual(rc, 4, err)
        lines = [l for l in err.splitlines() if "pushgateway" in l]
        self.assertEqual(len(lines), 1, err)
        self.assertTrue(lines[0].startswith("error: "), err)

    def test_bad_url_is_refused_before_the_run(self):
        # Issue 44 point 3: a URL that can never work is a flag error (exit
        # 1) before any request, not exit 4 after the whole run.
        rc, out, err = self.check("-o", "json", "--pushgateway", "ftp://x")
        self.assertEqual(rc, 1, err)
        self.assertEqual(out, "")
        self.assertIn("not an http:// or https:// URL", err)

    def test_credentials_in_url_never_printed(self):
        rc, _, err = self.check("-o", "json", "--pushgateway",
                                "http://user:s3cret@127.0.0.1:%d" % free_port())
        self.assertEqual(rc, 4, err)
        self.assertNotIn("s3cret", err)

    def test_timeout_is_exit_4(self):
        # A listener that never answers: the push's own deadline ends it.
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            s.listen(1)
            rc, _, err = self.check("-o", "json", "--pushgateway",
                                    "http://127.0.0.1:%d" % s.getsockname()[1])
        self.assertEqual(rc, 4, err)
        self.assertIn("Timeout", err)


@unittest.skipUnless(PROMTOOL and GATEWAY, "prometheus and prometheus-pushgateway not installed")
class TestSeriesCannotCollide(E2ECase):
    """Label values escaped visibly and reversibly (a control byte as \\xNN,
    a backslash doubled), and series that would still be one (a NUL cut
    the name) told apart by a label duplicate="2": every series once."""
    SCENARIO = COLLIDE

    @classmethod
    def fixture(cls):
        start_gateway(cls)
        cls.rc, cls.text, cls.err = run(["check", "--kubeconfig", cls.c.kubeconfig, "-n", "fmt",
                                         "--dgd", "fmt", "-o", "prometheus"], timeout=300)

    def test_every_series_once_and_promtool_clean(self):
        self.assertEqual(self.rc, 2, self.err)
        names = series_list(self.text)
        self.assertEqual(len(names), len(set(names)),
                         sorted(n for n in names if names.count(n) > 1))
        rc, out = promtool("check", "metrics", data=self.text)
        self.assertEqual(rc, 0, out)

    def test_control_bytes_visible_and_distinct(self):
        comp = 'dynamo_interconnect_dgd_component_running_pods{namespace="fmt",dgd="fmt",'
        s = series(self.text)
        self.assertEqual(s[comp + 'component="w\\\\x01"}'], "1")
        self.assertEqual(s[comp + 'component="w\\\\x02"}'], "1")
        self.assertEqual(s[comp + 'component="w"}'], "0")
        self.assertEqual(s[comp + 'component="w",duplicate="2"}'], "0")
        for c in self.text:
            self.assertFalse(ord(c) < 0x20 and c != "\n" or 0x7f <= ord(c) <= 0x9f, repr(c))

    def test_the_pushgateway_takes_the_push(self):
        rc, _, err = run(["check", "--kubeconfig", self.c.kubeconfig, "-n", "fmt", "--dgd", "fmt",
                          "-o", "json", "--pushgateway", self.url], timeout=300)
        self.assertEqual(rc, 2, err)
        got = urllib.request.urlopen(self.url + "/metrics", timeout=30).read().decode()
        comps = [l for l in got.splitlines()
                 if l.startswith("dynamo_interconnect_dgd_component_running_pods{")]
        self.assertEqual(len(comps), 5, comps)
        self.assertIn('component="w\\\\x01"', "\n".join(comps))


if __name__ == "__main__":
    unittest.main()
