#!/usr/bin/python3
"""The engines' pair rules on running workers (issue 41, checks.md J5d,
J7b, J11, J12): `check` on scenarios carrying the flags of a public report,
each with the verdict written here (and in the scenario's header) before
the tool was run on it, and `env` on the same settings written as a
DynamoGraphDeployment, which must reach the same findings (one rule book,
model/engcfg.c through model/fwrules.c).

- eng-vllm-pdconnector-cross (ai-dynamo/dynamo#10027): prefill PdConnector
  (KVBM + NixlConnector with cross-layer blocks), decode a standalone
  NixlConnector with cross-layer blocks: the decode NOT READY on
  fw-pd-connector ("compatibility hash mismatch"), the prefill READY.
  eng-vllm-pdconnector-same (both on the PdConnector): both READY.
- eng-vllm-kv-events-port (vllm-project/vllm#25059): side channel 5557 and
  the kv-events publisher on 5557: both NOT READY on fw-vllm.
  eng-vllm-kv-events-port-apart (side channel 5600): both READY.
- eng-sglang-backend-mismatch: prefill --disaggregation-transfer-backend
  nixl, decode SGLang's default mooncake: the decode NOT READY on
  fw-pd-connector; the near miss is Dynamo's SGLang render (nixl on both).
- Dynamo's own renders (img-dynamo-vllm-ib, img-dynamo-sglang-ib, TP 8 on
  both sides, the same connector or backend): fw-pd-connector (and
  fw-pd-blocks, fw-pd-parallel) ok, READY.

- eng-sglang-swa-tp (sgl-project/sglang#38552, llm-d/llm-d#2433):
  gpt-oss-120b (sliding-window layers, no MLA) with prefill TP 4 and decode
  TP 2, its config.json read in the pod's Hugging Face cache (probe section
  model_config): the decode NOT READY on fw-pd-parallel (J7b). Near misses:
  eng-sglang-swa-tp-equal (the same model, TP 8 and 8) and
  eng-sglang-mla-tp (DeepSeek-V3, MLA, the same unequal TP): READY.
- eng-vllm-hybrid-blocks (vllm-project/vllm#42895): Qwen3-Next-80B-A3B
  (hybrid linear attention, its config.json in the pod's Hugging Face
  cache), vLLM prefill --block-size 32, decode 16, NixlConnector on both:
  the decode NOT READY on fw-pd-blocks (J12), fw-pd-connector ok.
  eng-vllm-hybrid-blocks-equal (16 and 16): both READY, fw-pd-blocks ok.
- eng-dynamo-vllm-connector (ai-dynamo/aiconfigurator PR #519, ai-dynamo/
  dynamo PR #6513): Dynamo's vLLM workers with `--connector nixl` on a
  Dynamo whose ai_dynamo wheel is 1.0.0: both NOT READY on fw-vllm (J5e),
  a fault only the probe's dist-info shows (`env` has no version: live
  only); each pod's JSON `engines` names the two wheels.
  eng-dynamo-vllm-kvcfg (the same wheels, --kv-transfer-config): READY.
- eng-dynamo-vllm-connector-lmcache (Dynamo 0.9.1's wrapper): prefill
  --connector nixl, decode --connector lmcache: the decode NOT READY on
  fw-pd-connector (J11 reads the wrapper's flag as the connector it builds).
  eng-dynamo-vllm-connector-kvbm (kvbm nixl against nixl): READY.
- eng-vllm-hostnet-side-channel (ray-project/ray PR #60817): Dynamo's vLLM
  workers on hostNetwork: true, VLLM_NIXL_SIDE_CHANNEL_HOST unset: fw-vllm
  warn on both (READY; live only: a recipe's hostNetwork is not read).
  eng-vllm-hostnet-side-channel-podip (status.podIP): fw-vllm ok.
- eng-vllm-hostnet-hostname (ai-dynamo/dynamo PRs #1878, #2108, #6539):
  the same workers on a Dynamo without PR #6539, the node's /etc/hosts
  mapping the prefill's hostname to 127.0.1.1 and lacking the decode's:
  both NOT READY on fw-vllm (J5f: the silent 127.0.0.1 fallback; live
  only). Near misses: eng-vllm-hostname-podnet (the pod network: the
  kubelet's /etc/hosts gives the pod IP): READY, fw-vllm ok;
  eng-vllm-hostnet-hostname-detect (PR #6539's code): READY, fw-vllm warn
  on hostNetwork only.

Environment: DI_PLUGIN (the binary; default ./kubectl-dynamo_interconnect).
"""
import json
import os
import unittest

from base import ROOT, E2ECase
import test_framework_live as fl

# env's JSON findings carry no check name: each check is known by words
# only its details use.
MARK = dict(fl.MARK)
MARK.update({
    "fw-pd-connector": ("kv_connector", "cross-layer KV blocks", "NIXL backends", "NIXL transfer mode",
                        "--disaggregation-transfer-backend:"),
    "fw-pd-blocks": ("block size",),
})


