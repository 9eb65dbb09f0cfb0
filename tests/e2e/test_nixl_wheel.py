#!/usr/bin/python3
"""NIXL from the pip wheel, end to end (issue 22, checks.md F2, E3, N):
`check` on tests/cluster/scenarios/nixl-wheel.yaml, a prefill and a decode
pod on two nodes from a vLLM-like image (NIXL wheel with its bundled UCX,
no ucx_info, NIXL_PLUGIN_DIR unset).  The prefill pod's wheel is whole and
must be READY with every link proven from the wheel's own files; the
decode pod's wheel lost its plugin directory and must be NOT READY with
nixl-plugin failed.  Run once without and once with --logs (the worker log
is the nixl-backend link's second source).

Environment: DI_PLUGIN (the binary; default ./kubectl-dynamo_interconnect).
"""
import os
import unittest

from base import ROOT, E2ECase

SCENARIO = os.path.join(ROOT, "tests", "cluster", "scenarios", "nixl-wheel.yaml")
SITE = "/usr/local/lib/python3.12/dist-packages"
HEALTHY, TWIN = "vllm-prefill-0", "vllm-decode-0"


class WheelCase:
    """Mixin of an E2ECase: one `check -o json` run on the module's one
    server, its pods by name."""
    SCENARIO = SCENARIO
    SHARED = True
    CHECK = ["-n", "demo"]

    @classmethod
    def fixture(cls):
        cls.pods = {p["name"]: p for p in cls.doc["pods"]}

    def check(self, pod, name):
        for c in self.pods[pod]["checks"]:
            if c["name"] == name:
                return c
        self.fail("check %s not reported for %s" % (name, pod))

    def link(self, pod, name):
        for l in self.pods[pod]["links"]:
            if l["name"] == name:
                return l
        self.fail("link %s not reported for %s" % (name, pod))

    def test_both_pods(self):
        self.assertEqual(sorted(self.pods), [TWIN, HEALTHY], self.err)

    def test_healthy_ready(self):
        p = self.pods[HEALTHY]
        bad = [(l["name"], l["status"], l.get("detail")) for l in p["links"]
               if l["status"] != "proven"]
        self.assertEqual(bad, [])
        self.assertEqual(p["verdict"], "READY", [(c["name"], c["status"], c["detail"])
                                                 for c in p["checks"]
                                                 if c["status"] in ("fail", "warn")])

    def test_healthy_plugin_from_wheel(self):
        c = self.check(HEALTHY, "nixl-plugin")
        self.assertEqual(c["status"], "ok")
        self.assertIn(SITE + "/nixl_cu12.libs/nixl", c["detail"])

    def test_healthy_ucx_from_modules(self):
        # no ucx_info in the image: the bundled UCX's modules show it
        self.assertEqual(self.check(HEALTHY, "ucx-version")["status"], "skipped")
        for name in ("ucx-rdma", "ucx-cuda"):
            c = self.check(HEALTHY, name)
            self.assertEqual(c["status"], "ok", c["detail"])
            self.assertIn(SITE + "/nixl_cu12.libs/ucx", c["detail"])
        self.assertIn("ucx-rdma: UCX's IB transport modules (libuct_ib, libuct_ib_mlx5",
                      self.link(HEALTHY, "nixl-backend")["detail"])

    def test_healthy_wheel_ucx_is_its_build(self):
        # ai-dynamo/nixl#386 (NIXL built for a newer UCX than it loads) in a
        # wheel-only image without ldd: the wheel's plugin directory is
        # nixl_cu12.libs/nixl and the wheel bundles its libucp under a
        # private name there (auditwheel; wheel_add_ucx_plugins.py points
        # the plugins at it), so the row does not apply (checks.md F5).
        c = self.check(HEALTHY, "nixl-known-bad")
        self.assertEqual(c["status"], "ok", c["detail"])
        self.assertIn("ai-dynamo/nixl#386 does not apply", c["detail"])
        self.assertIn(SITE + "/nixl_cu12.libs/libucp-fb7bfdea.so.0.0.0", c["detail"])

    def test_twin_not_ready(self):
        p = self.pods[TWIN]
        c = self.check(TWIN, "nixl-plugin")
        self.assertEqual(c["status"], "fail", c["detail"])
        self.assertIn("no plugin directory", c["detail"])
        self.assertEqual(self.link(TWIN, "nixl-backend")["status"], "broken")
        self.assertEqual(p["verdict"], "NOT READY")
        failed = sorted(x["name"] for x in p["checks"] if x["status"] == "fail")
        self.assertEqual(failed, ["nixl-plugin"])

    def test_exit_code(self):
        # the deployment is the worst pod: NOT READY
        self.assertEqual(self.rc, 2, self.err)


class WheelCheck(WheelCase, E2ECase):
    pass


class WheelCheckLogs(WheelCase, E2ECase):
    CHECK = WheelCase.CHECK + ["--logs"]

    def test_log_is_second_source(self):
        c = self.check(HEALTHY, "logs-nixl")
        self.assertEqual(c["status"], "ok")
        self.assertTrue(c["detail"].startswith("NIXL UCX backend instantiated"), c["detail"])


if __name__ == "__main__":
    unittest.main()
