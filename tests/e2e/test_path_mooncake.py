"""Issue 42 point 2 (docs/checks.md E8, mooncake-nic-select): the NICs
Mooncake takes per GPU.  Mooncake's topology (mooncake-transfer-engine
src/topology.cpp discoverCudaTopology) prefers for GPU i only the listed
devices on its PCIe switch; with none there, selectDevice sends from any
listed device, which cannot reach that GPU's memory: `local protection
error` (kvcache-ai/Mooncake#284, sgl-project/sglang#8324).
Expectations written before the rule, on fw-sglang-ib-device-own (Dynamo's
SGLang workers, Mooncake backend, TP 8 on an HGX H100 node whose rails
mlx5_0, mlx5_1, mlx5_4..mlx5_9 are each PIX to one GPU):

- --disaggregation-ib-device the NUMA-0 rails only (mlx5_0,mlx5_1,mlx5_4,
  mlx5_5): GPUs 4-7 have no listed NIC on their switch: mooncake-nic-select
  fails on both workers naming GPU4..GPU7 and `local protection error`, the
  remedy the pod's eight rails; NOT READY.
- the pod's eight rails (the scenario as it is): ok, READY.
- MOONCAKE_DEVICE (the Mooncake store's variable) with the NUMA-0 rails
  on pods that run the Mooncake store (MOONCAKE_MASTER; SGLang's PD
  transfer backend NIXL): fail, suggestedEnv MOONCAKE_DEVICE the eight
  rails; that value fed back: ok.
- the NUMA-0 rails in --disaggregation-ib-device: JSON suggestedArgs
  {"--disaggregation-ib-device": the eight rails} (no suggestedEnv: a flag
  is not an env), and `check --suggest-env` prints it as an args comment;
  fed back: SglangOwn.
- SGLang's Mooncake backend with MOONCAKE_DEVICE and no flag: SGLang
  passes the flag's value, None, as "" to TransferEngine.initialize
  (sgl-project/sglang disaggregation/mooncake/transfer_engine.py) and only
  the store's MooncakeConfig.load_from_env reads MOONCAKE_DEVICE
  (kvcache-ai/Mooncake mooncake-wheel/mooncake/mooncake_config.py): the
  engine opens every device, not judged (skipped), the detail saying the
  variable is not read there.
- no list at all: Mooncake opens every device and prefers each GPU's own:
  not judged (skipped, not applicable).
"""
import copy
import os
import unittest

from base import E2ECase, PairWorkers
from test_topo import SCENARIOS, with_env

OWN = "mlx5_0,mlx5_1,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8,mlx5_9"
NUMA0 = "mlx5_0,mlx5_1,mlx5_4,mlx5_5"


def with_devices(flag=None, backend="mooncake", **env):
    """fw-sglang-ib-device-own with --disaggregation-ib-device FLAG (None:
    the flag dropped), --disaggregation-transfer-backend BACKEND and ENV on
    every pod."""
    doc = with_env("fw-sglang-ib-device-own.yaml", **env)
    for p in doc["pods"]:
        p["spec"] = copy.deepcopy(p["spec"])
        for c in p["spec"]["containers"]:
            a = c.get("args") or []
            if "--disaggregation-transfer-backend" in a:
                a[a.index("--disaggregation-transfer-backend") + 1] = backend
            if "--disaggregation-ib-device" in a:
                i = a.index("--disaggregation-ib-device")
                if flag is None:
                    del a[i:i + 2]
                else:
                    a[i + 1] = flag
    for p in doc["pods"]:
        p["files"] = {k: os.path.normpath(os.path.join(SCENARIOS, v))
                      for k, v in (p.get("files") or {}).items()}
    return doc


