#!/usr/bin/python3
"""Issue 17 items 4 and 5 end to end, through the test cluster and -o json.

- One env rule book: a running decode worker with NCCL_SHM_DISABLE=1,
  UCX_PROTO_ENABLE=n and NCCL_CUMEM_ENABLE=0 (scenario env-rules-live.yaml)
  gets the findings `env` gives a recipe with the same variables, with the
  same severity; its healthy prefill gets none.
- DRA claims that are really NICs (scenario dra-claims.yaml, served by
  tests/cluster/fc_dra.py): a GPU-only claim fails pod-rdma-resource, a
  DraNet or SR-IOV claim passes it, an unreadable claim (forbidden, API
  absent) is a skip with the reason; v1beta1-only servers are read too.
- Issue 38 point c: SGLang pods whose KV backend is only in their --config
  YAML (fw-sglang-tp-mismatch with `--config FILE` instead of the mode and
  backend flags, UCX_TLS=tcp,cuda_copy in their env): Mooncake there keeps
  every UCX rule off (env-ucx-tls not failed); the near miss, NIXL in the
  file, fails env-ucx-tls (UCX carries KV between nodes with no RDMA
  transport).  Expectations written before the tool was run on them.
"""
import json
import os
import tempfile
import unittest

import yaml

from base import ROOT, E2ECase, check_json
from plugin import run

SCENARIOS = os.path.join(ROOT, "tests", "cluster", "scenarios")
DANGER = {"NCCL_SHM_DISABLE": ("1", "env-nccl-shm"), "UCX_PROTO_ENABLE": ("n", "env-ucx-proto"),
          "NCCL_CUMEM_ENABLE": ("0", "env-nccl-cumem")}


def check_doc(cluster, *extra):
    rc, out, err = check_json(cluster, "-n", "demo", *extra)
    return rc, json.loads(out), err


def find(doc, pod, name):
    for p in doc["pods"]:
        if p["name"] == pod:
            for c in p["checks"]:
                if c["name"] == name:
                    return c
    raise AssertionError("no %s on %s" % (name, pod))


class TestLiveEnvRules(E2ECase):
    SCENARIO = "env-rules-live.yaml"
    CHECK = ["-n", "demo"]

    def test_live_pod_flagged(self):
        for var, (value, name) in DANGER.items():
            c = find(self.doc, "qwen-decode-0", name)
            self.assertEqual(c["status"], "warn", c)
            self.assertIn("%s=%s" % (var, value), c["detail"])
            self.assertEqual(c["family"], "ENV")
            self.assertTrue(c["remedy"])
            self.assertEqual(find(self.doc, "qwen-prefill-0", name)["status"], "ok")

    def test_same_as_env_on_a_recipe(self):
        # The recipe twin of the decode pod: the same variables, the same
        # fabric (rdma/ib), disaggregated.
        env = [{"name": k, "value": v} for k, (v, _) in DANGER.items()]
        dgd = {"apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment",
               "metadata": {"name": "qwen"},
               "spec": {"services": {
                   "prefill": {"componentType": "worker", "subComponentType": "prefill",
                               "resources": {"limits": {"gpu": "8", "custom": {"rdma/ib": "8"}}}},
                   "decode": {"componentType": "worker", "subComponentType": "decode",
                              "resources": {"limits": {"gpu": "8", "custom": {"rdma/ib": "8"}}},
                              "extraPodSpec": {"mainContainer": {"env": env}}}}}}
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "deploy.yaml")
            with open(path, "w") as f:
                yaml.safe_dump(dgd, f)
            rc, out, err = run(["env", path, "-o", "json"])
        doc = json.loads(out)
        decode = [c for c in doc["components"] if c["role"] == "decode"][0]
        for var, (value, name) in DANGER.items():
            recipe = [x for x in decode["findings"] if x["detail"].startswith("%s=%s " % (var, value))]
            self.assertEqual(len(recipe), 1, decode["findings"])
            live = find(self.doc, "qwen-decode-0", name)
            self.assertEqual(recipe[0]["status"], live["status"])
            self.assertIn(recipe[0]["detail"], live["detail"])
            self.assertEqual(recipe[0]["remedy"], live["remedy"])


