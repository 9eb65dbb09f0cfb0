#!/usr/bin/python3
"""The framework rule book on running workers (issue 26 items 3 and 4,
checks.md J5-J10): `check` on scenarios carrying the settings of a public
report, each with the verdict written here (and in the scenario's header)
before the tool was run on it, and `env` on the same settings written as a
DynamoGraphDeployment, which must reach the same fw-* findings (one rule
book, model/fwrules.c).

- fw-vllm-side-channel-unset: `vllm serve` across nodes without
  VLLM_NIXL_SIDE_CHANNEL_HOST (vllm-project/vllm#27083): both NOT READY on
  fw-vllm.  fw-vllm-side-channel-podip (the host from status.podIP): READY.
- fw-trtllm-both-backends (NVIDIA/TensorRT-LLM#10024): both NOT READY on
  fw-trtllm, naming both variables.
- fw-trtllm-buffer-short (ai-dynamo/dynamo PR #5523): max_tokens_in_buffer
  8192 below max_input_len 32768 in --override-engine-args: both NOT READY
  on fw-trtllm, naming both numbers.
- fw-sglang-tp-mismatch (llm-d/llm-d#2433): prefill TP 3, decode TP 2: the
  decode NOT READY on fw-pd-parallel, the prefill READY.
  fw-sglang-tp-divisible (4 and 2): both READY.
- Dynamo's own renders (img-dynamo-vllm-ib, -trtllm-ib, -sglang-ib) stay
  READY with their fw-* checks ok.
- The device-list rules (J6, J10), on the SGLang render's node (rails
  mlx5_0, mlx5_1, mlx5_4 to mlx5_9): fw-sglang-ib-device-missing (Mooncake
  backend, --disaggregation-ib-device mlx5_0 to mlx5_7; kvcache-ai/
  Mooncake#1384): both NOT READY on fw-sglang naming mlx5_2, mlx5_3.
  fw-sglang-ib-device-own (the pod's own rails): both READY.
  fw-mooncake-device-missing (MOONCAKE_DEVICE mlx5_0 to mlx5_7 for SGLang's
  Mooncake HiCache store): both NOT READY on fw-mooncake.  `env` cannot
  know a node's devices, so on these recipes it must NOT report the device
  rule, and must report every other fw-* finding `check` reports
  (LiveOnly below).

- The engine config file (--extra-engine-args, read in the pod by the
  probe, checks.md J9): fw-trtllm-engine-short (ai-dynamo/dynamo PR #5523,
  max_tokens_in_buffer 8192 below max_input_len 32768 in the file): both NOT
  READY on fw-trtllm naming both numbers; live only (a recipe without its
  ConfigMap has no file).  fw-trtllm-engine-fits (32768 and 32768): both
  READY, fw-trtllm ok.  fw-trtllm-engine-missing (the file is not in the
  pod): fw-trtllm skipped naming the path, never ok; both READY.
  Through a variable, as Dynamo's real recipes pass it (/bin/sh -c with
  --extra-engine-args "${ENGINE_ARGS}", ENGINE_ARGS in the env):
  img-dynamo-trtllm-ib (recipes/qwen3-32b-fp8/trtllm/disagg's ConfigMap):
  fw-trtllm ok naming /opt/dynamo/configs/config-ROLE.yaml;
  fw-trtllm-engine-var-short (PR #5523 in that file): both NOT READY naming
  8192 and 32768, live only; fw-trtllm-engine-var-unset (ENGINE_ARGS not
  set): skipped naming ${ENGINE_ARGS} as unresolved, never ok; both READY.

- Multinode workers (checks.md J7): fw-tp-multinode-sglang (Dynamo's
  DeepSeek-R1 SGLang disagg-32gpu recipe, --tp 16 on 2 nodes of 8 GPUs, as
  the operator renders it under Grove): all four pods READY, fw-tp-nodes ok
  naming 2 nodes.  fw-tp-one-pod (the same --tp 16 on one 8-GPU pod, no
  multinode sign): both NOT READY on fw-tp-nodes naming 16 and 8.

Environment: DI_PLUGIN (the binary; default ./kubectl-dynamo_interconnect).
"""
import json
import os
import unittest