def check_gpu_nics(case, chosen_by, want):
    """case's report validates against the schema, and on each pod GPU g
    (each key of WANT) has chosenBy CHOSEN_BY and the devices want[g] (in
    any order); the gpuNics entries checked, for more assertions."""
    import json
    import jsonschema
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    with open(os.path.join(root, "schema", "interconnect-report.schema.json")) as f:
        jsonschema.Draft202012Validator(json.load(f)).validate(case.doc)
    seen = []
    for p in case.doc["pods"]:
        got = {e["gpu"]: e for e in p.get("gpuNics") or []}
        for g, devs in want.items():
            case.assertEqual(got[g]["chosenBy"], chosen_by, got[g])
            case.assertEqual(sorted(n["device"] for n in got[g]["nics"]), devs, got[g])
            seen.append(got[g])
    return seen


class McNics(PairWorkers):
    """Mixin: mooncake-nic-select on both workers is STATUS; WORDS in its
    detail and remedy; SUGGEST its suggestedEnv, SUGGEST_ARGS its
    suggestedArgs (None: none)."""
    TMP = "path-mc-"
    STATUS = "ok"
    WORDS = ()
    SUGGEST = None
    SUGGEST_ARGS = None

    def test_pods(self):
        self.assertEqual(len(self.doc["pods"]), 2, self.err)

    def test_verdict(self):
        if self.VERDICT:
            PairWorkers.test_verdict(self)

    def test_nic_select(self):
        for p in self.doc["pods"]:
            r = self.check(p, "mooncake-nic-select")
            self.assertEqual(r["status"], self.STATUS, r)
            text = r["detail"] + " " + (r.get("remedy") or "")
            for w in self.WORDS:
                self.assertIn(w, text, r)
            self.assertEqual(r.get("suggestedEnv"), self.SUGGEST, r)
            self.assertEqual(r.get("suggestedArgs"), self.SUGGEST_ARGS, r)


class SglangNuma0(McNics, E2ECase):
    SCENARIO = with_devices(NUMA0)
    STATUS = "fail"
    VERDICT = "NOT READY"
    WORDS = ("GPU4", "GPU7", "local protection error", "kvcache-ai/Mooncake#284",
             "--disaggregation-ib-device " + OWN)
    SUGGEST_ARGS = {"--disaggregation-ib-device": OWN}
    # gpuNics as Mooncake picks (E8): a GPU's listed NICs on its switch,
    # else every listed NIC (avail_hca); GPU -> its devices
    GPU_NICS = {0: ["mlx5_0:1"], 3: ["mlx5_5:1"],
                4: ["mlx5_0:1", "mlx5_1:1", "mlx5_4:1", "mlx5_5:1"]}

    def test_gpu_nics(self):
        check_gpu_nics(self, "--disaggregation-ib-device", self.GPU_NICS)


class SglangOwn(SglangNuma0):
    SCENARIO = with_devices(OWN)
    STATUS = "ok"
    VERDICT = "READY"
    WORDS = ("PCIe switch",)
    SUGGEST_ARGS = None
    GPU_NICS = {0: ["mlx5_0:1"], 4: ["mlx5_6:1"], 7: ["mlx5_9:1"]}


# Pods whose Mooncake reads MOONCAKE_DEVICE: the Mooncake store client
# (MooncakeConfig.load_from_env: MOONCAKE_MASTER set), SGLang's PD KV over
# NIXL.  Before issue 42 point 1 these were SGLang Mooncake-backend pods,
# which do not read the variable (see the module text): fixed scenario.
STORE = dict(MOONCAKE_PROTOCOL="rdma", MOONCAKE_MASTER="mooncake-master.demo:50051")


class EnvNuma0(McNics, E2ECase):
    SCENARIO = with_devices(None, "nixl", MOONCAKE_DEVICE=NUMA0, **STORE)
    STATUS = "fail"
    WORDS = ("MOONCAKE_DEVICE", "GPU4", "local protection error")
    SUGGEST = {"MOONCAKE_DEVICE": OWN}


class EnvOwn(McNics, E2ECase):
    SCENARIO = with_devices(None, "nixl", MOONCAKE_DEVICE=OWN, **STORE)


