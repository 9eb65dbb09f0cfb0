#!/usr/bin/python3
"""End to end against a real Kubernetes, the API objects: the
DynamoGraphDeployment CRD at both versions against `check --dgd`, and the
plugin's image run in the cluster as deploy/cronjob.yaml's Job (run from
test_real.py; alone: python3 test_real_api.py -v).  What the tests share is
real.py."""
import json
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from real import (HERE, NODE, NS, PENDING, PLAIN, ROOT, ST, TOOLS, TWO, Real,  # noqa: E402
                  plugin)

# ---- issue 27: the plugin as a real Job, in-cluster (deploy/cronjob.yaml) ----
JOB_NS = "dynamo-interconnect"
VERDICT_CELL = {"READY": "Ready", "NOT READY": "NotReady", "UNVERIFIED": "Unverified"}


def api(method, path, body=None, timeout=20):
    """The admin's request to the real server: (status, body bytes)."""
    import ssl
    import urllib.error
    import urllib.request
    real = Real()
    ctx = ssl.create_default_context(cafile=real.cafile)
    r = urllib.request.Request(real.url + path, method=method,
                               data=json.dumps(body).encode() if body is not None else None,
                               headers={"Content-Type": "application/json",
                                        "Authorization": "Bearer " + real.token("admin")})
    try:
        with urllib.request.urlopen(r, context=ctx, timeout=timeout) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def wait_for(what, fn, secs):
    import time
    end = time.time() + secs
    while time.time() < end:
        v = fn()
        if v:
            return v
        time.sleep(0.5)
    raise AssertionError("%s: not after %s s" % (what, secs))


def cronjob_objects():
    import yaml
    with open(os.path.join(ROOT, "deploy", "cronjob.yaml")) as f:
        return {o["kind"]: o for o in yaml.safe_load_all(f) if o}