class DraCase:  # mixin of an E2ECase
    SCENARIO_EDIT = None   # fn(dict) -> None, on a copy of dra-claims.yaml
    TMP = "dra-"
    CHECK = ["-n", "demo"]

    @classmethod
    def scenario(cls):
        with open(os.path.join(SCENARIOS, "dra-claims.yaml")) as f:
            sc = yaml.safe_load(f)
        for p in sc["pods"]:
            p["profile"] = os.path.normpath(os.path.join(SCENARIOS, p["profile"]))
        if cls.SCENARIO_EDIT:
            cls.SCENARIO_EDIT(sc)
        return cls.write_scenario(sc)

    def claim_gets(self):
        return [r for r in self.c.log() if "/resourceclaims/" in r["path"]]

    def test_get_only(self):
        self.assertTrue(self.claim_gets())
        self.assertEqual({r["method"] for r in self.c.log()}, {"GET"})


class TestDraClaims(DraCase, E2ECase):
    def test_gpu_only_claim_fails(self):
        c = find(self.doc, "dra-gpu-0", "pod-rdma-resource")
        self.assertEqual(c["status"], "fail", c)
        self.assertIn("no NIC (gpu.nvidia.com)", c["detail"])
        self.assertIn("NIC", c["remedy"])

    def test_nic_claims_pass(self):
        c = find(self.doc, "dra-nic-0", "pod-rdma-resource")
        self.assertEqual(c["status"], "ok", c)
        self.assertIn("dra.net/pci-0000-8a-00-0", c["detail"])   # from a template's claim
        self.assertNotIn("gpu-0", c["detail"])
        c = find(self.doc, "dra-mixed-0", "pod-rdma-resource")
        self.assertEqual(c["status"], "ok", c)
        self.assertIn("sriovnetwork.k8snetworkplumbingwg.io/0000-08-00-3", c["detail"])

    def test_v1_first(self):
        paths = [r["path"] for r in self.claim_gets()]
        self.assertTrue(all("/resource.k8s.io/v1/" in p for p in paths), paths)
        # One GET per claim the containers use.
        self.assertEqual(len(paths), 4, paths)


class TestDraForbidden(DraCase, E2ECase):
    CHECK = DraCase.CHECK + ["--context", "fakecluster-viewer"]

    def test_unknown_not_pass_not_fail(self):
        for pod in ("dra-gpu-0", "dra-nic-0", "dra-mixed-0"):
            c = find(self.doc, pod, "pod-rdma-resource")
            self.assertEqual(c["status"], "skipped", c)
            self.assertIn("forbidden", c["detail"])
            self.assertIn("resourceclaims", c["remedy"])
        # The first 403 tells for the namespace: no more GETs there.
        self.assertEqual([r["status"] for r in self.claim_gets()], [403])


def only_v1beta1(sc):
    sc["resourceApi"] = ["v1beta1"]


def no_resource_api(sc):
    sc["resourceApi"] = []


class TestDraV1beta1(DraCase, E2ECase):
    SCENARIO_EDIT = only_v1beta1

    def test_fallback(self):
        self.assertEqual(find(self.doc, "dra-nic-0", "pod-rdma-resource")["status"], "ok")
        self.assertEqual(find(self.doc, "dra-gpu-0", "pod-rdma-resource")["status"], "fail")
        paths = [r["path"] for r in self.claim_gets()]
        self.assertIn("/resource.k8s.io/v1beta1/", paths[-1])
        # v1 is asked once; once v1beta1 answers, only v1beta1.
        self.assertEqual(sum("/resource.k8s.io/v1/" in p for p in paths), 1, paths)


class TestDraApiAbsent(DraCase, E2ECase):
    SCENARIO_EDIT = no_resource_api

    def test_unknown(self):
        c = find(self.doc, "dra-gpu-0", "pod-rdma-resource")
        self.assertEqual(c["status"], "skipped", c)
        self.assertIn("serves no resource.k8s.io", c["detail"])
        # Two GETs (v1, v1beta1) tell the group is absent; no more.
        self.assertEqual(len(self.claim_gets()), 2)