import yaml

from base import ROOT, E2ECase
from plugin import run

SCENARIOS = os.path.join(ROOT, "tests", "cluster", "scenarios")
EXIT = {"READY": 0, "NOT READY": 2, "UNVERIFIED": 3}
WORST = {"READY": 0, "UNVERIFIED": 1, "NOT READY": 2}   # checks.md N: overall = worst pod

# env's JSON findings carry no check name: each fw-* check is known by
# words only its details use (as in test_framework.py).
MARK = {
    "fw-vllm": ("VLLM_NIXL_SIDE_CHANNEL", "kv_role", "kv_buffer_device"),
    "fw-trtllm": ("TRTLLM_NIXL_KVCACHE_BACKEND", "max_tokens_in_buffer", "cache transceiver"),
    "fw-pd-parallel": ("SGLang attention TP",),
    "fw-sglang": ("SGLang transfer backend", "disaggregation-ib-device"),
    "fw-mooncake": ("MOONCAKE_",),
    "fw-tp-nodes": ("tensor-parallel size",),
}


def as_recipe(scenario):
    """The scenario's workers as a DynamoGraphDeployment (the shape of
    tests/fixtures/framework): the same command, args, env and resources."""
    with open(scenario) as f:
        doc = yaml.safe_load(f)
    services = {}
    for p in doc["pods"]:
        role = p["labels"]["nvidia.com/dynamo-component-type"]
        c = p["spec"]["containers"][0]
        lim = c["resources"]["limits"]
        services[role.capitalize() + "Worker"] = {
            "componentType": "worker", "subComponentType": role,
            "extraPodSpec": {"mainContainer": {
                k: c[k] for k in ("command", "args", "image", "env") if k in c}},
            "resources": {"limits": {"gpu": str(lim["nvidia.com/gpu"]),
                                     "custom": {"rdma/ib": str(lim["rdma/ib"])}}},
        }
    return {"apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment",
            "metadata": {"name": os.path.basename(scenario)[:-5]}, "spec": {"services": services}}


class Live:
    """Mixin of an E2ECase: one `check -o json` on SCENARIO."""
    CHECK = ["-n", "demo"]
    TMP = "fwlive-"
    MARK = MARK
    # checks judged on the served model's config.json, which only a running
    # pod has (the probe reads it); a recipe carries no model, so `env`
    # must not report them (checks.md J7b/J12): the check side leaves them out
    NEEDS_MODEL = ()
    VERDICT = {}        # role -> verdict
    FW = {}             # role -> {check: status}
    DETAIL = {}         # check -> words its detail holds (non-ok pods)

    def pods(self):
        return {p["role"]: p for p in self.doc["pods"]}

    def check(self, pod, name):
        for c in pod["checks"]:
            if c["name"] == name:
                return c
        self.fail("check %s not reported for %s" % (name, pod["name"]))

    def test_verdict(self):
        got = self.pods()
        self.assertEqual(sorted(got), sorted(self.VERDICT), self.err)
        for role, want in self.VERDICT.items():
            p = got[role]
            bad = [(c["name"], c["status"], c["detail"]) for c in p["checks"]
                   if c["status"] in ("fail", "warn")]
            self.assertEqual(p["verdict"], want, (p["name"], bad))
        worst = max(self.VERDICT.values(), key=WORST.get)
        self.assertEqual(self.rc, EXIT[worst], self.err)

    def test_fw_checks(self):
        got = self.pods()
        for role, want in self.FW.items():
            for name, status in want.items():
                c = self.check(got[role], name)
                self.assertEqual(c["status"], status, (role, c))
                if status != "ok":
                    for s in self.DETAIL.get(name, ()):
                        self.assertIn(s, c["detail"])
                    self.assertTrue(c.get("remedy"), c)

    def test_env_agrees(self):
        """`env` on the same settings: the same non-ok fw-* results."""
        path = os.path.join(self.tmp, "recipe.yaml")
        with open(path, "w") as f:
            yaml.safe_dump(as_recipe(self.SCENARIO), f)
        rc, out, err = run(["env", path, "-o", "json"])
        doc = json.loads(out)
        from_env = sorted((c["role"], name, f["status"]) for c in doc["components"]
                          for f in c.get("findings", []) for name, marks in self.MARK.items()
                          if any(m in f["detail"] for m in marks))
        from_check = sorted((role, c["name"], c["status"]) for role, p in self.pods().items()
                            for c in p["checks"] if c["name"].startswith("fw-")
                            and c["status"] in ("warn", "fail")
                            and c["name"] not in self.NEEDS_MODEL)
        self.assertEqual(from_env, from_check, err)