def admin(method, path, body=None):
    """One request as di-admin (client certificate): (status, parsed body)."""
    import ssl
    import urllib.error
    import urllib.request
    with open(os.path.join(ST, "server")) as f:
        server = f.read().strip()
    ctx = ssl.create_default_context(cafile=os.path.join(ST, "pki", "ca.crt"))
    ctx.load_cert_chain(os.path.join(ST, "pki", "admin.crt"), os.path.join(ST, "pki", "admin.key"))
    data = json.dumps(body).encode() if body is not None else None
    r = urllib.request.Request(server + path, data=data, method=method,
                               headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(r, context=ctx, timeout=20) as resp:
            code, raw = resp.status, resp.read()
    except urllib.error.HTTPError as e:
        code, raw = e.code, e.read()
    try:
        return code, json.loads(raw.decode() or "null")
    except ValueError:
        return code, raw.decode(errors="replace")


CRD = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
DGD_NAME = "dynamographdeployments.nvidia.com"


def apply_crd(name):
    """Creates, or replaces, the DGD CRD from manifests/NAME and waits until
    its versions are served."""
    import yaml
    with open(os.path.join(HERE, "manifests", name)) as f:
        crd = yaml.safe_load(f)
    code, old = admin("GET", CRD + "/" + DGD_NAME)
    if code == 200:
        crd["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"]
        code, body = admin("PUT", CRD + "/" + DGD_NAME, crd)
    else:
        code, body = admin("POST", CRD, crd)
    if code not in (200, 201):
        raise AssertionError("CRD %s: %d %s" % (name, code, body))
    for v in crd["spec"]["versions"]:
        path = "/apis/nvidia.com/%s/namespaces/%s/dynamographdeployments" % (v["name"], NS)
        for _ in range(60):
            if admin("GET", path)[0] == 200:
                break
            time.sleep(0.5)
        else:
            raise AssertionError("%s not served" % path)


def put_dgd(version, obj):
    """Creates obj at nvidia.com/VERSION (deleting one of its name first),
    then sets its status through the status subresource, as the operator does."""
    base = "/apis/nvidia.com/%s/namespaces/%s/dynamographdeployments" % (version, NS)
    name = obj["metadata"]["name"]
    admin("DELETE", base + "/" + name)
    for _ in range(40):
        if admin("GET", base + "/" + name)[0] == 404:
            break
        time.sleep(0.25)
    status = obj.pop("status", None)
    code, made = admin("POST", base, obj)
    if code != 201:
        raise AssertionError("DGD %s/%s: %d %s" % (version, name, code, made))
    if status:
        made["status"] = status
        code, body = admin("PUT", base + "/" + name + "/status", made)
        if code != 200:
            raise AssertionError("DGD status: %d %s" % (code, body))


# The DGD "vllm" of the two labelled pods (manifests/pods.yaml.in): prefill
# (vllm-prefill-tools, worker hash h1, UCX_TLS and UCX_NET_DEVICES in its
# spec) and decode (vllm-decode-plain, hash h0, busybox: no UCX variable).
UCX_TLS = "rc,cuda_copy,cuda_ipc,gdr_copy"
ALPHA = {
    "apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment",
    "metadata": {"name": "vllm", "namespace": NS,
                 "annotations": {"nvidia.com/current-worker-hash": "h1"}},
    "spec": {"backendFramework": "vllm",
             "envs": [{"name": "UCX_TLS", "value": UCX_TLS}],
             "services": {
                 "Frontend": {"componentType": "frontend", "replicas": 1},
                 "prefill": {"componentType": "worker", "subComponentType": "prefill", "replicas": 1,
                             "envs": [{"name": "UCX_NET_DEVICES", "value": "mlx5_0:1"}]},
                 "decode": {"componentType": "worker", "subComponentType": "decode", "replicas": 1}}},
    "status": {"state": "successful", "conditions": [{
        "type": "Ready", "status": "True", "reason": "all_resources_are_ready", "message": "ok",
        "lastTransitionTime": "2026-12-04T00:00:00Z"}]}}
BETA = {
    "apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
    "metadata": {"name": "vllm", "namespace": NS,
                 "annotations": {"nvidia.com/current-worker-hash": "h1"}},
    "spec": {"backendFramework": "vllm",
             "env": [{"name": "UCX_TLS", "value": UCX_TLS}],
             "components": [
                 {"name": "prefill", "type": "prefill", "replicas": 1,
                  "podTemplate": {"spec": {"containers": [{"name": "main", "env": [
                      {"name": "UCX_NET_DEVICES", "value": "mlx5_0:1"}]}]}}},
                 {"name": "decode", "type": "decode", "replicas": 1},
                 {"name": "decode-extra", "type": "decode", "replicas": 1}]},
    "status": {"state": "pending", "components": {
        "decode-extra": {"componentKind": "Deployment", "replicas": 1, "updatedReplicas": 1}}}}


class TestDgd(unittest.TestCase):
    """check --dgd against DGD objects of both versions in the real API
    server, under the chart's CRD (reduced; manifests/dgd-crd-*.yaml).
    Expected, written before the tool ran on them:
    - v1alpha1 only served (the older chart): read at v1alpha1; one
      dgd-generation warn (vllm-decode-plain, h0 against h1), one dgd-env warn
      (vllm-decode-plain: UCX_TLS unset, the DGD's graph-wide value), nothing
      for vllm-prefill-tools (its process has both variables as stated), no
      dgd-component-pods; the exit code is the pods' own (-l of the graph).
    - both served (the current chart): read at v1beta1; the same two warns,
      and one dgd-component-pods fail (decode-extra has no pod): exit 2;
      -o json holds it with replicaStatus {replicas 1, updatedReplicas 1}."""

    @classmethod
    def setUpClass(cls):
        apply_crd("dgd-crd-v1alpha1.yaml")
        put_dgd("v1alpha1", json.loads(json.dumps(ALPHA)))
        cls.alpha = plugin("check", "-n", NS, "--dgd", "vllm", timeout=300)
        cls.labels = plugin("check", "-n", NS, "-l", "nvidia.com/dynamo-graph-deployment-name=vllm",
                            timeout=300)
        apply_crd("dgd-crd-v1beta1.yaml")
        put_dgd("v1beta1", json.loads(json.dumps(BETA)))
        cls.beta = plugin("check", "-n", NS, "--dgd", "vllm", timeout=300)
        cls.beta_json = plugin("check", "-n", NS, "--dgd", "vllm", "-o", "json", timeout=300)
        sys.stderr.write("\n--- check --dgd vllm (v1alpha1, then v1beta1) ---\n%s%s%s%s---\n"
                         % (cls.alpha[1], cls.alpha[2], cls.beta[1], cls.beta[2]))

    @classmethod
    def tearDownClass(cls):
        # Leaves the cluster as up.sh made it (no CRD) for the other tests.
        base = "/apis/nvidia.com/v1beta1/namespaces/%s/dynamographdeployments" % NS
        admin("DELETE", base + "/vllm")
        admin("DELETE", CRD + "/" + DGD_NAME)
        for _ in range(60):
            if admin("GET", base)[0] == 404 and admin("GET", CRD + "/" + DGD_NAME)[0] == 404:
                break
            time.sleep(0.5)

    @staticmethod
    def lines(out, word):
        return [l for l in out.splitlines() if word in l]

    def test_alpha(self):
        rc, out, err = self.alpha
        self.assertIn("DynamoGraphDeployment %s/vllm (v1alpha1, state successful, Ready True, "
                      "worker hash h1):" % NS, out)
        gen = self.lines(out, "dgd-generation")
        self.assertEqual(len(gen), 1, out)
        self.assertIn("vllm-decode-plain is of worker generation h0", gen[0])
        env = self.lines(out, "dgd-env")
        self.assertEqual(len(env), 1, out)
        self.assertIn("vllm-decode-plain: UCX_TLS is unset, the DGD says " + UCX_TLS, env[0])
        self.assertEqual(self.lines(out, "dgd-component-pods"), [], out)
        self.assertEqual(rc, self.labels[0], err + self.labels[2])

    def test_beta(self):
        rc, out, err = self.beta
        self.assertIn("DynamoGraphDeployment %s/vllm (v1beta1, state pending," % NS, out)
        self.assertEqual(len(self.lines(out, "dgd-generation")), 1, out)
        env = self.lines(out, "dgd-env")
        self.assertEqual(len(env), 1, out)
        self.assertIn("vllm-decode-plain: UCX_TLS is unset", env[0])
        comp = self.lines(out, "dgd-component-pods")
        self.assertEqual(len(comp), 1, out)
        self.assertIn("component decode-extra (type decode) has no running pod", comp[0])
        self.assertEqual(rc, 2, err)

    def test_beta_json(self):
        rc, out, err = self.beta_json
        self.assertEqual(rc, 2, err)
        d = json.loads(out)["dynamoGraphDeployments"][0]
        self.assertEqual((d["apiVersion"], d["state"], d["status"]),
                         ("nvidia.com/v1beta1", "pending", "fail"))
        comps = {c["name"]: c for c in d["components"]}
        self.assertEqual(comps["prefill"]["runningPods"], 1)
        self.assertEqual(comps["prefill"]["currentGenerationPods"], 1)
        self.assertEqual(comps["decode"]["currentGenerationPods"], 0)
        self.assertEqual(comps["decode-extra"]["replicaStatus"], {"replicas": 1,
                                                                  "updatedReplicas": 1})


class TestInClusterJob(unittest.TestCase):
    """deploy/cronjob.yaml's ServiceAccount, ClusterRole and binding, and its
    jobTemplate as a Job (v1.20 has no batch/v1 CronJob): the Job controller
    makes the pod, the ServiceAccount admission mounts the token the token
    controller made, the plugin (make image) runs in-cluster.  Test-only
    changes to the pod: nodeName (no scheduler), hostNetwork and
    KUBERNETES_SERVICE_HOST=127.0.0.1 (no kube-proxy: the service IP leads
    nowhere; the apiserver listens on the loopback), imagePullPolicy Never."""

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(os.path.join(ST, "plugin-image")):
            raise unittest.SkipTest("no plugin image imported (make image; run.sh passes it)")
        objs = cronjob_objects()
        cls.cron = objs["CronJob"]
        code, body = api("POST", "/api/v1/namespaces",
                         {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": JOB_NS}})
        assert code in (201, 409), body
        for kind, path in (("ServiceAccount", "/api/v1/namespaces/%s/serviceaccounts" % JOB_NS),
                           ("ClusterRole", "/apis/rbac.authorization.k8s.io/v1/clusterroles"),
                           ("ClusterRoleBinding",
                            "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings")):
            code, body = api("POST", path, objs[kind])
            assert code in (201, 409), (kind, body[:300])
        # the token controller's secret first: else the admission refuses the pod
        wait_for("the service account's token secret", lambda: json.loads(api(
            "GET", "/api/v1/namespaces/%s/serviceaccounts/dynamo-interconnect" % JOB_NS)[1])
            .get("secrets"), 60)
        spec = json.loads(json.dumps(cls.cron["spec"]["jobTemplate"]["spec"]))
        pod = spec["template"]["spec"]
        pod.update({"nodeName": NODE, "hostNetwork": True})
        c = pod["containers"][0]
        c["imagePullPolicy"] = "Never"
        c["env"] = [{"name": "KUBERNETES_SERVICE_HOST", "value": "127.0.0.1"},
                    {"name": "KUBERNETES_SERVICE_PORT", "value": str(Real().port)}]
        job = {"apiVersion": "batch/v1", "kind": "Job",
               "metadata": {"name": "di-incluster", "namespace": JOB_NS}, "spec": spec}
        code, body = api("POST", "/apis/batch/v1/namespaces/%s/jobs" % JOB_NS, job)
        assert code == 201, body[:500]

        def done():
            pods = json.loads(api("GET", "/api/v1/namespaces/%s/pods?labelSelector=job-name%%3D"
                                  "di-incluster" % JOB_NS)[1])["items"]
            ended = [p for p in pods if p["status"].get("phase") in ("Succeeded", "Failed")]
            return ended[0] if ended else None
        cls.pod = wait_for("the Job's pod to end", done, 240)
        code, body = api("GET", "/api/v1/namespaces/%s/pods/%s/log"
                         % (JOB_NS, cls.pod["metadata"]["name"]))
        assert code == 200, body[:300]
        cls.log = body.decode(errors="replace")
        sys.stderr.write("\n--- the in-cluster Job's log ---\n%s---\n" % cls.log)
        rc, out, err = plugin("check", "-A", "-o", "json", timeout=300)
        cls.outside_rc, cls.outside = rc, json.loads(out)

    def test_deploy_file(self):
        self.assertEqual(self.cron["spec"]["concurrencyPolicy"], "Forbid")
        c = self.cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]
        self.assertIn("limits", c["resources"])
        rules = cronjob_objects()["ClusterRole"]["rules"]
        verbs = {v for r in rules for v in r["verbs"]}
        self.assertEqual(verbs - {"get", "list", "create"}, set())
        self.assertEqual([r["resources"] for r in rules if "create" in r["verbs"]], [["pods/exec"]])

    def test_job_pod_ran_in_cluster(self):
        """The pod's exit code is the plugin's: the verdict's, as outside."""
        st = self.pod["status"]["containerStatuses"][0]["state"]["terminated"]
        self.assertEqual(st["exitCode"], self.outside_rc, self.log)
        self.assertEqual(self.pod["spec"]["serviceAccountName"], "dynamo-interconnect")

    def test_log_holds_the_report(self):
        """Every worker pod's row, with the verdict an admin's run gives."""
        lines = self.log.splitlines()
        head = lines[0].split()
        self.assertEqual(head[0], "NAMESPACE", self.log)
        col = head.index("VERDICT")
        rows = {l.split()[1]: l.split() for l in lines[1:] if l.startswith(NS + " ")}
        want = {p["name"]: VERDICT_CELL[p["verdict"]] for p in self.outside["pods"]}
        self.assertEqual(sorted(rows), sorted([TOOLS, PLAIN, TWO, PENDING]))
        self.assertEqual({n: r[col] for n, r in rows.items()}, want)
        status = self.outside["verdict"]["status"]
        self.assertTrue(any(status in l for l in lines), self.log)


if __name__ == "__main__":
    unittest.main(verbosity=2)