class Live(fl.Live):
    TMP = "englive-"
    MARK = MARK


class PdConnectorCross(Live, E2ECase):
    SCENARIO = os.path.join(fl.SCENARIOS, "eng-vllm-pdconnector-cross.yaml")
    VERDICT = {"prefill": "READY", "decode": "NOT READY"}
    FW = {"decode": {"fw-pd-connector": "fail", "fw-pd-blocks": "ok", "fw-vllm": "ok"}}
    DETAIL = {"fw-pd-connector": ("compatibility hash mismatch", "PdConnector", "NixlConnector")}


class PdConnectorSame(Live, E2ECase):
    SCENARIO = os.path.join(fl.SCENARIOS, "eng-vllm-pdconnector-same.yaml")
    VERDICT = {"prefill": "READY", "decode": "READY"}
    FW = {"decode": {"fw-pd-connector": "ok", "fw-pd-blocks": "ok"}}


class KvEventsPort(Live, E2ECase):
    SCENARIO = os.path.join(fl.SCENARIOS, "eng-vllm-kv-events-port.yaml")
    VERDICT = {"prefill": "NOT READY", "decode": "NOT READY"}
    FW = {"prefill": {"fw-vllm": "fail"}, "decode": {"fw-vllm": "fail", "fw-pd-connector": "ok"}}
    DETAIL = {"fw-vllm": ("VLLM_NIXL_SIDE_CHANNEL_PORT 5557", "5557-5564", "5557-5557")}


class KvEventsPortApart(Live, E2ECase):
    SCENARIO = os.path.join(fl.SCENARIOS, "eng-vllm-kv-events-port-apart.yaml")
    VERDICT = {"prefill": "READY", "decode": "READY"}
    FW = {"prefill": {"fw-vllm": "ok"}, "decode": {"fw-vllm": "ok"}}


class SglangBackendMismatch(Live, E2ECase):
    SCENARIO = os.path.join(fl.SCENARIOS, "eng-sglang-backend-mismatch.yaml")
    VERDICT = {"prefill": "READY", "decode": "NOT READY"}
    FW = {"decode": {"fw-pd-connector": "fail", "fw-pd-parallel": "ok"}}
    DETAIL = {"fw-pd-connector": ("prefill nixl, decode mooncake",)}


class SglangSwaUnequalTp(Live, E2ECase):
    SCENARIO = os.path.join(fl.SCENARIOS, "eng-sglang-swa-tp.yaml")
    VERDICT = {"prefill": "READY", "decode": "NOT READY"}
    NEEDS_MODEL = ("fw-pd-parallel",)
    FW = {"decode": {"fw-pd-parallel": "fail", "fw-sglang": "ok"}}


class SglangSwaEqualTp(Live, E2ECase):
    SCENARIO = os.path.join(fl.SCENARIOS, "eng-sglang-swa-tp-equal.yaml")
    VERDICT = {"prefill": "READY", "decode": "READY"}
    FW = {"decode": {"fw-pd-parallel": "ok"}}


class SglangMlaUnequalTp(Live, E2ECase):
    SCENARIO = os.path.join(fl.SCENARIOS, "eng-sglang-mla-tp.yaml")
    VERDICT = {"prefill": "READY", "decode": "READY"}
    FW = {"decode": {"fw-pd-parallel": "ok"}}


class VllmHybridBlocks(Live, E2ECase):
    SCENARIO = os.path.join(fl.SCENARIOS, "eng-vllm-hybrid-blocks.yaml")
    VERDICT = {"prefill": "READY", "decode": "NOT READY"}
    NEEDS_MODEL = ("fw-pd-blocks",)
    FW = {"decode": {"fw-pd-blocks": "fail", "fw-pd-connector": "ok"}}
    DETAIL = {"fw-pd-blocks": ("qwen3_next", "prefill 32, decode 16", "handshake_setup_failed")}


class VllmHybridBlocksEqual(Live, E2ECase):
    SCENARIO = os.path.join(fl.SCENARIOS, "eng-vllm-hybrid-blocks-equal.yaml")
    VERDICT = {"prefill": "READY", "decode": "READY"}
    FW = {"decode": {"fw-pd-blocks": "ok", "fw-pd-connector": "ok"}}


def engines_json(case):
    """Each pod's JSON `engines`: the two wheels the scenario installs,
    valid against the report's schema."""
    import jsonschema
    for role, p in case.pods().items():
        case.assertEqual(p.get("engines"), {"ai_dynamo": "1.0.0", "ai_dynamo_runtime": "1.0.0"}, role)
    with open(os.path.join(ROOT, "schema", "interconnect-report.schema.json")) as f:
        jsonschema.Draft202012Validator(json.load(f)).validate(case.doc)


