#!/usr/bin/python3
"""A known-issues row on a fact of the versions-era vocabulary, end to end
(issue 43 point 4, docs/known-issues.md): kvcache-ai/Mooncake PR #1974's
row mooncake-1974-gb200-nic-per-numa (arch aarch64, MC_CUSTOM_TOPO_JSON
unset, every Mooncake) on Dynamo's SGLang workers over the Mooncake
backend on a GB200 NVL72 tray (tests/cluster/profiles/gb200-nvl72-a and
-b: two Grace CPUs, /proc/cpuinfo lists arm64 "Features"), with
mooncake-transfer-engine 0.3.12 pip-installed (a dist-info put by the
scenario's `files:`, as sgl-project/sglang's Dockerfile leaves it).
MC_GID_INDEX is set on both variants: the tray's BlueField-3 bond
mlx5_bond_0 would otherwise match the row mooncake-bond-gid-auto first.

- GB200: MC_CUSTOM_TOPO_JSON unset: mooncake-known-bad warns on both
  workers, naming Mooncake 0.3.12, aarch64, the row's effect (one NIC per
  NUMA node) and its source.
- the near miss: the same pods with MC_CUSTOM_TOPO_JSON set (the row's
  way out): mooncake-known-bad ok.
Expectations written before the tool was run on the scenario.

Environment: DI_PLUGIN (the binary; default ./kubectl-dynamo_interconnect).
"""
import os
import unittest

from base import ROOT, E2ECase, PairWorkers

PROFILES = os.path.join(ROOT, "tests", "cluster", "profiles")
DIST = "/usr/local/lib/python3.12/dist-packages/mooncake_transfer_engine-0.3.12.dist-info/METADATA"
METADATA = "Metadata-Version: 2.1\nName: mooncake-transfer-engine\nVersion: 0.3.12\n\n"


def worker(role, node, profile, env):
    args = ["--model-path", "Qwen/Qwen3-32B", "--served-model-name", "Qwen/Qwen3-32B",
            "--tp", "4", "--trust-remote-code", "--disaggregation-mode", role,
            "--disaggregation-transfer-backend", "mooncake",
            "--disaggregation-bootstrap-port", "12345", "--host", "0.0.0.0"]
    image = "nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.3.0"
    return {
        "name": "mc-%s-0" % role, "node": node,
        "labels": {"nvidia.com/dynamo-component-type": role,
                   "nvidia.com/dynamo-graph-deployment-name": "qwen",
                   "nvidia.com/dynamo-component": "SGLang%sWorker" % role.capitalize(),
                   "nvidia.com/dynamo-namespace": "qwen"},
        "containers": [{"name": "main", "image": image}],
        "profile": os.path.join(PROFILES, profile),
        "files": {DIST: "METADATA"},
        "env": env,
        "spec": {"containers": [{
            "name": "main", "image": image,
            "command": ["python3", "-m", "dynamo.sglang"], "args": args,
            "resources": {"limits": {"nvidia.com/gpu": 4}, "requests": {"nvidia.com/gpu": 4}},
            "securityContext": {"capabilities": {"add": ["IPC_LOCK"]}}}]},
    }


def scenario(env):
    return {"namespace": "demo", "pods": [
        worker("prefill", "gpu-gb200-a01", "gb200-nvl72-a", env),
        worker("decode", "gpu-gb200-b01", "gb200-nvl72-b", env)]}


class Gb200(PairWorkers, E2ECase):
    TMP = "di-kb-versions-"
    POD_ENV = {"MC_GID_INDEX": "3"}
    STATUS = "warn"
    DETAIL = ("Mooncake 0.3.12", "aarch64", "only one NIC per NUMA node is preferred",
              "kvcache-ai/Mooncake PR #1974")

    @classmethod
    def scenario(cls):
        with open(os.path.join(cls.tmp, "METADATA"), "w") as f:
            f.write(METADATA)
        return cls.write_scenario(scenario(cls.POD_ENV))

    def test_verdict(self):
        """Not this file's question: the tray's other checks are test_gid's."""

    def test_row(self):
        for p in self.doc["pods"]:
            c = self.check(p, "mooncake-known-bad")
            self.assertEqual(c["status"], self.STATUS, c["detail"])
            for s in self.DETAIL:
                self.assertIn(s, c["detail"])


class Gb200TopoJson(Gb200):
    POD_ENV = {"MC_GID_INDEX": "3", "MC_CUSTOM_TOPO_JSON": "/etc/mooncake/topo.json"}
    STATUS = "ok"
    DETAIL = ("Mooncake 0.3.12",)


if __name__ == "__main__":
    unittest.main()
