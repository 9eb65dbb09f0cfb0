"""Issue 42 item 3: the NVLink/cuda_ipc path as a path (docs/checks.md D6).
Expectations written before the rule:

- path-pcie-ipc-read: vLLM's NixlConnector (READ) between two pods of one
  PCIe node without NVLink or RDMA: UCX's cuda_ipc has no GET there
  (cuda_ipc_iface.c), KV falls to TCP: NOT READY on one pair-consistency
  fail naming READ, NVLink and both ways out.  Near misses READY with no
  such line: NixlPushConnector (WRITE) on both workers (the healthy pair
  of vllm#52607 that moves KV at 49 GB/s, READY, not failed by
  rdma-devices); UCX_CUDA_IPC_ENABLE_GET_ZCOPY=y.
- path-gb200-mnnvl-nofabric: two GB200 trays of one NVLink domain, no
  RDMA, vLLM's KV from plain cudaMalloc: no fabric handle, cuda_ipc cannot
  export it across trays (vLLM PR #51377): NOT READY naming
  VLLM_KV_CACHE_FABRIC=1; with it on both workers: READY, no such line.

Environment: DI_PLUGIN (the binary; default ./kubectl-dynamo_interconnect).
"""
import copy
import os
import unittest

from base import E2ECase
from test_topo import SCENARIOS, Topo, with_env


def with_connector(name, connector, **env):
    """Scenario NAME with vLLM's kv_connector CONNECTOR (and ENV) on every
    pod."""
    doc = with_env(name, **env)
    for p in doc["pods"]:
        p["spec"] = copy.deepcopy(p["spec"])
        for c in p["spec"]["containers"]:
            c["args"] = [a.replace('"NixlConnector"', '"%s"' % connector) for a in c["args"]]
    return doc


class IpcPath(Topo):
    """Mixin: the cuda_ipc pair line.  WORDS: what the one fail line says;
    None: no such line at all."""
    WORDS = None
    MARK = "cuda_ipc"

    def test_pair_line(self):
        lines = [f for f in self.doc["verdict"]["findings"]
                 if f["name"] == "pair-consistency" and self.MARK in f["detail"]]
        if self.WORDS is None:
            self.assertEqual(lines, [], self.doc["verdict"]["findings"])
            return
        self.assertEqual(len(lines), 1, self.doc["verdict"]["findings"])
        self.assertEqual(lines[0]["status"], "fail", lines[0])
        text = lines[0]["detail"] + " " + (lines[0].get("remedy") or "")
        for w in self.WORDS:
            self.assertIn(w, text)


class PcieRead(IpcPath, E2ECase):
    SCENARIO = with_env("path-pcie-ipc-read.yaml")
    TMP = "path-"
    VERDICT = "NOT READY"
    WORDS = ("READ", "NVLink", "NixlPushConnector", "UCX_CUDA_IPC_ENABLE_GET_ZCOPY=y",
             "vllm-prefill-0", "vllm-decode-0")


class PciePush(IpcPath, E2ECase):
    """The healthy push pair: READY, rdma-devices not a fail."""
    SCENARIO = with_connector("path-pcie-ipc-read.yaml", "NixlPushConnector")
    TMP = "path-"
    VERDICT = "READY"

    def test_no_rdma_needed(self):
        for p in self.doc["pods"]:
            self.assertNotEqual(self.check(p, "rdma-devices")["status"], "fail", p["name"])


class PcieReadGetOn(IpcPath, E2ECase):
    SCENARIO = with_env("path-pcie-ipc-read.yaml", UCX_CUDA_IPC_ENABLE_GET_ZCOPY="y")
    TMP = "path-"
    VERDICT = "READY"


class Gb200NoFabric(IpcPath, E2ECase):
    SCENARIO = with_env("path-gb200-mnnvl-nofabric.yaml")
    TMP = "path-"
    VERDICT = "NOT READY"
    MARK = "fabric"
    WORDS = ("cudaMalloc", "VLLM_KV_CACHE_FABRIC=1", "nvl-prefill-0")


class Gb200Fabric(IpcPath, E2ECase):
    SCENARIO = with_env("path-gb200-mnnvl-nofabric.yaml", VLLM_KV_CACHE_FABRIC="1")
    TMP = "path-"
    VERDICT = "READY"
    MARK = "fabric"


if __name__ == "__main__":
    unittest.main()


