"""check --dgd NAME (issue 27 item 1, checks.md P): the DynamoGraphDeployment
read from the API server (tests/e2e/scenarios/dgd.yaml, whose header holds
the expectations written before the tool ran on it) against the pods."""
import copy
import os
import unittest

import yaml

from base import E2ECase
from plugin import run

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "scenarios", "dgd.yaml")


def lines(out, word):
    return [l for l in out.splitlines() if word in l]


class TestDgd(E2ECase):
    SCENARIO = SCENARIO
    TMP = "di-dgd-"

    def check(self, *argv):
        return run(["check", "--kubeconfig", self.c.kubeconfig, "-n", "demo"] + list(argv), timeout=300)

    def test_beta(self):
        rc, out, err = self.check("--dgd", "qwen")
        self.assertIn("DynamoGraphDeployment demo/qwen (v1beta1, state successful, Ready True, "
                      "worker hash aaa):", out)
        gen = lines(out, "dgd-generation")
        self.assertEqual(len(gen), 1, out)
        self.assertIn("qwen-decode-1 is of worker generation old", gen[0])
        env = lines(out, "dgd-env")
        self.assertEqual(len(env), 1, out)
        self.assertIn('qwen-decode-1: UCX_TLS is "tcp", the DGD says rc,cuda_copy', env[0])
        comp = lines(out, "dgd-component-pods")
        self.assertEqual(len(comp), 1, out)
        self.assertIn("component prefill (type prefill) has no running pod", comp[0])
        self.assertEqual(rc, 2, err)   # P2 fails the run: no disaggregated path
        self.assertNotIn("Frontend", out)
        self.assertNotIn("HF_TOKEN", out)

    def test_document(self):
        # The DGD part is in the JSON and YAML documents, not on stderr
        # (expectations in the scenario's header).
        import json
        base = ["check", "--kubeconfig", self.c.kubeconfig, "-n", "demo", "--dgd", "qwen"]
        rc, out, err = run(base + ["-o", "json"], timeout=300)
        self.assertEqual(rc, 2, err)
        doc = json.loads(out)
        self.assertNotIn("dgd-generation", err)
        dgds = doc["dynamoGraphDeployments"]
        self.assertEqual(len(dgds), 1, dgds)
        d = dgds[0]
        self.assertEqual((d["namespace"], d["name"], d["apiVersion"], d["state"], d["workerHash"],
                          d["status"]),
                         ("demo", "qwen", "nvidia.com/v1beta1", "successful", "aaa", "fail"))
        self.assertEqual([(c["type"], c["status"]) for c in d["conditions"]], [("Ready", "True")])
        comps = {c["name"]: c for c in d["components"]}
        self.assertEqual(sorted(comps), ["Frontend", "decode", "prefill"])
        dec = comps["decode"]
        self.assertEqual((dec["type"], dec["replicas"], dec["runningPods"],
                          dec["currentGenerationPods"]), ("decode", 2, 2, 1))
        self.assertEqual(dec["replicaStatus"], {"replicas": 2, "updatedReplicas": 1,
                                                "readyReplicas": 2})
        self.assertEqual((comps["prefill"]["type"], comps["prefill"]["replicas"],
                          comps["prefill"]["runningPods"]), ("prefill", 1, 0))
        self.assertEqual(comps["Frontend"]["type"], "frontend")
        self.assertEqual(sorted((f["check"], f["status"]) for f in d["findings"]),
                         [("dgd-component-pods", "fail"), ("dgd-env", "warn"),
                          ("dgd-generation", "warn")])
        self.assertNotIn("ens-secret-7", out)
        self.assertNotIn("HF_TOKEN", out)
        import jsonschema
        with open(os.path.join(HERE, "..", "..", "schema", "interconnect-report.schema.json")) as f:
            jsonschema.Draft202012Validator(json.load(f)).validate(doc)
        rc_y, out_y, err_y = run(base + ["-o", "yaml"], timeout=300)
        self.assertEqual(rc_y, 2, err_y)
        self.assertNotIn("dgd-generation", err_y)
        self.assertEqual(yaml.safe_load(out_y)["dynamoGraphDeployments"], dgds)

    def test_prometheus(self):
        import shutil
        import subprocess
        rc, out, err = run(["check", "--kubeconfig", self.c.kubeconfig, "-n", "demo", "--dgd", "qwen",
                            "-o", "prometheus"], timeout=300)
        self.assertEqual(rc, 2, err)
        self.assertNotIn("dgd-generation", err)
        self.assertIn("# TYPE dynamo_interconnect_dgd_status gauge", out)
        self.assertIn('dynamo_interconnect_dgd_status{namespace="demo",dgd="qwen",status="fail"} 1',
                      out)
        self.assertIn('dynamo_interconnect_dgd_status{namespace="demo",dgd="qwen",status="ok"} 0',
                      out)
        self.assertIn('dynamo_interconnect_dgd_component_running_pods{namespace="demo",dgd="qwen",'
                      'component="prefill"} 0', out)
        self.assertIn('dynamo_interconnect_dgd_component_running_pods{namespace="demo",dgd="qwen",'
                      'component="decode"} 2', out)
        promtool = shutil.which("promtool")
        if promtool:   # Debian's prometheus package; test_prometheus requires it
            p = subprocess.run([promtool, "check", "metrics"], input=out, capture_output=True,
                               text=True, timeout=60)
            self.assertEqual((p.returncode, (p.stdout + p.stderr).strip()), (0, ""))

    def test_secret_not_compared(self):
        # NCCL_SOCKET_IFNAME is from a Secret in the DGD and the pods: no
        # finding names it, its value is never printed.
        rc, out, err = self.check("--dgd", "qwen", "-v", "1")
        self.assertEqual([l for l in lines(out, "dgd-env") if "NCCL_SOCKET_IFNAME" in l], [])
        self.assertNotIn("ens-secret-7", out + err)

    def test_secret_judged_by_digest(self):
        # The DGD states NCCL_SOCKET_IFNAME as a value while both pods get it
        # from the Secret "net" (their real value ens-secret-7): it is judged
        # on the real value without showing it (checks.md P3).  Expected:
        # the DGD's ens-secret-7 gives no NCCL_SOCKET_IFNAME finding; the
        # DGD's eth9 gives one dgd-env warn per pod, "(from a Secret, not
        # shown)", and ens-secret-7 is printed nowhere.
        def edit_to(value):
            def edit(doc):
                env = doc["dynamoGraphDeployments"][0]["spec"]["components"][0][
                    "podTemplate"]["spec"]["containers"][0]["env"]
                for e in env:
                    if e["name"] == "NCCL_SOCKET_IFNAME":
                        e.pop("valueFrom")
                        e["value"] = value
            return edit
        c = self.scenario_with("secret-same.yaml", edit_to("ens-secret-7"))
        rc, out, err = run(["check", "--kubeconfig", c.kubeconfig, "-n", "demo", "--dgd", "qwen"],
                           timeout=300)
        self.assertEqual([l for l in lines(out, "dgd-env") if "NCCL_SOCKET_IFNAME" in l], [], out)
        c = self.scenario_with("secret-other.yaml", edit_to("eth9"))
        for fmt in ("table", "json"):
            rc, out, err = run(["check", "--kubeconfig", c.kubeconfig, "-n", "demo", "--dgd", "qwen",
                                "-o", fmt], timeout=300)
            self.assertNotIn("ens-secret-7", out + err)
        rc, out, err = run(["check", "--kubeconfig", c.kubeconfig, "-n", "demo", "--dgd", "qwen"],
                           timeout=300)
        got = [l for l in lines(out, "dgd-env") if "NCCL_SOCKET_IFNAME" in l]
        self.assertEqual(len(got), 2, out)
        for l in got:
            self.assertIn("NCCL_SOCKET_IFNAME (from a Secret, not shown) differs from what the "
                          "DGD says, eth9", l)

    def test_missing(self):
        rc, out, err = self.check("--dgd", "missing")
        self.assertEqual(rc, 1, err)

    def test_forbidden(self):
        rc, out, err = self.check("--dgd", "qwen", "--user", "nodgd")
        self.assertIn(rc, (0, 2, 3), err)
        notes = lines(err, "cannot read DynamoGraphDeployments (403")
        self.assertEqual(len(notes), 1, err)
        self.assertNotIn("dgd-generation", out)
        self.assertIn("qwen-decode-1", out)

    def test_forbidden_note_in_document(self):
        # -o json/-o yaml carry the same note as stderr (report-format.md).
        import json
        rc, out, err = self.check("--dgd", "qwen", "--user", "nodgd", "-o", "json")
        doc = json.loads(out)
        self.assertTrue(doc["dynamoGraphDeploymentsNote"].startswith(
            "note: cannot read DynamoGraphDeployments (403"), out)
        self.assertEqual(doc["dynamoGraphDeployments"], [], out)
        import jsonschema
        with open(os.path.join(HERE, "..", "..", "schema", "interconnect-report.schema.json")) as f:
            jsonschema.Draft202012Validator(json.load(f)).validate(doc)
        rc, out, err = self.check("--dgd", "qwen", "--user", "nodgd", "-o", "yaml")
        self.assertIn("cannot read DynamoGraphDeployments (403",
                      yaml.safe_load(out)["dynamoGraphDeploymentsNote"])
        rc, out, err = self.check("--dgd", "qwen", "-o", "json")
        self.assertNotIn("dynamoGraphDeploymentsNote", json.loads(out))

    def test_alpha_only(self):
        with open(SCENARIO) as f:
            doc = yaml.safe_load(f)
        doc = copy.deepcopy(doc)
        doc["dynamoGraphDeployments"] = [{
            "apiVersion": "nvidia.com/v1alpha1",
            "metadata": {"name": "qwen", "annotations": {"nvidia.com/current-worker-hash": "aaa"}},
            "spec": {"envs": [{"name": "UCX_TLS", "value": "tcp"}],
                     "services": {"decode": {"componentType": "decode", "replicas": 2}}},
            "status": {"state": "successful"}}]
        for p in doc["pods"]:
            p["profile"] = os.path.join(HERE, "scenarios", p["profile"])
        c = self.new_cluster(self.write_scenario(doc, "alpha.yaml"))
        rc, out, err = run(["check", "--kubeconfig", c.kubeconfig, "-n", "demo", "--dgd", "qwen"],
                           timeout=300)
        self.assertIn("DynamoGraphDeployment demo/qwen (v1alpha1,", out)
        env = lines(out, "dgd-env")
        self.assertEqual(len(env), 1, out)
        self.assertIn('qwen-decode-0: UCX_TLS is "rc,cuda_copy", the DGD says tcp', env[0])
        self.assertEqual(lines(out, "dgd-component-pods"), [])
        # P1/P3 only warn: the exit code is the pods' own, as without --dgd
        rc0, _, err0 = run(["check", "--kubeconfig", c.kubeconfig, "-n", "demo",
                            "-l", "nvidia.com/dynamo-graph-deployment-name=qwen"], timeout=300)
        self.assertEqual(rc, rc0, err + err0)

    def test_alpha_fields(self):
        # v1alpha1 as the real CRD has it (deploy/operator/api/v1alpha1
        # DynamoComponentDeploymentSharedSpec: envs, resources, extraPodSpec
        # .mainContainer; DynamoGraphDeploymentSpec.envs graph-wide, a
        # service's entry over it).  Expected, written before the run:
        # UCX_TLS: graph-wide tcp, service rc,cuda_copy -> decode-0 (process
        # rc,cuda_copy) matches, decode-1 (tcp) differs: 1 finding.
        # NCCL_IB_HCA graph-wide mlx5_9 against the profile's mlx5: 2.
        # FI_PROVIDER=efa in extraPodSpec.mainContainer.env, unset in both: 2.
        # Resources are in the JSON component: limits gpu "1".
        import json
        with open(SCENARIO) as f:
            doc = yaml.safe_load(f)
        doc["dynamoGraphDeployments"] = [{
            "apiVersion": "nvidia.com/v1alpha1",
            "metadata": {"name": "qwen", "annotations": {"nvidia.com/current-worker-hash": "aaa"}},
            "spec": {"envs": [{"name": "UCX_TLS", "value": "tcp"},
                              {"name": "NCCL_IB_HCA", "value": "mlx5_9"}],
                     "services": {"decode": {
                         "componentType": "worker", "subComponentType": "decode", "replicas": 2,
                         "envs": [{"name": "UCX_TLS", "value": "rc,cuda_copy"}],
                         "resources": {"limits": {"gpu": "1"}, "requests": {"cpu": "8"}},
                         "extraPodSpec": {"mainContainer": {
                             "env": [{"name": "FI_PROVIDER", "value": "efa"}]}}}}},
            "status": {"state": "successful",
                       "services": {"decode": {"componentKind": "Deployment", "replicas": 2,
                                               "updatedReplicas": 2, "readyReplicas": 1}}}}]
        for p in doc["pods"]:
            p["profile"] = os.path.join(HERE, "scenarios", p["profile"])
        c = self.new_cluster(self.write_scenario(doc, "alpha-fields.yaml"))
        rc, out, err = run(["check", "--kubeconfig", c.kubeconfig, "-n", "demo", "--dgd", "qwen"],
                           timeout=300)
        env = lines(out, "dgd-env")
        self.assertEqual(len([l for l in env if "UCX_TLS" in l]), 1, out)
        self.assertIn('qwen-decode-1: UCX_TLS is "tcp", the DGD says rc,cuda_copy', out)
        self.assertEqual(len([l for l in env if "NCCL_IB_HCA" in l]), 2, out)
        self.assertEqual(len([l for l in env if "FI_PROVIDER is unset" in l]), 2, out)
        self.assertEqual(len(env), 5, out)
        rc, out, err = run(["check", "--kubeconfig", c.kubeconfig, "-n", "demo", "--dgd", "qwen",
                            "-o", "json"], timeout=300)
        d = json.loads(out)["dynamoGraphDeployments"][0]
        self.assertEqual(d["apiVersion"], "nvidia.com/v1alpha1")
        dec = d["components"][0]
        self.assertEqual((dec["name"], dec["type"], dec["runningPods"]), ("decode", "decode", 2))
        self.assertEqual(dec["resources"], {"limits": {"gpu": "1"}, "requests": {"cpu": "8"}})
        self.assertEqual(dec["replicaStatus"], {"replicas": 2, "updatedReplicas": 2,
                                                "readyReplicas": 1})

    def scenario_with(self, name, edit):
        with open(SCENARIO) as f:
            doc = yaml.safe_load(f)
        for p in doc["pods"]:
            p["profile"] = os.path.join(HERE, "scenarios", p["profile"])
        edit(doc)
        return self.new_cluster(self.write_scenario(doc, name))

    def test_list_without_dgd(self):
        # Without --dgd every DGD is read with LIST; only those with a pod
        # in the run are judged: "other" (a component, no pod) is not.
        # Expected: the three findings of test_beta, none of "other", exit 2.
        def edit(doc):
            doc["dynamoGraphDeployments"].append({
                "apiVersion": "nvidia.com/v1beta1", "metadata": {"name": "other"},
                "spec": {"components": [{"name": "decode", "type": "decode", "replicas": 1}]}})
        c = self.scenario_with("list.yaml", edit)
        rc, out, err = run(["check", "--kubeconfig", c.kubeconfig, "-n", "demo"], timeout=300)
        self.assertEqual(len(lines(out, "dgd-generation")), 1, out)
        self.assertEqual(len(lines(out, "dgd-env")), 1, out)
        self.assertEqual(len(lines(out, "dgd-component-pods")), 1, out)
        self.assertNotIn("demo/other", out + err)
        self.assertEqual(rc, 2, err)
        rc, out, err = run(["check", "--kubeconfig", c.kubeconfig, "-n", "demo", "--user", "nodgd"],
                           timeout=300)
        self.assertEqual(len(lines(err, "cannot read DynamoGraphDeployments (403")), 1, err)
        self.assertEqual(lines(out, "dgd-"), [], out)

    def test_no_crd_is_silent(self):
        # A server without the CRD (the common case without --dgd): no note,
        # no DGD part in the document.
        import json

        def edit(doc):
            del doc["dynamoGraphDeployments"]
        c = self.scenario_with("nocrd.yaml", edit)
        rc, out, err = run(["check", "--kubeconfig", c.kubeconfig, "-n", "demo", "-o", "json"],
                           timeout=300)
        self.assertNotIn("DynamoGraphDeployment", err)
        doc = json.loads(out)
        self.assertNotIn("dynamoGraphDeployments", doc)
        self.assertNotIn("dynamoGraphDeploymentsNote", doc)

    def test_no_crd_forbidden_says_so(self):
        # A real API server authorizes before it routes (DefaultBuildHandlerChain):
        # a user without DGD rights gets 403 even where the CRD is absent, so
        # the tool cannot tell and says it cannot read them, on stderr and in
        # the document; the pods are still judged by labels.
        import json

        def edit(doc):
            del doc["dynamoGraphDeployments"]
        c = self.scenario_with("nocrd403.yaml", edit)
        rc, out, err = run(["check", "--kubeconfig", c.kubeconfig, "-n", "demo", "-o", "json",
                            "--user", "nodgd"], timeout=300)
        self.assertEqual(len(lines(err, "cannot read DynamoGraphDeployments (403")), 1, err)
        doc = json.loads(out)
        self.assertIn("cannot read DynamoGraphDeployments (403", doc["dynamoGraphDeploymentsNote"])
        self.assertNotIn("dynamoGraphDeployments", doc)
        self.assertEqual([p["name"] for p in doc["pods"]], ["qwen-decode-0", "qwen-decode-1"], out)

    def test_all_namespaces_grouped(self):
        # check -A: the table under each DGD's name, pods of none last.
        # Expected: "DynamoGraphDeployment demo/qwen:" then its two pods,
        # then "Pods of no DynamoGraphDeployment:" then solo-decode-0.
        def edit(doc):
            solo = copy.deepcopy(doc["pods"][0])
            solo["name"] = "solo-decode-0"
            solo["labels"] = {"nvidia.com/dynamo-component-type": "decode"}
            doc["pods"].append(solo)
        c = self.scenario_with("grouped.yaml", edit)
        rc, out, err = run(["check", "--kubeconfig", c.kubeconfig, "-A"], timeout=300)
        rows = out.splitlines()

        def at(word):
            hit = [i for i, l in enumerate(rows) if word in l]
            self.assertTrue(hit, (word, out))
            return hit[0]
        self.assertLess(at("DynamoGraphDeployment demo/qwen:"), at("qwen-decode-0"))
        self.assertLess(at("qwen-decode-1"), at("Pods of no DynamoGraphDeployment:"))
        self.assertLess(at("Pods of no DynamoGraphDeployment:"), at("solo-decode-0"))
        self.assertEqual(rc, 2, err)

    def test_component_without_pod_fails_run(self):
        # The same pods, judged alone, are not NOT READY (asserted: the
        # premise); a prefill component with replicas and no pod (P2) makes
        # the run NOT READY.
        with open(SCENARIO) as f:
            doc = yaml.safe_load(f)
        doc["dynamoGraphDeployments"] = [{
            "apiVersion": "nvidia.com/v1alpha1",
            "metadata": {"name": "qwen", "annotations": {"nvidia.com/current-worker-hash": "aaa"}},
            "spec": {"services": {"decode": {"componentType": "decode", "replicas": 2},
                                  "prefill": {"componentType": "prefill", "replicas": 1}}},
            "status": {"state": "successful"}}]
        # One healthy pod: output.yaml's first (IPC_LOCK, /dev/shm, h100-ib-ok)
        # with the decode pod's name and labels.
        with open(os.path.join(HERE, "scenarios", "output.yaml")) as f:
            good = yaml.safe_load(f)["pods"][0]
        mine = [p for p in doc["pods"] if p["name"] == "qwen-decode-0"][0]
        good.update({k: mine[k] for k in ("name", "labels") if k in mine})
        if "namespace" in mine:
            good["namespace"] = mine["namespace"]
        good["profile"] = os.path.join(HERE, "scenarios", good["profile"])
        doc["pods"] = [good]
        c = self.new_cluster(self.write_scenario(doc, "p2.yaml"))
        base = ["check", "--kubeconfig", c.kubeconfig, "-n", "demo"]
        # The premise without the DGD: as user nodgd (403, labels only),
        # since a run without --dgd now reads the DGDs too.
        rc0, _, err0 = run(base + ["--user", "nodgd",
                                   "-l", "nvidia.com/dynamo-graph-deployment-name=qwen"], timeout=300)
        self.assertNotEqual(rc0, 2, err0 + _)
        rc, out, err = run(base + ["--dgd", "qwen"], timeout=300)
        self.assertEqual(len(lines(out, "dgd-component-pods")), 1, out)
        self.assertEqual(rc, 2, err)
        # The document says what the process exits with (verdict_apply_dgd):
        # NOT READY, exitCode 2, the component named as what to fix first.
        import json
        rc_j, out_j, err_j = run(base + ["--dgd", "qwen", "-o", "json"], timeout=300)
        v = json.loads(out_j)["verdict"]
        self.assertEqual((rc_j, v["status"], v["exitCode"]), (2, "NOT READY", 2), err_j)
        self.assertIn("DynamoGraphDeployment demo/qwen", v["fixFirst"])
        rc_t, out_t, _ = run(base + ["--dgd", "qwen"], timeout=300)
        self.assertIn("NOT READY", out_t)


if __name__ == "__main__":
    unittest.main()
