#!/usr/bin/python3
"""The broken scenarios: one healthy pair of HGX H100 InfiniBand workers
(TEMPLATE: a prefill and a decode, both profile h100-ib-ok) and a table of
what differs in the decode, each row with the outcome `check` must give,
written once, here.  tests/e2e/test_check.py makes one test class per row
and asserts that outcome; nothing else is written down twice.

    broken.py DIR           writes DIR/broken-NAME.yaml for every row
                            (loadable by `fakecluster --scenario`; the
                            profiles are named by absolute path)
    broken.py --list        the row names

A row: NAME, the decode's profile (../profiles/PROFILE/SOURCE.md says what
machine it is), what else differs in the decode's spec (rdma: no rdma/ib
request, ipc_lock: no IPC_LOCK capability), and the expected outcome:
verdict, the check that fails and is fixed first, the checks that fail
because of it, and what particular checks of the broken (and the healthy)
pod must say.
"""
import copy
import os
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
PROFILES = os.path.join(os.path.dirname(HERE), "profiles")


def labels(role, component):
    """The labels of a worker, in the order the API serves them."""
    return {"nvidia.com/dynamo-component-type": role, "nvidia.com/dynamo-graph-deployment-name": "qwen",
            "nvidia.com/dynamo-component": component, "nvidia.com/dynamo-namespace": "qwen"}


TEMPLATE = {
    "namespace": "demo",
    "pods": [
        {"name": "qwen-prefill-0", "node": "gpu-h100-01", "profile": "h100-ib-ok",
         "labels": labels("prefill", "VllmPrefillWorker")},
        {"name": "qwen-decode-0", "node": "gpu-h100-02", "profile": "h100-ib-ok",
         "labels": labels("decode", "VllmDecodeWorker")},
    ],
}
IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1"


def worker_spec(rdma=True, ipc_lock=True):
    """The pod spec of a worker: 8 GPUs, 8 IB rails (rdma/ib), IPC_LOCK, an
    80 GiB memory emptyDir on /dev/shm."""
    res = {"nvidia.com/gpu": 8, "rdma/ib": 8} if rdma else {"nvidia.com/gpu": 8}
    c = {"name": "main", "resources": {"limits": dict(res), "requests": dict(res)}}
    if ipc_lock:
        c["securityContext"] = {"capabilities": {"add": ["IPC_LOCK"]}}
    c["volumeMounts"] = [{"name": "shared-memory", "mountPath": "/dev/shm"}]
    return {"containers": [c],
            "volumes": [{"name": "shared-memory", "emptyDir": {"medium": "Memory", "sizeLimit": "80Gi"}}]}


class Row:
    """One broken scenario and its expected outcome."""

    def __init__(self, name, why, check=None, consequences=(), verdict="NOT READY", rdma=True,
                 ipc_lock=True, broken=None, healthy=None, decode_labels=None):
        self.name = name                    # the decode's profile, and the scenario's name
        self.why = why                      # what is broken, in words
        self.rdma = rdma
        self.ipc_lock = ipc_lock
        self.verdict = verdict              # of the whole report and of the broken pod
        self.check = check                  # fails on the broken pod, fixed first
        self.consequences = set(consequences)   # fail too, because of it
        self.broken = broken or {}          # check -> {field: value, or [substrings] of detail/remedy}
        self.healthy = healthy or {}        # the same, on the healthy prefill
        self.decode_labels = decode_labels or {}   # added to the decode's labels

    def scenario(self):
        sc = copy.deepcopy(TEMPLATE)
        for p in sc["pods"]:
            p["containers"] = [{"name": "main", "image": IMAGE}]
            p["spec"] = worker_spec()
        decode = sc["pods"][1]
        decode["profile"] = self.name
        decode["spec"] = worker_spec(self.rdma, self.ipc_lock)
        decode["labels"] = dict(decode["labels"], **self.decode_labels)
        for p in sc["pods"]:
            p["profile"] = os.path.join(PROFILES, p["profile"])
        return sc

    def write(self, d):
        path = os.path.join(d, "broken-%s.yaml" % self.name)
        with open(path, "w") as f:
            f.write("# %s: %s\n# Expected: %s%s (tests/cluster/scenarios/broken.py)\n" % (
                self.name, self.why, self.verdict, ", fix first: " + self.check if self.check else ""))
            yaml.safe_dump(self.scenario(), f, default_flow_style=None, sort_keys=False, width=200)
        return path


TABLE = [
    Row("ib-no-uverbs", "no /dev/infiniband/uverbs* in the decode (the RDMA device plugin gave none)",
        "rdma-devices", {"rdma-verbs", "ucx-rdma"},
        # the pod asks for rdma/ib, so the device plugin is what failed
        broken={"rdma-devices": {"remedy": ["device plugin"]}}),
    Row("ib-no-rdma-resource", "the decode requests no rdma/ib: no HCA in the pod, 8 on the node's PCI bus",
        "rdma-devices", {"rdma-pci", "pod-rdma-resource"}, rdma=False,
        broken={"rdma-pci": {"detail": ["8 InfiniBand", "RDMA resource is missing"], "remedy": ["rdma/ib"]}},
        healthy={"rdma-pci": {"status": "skipped", "applicable": False}}),
    Row("ib-port-down", "one of the decode's 8 IB ports is Down (Polling)", "rdma-ports",
        broken={"rdma-ports": {"detail": ["mlx5_4 port 1 Down (Polling)"]},
                "env-ucx-net-devices": {"status": "warn"}}),
    Row("no-peermem", "nvidia_peermem not loaded on the decode's node", "gpudirect-peermem",
        {"gpudirect-ucx-md"}),
    Row("ucx-no-cuda", "the decode's UCX is built without CUDA", "ucx-cuda"),
    Row("ucx-tls-tcp", "the decode runs with UCX_TLS=tcp", "env-ucx-tls",
        broken={"env-ucx-tls": {"detail": ["UCX_TLS=tcp"]}}),
    Row("memlock-64k", "the decode's memlock limit is 64 KiB and it does not add IPC_LOCK",
        "limits-memlock", {"ucx-rdma"}, ipc_lock=False,
        broken={"limits-memlock": {"detail": ["64 KiB"]}, "pod-ipc-lock": {"status": "warn"}}),
    Row("nixl-no-ucx-plugin", "the decode's NIXL has no UCX backend plugin", "nixl-plugin"),
    # A worker over 2 nodes (a LeaderWorkerSet group of 2): its TP/EP
    # collectives cross nodes, where NCCL_IB_DISABLE=1 sends them over
    # sockets.  On a one-pod worker NCCL never leaves the node and the
    # setting is harmless (issue 38; the row was a one-pod worker before).
    Row("nccl-ib-disable", "the decode, a 2-node worker, runs with NCCL_IB_DISABLE=1", "env-nccl-net",
        decode_labels={"leaderworkerset.sigs.k8s.io/size": "2"}),
    Row("tools-missing", "a slim decode image without the diagnostic tools: their checks are "
        "skipped, never ok", verdict="UNVERIFIED"),
]
ROWS = {r.name: r for r in TABLE}


def main(argv):
    if argv == ["--list"]:
        print("\n".join(r.name for r in TABLE))
        return 0
    if len(argv) != 1 or argv[0].startswith("-"):
        sys.stderr.write("usage: broken.py DIR | --list\n")
        return 2
    os.makedirs(argv[0], exist_ok=True)
    for r in TABLE:
        print(r.write(argv[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