class SglangEnvNotRead(McNics, E2ECase):
    SCENARIO = with_devices(None, MOONCAKE_DEVICE=NUMA0, MOONCAKE_PROTOCOL="rdma")
    STATUS = "skipped"
    WORDS = ("MOONCAKE_DEVICE", "not read", "transfer_engine.py")


class NoList(McNics, E2ECase):
    SCENARIO = with_devices(None)
    STATUS = "skipped"


if __name__ == "__main__":
    unittest.main()


FOUR = "mlx5_0,mlx5_1,mlx5_2,mlx5_3"


def railonly(prefill_rails=None):
    """path-mooncake-railonly, its prefill listing PREFILL_RAILS (None: as
    written), paths made absolute."""
    doc = with_env("path-mooncake-railonly.yaml")
    if prefill_rails:
        c = doc["pods"][0]["spec"]["containers"][0]
        c["args"] = c["args"][:-1] + [prefill_rails]
    return doc


class RailOnly(PairWorkers, E2ECase):
    """E8b: the pair line (kvcache-ai/Mooncake#3828); WORDS None: none."""
    SCENARIO = railonly()
    TMP = "path-mc-"
    VERDICT = None
    WORDS = ("mlx5_4,mlx5_5,mlx5_6,mlx5_7", "kvcache-ai/Mooncake#3828",
             "MC_ENABLE_DEST_DEVICE_AFFINITY", "mc-prefill-0", "mc-decode-0")
    STATUS = "NOT READY"

    def test_verdict(self):
        self.assertEqual(self.doc["verdict"]["status"], self.STATUS, self.doc["verdict"])

    def test_per_pod_ok(self):
        for p in self.doc["pods"]:
            self.assertEqual(self.check(p, "mooncake-nic-select")["status"], "ok", p["name"])

    def test_pair_line(self):
        lines = [f for f in self.doc["verdict"]["findings"]
                 if f["name"] == "pair-consistency" and "Mooncake" in f["detail"]]
        if self.WORDS is None:
            self.assertEqual(lines, [], self.doc["verdict"]["findings"])
            return
        self.assertEqual(len(lines), 1, self.doc["verdict"]["findings"])
        self.assertEqual(lines[0]["status"], "fail", lines[0])
        for w in self.WORDS:
            self.assertIn(w, lines[0]["detail"], lines[0])


class RailOnlySame(RailOnly):
    SCENARIO = railonly(FOUR)
    WORDS = None
    STATUS = "READY"


class SuggestEnvPerEngine(E2ECase):
    """Issue 42 item 4: check --suggest-env prints each engine's setting in
    the variable that engine reads: Mooncake's MOONCAKE_DEVICE (EnvNuma0's
    pods) and TensorRT-LLM's UCX_MAX_RNDV_RAILS (test_path.TrtllmRails'),
    each the value its JSON suggestedEnv holds (fed back: EnvOwn,
    test_path.TrtllmRailsOne)."""
    SCENARIO = with_devices(None, "nixl", MOONCAKE_DEVICE=NUMA0, **STORE)
    TMP = "path-mc-"

    def block(self, c):
        from plugin import run
        rc, text, err = run(["check", "--kubeconfig", c.kubeconfig, "-n", "demo",
                             "--suggest-env"], timeout=300)
        self.assertIn("Suggested env (check --suggest-env):", text, err)
        return text.split("Suggested env (check --suggest-env):", 1)[1]

    def test_mooncake_device(self):
        b = self.block(self.c)
        self.assertIn("  - name: MOONCAKE_DEVICE\n    value: \"%s\"\n" % OWN, b)

    def test_sglang_flag(self):
        """SGLang reads its device list from --disaggregation-ib-device: an
        args comment, not an env entry (SglangNuma0's pods; fed back:
        SglangOwn)."""
        from base import running
        path = self.write_scenario(SglangNuma0.SCENARIO, "sglang.yaml")
        with running(path, **self.cluster_options()) as c:
            b = self.block(c)
        self.assertIn("  # args: --disaggregation-ib-device %s\n" % OWN, b)
        self.assertNotIn("name: --disaggregation-ib-device", b)
        self.assertNotIn("name: MOONCAKE_DEVICE", b)

    def test_trtllm_rndv_rails(self):
        from base import running
        from test_path import TrtllmRails
        path = self.write_scenario(TrtllmRails.SCENARIO, "trtllm.yaml")
        with running(path, **self.cluster_options()) as c:
            b = self.block(c)
        self.assertIn("  - name: UCX_MAX_RNDV_RAILS\n    value: \"1\"\n", b)