class LiveOnly(Live):
    """A scenario whose fault only a running pod shows (a device list
    against the pod's RDMA devices, checks.md J6/J10): `env` on the same
    settings has no node, so it must not report the LIVE_ONLY check, and
    must still report every other non-ok fw-* result of `check`."""
    LIVE_ONLY = ""

    def test_env_agrees(self):
        path = os.path.join(self.tmp, "recipe.yaml")
        with open(path, "w") as f:
            yaml.safe_dump(as_recipe(self.SCENARIO), f)
        rc, out, err = run(["env", path, "-o", "json"])
        doc = json.loads(out)
        from_env = sorted((c["role"], name, f["status"]) for c in doc["components"]
                          for f in c.get("findings", []) for name, marks in MARK.items()
                          if any(m in f["detail"] for m in marks))
        from_check = sorted((role, c["name"], c["status"]) for role, p in self.pods().items()
                            for c in p["checks"] if c["name"].startswith("fw-")
                            and c["status"] in ("warn", "fail"))
        live = [r for r in from_check if r[1] == self.LIVE_ONLY]
        self.assertEqual(len(live), len(self.VERDICT), from_check)   # every worker, live
        self.assertEqual([r for r in from_env if r[1] == self.LIVE_ONLY], [], out)
        self.assertEqual(from_env, [r for r in from_check if r[1] != self.LIVE_ONLY], err)


class VllmSideChannelUnset(Live, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "fw-vllm-side-channel-unset.yaml")
    VERDICT = {"prefill": "NOT READY", "decode": "NOT READY"}
    FW = {"prefill": {"fw-vllm": "fail"}, "decode": {"fw-vllm": "fail"}}
    DETAIL = {"fw-vllm": ("VLLM_NIXL_SIDE_CHANNEL_HOST unset",)}


class VllmSideChannelPodIP(Live, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "fw-vllm-side-channel-podip.yaml")
    VERDICT = {"prefill": "READY", "decode": "READY"}
    FW = {"prefill": {"fw-vllm": "ok"}, "decode": {"fw-vllm": "ok"}}


class TrtllmBothBackends(Live, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "fw-trtllm-both-backends.yaml")
    VERDICT = {"prefill": "NOT READY", "decode": "NOT READY"}
    FW = {"prefill": {"fw-trtllm": "fail"}, "decode": {"fw-trtllm": "fail"}}
    DETAIL = {"fw-trtllm": ("NIXL_BACKEND", "TRTLLM_NIXL_KVCACHE_BACKEND")}


class TrtllmBufferShort(Live, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "fw-trtllm-buffer-short.yaml")
    VERDICT = {"prefill": "NOT READY", "decode": "NOT READY"}
    FW = {"prefill": {"fw-trtllm": "fail"}, "decode": {"fw-trtllm": "fail"}}
    DETAIL = {"fw-trtllm": ("8192", "32768")}


