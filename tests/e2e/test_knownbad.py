#!/usr/bin/python3
"""The known-bad table end to end (issue 26 item 2, checks.md F5): `check`
on scenarios of Dynamo's vLLM runtime that a row of src/check/knownbad.c
matches, each with the verdict written here before the tool was run on it.

- knownbad-nixl-telemetry: NIXL 1.3.1 with NIXL_TELEMETRY_ENABLE=n (the
  Dynamo 1.2.0 operator's default, ai-dynamo/dynamo#10536): every transfer
  fails (ai-dynamo/dynamo#12952), so both workers are NOT READY on
  nixl-known-bad, which breaks the nixl-backend link.
- knownbad-nixl-cuda-builds: nixl 1.2.0 with nixl-cu12 and nixl-cu13 both
  installed (ai-dynamo/nixl#1705): a warning, the workers stay READY.
- the near miss, img-dynamo-vllm-ib itself: the same NIXL 1.3.1 with the
  operator's NIXL_TELEMETRY_ENABLE=y is READY with nixl-known-bad ok.
- wheel-only images, img-dynamo-vllm-ib and img-dynamo-sglang-ib (NIXL
  from the PyPI nixl-cu13 wheel, no Dynamo nixl-versions.txt): the wheel's
  UCX plugin loads the UCX auditwheel bundled with it (nixl_cu13.libs,
  private hashed SONAME, RPATH $ORIGIN/..: ai-dynamo/nixl
  contrib/build-wheel.sh, contrib/wheel_add_ucx_plugins.py), the UCX it
  was built with, so the ai-dynamo/nixl#386 row does not apply and
  nixl-known-bad's ok says so, naming the bundled libucp; both READY.
  SGLang's runtime also puts generic libucp.so.0 aliases of that copy on
  LD_LIBRARY_PATH (install_nixl_ucx_compat.sh): the plugin asks for the
  private name, the answer is the same.
- knownbad-ucx-bond-ece: UCX 1.22.0 on a RoCE LAG with rc_verbs (ECE on)
  is NOT READY on ucx-known-bad (openucx/ucx#11955); the same pods with
  UCX_RC_ECE=0 (the report's workaround) are READY.  Neither matches the
  openucx/ucx#11709 rows (gga_mlx5 on a LAG device): UCX_TLS there lists
  no gga_mlx5 and the profile's ucx_info -d offers none.
- knownbad-ucx-gga-lag: UCX 1.22.0 on an LACP-bonded ConnectX-7
  (mlx5_bond_0) with UCX_TLS unset and ucx_info -d listing gga_mlx5 on the
  bond is NOT READY on ucx-known-bad (openucx/ucx#11709, remedy
  UCX_TLS=^gga_mlx5); the same pods with UCX_TLS=^gga_mlx5 are READY.

Environment: DI_PLUGIN (the binary; default ./kubectl-dynamo_interconnect).
"""
import json
import os
import unittest

import yaml

from base import EXIT, ROOT, E2ECase, PairWorkers
from plugin import run
import test_gid

SCENARIOS = os.path.join(ROOT, "tests", "cluster", "scenarios")


def rows_of(check):
    """How many rows of the plugin's built-in table judge `check` (from
    `known-issues -o json`, so adding a row changes no expectation here)."""
    rc, out, err = run(["known-issues", "-o", "json"])
    if rc != 0:
        raise AssertionError("known-issues -o json: rc %d: %s" % (rc, err))
    return sum(1 for r in json.loads(out)["issues"] if r["check"] == check)


def none_of(check):
    return "none of the %d known-bad combinations" % rows_of(check)