# ---- Issue 42 item 2: a Grace-Blackwell tray (E8c) ----------------------
# Expectations written before the rule (path-mooncake-gb200.yaml's header):
# no NIC shares a PCI domain with a GB200 GPU, so E8's switch rule does not
# fail the tray; Mooncake up to 0.3.12.post1 prefers one NIC per NUMA node
# there (kvcache-ai/Mooncake PR #1974, open): warn, MC_CUSTOM_TOPO_JSON the
# way out; with it set: ok.
class Gb200(McNics, E2ECase):
    SCENARIO = with_env("path-mooncake-gb200.yaml")
    STATUS = "warn"
    WORDS = ("kvcache-ai/Mooncake PR #1974", "getPciDistance", "one NIC per NUMA node",
             "0.3.12.post1", "MC_CUSTOM_TOPO_JSON")


class Gb200TopoJson(McNics, E2ECase):
    SCENARIO = with_env("path-mooncake-gb200.yaml",
                        MC_CUSTOM_TOPO_JSON="/etc/mooncake/topology.json")
    STATUS = "ok"
    WORDS = ("MC_CUSTOM_TOPO_JSON",)


# ---- Issue 42 item 3: a rail-only fabric without destination affinity ---
# Without MC_ENABLE_DEST_DEVICE_AFFINITY Mooncake picks the peer's device on
# its own (worker_pool.cpp selectPeerDevice: no hint, Topology::selectDevice
# among the peer GPU's preferred NICs), so rank r's slices stay on one rail
# only where both of its GPUs prefer the same single NIC; a cross-rail QP
# has no route on RoCE rail-only (NVIDIA-NeMo/RL PR #2935, measured).
# Expectations written before the rule: decode as a second instance on GPUs
# 4-7 (kvcache-ai/Mooncake#3828's layout) fails the pair; the near miss, both
# on GPUs 0-3 (prefill still listing all eight NICs: each GPU prefers its
# own PIX rail), is READY.
def railonly_free(decode_gpus="0,1,2,3", decode_rails=FOUR, prefill_rails=None):
    """path-mooncake-railonly without the affinity, decode on DECODE_GPUS
    listing DECODE_RAILS."""
    doc = railonly(prefill_rails)
    for p in doc["pods"]:
        p["env"].pop("MC_ENABLE_DEST_DEVICE_AFFINITY", None)
        for c in p["spec"]["containers"]:
            c["env"] = [e for e in c.get("env") or []
                        if e["name"] != "MC_ENABLE_DEST_DEVICE_AFFINITY"]
    d = doc["pods"][1]
    d["env"]["CUDA_VISIBLE_DEVICES"] = decode_gpus
    c = d["spec"]["containers"][0]
    for e in c["env"]:
        if e["name"] == "CUDA_VISIBLE_DEVICES":
            e["value"] = decode_gpus
    c["args"] = c["args"][:-1] + [decode_rails]
    return doc


class RailOnlyFree(RailOnly):
    SCENARIO = railonly_free("4,5,6,7", "mlx5_4,mlx5_5,mlx5_6,mlx5_7", FOUR)
    WORDS = ("rank 0", "mlx5_0", "mlx5_4", "selectPeerDevice", "NVIDIA-NeMo/RL PR #2935",
             "mc-prefill-0", "mc-decode-0")
    STATUS = "NOT READY"


class RailOnlyFreeSame(RailOnly):
    SCENARIO = railonly_free()
    WORDS = None
    STATUS = "READY"