class Ucx11547(E2ECase):
    """Issue 42 item 2: E7's tie-break keyed on the UCX build.  The same
    nodes as test_nicgpu.TestBareMetal, the UCX a v1.22.x build carrying
    openucx/ucx PR #11547: gpuNics follow the ordinal tie-break, and differ
    from the older choice for some GPU (else the scenario proves nothing)."""
    SCENARIO = "path-ucx-11547.yaml"
    PROFILE = "path-h100-ucx-11547"
    CHECK = ["-n", "demo"]

    def test_ties_by_ordinal(self):
        from test_nicgpu import gpu_nics, ib_rails, nic_order, rates, topo, ucx_11547, ucx_choice
        self.assertTrue(ucx_11547(self.PROFILE))
        rows, _ = topo(self.PROFILE)
        rate, order, rails = rates(self.PROFILE), nic_order(self.PROFILE), 2   # the scenario's UCX_MAX_RMA_RAILS
        allowed = ib_rails(self.PROFILE)
        differ = 0
        self.assertEqual(self.doc["verdict"]["status"], "READY", self.doc["verdict"])
        for pod in self.doc["pods"]:
            got = gpu_nics(pod)
            for g, row in rows.items():
                new, _ = ucx_choice(g, row, order, allowed, rate, rails, True)
                old, _ = ucx_choice(g, row, order, allowed, rate, rails, False)
                differ += new != old
                with self.subTest(pod=pod["name"], gpu=g):
                    self.assertEqual(sorted(n["device"] for n in got[g]["nics"]), sorted(new))
            src = [x for x in pod["links"] if x.get("check") == "ucx-nic-select"][0]["source"]
            self.assertIn("ucx_info -v (ties as UCX PR #11547)", src)
        self.assertGreater(differ, 0)


# the eight rails E7 suggests on img-dynamo-trtllm-ib (its BlueField host
# port mlx5_bond_0 left out, whose warn would come first)
TRTLLM_RAILS = "mlx5_0:1,mlx5_1:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1,mlx5_8:1,mlx5_9:1"


def trtllm_env(**env):
    """img-dynamo-trtllm-ib (Dynamo's TensorRT-LLM workers, engine config
    cache_transceiver_config.backend DEFAULT, UCX 1.21.0 on HGX H100 rails)
    with UCX_NET_DEVICES its rails and ENV on every pod, its file paths
    made absolute."""
    doc = with_env("img-dynamo-trtllm-ib.yaml", UCX_NET_DEVICES=TRTLLM_RAILS, **env)
    for p in doc["pods"]:
        p["files"] = {k: os.path.normpath(os.path.join(SCENARIOS, v)) for k, v in (p.get("files") or {}).items()}
    return doc


class TrtllmRails(E2ECase):
    """Issue 42 item 3: TensorRT-LLM's UCX cache transceiver stripes its
    rendezvous over UCX_MAX_RNDV_RAILS (default 2, NVIDIA/TensorRT-LLM PR
    #7205), not NIXL's UCX_MAX_RMA_RAILS (4 with UCX >= 1.20).  backend
    DEFAULT with TRTLLM_USE_UCX_KVCACHE=1 is the UCX transceiver (ai-dynamo/
    dynamo PR #13015's table).  RAILS: each GPU's maxRails."""
    SCENARIO = trtllm_env(TRTLLM_USE_UCX_KVCACHE="1")
    TMP = "path-"
    CHECK = ["-n", "demo"]
    RAILS = 2

    def test_rails(self):
        for pod in self.doc["pods"]:
            self.assertTrue(pod.get("gpuNics"), pod["name"])
            for e in pod["gpuNics"]:
                self.assertEqual(e["maxRails"], self.RAILS, e)
                self.assertEqual(len(e["nics"]), self.RAILS, e)


    # issue 42 point 2's warn (checks.md E7): with the default 2 rendezvous
    # rails some NIC is striped by two GPUs; the setting to paste is PR
    # #7205's.  SHARED: whether ucx-nic-select warns so.
    SHARED = True

    def test_shared_warn(self):
        for pod in self.doc["pods"]:
            r = [c for c in pod["checks"] if c["name"] == "ucx-nic-select"][0]
            text = r["detail"] + " " + (r.get("remedy") or "")
            if not self.SHARED:
                self.assertNotIn("shared", text, r)
                continue
            self.assertEqual(r["status"], "warn", r)
            for w in ("UCX_MAX_RNDV_RAILS", "NVIDIA/TensorRT-LLM PR #7205", "shared", "GPU0"):
                self.assertIn(w, text, r)
            self.assertEqual(r.get("suggestedEnv"), {"UCX_MAX_RNDV_RAILS": "1"}, r)


class TrtllmRailsOne(TrtllmRails):
    """PR #7205's setting: one rail per GPU, no NIC shared."""
    SCENARIO = trtllm_env(TRTLLM_USE_UCX_KVCACHE="1", UCX_MAX_RNDV_RAILS="1")
    RAILS = 1
    SHARED = False


class TrtllmRailsSetTwo(TrtllmRails):
    """UCX_MAX_RNDV_RAILS=2 set on purpose: not the default, no warn."""
    SCENARIO = trtllm_env(TRTLLM_USE_UCX_KVCACHE="1", UCX_MAX_RNDV_RAILS="2")
    SHARED = False


class TrtllmNixlRails(TrtllmRails):
    """The near miss: DEFAULT without a TRTLLM_USE_*_KVCACHE variable is
    the NIXL transceiver: NIXL's puts, 4 RMA rails with UCX 1.21.0, and
    UCX_MAX_RNDV_RAILS is not its setting."""
    SCENARIO = trtllm_env(UCX_MAX_RNDV_RAILS="1")
    RAILS = 4
    SHARED = False