class KnownBad(PairWorkers):
    """Mixin of an E2ECase: one `check -o json` on the scenario, and what
    each worker must show."""
    VERDICT = None       # every pod's
    STATUS = None        # nixl-known-bad's
    DETAIL = ()          # in nixl-known-bad's detail
    LINK = "proven"      # nixl-backend

    def test_known_bad(self):
        for p in self.doc["pods"]:
            c = self.check(p, "nixl-known-bad")
            self.assertEqual(c["status"], self.STATUS, c["detail"])
            for s in self.DETAIL:
                self.assertIn(s, c["detail"])
            self.assertNotIn("11709", c["detail"])
            # the UCX of a wheel image has no ucx_info: no version, no row
            self.assertEqual(self.check(p, "ucx-known-bad")["status"], "skipped")

    def test_link(self):
        for p in self.doc["pods"]:
            link = [l for l in p["links"] if l["name"] == "nixl-backend"]
            self.assertEqual([l["status"] for l in link], [self.LINK], link)


class TelemetryOff(KnownBad, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "knownbad-nixl-telemetry.yaml")
    VERDICT = "NOT READY"
    STATUS = "fail"
    DETAIL = ("NIXL 1.3.1", "NIXL_TELEMETRY_ENABLE=n", "NIXL_ERR_NO_TELEMETRY")
    LINK = "broken"

    def test_remedy_and_source(self):
        for p in self.doc["pods"]:
            c = self.check(p, "nixl-known-bad")
            self.assertIn("NIXL_TELEMETRY_ENABLE=y", c.get("remedy", ""))
            self.assertIn("(ai-dynamo/dynamo#12952, ai-dynamo/nixl#2266)", c["detail"])
            # the way out, ready to paste (issue 39 item 7)
            self.assertEqual(c.get("suggestedEnv"), {"NIXL_TELEMETRY_ENABLE": "y"}, c)


class CudaBuilds(KnownBad, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "knownbad-nixl-cuda-builds.yaml")
    VERDICT = "READY"
    STATUS = "warn"
    DETAIL = ("nixl-cu12 1.2.0 and nixl-cu13 1.2.0 both installed", "nixl_ep_cpp.so")


class NearMiss(KnownBad, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "img-dynamo-vllm-ib.yaml")
    VERDICT = "READY"
    STATUS = "ok"
    DETAIL = ("NIXL 1.3.1",)


WHEEL_UCP = "/usr/local/lib/python3.12/dist-packages/nixl_cu13.libs/libucp-6b1f3e2a.so.0.0.0"


class WheelUcxVllm(KnownBad, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "img-dynamo-vllm-ib.yaml")
    VERDICT = "READY"
    STATUS = "ok"
    DETAIL = ("NIXL 1.3.1", "ai-dynamo/nixl#386 does not apply",
              "loads the UCX bundled with the wheel (" + WHEEL_UCP + ")")


class WheelUcxSglang(KnownBad, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "img-dynamo-sglang-ib.yaml")
    VERDICT = "READY"
    STATUS = "ok"
    DETAIL = WheelUcxVllm.DETAIL


BOND = os.path.join(SCENARIOS, "knownbad-ucx-bond-ece.yaml")


def with_env(path, **env):
    """The scenario at path with env set on both workers (written to a
    scratch directory: paths made absolute)."""
    with open(path) as f:
        doc = yaml.safe_load(f)
    for p in doc["pods"]:
        p["env"] = dict(p.get("env") or {}, **env)
        for k in ("profile", "logs"):
            p[k] = os.path.normpath(os.path.join(SCENARIOS, p[k]))
    return doc


def bond_ece_off():
    """The bond scenario with the workaround on both workers."""
    return with_env(BOND, UCX_RC_ECE="0")


class BondEce(E2ECase):
    SCENARIO = BOND
    CHECK = ["-n", "demo"]
    VERDICT = "NOT READY"
    STATUS = "fail"
    DETAIL = ("UCX 1.22.0", "rc_verbs on the RoCE LAG device mlx5_0", "openucx/ucx#11955")
    # the variable that avoids the bug, ready to paste (issue 39 item 7);
    # None: no suggestedEnv (an ok has no way out to name)
    WAY_OUT = {"UCX_RC_ECE": "0"}

    def test_way_out(self):
        for p in self.doc["pods"]:
            c = KnownBad.check(self, p, "ucx-known-bad")
            self.assertEqual(c.get("suggestedEnv"), self.WAY_OUT, c)

    def test_bond(self):
        self.assertEqual(len(self.doc["pods"]), 2, self.err)
        for p in self.doc["pods"]:
            bad = [(c["name"], c["status"], c["detail"]) for c in p["checks"]
                   if c["status"] in ("fail", "warn")]
            self.assertEqual(p["verdict"], self.VERDICT, (p["name"], bad))
            c = KnownBad.check(self, p, "ucx-known-bad")
            self.assertEqual(c["status"], self.STATUS, c["detail"])
            for s in self.DETAIL:
                self.assertIn(s, c["detail"])
            self.assertEqual(KnownBad.check(self, p, "nixl-known-bad")["status"], "ok")
        self.assertEqual(self.rc, EXIT[self.VERDICT], self.err)


