#!/usr/bin/python3
"""Issue 39, "READY exactly when the KV path works": topologies the corpus
lacked, each scenario's verdict written here before the tool was run on
it, each with its near miss one setting away.

- topo-gb200-noipc-ib (item 5): two GB200 NVL72 trays in one NVLink
  domain, UCX_TLS=^cuda_ipc, KV between the trays over working InfiniBand:
  READY with env-ucx-tls warn saying KV takes RDMA instead of MNNVL and
  what that costs, never "same-node".  Near miss: UCX_TLS=^cuda_ipc,ib
  leaves no RDMA transport, cuda_ipc was the only GPU path: NOT READY.
- topo-nvlink-default-two (item 2): two GB200 trays in different NVLink
  domains, no MNNVL variable (UCX 1.19.0: UCX_CUDA_IPC_ENABLE_MNNVL's
  default "try"), cuda_ipc allowed: NOT READY on a pair-consistency fail
  that says MNNVL is on by UCX's default and names
  UCX_CUDA_IPC_ENABLE_MNNVL=n, also for a user who cannot read the
  ComputeDomain claims.  Near misses one setting away, READY with no pair
  line: UCX_CUDA_IPC_ENABLE_MNNVL=n; and nvlink-domain-two (MNNVL set to y
  by its recipe) with UCX_CUDA_IPC_ENABLE_MNNVL=n or UCX_TLS=^cuda_ipc.
- topo-wheel-no-smi (item 6): vLLM-style wheel-only pods (NIXL wheel with
  its bundled UCX, no ucx_info) without nvidia-smi either: the wheel's own
  UCX modules are the source of the links UCX would use, and they agree
  with the hardware: READY, ucx-rdma ok naming the wheel's bundled UCX.
  Near miss: the wheel's UCX without its IB modules: NOT READY.
- topo-trtllm-ldd (item 3): ai-dynamo/dynamo#6671's three libnixl copies
  in a TensorRT-LLM image with ldd but no readelf/objdump: ldd of the
  NIXL wrapper shows the system copy loading, not the one it ships
  beside: NOT READY on nixl-lib-shadow.  Near miss (LD_LIBRARY_PATH
  without /opt/nvidia/nvda_nixl, ldd resolves the bundled copy): ok,
  saying it judged from ldd because readelf/objdump are missing.

Environment: DI_PLUGIN (the binary; default ./kubectl-dynamo_interconnect).
"""
import os
import unittest

import yaml

from base import EXIT, ROOT, E2ECase, PairWorkers

SCENARIOS = os.path.join(ROOT, "tests", "cluster", "scenarios")


def with_env(name, **env):
    """Scenario NAME with env set on every pod (written to a scratch
    directory: paths made absolute)."""
    with open(os.path.join(SCENARIOS, name)) as f:
        doc = yaml.safe_load(f)
    for p in doc["pods"]:
        p["env"] = dict(p.get("env") or {}, **env)
        for k in ("profile", "logs"):
            if k in p:
                p[k] = os.path.normpath(os.path.join(SCENARIOS, p[k]))
    return doc


class Topo(PairWorkers):
    """Mixin of an E2ECase: one `check -o json` on a prefill/decode pair
    (base.PairWorkers), judged by the report's verdict, which a pair line
    may set where each pod alone is READY."""

    def test_verdict(self):
        bad = [(p["name"], c["name"], c["status"], c["detail"])
               for p in self.doc["pods"] for c in p["checks"] if c["status"] in ("fail", "warn")]
        self.assertEqual(self.doc["verdict"]["status"], self.VERDICT, bad)
        self.assertEqual(self.rc, EXIT[self.VERDICT], self.err)


class NoIpcOverIb(Topo, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "topo-gb200-noipc-ib.yaml")
    VERDICT = "READY"

    def test_tls_warns_the_cost(self):
        for p in self.doc["pods"]:
            c = self.check(p, "env-ucx-tls")
            self.assertEqual(c["status"], "warn", c["detail"])
            self.assertIn("RDMA", c["detail"])
            self.assertIn("multi-node NVLink", c["detail"])
            self.assertNotIn("same-node", c["detail"])


class NoIpcNoRdma(Topo, E2ECase):
    SCENARIO = with_env("topo-gb200-noipc-ib.yaml", UCX_TLS="^cuda_ipc,ib")
    TMP = "topo-"
    VERDICT = "NOT READY"

    def test_tls_fails(self):
        for p in self.doc["pods"]:
            self.assertEqual(self.check(p, "env-ucx-tls")["status"], "fail", p["name"])


def without_env(name, *keys):
    """Scenario NAME with KEYS removed from every pod's env."""
    doc = with_env(name)
    for p in doc["pods"]:
        for k in keys:
            p["env"].pop(k, None)
    return doc