class SglangTpMismatch(Live, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "fw-sglang-tp-mismatch.yaml")
    VERDICT = {"prefill": "READY", "decode": "NOT READY"}
    FW = {"prefill": {"fw-sglang": "ok", "fw-tp-nodes": "ok"},
          "decode": {"fw-pd-parallel": "fail", "fw-sglang": "ok"}}
    DETAIL = {"fw-pd-parallel": ("prefill 3", "decode 2")}


class SglangTpDivisible(Live, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "fw-sglang-tp-divisible.yaml")
    VERDICT = {"prefill": "READY", "decode": "READY"}
    FW = {"decode": {"fw-pd-parallel": "ok", "fw-sglang": "ok"}}


class DynamoVllm(Live, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "img-dynamo-vllm-ib.yaml")
    VERDICT = {"prefill": "READY", "decode": "READY"}
    FW = {"prefill": {"fw-vllm": "ok", "fw-tp-nodes": "ok"}, "decode": {"fw-vllm": "ok"}}


class DynamoTrtllm(Live, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "img-dynamo-trtllm-ib.yaml")
    VERDICT = {"prefill": "READY", "decode": "READY"}
    FW = {"prefill": {"fw-trtllm": "ok"}, "decode": {"fw-trtllm": "ok"}}

    def test_engine_file_through_variable(self):
        """The file "${ENGINE_ARGS}" names (PID 1's env) was read: the ok
        names it."""
        for role, p in self.pods().items():
            c = self.check(p, "fw-trtllm")
            self.assertEqual(c["status"], "ok", c)
            self.assertIn("/opt/dynamo/configs/config-%s.yaml" % role, c["detail"])


class DynamoSglang(Live, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "img-dynamo-sglang-ib.yaml")
    VERDICT = {"prefill": "READY", "decode": "READY"}
    FW = {"prefill": {"fw-sglang": "ok"}, "decode": {"fw-sglang": "ok", "fw-pd-parallel": "ok"}}


WRONG_RAILS = "mlx5_2, mlx5_3"    # of mlx5_0..mlx5_7, the ones this node lacks


class SglangIbDeviceMissing(LiveOnly, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "fw-sglang-ib-device-missing.yaml")
    LIVE_ONLY = "fw-sglang"
    VERDICT = {"prefill": "NOT READY", "decode": "NOT READY"}
    FW = {"prefill": {"fw-sglang": "fail"}, "decode": {"fw-sglang": "fail", "fw-pd-parallel": "ok"}}
    DETAIL = {"fw-sglang": ("--disaggregation-ib-device names " + WRONG_RAILS,)}


class SglangIbDeviceOwn(Live, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "fw-sglang-ib-device-own.yaml")
    VERDICT = {"prefill": "READY", "decode": "READY"}
    FW = {"prefill": {"fw-sglang": "ok"}, "decode": {"fw-sglang": "ok", "fw-pd-parallel": "ok"}}


class MooncakeDeviceMissing(LiveOnly, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "fw-mooncake-device-missing.yaml")
    LIVE_ONLY = "fw-mooncake"
    VERDICT = {"prefill": "NOT READY", "decode": "NOT READY"}
    FW = {"prefill": {"fw-mooncake": "fail", "fw-sglang": "ok"},
          "decode": {"fw-mooncake": "fail", "fw-sglang": "ok"}}
    DETAIL = {"fw-mooncake": ("MOONCAKE_DEVICE names " + WRONG_RAILS,)}


class TrtllmEngineShort(LiveOnly, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "fw-trtllm-engine-short.yaml")
    LIVE_ONLY = "fw-trtllm"
    VERDICT = {"prefill": "NOT READY", "decode": "NOT READY"}
    FW = {"prefill": {"fw-trtllm": "fail"}, "decode": {"fw-trtllm": "fail"}}
    DETAIL = {"fw-trtllm": ("8192", "32768")}


class TrtllmEngineFits(Live, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "fw-trtllm-engine-fits.yaml")
    VERDICT = {"prefill": "READY", "decode": "READY"}
    FW = {"prefill": {"fw-trtllm": "ok"}, "decode": {"fw-trtllm": "ok"}}


