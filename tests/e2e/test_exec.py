#!/usr/bin/python3
"""End-to-end tests of pod exec (src/kube/exec/exec.c) against the test cluster.

Runs build/tools/di_exec (the TEST-ONLY driver for exec_run) against
tests/cluster/fakecluster in v5 mode (API server >= 1.30, stream translator)
and v4 mode (legacy kubelet path), and with each exec fault the server can
inject.  Every case runs under a deadline and checks the outcome, the
numbers and the wording of the message.

One server per mode holds the plain cases and every fault that can be
aimed at one pod (--fault NAME=f-NAME, on the basic scenario plus one copy
of its POD per fault): a server start costs about a second of CPU, 25 of
them were most of this file's time.  The faults that act on the whole
server (exec-429 counts requests, token-expire) keep a server each.

    /usr/bin/python3 tests/e2e/test_exec.py [-v] [-k PATTERN]

Environment: DI_TOOLS (directory holding di_exec; default build/tools).
Prints "e2e-exec: N passed, N failed" last; exits non-zero on failure.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

import yaml

from base import E2ECase

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOLS = os.environ.get("DI_TOOLS") or os.path.join(ROOT, "build", "tools")
DI_EXEC = os.path.join(os.path.abspath(TOOLS), "di_exec")
SCENARIO = os.path.join(ROOT, "tests", "cluster", "scenarios", "basic.yaml")

NS = "demo"
POD = "qwen-prefill-0"           # running, one container "main"
NOT_RUNNING = "crashing-0"       # container "main" in the spec, not running
# Slack on top of an exec's own deadline for process start and teardown.
SLACK_S = 5.0


# mode -> {fault: env} of the faults aimed at one pod each (f-FAULT) on the
# mode's shared server; filled as the classes are defined, so complete
# before the first class is set up.
POD_FAULTS = {"v5": {}, "v4": {}}
_SCENARIO_DIR = []


def fault_pod(fault):
    return "f-" + fault


def shared_scenario():
    """basic.yaml plus one copy of POD per pod-aimed fault, written once."""
    if not _SCENARIO_DIR:
        _SCENARIO_DIR.append(tempfile.mkdtemp(prefix="e2e-exec-scenario-"))
        # a module cleanup: it runs after the servers' (last in, first out)
        unittest.addModuleCleanup(shutil.rmtree, _SCENARIO_DIR[0], ignore_errors=True)
        with open(SCENARIO) as f:
            sc = yaml.safe_load(f)
        base = os.path.dirname(SCENARIO)
        for p in sc["pods"]:
            for key in ("logs", "profile"):
                if isinstance(p.get(key), str):
                    p[key] = os.path.join(base, p[key])
        (template,) = [p for p in sc["pods"] if p["name"] == POD]
        faults = sorted({f for m in POD_FAULTS.values() for f in m})
        sc["pods"] += [dict(template, name=fault_pod(f)) for f in faults]
        with open(os.path.join(_SCENARIO_DIR[0], "exec.yaml"), "w") as f:
            yaml.safe_dump(sc, f)
    return os.path.join(_SCENARIO_DIR[0], "exec.yaml")


class ClusterCase(E2ECase):
    """di() runs di_exec against the class's server: the mode's shared one,
    or (SHARED false, FAULTS set) one of its own."""

    SHARED = True
    POD = POD       # the pod di() execs in unless told another

    @classmethod
    def scenario(cls):
        if not os.access(DI_EXEC, os.X_OK):
            raise RuntimeError("%s not built (make unit-tests)" % DI_EXEC)
        return shared_scenario() if cls.SHARED else SCENARIO

    @classmethod
    def cluster_options(cls):
        """The shared server: every pod-aimed fault of the mode, on its pod."""
        o = super().cluster_options()
        if cls.SHARED:
            o["faults"] = ["%s=%s" % (f, fault_pod(f)) for f in sorted(POD_FAULTS[cls.MODE])]
            o["env"] = {}
            for e in POD_FAULTS[cls.MODE].values():
                o["env"].update(e or {})
        return o

    def di(self, argv, pod=None, container=None, context=None, timeout_ms=10000,
           max_output=None):
        """Runs one exec; returns (result dict, seconds taken)."""
        pod = pod or self.POD
        cmd = [DI_EXEC, "--kubeconfig", self.c.kubeconfig, "-n", NS]
        if context:
            cmd += ["--context", context]
        if container:
            cmd += ["-c", container]
        if timeout_ms is not None:
            cmd += ["--timeout-ms", str(timeout_ms)]
        if max_output is not None:
            cmd += ["--max-output", str(max_output)]
        cmd += [pod, "--"] + list(argv)
        wall = (timeout_ms or 60000) / 1000.0 + SLACK_S
        t0 = time.monotonic()
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=wall)
        took = time.monotonic() - t0
        self.assertEqual(p.returncode, 0, "di_exec failed: %r" % p.stderr[-2000:])
        lines = p.stdout.decode().splitlines()
        self.assertEqual(len(lines), 1, "want one JSON line, got %r" % p.stdout[:500])
        res = json.loads(lines[0])
        if timeout_ms:
            self.assertLess(took, timeout_ms / 1000.0 + SLACK_S)
        return res, took

    def protocol(self):
        return 5 if self.MODE == "v5" else 4

    def assertOutcome(self, res, outcome, message=None):
        self.assertEqual(res["outcome"], outcome, res)
        if message is not None:
            self.assertIn(message, res["message"], res)
        # Messages are one line.
        self.assertNotIn("\n", res["message"])


class ExecBehaviour:
    """Cases that hold in both modes (mixed into a ClusterCase)."""

    def test_streams_are_separated(self):
        res, _ = self.di(["sh", "-c", "echo out-1; echo err-1 >&2; echo out-2; exit 0"])
        self.assertOutcome(res, "success")
        self.assertEqual(res["stdout"], "out-1\nout-2\n")
        self.assertEqual(res["stderr"], "err-1\n")
        self.assertEqual(res["exitCode"], 0)
        self.assertEqual(res["protocol"], self.protocol())
        self.assertEqual(res["httpStatus"], 101)
        self.assertFalse(res["truncated"])

    def test_exit_code_3(self):
        res, _ = self.di(["sh", "-c", "echo before; echo oops >&2; exit 3"])
        self.assertOutcome(res, "exit-code", "command terminated with exit code 3")
        self.assertEqual(res["exitCode"], 3)
        self.assertEqual(res["stdout"], "before\n")
        self.assertEqual(res["stderr"], "oops\n")

    def test_exit_0(self):
        res, _ = self.di(["true"])
        self.assertOutcome(res, "success")
        self.assertEqual(res["exitCode"], 0)
        self.assertEqual(res["stdout"], "")

    def test_exit_255_and_signal(self):
        res, _ = self.di(["sh", "-c", "exit 255"])
        self.assertOutcome(res, "exit-code")
        self.assertEqual(res["exitCode"], 255)
        res, _ = self.di(["sh", "-c", "kill -9 $$"])
        self.assertOutcome(res, "exit-code")
        self.assertEqual(res["exitCode"], 137)

    def test_argv_is_passed_verbatim(self):
        # One command= per element: spaces and URL metacharacters survive.
        args = ["a b", "c&d=e+f", "#?%/", "", "ünï"]
        res, _ = self.di(["printf", "[%s]"] + args)
        self.assertOutcome(res, "success")
        self.assertEqual(res["stdout"], "".join("[%s]" % a for a in args))

    def test_large_output(self):
        n = 3000000
        res, _ = self.di(["sh", "-c", "head -c %d /dev/zero | tr '\\0' x" % n],
                         timeout_ms=30000)
        self.assertOutcome(res, "success")
        self.assertEqual(res["stdoutBytes"], n)
        self.assertEqual(res["stdout"], "x" * n)
        self.assertFalse(res["truncated"])

    def test_many_lines(self):
        res, _ = self.di(["seq", "1", "200000"], timeout_ms=30000)
        self.assertOutcome(res, "success")
        self.assertEqual(res["stdout"], "".join("%d\n" % i for i in range(1, 200001)))

    def test_output_cap_truncates_but_keeps_status(self):
        res, _ = self.di(["sh", "-c", "seq 1 100000; echo tail >&2; exit 4"],
                         max_output=1000, timeout_ms=30000)
        self.assertOutcome(res, "exit-code")
        self.assertEqual(res["exitCode"], 4)
        self.assertTrue(res["truncated"])
        self.assertEqual(res["stdoutBytes"], 1000)
        self.assertEqual(res["stdout"], "".join("%d\n" % i for i in range(1, 100001))[:1000])
        self.assertEqual(res["stderr"], "tail\n")

    def test_missing_container(self):
        res, _ = self.di(["true"], container="nope")
        self.assertOutcome(res, "error", "container nope is not valid for pod %s" % POD)
        self.assertEqual(res["httpStatus"], 400)
        self.assertEqual(res["protocol"], 0)

    def test_missing_pod(self):
        res, _ = self.di(["true"], pod="no-such-pod")
        self.assertOutcome(res, "error", 'pods "no-such-pod" not found')
        self.assertEqual(res["httpStatus"], 404)

    def test_forbidden_user(self):
        res, _ = self.di(["true"], context="fakecluster-viewer")
        self.assertOutcome(res, "error", "forbidden")
        self.assertIn("pods/exec", res["message"])
        self.assertEqual(res["httpStatus"], 403)


class V5(ExecBehaviour, ClusterCase):
    MODE = "v5"

    def test_container_not_running(self):
        # The translator accepts first, then the kubelet fails (§4).
        res, _ = self.di(["true"], pod=NOT_RUNNING, container="main")
        self.assertOutcome(res, "failed", 'container not found ("main")')
        self.assertEqual(res["httpStatus"], 101)
        self.assertEqual(res["protocol"], 5)


class V4(ExecBehaviour, ClusterCase):
    MODE = "v4"

    def test_container_not_running(self):
        res, _ = self.di(["true"], pod=NOT_RUNNING, container="main")
        self.assertOutcome(res, "error", 'container not found ("main")')
        self.assertEqual(res["httpStatus"], 500)
        self.assertEqual(res["protocol"], 0)


def fault_case(name, fault, mode, check, env=None, own_server=False):
    """A ClusterCase class whose exec meets one fault: on pod f-FAULT of the
    mode's shared server, or with own_server on a server of its own where
    the fault acts on every exec."""
    def test(self):
        check(self)
    attrs = {"MODE": mode, "test_" + fault.split("=")[0].replace("-", "_"): test}
    if own_server:
        attrs.update(FAULTS=(fault,), ENV=env, SHARED=False)
    else:
        POD_FAULTS[mode][fault] = env
        attrs["POD"] = fault_pod(fault)
    cls = type(name, (ClusterCase,), attrs)
    globals()[name] = cls
    return cls


def expect_error(fragment, timeout_ms=10000):
    def check(self):
        res, _ = self.di(["sh", "-c", "echo hi; exit 0"], timeout_ms=timeout_ms)
        self.assertOutcome(res, "error", fragment)
    return check


def check_hang(self):
    res, took = self.di(["sh", "-c", "echo hi"], timeout_ms=2000)
    self.assertOutcome(res, "timeout", "timed out after 2s waiting for")
    self.assertGreaterEqual(took, 1.9)
    self.assertLess(took, 2.0 + SLACK_S)


def check_no_status(self):
    res, _ = self.di(["sh", "-c", "echo hi"])
    self.assertOutcome(res, "no-status")
    self.assertEqual(res["stdout"], "hi\n")


def check_no_close(self):
    # The status came; a missing Close after it changes nothing.
    res, _ = self.di(["sh", "-c", "echo hi; exit 5"])
    self.assertOutcome(res, "exit-code")
    self.assertEqual(res["exitCode"], 5)


def check_oversized(self):
    res, _ = self.di(["true"], max_output=1 << 20, timeout_ms=30000)
    self.assertOutcome(res, "success")
    self.assertTrue(res["truncated"])
    self.assertEqual(res["stdoutBytes"], 1 << 20)


def check_429(self):
    res, took = self.di(["sh", "-c", "echo hi"])
    self.assertOutcome(res, "success")
    self.assertEqual(res["stdout"], "hi\n")
    self.assertGreaterEqual(took, 0.9)   # Retry-After: 1 honoured


def check_unauthorized(self):
    res, _ = self.di(["true"])
    self.assertOutcome(res, "error", "You must be logged in to the server (Unauthorized)")
    self.assertEqual(res["httpStatus"], 401)


for _mode in ("v5", "v4"):
    _m = _mode.upper()
    fault_case("Fault%sHang" % _m, "exec-hang", _mode, check_hang)
    fault_case("Fault%sBadAccept" % _m, "exec-bad-accept", _mode,
               expect_error("Sec-WebSocket-Accept"))
    fault_case("Fault%sUnofferedProtocol" % _m, "exec-unoffered-protocol", _mode,
               expect_error('invalid protocol, expected one of [v5.channel.k8s.io, '
                            'v4.channel.k8s.io], got "v9.channel.k8s.io"'))
    fault_case("Fault%sMaskedFrame" % _m, "exec-masked-frame", _mode,
               expect_error("websocket protocol error: masked frame from server"))
    fault_case("Fault%sReservedOpcode" % _m, "exec-reserved-opcode", _mode,
               expect_error("websocket protocol error: reserved opcode"))
    fault_case("Fault%sHugeLength" % _m, "exec-huge-length", _mode,
               expect_error("64-bit frame length with the top bit set"))
    fault_case("Fault%sOrphanContinuation" % _m, "exec-orphan-continuation", _mode,
               expect_error("continuation frame without a message start"))
    fault_case("Fault%sGarbageStatus" % _m, "exec-garbage-status", _mode,
               expect_error('error stream protocol error: invalid JSON in "this is {not json"'))
    fault_case("Fault%sNoStatus" % _m, "exec-no-status", _mode, check_no_status)
    fault_case("Fault%sDropMidFrame" % _m, "exec-drop-mid-frame", _mode,
               expect_error("connection closed before the exec status arrived"))
    fault_case("Fault%sNoClose" % _m, "exec-no-close", _mode, check_no_close)
fault_case("FaultV5Oversized", "exec-oversized-output", "v5", check_oversized,
           env={"FAKECLUSTER_OVERSIZED_BYTES": str(8 << 20)})
# exec-429 answers the first exec the server sees (a count), token-expire
# every request: neither can be aimed at one pod of a shared server.
fault_case("FaultV5TooManyRequests", "exec-429", "v5", check_429, own_server=True)
fault_case("FaultV5Unauthorized", "token-expire=0", "v5", check_unauthorized, own_server=True)


def main():
    prog = unittest.main(module=__name__, exit=False, verbosity=1)
    r = prog.result
    failed = len(r.failures) + len(r.errors) + len(r.unexpectedSuccesses)
    passed = r.testsRun - failed - len(r.skipped)
    print("e2e-exec: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed or not r.testsRun else 0)


if __name__ == "__main__":
    main()
