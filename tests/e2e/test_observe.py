#!/usr/bin/python3
"""check --observe DURATION (issue 45, docs/checks.md O): the probe samples
every RDMA port's counters twice, the window apart, in its one exec, and
the OBSERVED family judges what moved.  The test cluster's `counters:`
key (tests/cluster/fc_counters.py) advances the sysfs counter files with
time.  Each scenario's verdict was written here before the tool ran on it:

- obs-healthy: all 8 IB rails of both pods move: OBSERVED ok, READY, and
  every other family as without --observe.
- obs-efa: the 4 EFA ports' hw_counters (tx_bytes, rx_bytes) move: ok.
- obs-idle-rail: 4 of 8 rails carry everything (openucx/ucx#11680):
  observed-idle-rails warns naming the 4 idle rails; still READY.
- obs-idle: nothing moves: "no KV traffic in the window", a skip that
  changes nothing (the verdict is the one without --observe).
- obs-all-tcp: UCX_TLS=tcp on RDMA pods: no RDMA byte; the verdict (NOT
  READY on the env rule) is the one without --observe.
- obs-symbol-errors: symbol_error at 50/s on one rail: warn (NVSentinel's
  non-fatal rate > 10/s), still READY.
- obs-link-flap: link_downed rises: fail (NVSentinel fatal), NOT READY.
- the window reaches the pod only as the first stdin line "_di_obs=N"
  before the byte-identical probe: the exec's stdin sha256 is exactly
  that; without --observe the stdin is the plain probe and no OBSERVED row
  appears; a bad DURATION is a one-line usage error before any request.
- SIGINT during the window ends the run at once with the report of what
  finished (exit 2 or 3, "interrupted").

Environment: DI_PLUGIN (the binary; default ./kubectl-dynamo_interconnect).
"""
import hashlib
import json
import os
import signal
import subprocess
import time
import unittest

from base import EXIT, ROOT, E2ECase, check_json, parse_json
from plugin import PLUGIN, invoke_stdin, plugin_env, run, script_bytes, script_sha256

SCENARIOS = os.path.join(ROOT, "tests", "cluster", "scenarios")
WINDOW = "2s"


def observed(doc, pod):
    return {c["name"]: c for p in doc["pods"] if p["name"] == pod
            for c in p["checks"] if c["family"] == "OBSERVED"}


def families(doc):
    """Per pod, each non-OBSERVED check's status."""
    return {p["name"]: {c["name"]: c["status"] for c in p["checks"] if c["family"] != "OBSERVED"}
            for p in doc["pods"]}


class Observe:
    """Mixin: `check --observe` and the same check without it, on one
    server."""
    VERDICT = None
    PODS = ("qwen-prefill-0", "qwen-decode-0")

    @classmethod
    def fixture(cls):
        rc, out, cls.err = check_json(cls.c, "-n", "demo", "--observe", WINDOW, timeout=300)
        cls.rc, cls.doc = rc, parse_json(out)
        rc0, out0, _ = check_json(cls.c, "-n", "demo", timeout=300)
        cls.rc0, cls.doc0 = rc0, parse_json(out0)

    def test_verdict(self):
        self.assertIsNotNone(self.doc, self.err)
        self.assertEqual(self.doc["verdict"]["status"], self.VERDICT, self.doc["verdict"]["findings"])
        self.assertEqual(self.rc, EXIT[self.VERDICT], self.err)

    def test_three_rows_per_pod_and_none_without_observe(self):
        for pod in self.PODS:
            self.assertEqual(sorted(observed(self.doc, pod)),
                             ["observed-idle-rails", "observed-port-errors", "observed-rdma-bytes"], pod)
            self.assertEqual(observed(self.doc0, pod), {}, pod)

    def status(self, pod, name):
        return observed(self.doc, pod)[name]["status"]

    def detail(self, pod, name):
        return observed(self.doc, pod)[name]["detail"]