class TrtllmEngineMissing(Live, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "fw-trtllm-engine-missing.yaml")
    VERDICT = {"prefill": "READY", "decode": "READY"}
    FW = {"prefill": {"fw-trtllm": "skipped"}, "decode": {"fw-trtllm": "skipped"}}
    DETAIL = {"fw-trtllm": ("/engine_configs/", "not found")}


class TrtllmEngineVarShort(LiveOnly, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "fw-trtllm-engine-var-short.yaml")
    LIVE_ONLY = "fw-trtllm"
    VERDICT = {"prefill": "NOT READY", "decode": "NOT READY"}
    FW = {"prefill": {"fw-trtllm": "fail"}, "decode": {"fw-trtllm": "fail"}}
    DETAIL = {"fw-trtllm": ("8192", "32768")}


class TrtllmEngineVarUnset(Live, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "fw-trtllm-engine-var-unset.yaml")
    VERDICT = {"prefill": "READY", "decode": "READY"}
    FW = {"prefill": {"fw-trtllm": "skipped"}, "decode": {"fw-trtllm": "skipped"}}
    DETAIL = {"fw-trtllm": ("${ENGINE_ARGS}", "unresolved")}


class Multinode:
    """Mixin of an E2ECase: a multinode worker per role, two pods each,
    judged one by one (not the Live mixin, which keys pods by role): all
    READY, fw-tp-nodes ok naming 2 nodes on the pods whose args carry the
    tensor-parallel size (all of them unless LEADERS_ONLY), absent on the
    others."""
    CHECK = ["-n", "demo"]
    TMP = "fwlive-"
    LEADERS_ONLY = False

    def test_all_ready(self):
        self.assertEqual(len(self.doc["pods"]), 4, self.err)
        for p in self.doc["pods"]:
            bad = [(c["name"], c["status"], c["detail"]) for c in p["checks"] if c["status"] in ("fail", "warn")]
            self.assertEqual(p["verdict"], "READY", (p["name"], bad))
        self.assertEqual(self.rc, 0, self.err)

    def test_tp_across_nodes(self):
        for p in self.doc["pods"]:
            c = [c for c in p["checks"] if c["name"] == "fw-tp-nodes"]
            if self.LEADERS_ONLY and not p["name"].endswith("-ldr-0"):
                self.assertEqual(c, [], p["name"])
                continue
            self.assertEqual(len(c), 1, p["name"])
            self.assertEqual(c[0]["status"], "ok", c[0])
            self.assertIn("2 nodes", c[0]["detail"])


class TpMultinodeSglang(Multinode, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "fw-tp-multinode-sglang.yaml")


class TpMultinodeVllmGrove(Multinode, E2ECase):
    """vLLM's Ray leader under Grove: its group's listed pods count its
    nodes; the Ray workers' args carry no tensor-parallel size."""
    SCENARIO = os.path.join(SCENARIOS, "fw-tp-multinode-vllm-grove.yaml")
    LEADERS_ONLY = True


class TpOnePod(Live, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "fw-tp-one-pod.yaml")
    VERDICT = {"prefill": "NOT READY", "decode": "NOT READY"}
    FW = {"prefill": {"fw-tp-nodes": "fail"}, "decode": {"fw-tp-nodes": "fail"}}
    DETAIL = {"fw-tp-nodes": ("16", "8 GPUs")}