class SameNodeNoIpc(Topo, E2ECase):
    """Prefill and decode on one node, no NIC, hostIPC: ^cuda_ipc leaves
    KV no GPU path (item 5's fail case)."""
    SCENARIO = os.path.join(SCENARIOS, "topo-single-node-noipc.yaml")
    VERDICT = "NOT READY"

    def test_tls_fails_same_node(self):
        for p in self.doc["pods"]:
            c = self.check(p, "env-ucx-tls")
            self.assertEqual(c["status"], "fail", c["detail"])
            self.assertIn("only GPU path", c["detail"])
            self.assertIn("same node", c["detail"])


class SameNodeIpc(Topo, E2ECase):
    """The near miss: cuda_ipc kept, KV over NVLink on the node, no RDMA
    device needed."""
    SCENARIO = without_env("topo-single-node-noipc.yaml", "UCX_TLS")
    TMP = "topo-"
    VERDICT = "READY"

    def test_no_rdma_needed(self):
        for p in self.doc["pods"]:
            c = self.check(p, "rdma-devices")
            self.assertEqual((c["status"], c.get("remedy")), ("skipped", None), c["detail"])
            self.assertIn("stays on this node", c["detail"])


class Domains(Topo):
    """Mixin: the NVLink-domain pair line (D4b): FAIL True, one fail line
    naming both domains and the way out; False, no pair line at all."""
    FAIL = True
    DEFAULT = True      # the line says MNNVL is on by UCX's default

    def test_pair_line(self):
        lines = [f for f in self.doc["verdict"]["findings"]
                 if f["name"] == "pair-consistency" and "NVLink domain" in f["detail"]]
        if not self.FAIL:
            self.assertEqual(lines, [], self.doc["verdict"]["findings"])
            return
        self.assertEqual(len(lines), 1, self.doc["verdict"]["findings"])
        f = lines[0]
        self.assertEqual(f["status"], "fail")
        self.assertIn("dc6e40c4-d722-4357-9ba6-5291dd461278", f["detail"])
        self.assertIn("5b1f7a2e-3c4d-4e8f-9a0b-1c2d3e4f5a6b", f["detail"])
        self.assertIn("UCX_CUDA_IPC_ENABLE_MNNVL=n", f["detail"] + f.get("remedy", ""))
        if self.DEFAULT:
            self.assertIn("UCX's default", f["detail"])


class DomainsByDefault(Domains, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "topo-nvlink-default-two.yaml")
    VERDICT = "NOT READY"


class DomainsByDefaultViewer(Domains, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "topo-nvlink-default-two.yaml")
    CHECK = Topo.CHECK + ["--context", "fakecluster-viewer"]
    VERDICT = "NOT READY"


class DomainsByDefaultOff(Domains, E2ECase):
    SCENARIO = with_env("topo-nvlink-default-two.yaml", UCX_CUDA_IPC_ENABLE_MNNVL="n")
    TMP = "topo-"
    VERDICT = "READY"
    FAIL = False


class DomainsSetOff(Domains, E2ECase):
    """nvlink-domain-two, whose recipe sets MNNVL y, turned off: the
    ComputeDomain claim stays, KV takes the InfiniBand rails."""
    SCENARIO = with_env("nvlink-domain-two.yaml", UCX_CUDA_IPC_ENABLE_MNNVL="n")
    TMP = "topo-"
    VERDICT = "READY"
    FAIL = False


class DomainsNoIpc(Domains, E2ECase):
    """nvlink-domain-two with cuda_ipc excluded: no MNNVL lane at all, so
    no domain line; env-ucx-tls warns on the cost (item 5)."""
    SCENARIO = with_env("nvlink-domain-two.yaml", UCX_TLS="^cuda_ipc")
    TMP = "topo-"
    VERDICT = "READY"
    FAIL = False


def with_profile(name, profile):
    """Scenario NAME with every pod on profile PROFILE (paths made
    absolute)."""
    doc = with_env(name)
    for p in doc["pods"]:
        p["profile"] = os.path.normpath(os.path.join(SCENARIOS, "..", "profiles", profile))
    return doc


class WheelNoSmi(Topo, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "topo-wheel-no-smi.yaml")
    VERDICT = "READY"
    RDMA = "ok"

    def test_wheel_ucx_is_the_source(self):
        for p in self.doc["pods"]:
            c = self.check(p, "ucx-rdma")
            self.assertEqual(c["status"], self.RDMA, c["detail"])
            if self.RDMA == "ok":
                self.assertIn("nixl_cu12.libs/ucx (the NIXL wheel's bundled UCX)", c["detail"])


class WheelNoSmiNoIb(WheelNoSmi):
    SCENARIO = with_profile("topo-wheel-no-smi.yaml", "topo-wheel-no-smi-noib")
    TMP = "topo-"
    VERDICT = "NOT READY"
    RDMA = "fail"