class TestDraList(E2ECase):
    """Many claims in a namespace (12 workers, canned probe output): one
    paged LIST instead of a GET per claim; a user without list falls back
    to the GETs and judges the same."""
    N = 12
    TMP = "dra-list-"
    LATENCY = 1

    @classmethod
    def scenario(cls):
        canned = os.path.join(ROOT, "tests", "cluster", "profiles", "canned")
        sc = {"namespace": "demo", "resourceClaims": [], "pods": [],
              "users": [{"name": "getter", "token": "getter-token",
                         "allow": ["list-pods", "get-pods", "exec", "logs", "get-resourceclaims"]}]}
        for i in range(cls.N):
            nic = i % 2
            sc["pods"].append({
                "name": "w-%02d" % i, "node": "n%d" % i, "profile": canned,
                "labels": {"nvidia.com/dynamo-component-type": "decode",
                           "nvidia.com/dynamo-graph-deployment-name": "g"},
                "spec": {"resourceClaims": [{"name": "d", "resourceClaimName": "w-%02d-d" % i}],
                         "containers": [{"name": "main", "resources": {"claims": [{"name": "d"}]}}]}})
            sc["resourceClaims"].append({
                "name": "w-%02d-d" % i,
                "requests": [{"name": "r", "deviceClassName": "dranet" if nic else "gpu.nvidia.com"}],
                "results": [{"request": "r", "driver": "dra.net" if nic else "gpu.nvidia.com",
                             "pool": "n%d" % i, "device": "eth1" if nic else "gpu-0"}]})
        return cls.write_scenario(sc)

    @classmethod
    def fixture(cls):
        rc, cls.admin, err = check_doc(cls.c, "--logs=false")
        cls.admin_log = cls.claim_requests()
        rc, cls.getter, err = check_doc(cls.c, "--logs=false", "--context", "fakecluster-getter")
        cls.getter_log = cls.claim_requests()[len(cls.admin_log):]

    @classmethod
    def claim_requests(cls):
        return [r for r in cls.c.log() if "/resourceclaims" in r["path"]]

    def judged(self, doc):
        return {p["name"]: "DRA claim allocates NICs" in find(doc, p["name"], "pod-rdma-resource")["detail"]
                for p in doc["pods"]}

    def test_one_list(self):
        self.assertEqual([(r["path"], r["status"]) for r in self.admin_log],
                         [("/apis/resource.k8s.io/v1/namespaces/demo/resourceclaims", 200)])
        self.assertEqual(self.judged(self.admin), {"w-%02d" % i: bool(i % 2) for i in range(self.N)})

    def test_list_forbidden_gets_follow(self):
        self.assertEqual(self.getter_log[0]["status"], 403)
        gets = [r for r in self.getter_log[1:] if r["path"].count("/") == 7]
        self.assertEqual(len(gets), self.N)
        self.assertEqual(self.judged(self.getter), self.judged(self.admin))


if __name__ == "__main__":
    unittest.main()


def sglang_config_scenario(backend):
    """fw-sglang-tp-mismatch with each worker's mode and backend moved into
    its --config file (scenarios/files/sglang-config-BACKEND-ROLE.yaml)."""
    with open(os.path.join(SCENARIOS, "fw-sglang-tp-mismatch.yaml")) as f:
        sc = yaml.safe_load(f)
    for p in sc["pods"]:
        p["profile"] = os.path.normpath(os.path.join(SCENARIOS, p["profile"]))
        role = p["env"]["DYN_COMPONENT"]
        path = "/etc/sgl/%s.yaml" % role
        p["files"] = {path: os.path.join(SCENARIOS, "files", "sglang-config-%s-%s.yaml" % (backend, role))}
        p["env"]["UCX_TLS"] = "tcp,cuda_copy"
        c = p["spec"]["containers"][0]
        args, out, i = c["args"], [], 0
        while i < len(args):
            if args[i] in ("--disaggregation-mode", "--disaggregation-transfer-backend"):
                i += 2
                continue
            out.append(args[i])
            i += 1
        c["args"] = out + ["--config", path]
        c["env"].append({"name": "UCX_TLS", "value": "tcp,cuda_copy"})
    return sc


class SglangConfigCase:  # mixin of an E2ECase
    BACKEND = None
    WANT = None   # env-ucx-tls on both pods: "fail", or anything else
    CHECK = ["-n", "demo"]
    TMP = "sglcfg-"

    @classmethod
    def scenario(cls):
        return cls.write_scenario(sglang_config_scenario(cls.BACKEND))

    def test_ucx_tls(self):
        self.assertEqual(len(self.doc["pods"]), 2, self.err)
        for p in self.doc["pods"]:
            c = [c for c in p["checks"] if c["name"] == "env-ucx-tls"]
            self.assertEqual(len(c), 1, p["checks"])
            if self.WANT == "fail":
                self.assertEqual(c[0]["status"], "fail", c[0])
            else:
                self.assertNotIn(c[0]["status"], ("fail", "warn"), c[0])


class TestSglangConfigMooncake(SglangConfigCase, E2ECase):
    BACKEND = "mooncake"


class TestSglangConfigNixl(SglangConfigCase, E2ECase):
    BACKEND = "nixl"
    WANT = "fail"