class EngineKeys(unittest.TestCase):
    """probe.sh's _eng_keys on engine files: only the J9 keys leave the pod,
    each a plain number or name; everything else (a token, a path, another
    `backend:`) stays in it; past 256 KiB nothing but too_large."""

    def keys(self, text):
        with open(os.path.join(ROOT, "src", "probe", "probe.sh")) as f:
            sh = f.read()
        fn = sh[sh.index("_eng_keys() {"):]
        fn = fn[:fn.index("\n}\n") + 3]
        import subprocess
        r = subprocess.run(["sh", "-c", "bounded() { shift; \"$@\"; }\n" + fn + "_eng_keys"],
                           input=text.encode(), capture_output=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.decode().splitlines()

    def test_block_and_flow(self):
        got = self.keys("backend: pytorch\nmoe_config:\n  backend: DEEPGEMM\n"
                        "hf_token: hf_SECRETSECRET\nmax_input_len: 32768  # longest\n"
                        "cache_transceiver_config:\n  backend: NIXL\n  max_tokens_in_buffer: 8192\n"
                        "  nested:\n    max_input_len: 1\nspeculative_config: {backend: X, max_input_len: 2}\n")
        self.assertEqual(got, ["state=ok", "max_input_len=32768", "cache_transceiver_config.backend=NIXL",
                               "cache_transceiver_config.max_tokens_in_buffer=8192"])

    def test_json_and_bad_values(self):
        got = self.keys('{"cache_transceiver_config": {"backend": "UCX; rm -rf /", '
                        '"max_tokens_in_buffer": 4096}, "max_input_len": "$(id)", "api_key": "sk-123"}\n')
        self.assertEqual(got, ["state=ok", "bad=cache_transceiver_config.backend",
                               "cache_transceiver_config.max_tokens_in_buffer=4096", "bad=max_input_len"])
        self.assertNotIn("sk-123", "\n".join(got))

    def test_too_large(self):
        self.assertEqual(self.keys("max_input_len: 1\n" + "x" * 300000 + "\n"), ["state=too_large"])


class EngineVar(unittest.TestCase):
    """probe.sh's _eng_var: one $NAME / ${NAME} in the engine path taken
    from PID 1's environment as data (here a file in its place); anything
    else, or a value that is no plain path, gives nothing (unresolved)."""

    ENV = {"ENGINE_ARGS": "/opt/dynamo/configs/config-prefill.yaml", "DIR": "/engine_configs",
           "HF_TOKEN": "hf_SECRET", "EVIL": "$(id)", "SP": "/a b.yaml", "EMPTY": "",
           "ENGINE_ARGSX": "/wrong.yaml"}

    def var(self, word):
        import subprocess
        import tempfile
        with open(os.path.join(ROOT, "src", "probe", "probe.sh")) as f:
            sh = f.read()
        fn = sh[sh.index("_eng_var() {"):]
        fn = fn[:fn.index("\n}\n") + 3]
        with tempfile.NamedTemporaryFile("wb", delete=False) as t:
            t.write(b"".join(b"%s=%s\0" % (k.encode(), v.encode()) for k, v in self.ENV.items()))
        try:
            fn = fn.replace("/proc/1/environ", t.name)
            r = subprocess.run(["sh", "-c", "have() { command -v \"$1\" >/dev/null; }\n"
                                "bounded() { shift; \"$@\"; }\n" + fn + '_eng_var "$1"', "sh", word],
                               capture_output=True, timeout=30)
        finally:
            os.unlink(t.name)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.decode()

    def test_resolved(self):
        self.assertEqual(self.var("${ENGINE_ARGS}"), "/opt/dynamo/configs/config-prefill.yaml\n")
        self.assertEqual(self.var("$ENGINE_ARGS"), "/opt/dynamo/configs/config-prefill.yaml\n")
        self.assertEqual(self.var("$DIR/prefill.yaml"), "/engine_configs/prefill.yaml\n")
        self.assertEqual(self.var("${DIR}/decode.yaml"), "/engine_configs/decode.yaml\n")

    def test_unresolved(self):
        for w in ("${UNSET}", "${HF_TOKEN}", "${EVIL}", "${SP}", "${EMPTY}", "${DIR}$DIR",
                  "${ENGINE_ARGS:-/x.yaml}", "$(cat /etc/passwd)", "${DIR}/`id`", "${1}", "$",
                  "${DIR", "${DIR}/a;b", "\\${DIR}"):
            self.assertEqual(self.var(w), "", w)


if __name__ == "__main__":
    unittest.main()