class BondEceOff(BondEce):
    SCENARIO = bond_ece_off()
    TMP = "knownbad-"
    VERDICT = "READY"
    STATUS = "ok"
    DETAIL = ("UCX 1.22.0", none_of("ucx-known-bad"))
    WAY_OUT = None


GGA = os.path.join(SCENARIOS, "knownbad-ucx-gga-lag.yaml")


class GgaLag(BondEce):
    SCENARIO = GGA
    VERDICT = "NOT READY"
    STATUS = "fail"
    DETAIL = ("UCX 1.22.0", "gga_mlx5 listed on the RoCE LAG device mlx5_bond_0",
              "UCX_TLS=unset", "openucx/ucx#11709")
    WAY_OUT = {"UCX_TLS": "^gga_mlx5"}

    def test_remedy(self):
        for p in self.doc["pods"]:
            c = KnownBad.check(self, p, "ucx-known-bad")
            self.assertIn("UCX_TLS=^gga_mlx5", c.get("remedy", ""))
            self.assertIn("set UCX_TLS=%s " % self.WAY_OUT["UCX_TLS"], c.get("remedy", ""))
            # UCX_RC_ECE=0 in the profile: the #11955 row stays out
            self.assertNotIn("11955", c["detail"])


class GgaLagOff(BondEce):
    SCENARIO = with_env(GGA, UCX_TLS="^gga_mlx5")
    TMP = "knownbad-"
    VERDICT = "READY"
    STATUS = "ok"
    DETAIL = ("UCX 1.22.0", none_of("ucx-known-bad"))
    WAY_OUT = None


class GgaLagTlsSet(GgaLag):
    """UCX_TLS already excludes cuda_ipc (still lets gga_mlx5 in from
    1.19.0): the way out keeps that exclusion, so pasting it changes only
    gga_mlx5 (issue 39 item 7)."""
    SCENARIO = with_env(GGA, UCX_TLS="^cuda_ipc")
    TMP = "knownbad-"
    DETAIL = ("UCX 1.22.0", "gga_mlx5 listed on the RoCE LAG device mlx5_bond_0",
              "UCX_TLS=^cuda_ipc", "openucx/ucx#11709")
    WAY_OUT = {"UCX_TLS": "^cuda_ipc,gga_mlx5"}

    def test_remedy(self):
        for p in self.doc["pods"]:
            c = KnownBad.check(self, p, "ucx-known-bad")
            self.assertIn("set UCX_TLS=^cuda_ipc,gga_mlx5 on the workers", c.get("remedy", ""))


class GgaLagTlsSetOff(GgaLagOff):
    """The near miss: the pasted value itself is READY."""
    SCENARIO = with_env(GGA, UCX_TLS="^cuda_ipc,gga_mlx5")


class EnvFilterPytorch(test_gid.EnvFilter):
    """PYTORCH_CUDA_ALLOC_CONF leaves the pod (the kvcache-ai/Mooncake#2511
    row reads it; an allocator setting, not a secret: docs/product.md),
    with and without grep in the image; its neighbours do not."""
    ENV = ("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\nPYTORCH_TOKEN=hunter2\n"
           "PYTORCH_CUDA_ALLOC_CONFX=1\nMC_IB_PCI_RELAXED_ORDERING=0\n")
    KEPT = ["PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True", "MC_IB_PCI_RELAXED_ORDERING=0"]


if __name__ == "__main__":
    unittest.main()