class DynamoVllmConnector(fl.LiveOnly, E2ECase):
    TMP = "englive-"
    SCENARIO = os.path.join(fl.SCENARIOS, "eng-dynamo-vllm-connector.yaml")
    LIVE_ONLY = "fw-vllm"
    VERDICT = {"prefill": "NOT READY", "decode": "NOT READY"}
    FW = {"prefill": {"fw-vllm": "fail"}, "decode": {"fw-vllm": "fail"}}
    DETAIL = {"fw-vllm": ("--connector nixl", "Dynamo 1.0.0", "ValueError")}

    test_engines_json = engines_json


class DynamoVllmKvConfig(Live, E2ECase):
    SCENARIO = os.path.join(fl.SCENARIOS, "eng-dynamo-vllm-kvcfg.yaml")
    VERDICT = {"prefill": "READY", "decode": "READY"}
    FW = {"prefill": {"fw-vllm": "ok"}, "decode": {"fw-vllm": "ok", "fw-pd-connector": "ok"}}

    test_engines_json = engines_json


class WrapperConnectorLmcache(Live, E2ECase):
    SCENARIO = os.path.join(fl.SCENARIOS, "eng-dynamo-vllm-connector-lmcache.yaml")
    VERDICT = {"prefill": "READY", "decode": "NOT READY"}
    FW = {"decode": {"fw-pd-connector": "fail"}}
    DETAIL = {"fw-pd-connector": ("prefill NixlConnector", "decode LMCacheConnectorV1")}


class WrapperConnectorKvbm(Live, E2ECase):
    SCENARIO = os.path.join(fl.SCENARIOS, "eng-dynamo-vllm-connector-kvbm.yaml")
    VERDICT = {"prefill": "READY", "decode": "READY"}
    FW = {"decode": {"fw-pd-connector": "ok"}}


class HostNetSideChannel(fl.LiveOnly, E2ECase):
    TMP = "englive-"
    SCENARIO = os.path.join(fl.SCENARIOS, "eng-vllm-hostnet-side-channel.yaml")
    LIVE_ONLY = "fw-vllm"     # a recipe's hostNetwork is not read
    VERDICT = {"prefill": "READY", "decode": "READY"}
    FW = {"prefill": {"fw-vllm": "warn"}, "decode": {"fw-vllm": "warn"}}
    DETAIL = {"fw-vllm": ("hostNetwork: true", "VLLM_NIXL_SIDE_CHANNEL_HOST unset")}


class HostNetSideChannelPodIP(Live, E2ECase):
    SCENARIO = os.path.join(fl.SCENARIOS, "eng-vllm-hostnet-side-channel-podip.yaml")
    VERDICT = {"prefill": "READY", "decode": "READY"}
    FW = {"prefill": {"fw-vllm": "ok"}, "decode": {"fw-vllm": "ok"}}


class HostNetHostname(fl.LiveOnly, E2ECase):
    TMP = "englive-"
    SCENARIO = os.path.join(fl.SCENARIOS, "eng-vllm-hostnet-hostname.yaml")
    LIVE_ONLY = "fw-vllm"     # a recipe has no resolver
    VERDICT = {"prefill": "NOT READY", "decode": "NOT READY"}
    FW = {"prefill": {"fw-vllm": "fail"}, "decode": {"fw-vllm": "fail"}}

    def test_hostname_named(self):
        pods = self.pods()
        detail = {role: next(c["detail"] for c in p["checks"] if c["name"] == "fw-vllm")
                  for role, p in pods.items()}
        self.assertIn("resolves only to 127.0.1.1", detail["prefill"])
        self.assertIn("does not resolve", detail["decode"])
        for d in detail.values():
            self.assertIn("127.0.0.1", d)
            self.assertNotIn("vllmprefillworker", d)    # the hostname never shown
            self.assertNotIn("vllmdecodeworker", d)


class HostnamePodNet(Live, E2ECase):
    SCENARIO = os.path.join(fl.SCENARIOS, "eng-vllm-hostname-podnet.yaml")
    VERDICT = {"prefill": "READY", "decode": "READY"}
    FW = {"prefill": {"fw-vllm": "ok"}, "decode": {"fw-vllm": "ok"}}


class HostNetHostnameDetect(HostNetSideChannel):
    """PR #6539's code: the unresolved hostname is no finding, J5's
    hostNetwork warning stands, exactly as in HostNetSideChannel."""
    SCENARIO = os.path.join(fl.SCENARIOS, "eng-vllm-hostnet-hostname-detect.yaml")


class DynamoSglang(Live, E2ECase):
    SCENARIO = os.path.join(fl.SCENARIOS, "img-dynamo-sglang-ib.yaml")
    VERDICT = {"prefill": "READY", "decode": "READY"}
    FW = {"decode": {"fw-pd-connector": "ok", "fw-pd-parallel": "ok"}}


class DynamoVllm(Live, E2ECase):
    SCENARIO = os.path.join(fl.SCENARIOS, "img-dynamo-vllm-ib.yaml")
    VERDICT = {"prefill": "READY", "decode": "READY"}
    FW = {"decode": {"fw-pd-connector": "ok", "fw-pd-blocks": "ok"}}


if __name__ == "__main__":
    unittest.main()
