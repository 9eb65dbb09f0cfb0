#!/usr/bin/python3
"""Writes the obs-kv-*.yaml scenarios (issue 45 point 1, docs/checks.md
O7-O10; tests/e2e/test_observe_metrics.py) from obs-healthy.yaml (rails
that move) and obs-idle.yaml (rails that do not): each pod names NIXL's
Prometheus exporter (port 19090) and Dynamo's system port (9090) in its
spec's env and serves real metric text there (metrics/*.prom, the series
NIXL's exporter and vLLM write) behind the pod proxy (fc_metrics.py).
The decode pulls KV (vLLM's NIXL connector reads from the prefill), so
its series move; the prefill computes prompts.  Run from this directory:
/usr/bin/python3 gen_obs_kv.py"""
import copy

import yaml

ENV = [{"name": "NIXL_TELEMETRY_ENABLE", "value": "y"},
       {"name": "NIXL_TELEMETRY_EXPORTER", "value": "prometheus"},
       {"name": "NIXL_TELEMETRY_PROMETHEUS_PORT", "value": "19090"},
       {"name": "DYN_SYSTEM_ENABLED", "value": "true"},
       {"name": "DYN_SYSTEM_PORT", "value": "9090"}]
LBL = '{engine="0",model_name="Qwen/Qwen3-32B",source="%s"}'
PULLED = "vllm:prompt_tokens_by_source_total" + LBL % "external_kv_transfer"
COMPUTED = "vllm:prompt_tokens_by_source_total" + LBL % "local_compute"
GIB = 1 << 30
NIXL_BUSY = {"agent_rx_bytes_total": 4 * GIB, "agent_tx_bytes_total": 4096}
VLLM_BUSY = {"vllm:nixl_bytes_transferred_sum": 4 * GIB, PULLED: 65536, COMPUTED: 32}
PREFILL = {COMPUTED: 65536}
HUNG = {"19090": {"hang": True}, "9090": {"hang": True}}
HEAD = """# %s
# check --observe with the workers' KV metrics (issue 45 point 1, docs/checks.md
# O7-O10; tests/e2e/test_observe_metrics.py), written by gen_obs_kv.py: prefill +
# decode as in obs-healthy.yaml or obs-idle.yaml, each serving NIXL telemetry on
# 19090 and Dynamo's system port (vllm: series) on 9090 behind the pod proxy
# (tests/cluster/fc_metrics.py: a series advances by per_read between two reads).
"""


def metrics(nixl, vllm, text="vllm-decode.prom"):
    return {"19090": {"text": "metrics/nixl-agent.prom", "per_read": nixl},
            "9090": {"text": "metrics/" + text, "per_read": vllm}}


def pods(base, decode, prefill=None):
    out = []
    for p in base["pods"]:
        p = copy.deepcopy(p)
        p["spec"]["containers"][0]["env"] = ENV
        is_decode = p["name"].startswith("qwen-decode")
        p["metrics"] = decode if is_decode else (prefill or metrics({}, PREFILL, "vllm-prefill.prom"))
        out.append(p)
    return out


def write(name, comment, doc):
    with open(name, "w") as f:
        f.write(HEAD % name)
        f.write("".join("# %s\n" % line for line in comment.strip().splitlines()))
        yaml.safe_dump(doc, f, sort_keys=False, width=200)


def main():
    healthy = yaml.safe_load(open("obs-healthy.yaml"))
    idle = yaml.safe_load(open("obs-idle.yaml"))
    write("obs-kv-healthy.yaml", """Healthy: the decode pulls KV (NIXL 4 GiB, 65536 prompt tokens a read) and the
rails move; the decode's old failed-transfer count (5) and both pods' NIXL
error count (2) do not rise: O7, O8, O10 ok on the decode, O9 ok; the prefill
moved nothing by its own counters (no KV traffic, O9 not applicable). READY.""",
          {"namespace": "demo", "pods": pods(healthy, metrics(NIXL_BUSY, VLLM_BUSY))})
    write("obs-kv-no-rdma.yaml", """aws-samples/aws-do-eks PR #66: the decode pulls KV (NIXL bytes, pulled tokens)
but no RDMA port moves a byte: observed-kv-on-rdma fails on it, NOT READY.""",
          {"namespace": "demo", "pods": pods(idle, metrics(NIXL_BUSY, VLLM_BUSY))})
    write("obs-kv-failed.yaml", """vllm-project/vllm#52234: the decode's vllm:nixl_num_failed_transfers_total
rises by 3 between the reads: observed-kv-failed-transfers fails, NOT READY.""",
          {"namespace": "demo", "pods": pods(healthy, metrics(NIXL_BUSY, dict(
              VLLM_BUSY, **{"vllm:nixl_num_failed_transfers_total": 3})))})
    write("obs-kv-recompute.yaml", """The decode computes 8192 prompt tokens itself and pulls none (no NIXL byte):
observed-kv-recompute warns on the decode, still READY.""",
          {"namespace": "demo", "pods": pods(healthy, metrics({}, {COMPUTED: 8192}))})
    write("obs-kv-nixl-errors.yaml", """The decode's NIXL agent_errors_total rises by 7 between the reads (remote
disconnects): observed-nixl-errors fails, NOT READY.""",
          {"namespace": "demo", "pods": pods(healthy, metrics(dict(NIXL_BUSY, agent_errors_total=7),
                                                              VLLM_BUSY))})
    write("obs-kv-idle.yaml", """Idle: no series moves, no rail moves: "no KV traffic in the window", the
verdict is the one without --observe (READY).""",
          {"namespace": "demo", "pods": pods(idle, metrics({}, {}), metrics({}, {}, "vllm-prefill.prom"))})
    write("obs-kv-unread.yaml", """Metrics that cannot be judged: the prefill's NIXL port answers an HTML error
page (not the format: skipped, "not the Prometheus text format"); the decode's
Dynamo port 9090 is named but nothing listens (the API server's 503: skipped).
Never ok; the verdict is the one without --observe (READY).""",
          {"namespace": "demo", "pods": pods(healthy, {"19090": {"text": "metrics/nixl-agent.prom"}},
                                             {"19090": {"text": "metrics/garbage.prom"},
                                              "9090": {"text": "metrics/vllm-prefill.prom"}})})
    write("obs-kv-forbidden.yaml", """RBAC without get on pods/proxy: every KV row skipped with "no get on
pods/proxy", never a failure; the verdict is the one without --observe (READY).""",
          {"namespace": "demo", "users": [{"name": "viewer", "token": "viewer-token",
                                           "allow": ["list-pods", "get-pods", "exec", "logs", "list-namespaces"]}],
           "pods": pods(healthy, metrics(NIXL_BUSY, VLLM_BUSY))})
    hung = pods(healthy, HUNG, HUNG)
    for i, p in enumerate(copy.deepcopy(hung)):
        p["name"], p["node"] = p["name"][:-1] + "1", "gpu-h100-%02d" % (i + 3)
        hung.append(p)
    write("obs-kv-hung.yaml", """Four workers (two prefill, two decode) whose metrics ports accept and never
answer (fc_metrics.py `hang`): each read ends at the client's pod-proxy
timeout, every KV row skipped "could not be read", the verdict the one
without --observe (READY).  The reads go out in parallel (up to --parallel at
once): the server logs how many it held at once.""",
          {"namespace": "demo", "pods": hung})


if __name__ == "__main__":
    main()