class Unchanged:
    """Mixin: OBSERVED lowers nothing here: the verdict and every other
    check as without --observe."""

    def test_same_as_without_observe(self):
        self.assertEqual(self.doc["verdict"]["status"], self.doc0["verdict"]["status"])
        self.assertEqual(self.rc, self.rc0)
        self.assertEqual(families(self.doc), families(self.doc0))


class Prometheus(E2ECase):
    """-o prometheus: per-rail bytes and error increases with --observe
    only (deploy/alerts.yaml reads them)."""
    SCENARIO = os.path.join(SCENARIOS, "obs-link-flap.yaml")

    def prom(self, want_rc, *argv):
        rc, out, err = run(["check", "--kubeconfig", self.c.kubeconfig, "-n", "demo",
                            "-o", "prometheus"] + list(argv), timeout=300)
        self.assertEqual(rc, want_rc, err)
        return out.splitlines()

    def test_rail_series(self):
        lines = self.prom(2, "--observe", "1s")
        rb = [ln for ln in lines if ln.startswith("dynamo_interconnect_rail_bytes{")]
        self.assertEqual(len(rb), 16, rb)      # 8 rails with counters x 2 pods
        flap = [ln for ln in lines if ln.startswith("dynamo_interconnect_rail_error_increase{") and
                'pod="qwen-prefill-0"' in ln and 'device="mlx5_1"' in ln and 'counter="link_downed"' in ln]
        self.assertEqual(len(flap), 1, flap)
        self.assertGreater(int(flap[0].rsplit(" ", 1)[1]), 0)
        self.assertIn('dynamo_interconnect_observe_window_seconds{namespace="demo",pod="qwen-decode-0",'
                      'role="decode",node="gpu-h100-02"} 1', lines)
        # without --observe (READY: link-port-flaps, O6, warns on the
        # count so far; only the window shows a flap now): no such
        # series, not even their HELP lines
        self.assertEqual([ln for ln in self.prom(0) if "rail_" in ln or "observe_" in ln], [])