SITE = "/usr/local/lib/python3.12/dist-packages"


class LddOnly(Topo, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "topo-trtllm-ldd.yaml")
    VERDICT = "NOT READY"
    STATUS = "fail"
    DETAIL = (SITE + "/tensorrt_llm/libs/libtensorrt_llm_nixl_wrapper.so needs libnixl.so",
              "loads /opt/nvidia/nvda_nixl/lib/x86_64-linux-gnu/libnixl.so",
              "not " + SITE + "/tensorrt_llm/libs/nixl/libnixl.so",
              "no readelf or objdump", "ai-dynamo/dynamo#6671")

    def test_shadow(self):
        for p in self.doc["pods"]:
            c = self.check(p, "nixl-lib-shadow")
            self.assertEqual(c["status"], self.STATUS, c["detail"])
            for s in self.DETAIL:
                self.assertIn(s, c["detail"])


class LddOnlyOk(LddOnly):
    SCENARIO = with_profile("topo-trtllm-ldd.yaml", "topo-trtllm-ldd-ok")
    TMP = "topo-"
    VERDICT = "READY"
    STATUS = "ok"
    DETAIL = ("no readelf or objdump in the image", "judged from ldd")


RAILS = ",".join("mlx5_%d:1" % k for k in range(8))


class OffFabric(Topo, E2ECase):
    """Item 1: UCX's default takes mlx5_8, a DPU function on the storage
    network with no route to the peer's rails, and
    UCX_IB_ROCE_REACHABILITY_MODE=all keeps GPU3's lane over it: NOT READY
    on one pair line naming mlx5_8:1 and the UCX_NET_DEVICES to paste;
    each pod alone stays a warn.  FAIL False: no such pair line."""
    SCENARIO = os.path.join(SCENARIOS, "topo-offfabric.yaml")
    VERDICT = "NOT READY"
    FAIL = True
    POD = "warn"        # ucx-nic-select on each pod
    KEEPS = "UCX_IB_ROCE_REACHABILITY_MODE=all"

    def test_pair_line(self):
        lines = [f for f in self.doc["verdict"]["findings"]
                 if f["name"] == "pair-consistency" and "mlx5_8:1" in f["detail"]]
        if not self.FAIL:
            self.assertEqual(lines, [], self.doc["verdict"]["findings"])
            return
        self.assertEqual(len(lines), 1, self.doc["verdict"]["findings"])
        f = lines[0]
        self.assertEqual(f["status"], "fail", f)
        self.assertIn("UCX_NET_DEVICES=" + RAILS, f["detail"])
        self.assertIn(self.KEEPS, f["detail"])
        self.assertIn("no route", f["detail"])

    def test_pod_warns(self):
        for p in self.doc["pods"]:
            c = self.check(p, "ucx-nic-select")
            self.assertEqual(c["status"], self.POD, c["detail"])


class OffFabricRoute(OffFabric):
    """Near miss: the mode left at UCX 1.19.0's default "route": UCX drops
    the lane with no route (PR #10135), READY with the per-pod warn."""
    SCENARIO = without_env("topo-offfabric.yaml", "UCX_IB_ROCE_REACHABILITY_MODE")
    TMP = "topo-"
    VERDICT = "READY"
    FAIL = False


def offfabric_old(**env):
    """topo-offfabric with UCX 1.18.1 on both nodes and ENV on every pod,
    UCX_IB_ROCE_REACHABILITY_MODE removed (1.18 has no such variable)."""
    doc = without_env("topo-offfabric.yaml", "UCX_IB_ROCE_REACHABILITY_MODE")
    for p in doc["pods"]:
        p["profile"] = p["profile"].replace("topo-offfabric-", "topo-offfabric-old-")
        p["env"].update(env)
    return doc


class OffFabricOldUcx(OffFabric):
    """A UCX before 1.19.0 has no route check: the lane is kept with the
    mode unset, NOT READY, the detail naming the release."""
    SCENARIO = offfabric_old()
    TMP = "topo-"
    KEEPS = "UCX 1.18.1 (before 1.19.0's route check)"


class OffFabricOldListed(OffFabricOldUcx):
    """Its near miss: the suggested UCX_NET_DEVICES set."""
    SCENARIO = offfabric_old(UCX_NET_DEVICES=RAILS)
    VERDICT = "READY"
    FAIL = False
    POD = "ok"


class OffFabricListed(OffFabric):
    """Near miss: the suggested UCX_NET_DEVICES set (mode still "all")."""
    SCENARIO = with_env("topo-offfabric.yaml", UCX_NET_DEVICES=RAILS)
    TMP = "topo-"
    VERDICT = "READY"
    FAIL = False
    POD = "ok"


if __name__ == "__main__":
    unittest.main()