class Healthy(Observe, Unchanged, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "obs-healthy.yaml")
    VERDICT = "READY"

    def test_bytes_on_every_rail(self):
        for pod in self.PODS:
            self.assertEqual(self.status(pod, "observed-rdma-bytes"), "ok")
            d = self.detail(pod, "observed-rdma-bytes")
            self.assertIn("over 8 of 8 RDMA ports in 2s", d)
            self.assertIn("mlx5_9/1 ", d)
            self.assertIn("other pods, NCCL", d)       # shared counters named
            self.assertEqual(self.status(pod, "observed-idle-rails"), "ok")
            self.assertEqual(self.status(pod, "observed-port-errors"), "ok")

    def test_says_what_the_window_does(self):
        self.assertIn("observe: each probe samples the RDMA port counters twice, 2 s apart "
                      "(probe deadline 72 s)", self.err)
        self.assertNotIn("share node", self.err)     # prefill and decode on two nodes

    def test_table_has_the_column(self):
        rc, out, err = run(["check", "--kubeconfig", self.c.kubeconfig, "-n", "demo",
                            "--observe", "1s", "-o", "wide"], timeout=300)
        self.assertEqual(rc, 0, err)
        self.assertIn("OBSERVED", out.splitlines()[0])
        rc, out, err = run(["check", "--kubeconfig", self.c.kubeconfig, "-n", "demo", "-o", "wide"],
                           timeout=300)
        self.assertNotIn("OBSERVED", out.splitlines()[0])

    def test_stdin_is_the_window_line_then_the_probe(self):
        n0 = len(self.c.log())
        rc, _, err = check_json(self.c, "-n", "demo", "--observe", "1s", timeout=300)
        self.assertEqual(rc, 0, err)
        probe = invoke_stdin(script_bytes("probe.sh"))
        want = hashlib.sha256(b"_di_obs=1\n" + probe).hexdigest()
        # an exec is logged when it ends: test_sigint_in_the_window's may
        # end in this window, with its own window line
        other = hashlib.sha256(b"_di_obs=97\n" + probe).hexdigest()
        execs = [q for q in self.c.log()[n0:] if q["path"].endswith("/exec")]
        self.assertEqual(len([q for q in execs if q["stdin_sha256"] == want]), 2)
        for q in execs:
            self.assertEqual(q["command"], ["sh", "-s"])
            self.assertIn(q["stdin_sha256"], (want, other))
        # without --observe: the plain probe, byte for byte
        n0 = len(self.c.log())
        check_json(self.c, "-n", "demo", timeout=300)
        plain = [q for q in self.c.log()[n0:] if q["path"].endswith("/exec") and q["stdin_sha256"] != other]
        self.assertEqual(len(plain), 2)
        for q in plain:
            self.assertEqual(q["stdin_sha256"], script_sha256("probe.sh"))

    def test_bad_duration_is_a_usage_error_before_any_request(self):
        for bad in ("0s", "11m", "1s;reboot", "-5s", "abc"):
            n0 = len(self.c.log())
            rc, out, err = run(["check", "--kubeconfig", self.c.kubeconfig, "-n", "demo",
                                "--observe", bad], timeout=60)
            self.assertEqual(rc, 1, (bad, err))
            self.assertIn("--observe", err)
            self.assertEqual(len(err.strip().splitlines()), 1, err)
            self.assertEqual(self.c.log()[n0:], [], bad)

    def test_sigint_in_the_window(self):
        p = subprocess.Popen([PLUGIN, "check", "--kubeconfig", self.c.kubeconfig, "-n", "demo",
                              "--observe", "97s", "-o", "json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=plugin_env())
        self.addCleanup(lambda: p.poll() is None and p.kill())
        deadline = time.monotonic() + 60
        while not sleeping(97):
            self.assertLess(time.monotonic(), deadline, "the window never started")
            self.assertIsNone(p.poll())
            time.sleep(0.2)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        self.assertIn(p.returncode, (2, 3), err)
        self.assertIn(b"interrupted", err)
        doc = json.loads(out)
        self.assertEqual(len(doc["pods"]), 2)


def sleeping(seconds):
    """Some process of this machine runs `sleep SECONDS` (the pods' are host
    processes too)."""
    want = b"sleep\0%d\0" % seconds
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/cmdline" % d, "rb") as f:
                    if f.read() == want:
                        return True
            except OSError:
                pass
    return False


class SharedNode(E2ECase):
    """Prefill and decode on one node: the counters are that node's, and
    the run says so (a limit named, never silently attributed)."""
    TMP = "di-observe-"

    @classmethod
    def scenario(cls):
        import yaml
        with open(os.path.join(SCENARIOS, "obs-healthy.yaml")) as f:
            doc = yaml.safe_load(f)
        for p in doc["pods"]:
            p["node"] = "gpu-h100-01"
            p["profile"] = os.path.join(ROOT, "tests", "cluster", "profiles", "h100-ib-ok")
            p["logs"] = os.path.join(SCENARIOS, "logs", "nixl-ucx-rdma.txt")
        return cls.write_scenario(doc)

    def test_shared_node_named(self):
        rc, out, err = check_json(self.c, "-n", "demo", "--observe", "1s", timeout=300)
        self.assertIn("observe: 2 pods share node gpu-h100-01: port counters are the node's", err)
        rc, out, err = check_json(self.c, "-n", "demo", timeout=300)
        self.assertNotIn("observe:", err)


class Efa(Observe, Unchanged, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "obs-efa.yaml")
    VERDICT = "READY"

    def test_efa_bytes(self):
        for pod in self.PODS:
            self.assertEqual(self.status(pod, "observed-rdma-bytes"), "ok")
            d = self.detail(pod, "observed-rdma-bytes")
            self.assertIn("over 4 of 4 RDMA ports in 2s", d)
            self.assertIn("efa_3/1 ", d)
            self.assertEqual(self.status(pod, "observed-idle-rails"), "ok")


class EnvInjected(E2ECase):
    """A pod whose own environment sets _di_obs (exec inherits it): the
    probe takes the window only from the plugin's unexported stdin line,
    so this pod gets no window, with or without --observe."""
    TMP = "di-observe-env-"

    @classmethod
    def scenario(cls):
        import yaml
        with open(os.path.join(SCENARIOS, "obs-healthy.yaml")) as f:
            doc = yaml.safe_load(f)
        for p in doc["pods"]:
            p["env"] = {"_di_obs": "3"}
            p["profile"] = os.path.join(ROOT, "tests", "cluster", "profiles", "h100-ib-ok")
            p["logs"] = os.path.join(SCENARIOS, "logs", "nixl-ucx-rdma.txt")
        return cls.write_scenario(doc)

    def test_no_window_from_the_pod(self):
        for argv in ([], ["--observe", "1s"]):
            rc, out, err = check_json(self.c, "-n", "demo", *argv, timeout=300)
            doc = parse_json(out)
            self.assertIsNotNone(doc, err)
            for pod in ("qwen-prefill-0", "qwen-decode-0"):
                self.assertEqual(observed(doc, pod), {}, (argv, pod))


class IdleRail(Observe, Unchanged, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "obs-idle-rail.yaml")
    VERDICT = "READY"

    def test_idle_rails_named(self):
        for pod in self.PODS:
            self.assertEqual(self.status(pod, "observed-idle-rails"), "warn")
            # each with the GPUs it is the near rail of (nvidia-smi topo -m PIX/PXB)
            self.assertIn("4 of 8 InfiniBand rails idle (mlx5_6/1 near GPU4, mlx5_7/1 near GPU5, "
                          "mlx5_8/1 near GPU6, mlx5_9/1 near GPU7)",
                          self.detail(pod, "observed-idle-rails"))
            self.assertIn("over 4 of 8", self.detail(pod, "observed-rdma-bytes"))


class Idle(Observe, Unchanged, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "obs-idle.yaml")
    VERDICT = "READY"

    def test_no_kv_traffic(self):
        for pod in self.PODS:
            self.assertEqual(self.status(pod, "observed-rdma-bytes"), "skipped")
            self.assertIn("no KV traffic in the window (2s)", self.detail(pod, "observed-rdma-bytes"))
            self.assertEqual(self.status(pod, "observed-idle-rails"), "skipped")
            self.assertEqual(self.status(pod, "observed-port-errors"), "ok")


class AllTcp(Observe, Unchanged, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "obs-all-tcp.yaml")
    VERDICT = "NOT READY"

    def test_no_rdma_byte(self):
        for pod in self.PODS:
            self.assertEqual(self.status(pod, "observed-rdma-bytes"), "skipped")
            self.assertIn("KV on TCP", self.detail(pod, "observed-rdma-bytes"))


class SymbolErrors(Observe, Unchanged, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "obs-symbol-errors.yaml")
    VERDICT = "READY"

    def test_rate_warns(self):
        for pod in self.PODS:
            self.assertEqual(self.status(pod, "observed-port-errors"), "warn")
            d = self.detail(pod, "observed-port-errors")
            self.assertIn("mlx5_4/1 symbol_error +", d)
            self.assertIn("(over 10/s)", d)
            self.assertIn("NVSentinel", d)


class LinkFlap(Observe, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "obs-link-flap.yaml")
    VERDICT = "NOT READY"

    def test_fatal(self):
        for pod in self.PODS:
            self.assertEqual(self.status(pod, "observed-port-errors"), "fail")
            self.assertIn("mlx5_1/1 counters/link_downed +", self.detail(pod, "observed-port-errors"))
        self.assertEqual(self.doc0["verdict"]["status"], "READY")
        self.assertIn("observed-port-errors", json.dumps(self.doc["verdict"]["findings"]))


if __name__ == "__main__":
    unittest.main()
