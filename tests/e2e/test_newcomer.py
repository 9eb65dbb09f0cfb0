#!/usr/bin/python3
"""The first hour of a new user (issue 44): errors before work, only real
findings, and the words a newcomer reads first.  Each test asserts what the
user sees (exit code, the error line, the table's cells), never timing."""
import json
import os
import re
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "cluster"))
from fc import Cluster  # noqa: E402

from plugin import PLUGIN, invoke_stdin, plugin_env, run, script_bytes, script_sha256  # noqa: E402

FAMILY_START = 3    # -o wide: POD ROLE NODE, then the family columns
FAMILY_END = -6     # CONTAINER NODE-IP UCX-VERSION NIXL-VERSION IMAGE VERDICT


class TestErrorsBeforeWork(unittest.TestCase):
    """Issue 44 point 3."""

    @classmethod
    def setUpClass(cls):
        cls.c = Cluster("basic.yaml")

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()

    def kc(self):
        return ["--kubeconfig", self.c.kubeconfig]

    def requests(self, what):
        return [r for r in self.c.log() if what in r.get("path", "")]

    def test_missing_container_is_an_error(self):
        # kube-apiserver pkg/registry/core/pod/strategy.go (ExecLocation,
        # LogLocation): "container %s is not valid for pod %s", 400.
        rc, out, err = run(["check", "-l", "app=multi", "-c", "nope"] + self.kc())
        self.assertEqual(rc, 1, out + err)
        self.assertEqual(out, "")
        self.assertIn("error: container nope is not valid for pod two-containers", err)
        self.assertIn("main, sidecar", err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)

    def test_missing_container_execs_nothing(self):
        before = len(self.requests("/exec"))
        run(["check", "-l", "app=multi", "-c", "nope"] + self.kc())
        self.assertEqual(len(self.requests("/exec")), before)

    def test_bad_pushgateway_refused_before_any_request(self):
        before = len(self.c.log())
        for url in ("ftp://gw:9091", "gw:9091", "http://", "http://gw:9091/x?y"):
            rc, out, err = run(["check", "--pushgateway", url] + self.kc())
            self.assertEqual(rc, 1, (url, out, err))
            self.assertTrue(err.startswith("error: --pushgateway"), (url, err))
            self.assertEqual(len(err.strip().splitlines()), 1, (url, err))
        self.assertEqual(len(self.c.log()), before, "a request was made")

    def test_unprobed_pod_shows_dashes_and_why(self):
        rc, out, err = run(["check", "-l", "app=pending", "-o", "wide"] + self.kc())
        self.assertEqual(rc, 3, out + err)
        lines = out.splitlines()
        cells = lines[1].split()
        self.assertEqual(cells[0], "pending-0")
        # Every family cell is "-"; the last cell is the verdict.
        self.assertTrue(all(c == "-" for c in cells[FAMILY_START:FAMILY_END]), lines[:2])
        self.assertEqual(cells[-1], "Unverified")
        # The default table: its NOT OK cell is "-" too, never "<none>".
        brief = run(["check", "-l", "app=pending"] + self.kc())[1].splitlines()[1].split()
        self.assertEqual(brief[-2:], ["Unverified", "-"], brief)
        why = [l for l in lines if "not probed" in l and "pending-0" in l]
        self.assertEqual(len(why), 1, out)
        self.assertIn("Pending", why[0])

    def test_no_fail_cell_without_a_finding(self):
        rc, out, err = run(["check", "-A", "-l", "app in (pending,multi,crashing)", "-o", "wide"]
                           + self.kc())
        lines = out.splitlines()
        rows = []
        for l in lines[1:]:
            if not l.strip():
                break
            rows.append(l.split())
        header = lines[0].split()
        for r in rows:
            for h, cell in zip(header, r):
                if cell in ("fail", "warn"):
                    self.assertTrue(re.search(r"^%s .*%s" % (cell, re.escape(r[1])), out, re.M),
                                    "%s %s of %s has no finding line:\n%s" % (h, cell, r[1], out))


if __name__ == "__main__":
    unittest.main()


class TestProbeInPlainSight(unittest.TestCase):
    """Issue 44 point 9: the probe a reviewer is asked to grant pods/exec for."""

    def test_probe_script_is_the_stdin_byte_for_byte(self):
        p = subprocess.run([PLUGIN, "probe-script"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=plugin_env())
        self.assertEqual(p.returncode, 0, p.stderr)
        # The bytes each exec's stdin carries (test_frontdoor compares
        # the same with what the test cluster's exec received).
        self.assertEqual(p.stdout, invoke_stdin(script_bytes("probe.sh")))
        self.assertEqual(p.stderr, b"")

    def test_version_shows_its_sha256(self):
        digest = script_sha256("probe.sh")
        rc, out, err = run(["version"])
        self.assertEqual(rc, 0, err)
        self.assertIn("probe script sha256 " + digest, out)
        rc, out, err = run(["version", "-o", "json"])
        self.assertEqual(json.loads(out)["clientVersion"]["probeScriptSHA256"], digest)

    def test_probe_script_takes_no_argument(self):
        rc, out, err = run(["probe-script", "extra"])
        self.assertEqual(rc, 1)
        self.assertTrue(err.startswith("error: "), err)

    def test_readme_links_it(self):
        with open(os.path.join(ROOT, "README.md")) as f:
            readme = f.read()
        para = [p for p in readme.split("\n\n") if "read-only" in p.lower() and "pods/exec" in p]
        self.assertTrue(para, "no read-only paragraph naming pods/exec")
        self.assertIn("probe-script", "".join(para))


# What each rule of `rbac` grants, in the test cluster's permission names
# (tests/cluster/fc_rbac.py PERMS): the cluster enforces exactly these.
FC_PERMS = {
    ("", "pods", "get"): "get-pods", ("", "pods", "list"): "list-pods",
    ("", "pods/log", "get"): "logs",
    ("", "pods/exec", "get"): "exec-get", ("", "pods/exec", "create"): "exec-create",
    ("", "namespaces", "list"): "list-namespaces",
    ("resource.k8s.io", "resourceclaims", "get"): "get-resourceclaims",
    ("resource.k8s.io", "resourceclaims", "list"): "list-resourceclaims",
    ("nvidia.com", "dynamographdeployments", "get"): "get-dynamographdeployments",
    ("nvidia.com", "dynamographdeployments", "list"): "list-dynamographdeployments",
}
WANT_RULES = {
    ("", "pods"): {"get", "list"}, ("", "pods/log"): {"get"}, ("", "pods/exec"): {"get", "create"},
    ("resource.k8s.io", "resourceclaims"): {"get", "list"},
    ("nvidia.com", "dynamographdeployments"): {"get", "list"},
}


def rules_of(role):
    got = {}
    for r in role["rules"]:
        for g in r["apiGroups"]:
            for res in r["resources"]:
                got.setdefault((g, res), set()).update(r["verbs"])
    return got


RBAC_GV = "rbac.authorization.k8s.io/v1"


def _api_resource(name, kind, namespaced):
    return {"name": name, "singularName": "", "namespaced": namespaced, "kind": kind,
            "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]}


RBAC_DISCOVERY = {
    "/api": {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []},
    "/api/v1": {"kind": "APIResourceList", "groupVersion": "v1", "resources": []},
    "/apis": {"kind": "APIGroupList", "apiVersion": "v1", "groups": [
        {"name": "rbac.authorization.k8s.io", "versions": [{"groupVersion": RBAC_GV, "version": "v1"}],
         "preferredVersion": {"groupVersion": RBAC_GV, "version": "v1"}}]},
    "/apis/" + RBAC_GV: {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": RBAC_GV,
                         "resources": [_api_resource("roles", "Role", True),
                                       _api_resource("rolebindings", "RoleBinding", True),
                                       _api_resource("clusterroles", "ClusterRole", False),
                                       _api_resource("clusterrolebindings", "ClusterRoleBinding", False)]},
    "/version": {"major": "1", "minor": "32", "gitVersion": "v1.32.0"},
}


class rbac_discovery:
    """A plain-HTTP stub answering only kubectl's discovery of the RBAC kinds."""

    def __enter__(self):
        import http.server
        import threading

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                d = RBAC_DISCOVERY.get(self.path.split("?")[0])
                body = json.dumps(d or {"kind": "Status", "code": 404}).encode()
                self.send_response(200 if d else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return "http://127.0.0.1:%d" % self.server.server_port

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


class TestRbac(unittest.TestCase):
    """Issue 44 point 4: `rbac` prints a role and a binding that work."""

    def docs(self, *argv):
        import yaml
        rc, out, err = run(["rbac"] + list(argv))
        self.assertEqual(rc, 0, err)
        return [d for d in yaml.safe_load_all(out) if d]

    def test_user_in_a_namespace(self):
        role, binding = self.docs("--user", "alice", "-n", "team")
        self.assertEqual((role["kind"], role["metadata"]["namespace"]), ("Role", "team"))
        self.assertEqual(rules_of(role), WANT_RULES)
        self.assertEqual(binding["kind"], "RoleBinding")
        self.assertEqual(binding["metadata"]["namespace"], "team")
        self.assertEqual(binding["roleRef"], {"apiGroup": "rbac.authorization.k8s.io",
                                              "kind": "Role", "name": role["metadata"]["name"]})
        self.assertEqual(binding["subjects"], [{"apiGroup": "rbac.authorization.k8s.io",
                                                "kind": "User", "name": "alice"}])

    def test_service_account_cluster_wide(self):
        role, binding = self.docs("--serviceaccount", "ops:runner", "-A")
        self.assertEqual(role["kind"], "ClusterRole")
        self.assertNotIn("namespace", role["metadata"])
        want = dict(WANT_RULES)
        want[("", "namespaces")] = {"list"}     # completion of -n
        self.assertEqual(rules_of(role), want)
        self.assertEqual(binding["kind"], "ClusterRoleBinding")
        self.assertEqual(binding["subjects"], [{"kind": "ServiceAccount", "name": "runner",
                                                "namespace": "ops"}])

    def test_group(self):
        role, binding = self.docs("--group", "ml-ops", "-n", "x")
        self.assertEqual(binding["subjects"][0]["kind"], "Group")

    def test_role_alone_without_a_subject(self):
        docs = self.docs("-n", "x")
        self.assertEqual([d["kind"] for d in docs], ["Role"])

    def test_bad_subjects_are_errors(self):
        for argv in (["--user", "a", "--group", "b"], ["--serviceaccount", "nocolon"],
                     ["--user", ""], ["--serviceaccount", ":x"]):
            rc, out, err = run(["rbac"] + argv)
            self.assertEqual(rc, 1, argv)
            self.assertEqual(out, "")
            self.assertTrue(err.startswith("error: "), err)

    def test_real_kubectl_accepts_it(self):
        # kubectl create --dry-run=client decodes each document into its
        # typed object (a wrong field type fails) after mapping its kind
        # through discovery: a stub API server answers that, nothing else.
        import shutil
        kubectl = shutil.which("kubectl")
        if not kubectl:
            self.fail("kubectl is not installed")
        with rbac_discovery() as server:
            for argv, kinds in ((["--user", "alice", "-n", "team"], ["Role", "RoleBinding"]),
                                (["--serviceaccount", "ops:runner", "-A"],
                                 ["ClusterRole", "ClusterRoleBinding"])):
                rc, out, err = run(["rbac"] + argv)
                p = subprocess.run([kubectl, "--server", server, "create", "--dry-run=client",
                                    "--validate=false", "-o", "json", "-f", "-"], input=out.encode(),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=plugin_env())
                self.assertEqual(p.returncode, 0, p.stderr.decode())
                items, text, dec = [], p.stdout.decode().strip(), json.JSONDecoder()
                while text:     # one JSON object per document, one after another
                    obj, end = dec.raw_decode(text)
                    items.append(obj)
                    text = text[end:].strip()
                self.assertEqual([i["kind"] for i in items], kinds)
                self.assertEqual(rules_of(items[0]), rules_of(self.docs(*argv)[0]))
                self.assertEqual(items[1]["roleRef"]["kind"], kinds[0])

    def test_deploy_file_is_what_it_prints(self):
        # deploy/rbac.yaml (installed under share/) holds the same rules.
        import yaml
        with open(os.path.join(ROOT, "deploy", "rbac.yaml")) as f:
            files = {d["kind"]: d for d in yaml.safe_load_all(f) if d}
        self.assertEqual(rules_of(files["Role"]), rules_of(self.docs("-n", "x")[0]))
        self.assertEqual(rules_of(files["ClusterRole"]), rules_of(self.docs("-A")[0]))

    def run_as_granted(self, rules, cluster_wide):
        import yaml
        perms = sorted({FC_PERMS[(g, r, v)] for (g, r), verbs in rules.items() for v in verbs})
        d = os.path.join(self.tmp, "scn-%d" % len(os.listdir(self.tmp)))
        os.mkdir(d)
        with open(os.path.join(ROOT, "tests", "cluster", "scenarios", "basic.yaml")) as f:
            base = yaml.safe_load(f)
        prof = os.path.join(ROOT, "tests", "cluster", "profiles", "minimal")
        scn = {"namespace": "demo",
               "users": [{"name": "granted", "token": "granted-token", "allow": perms}],
               "pods": [dict(p, profile=prof) for p in base["pods"] if p["name"] in ("qwen-prefill-0", "qwen-decode-0")]}
        for p in scn["pods"]:
            p.pop("logs", None)
        path = os.path.join(d, "scenario.yaml")
        with open(path, "w") as f:
            yaml.safe_dump(scn, f)
        c = Cluster(path)
        try:
            rc, out, err = run(["check", "--user", "granted", "--kubeconfig", c.kubeconfig]
                               + (["-A"] if cluster_wide else []))
            denied = [q for q in c.log() if q.get("status") == 403]
        finally:
            c.cleanup()
        return rc, out, err, denied

    def test_the_role_lets_check_run_on_the_test_cluster(self):
        import tempfile
        self.tmp = tempfile.mkdtemp(prefix="nc-rbac-")
        for argv, wide in ((["-n", "demo"], False), (["-A"], True)):
            rules = rules_of(self.docs(*argv)[0])
            rc, out, err, denied = self.run_as_granted(rules, wide)
            self.assertEqual(denied, [], out + err)
            self.assertNotIn("forbidden", (out + err).lower())
            self.assertIn(rc, (0, 2, 3), err)
            self.assertIn("2 probed", out)
        # The control: without pods/log the same run meets a 403.
        del rules[("", "pods/log")]
        rc, out, err, denied = self.run_as_granted(rules, True)
        self.assertTrue(denied)

    def test_403_hint_names_the_command(self):
        c = Cluster(os.path.join(ROOT, "tests", "e2e", "scenarios", "rbac.yaml"))
        try:
            rc, out, err = run(["check", "--user", "nolist", "--kubeconfig", c.kubeconfig])
        finally:
            c.cleanup()
        self.assertEqual(rc, 1)
        self.assertIn("kubectl dynamo-interconnect rbac --user", err)
        self.assertIn("| kubectl apply -f -", err)


class TestInstall(unittest.TestCase):
    """Issue 44 point 4: `make install` puts deploy/ where a user finds it."""

    def test_make_install_installs_deploy_under_share(self):
        import tempfile
        d = tempfile.mkdtemp(prefix="nc-install-")
        # make install copies the binary as built (a link at most, no compile
        # when the build is current).
        p = subprocess.run(["make", "-s", "-C", ROOT, "install", "DESTDIR=" + d, "PREFIX=/usr"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ, MAKEFLAGS=""))
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        share = os.path.join(d, "usr", "share", "kubectl-dynamo_interconnect", "deploy")
        with open(os.path.join(share, "rbac.yaml")) as f, \
                open(os.path.join(ROOT, "deploy", "rbac.yaml")) as g:
            self.assertEqual(f.read(), g.read())
        self.assertTrue(os.path.exists(os.path.join(share, "cronjob.yaml")))
        subprocess.run(["make", "-s", "-C", ROOT, "uninstall", "DESTDIR=" + d, "PREFIX=/usr"],
                       check=True, stdout=subprocess.PIPE, env=dict(os.environ, MAKEFLAGS=""))
        self.assertFalse(os.path.exists(share))


    def test_krew_archive_carries_the_same_deploy_files(self):
        # What krew unpacks is the archive krew/dist.sh stages: the same
        # deploy/ files `make install` puts under share/.
        def deploy_files(path, marker):
            with open(os.path.join(ROOT, path)) as f:
                line = [l for l in f if marker in l and "deploy/" in l][0]
            return sorted(w for w in line.split() if w.startswith("deploy/") and w.endswith(".yaml"))
        make = deploy_files("Makefile", "install -m 0644 deploy/")
        self.assertIn("deploy/rbac.yaml", make)
        self.assertEqual(deploy_files("krew/dist.sh", "install -m 0644 deploy/"), make)


class TestPermissionsDocumented(unittest.TestCase):
    def test_krew_caveats_list_every_permission_with_why(self):
        import yaml
        rc, out, err = run(["rbac", "-A"])
        (role,) = [d for d in yaml.safe_load_all(out) if d]
        with open(os.path.join(ROOT, "krew", "dynamo-interconnect.yaml")) as f:
            caveats = yaml.safe_load(f)["spec"]["caveats"]
        # One line a resource: "  RESOURCE (GROUP): VERBS - why".
        got = {}
        for l in caveats.splitlines():
            m = re.match(r"^\s+(\S+)(?: \((\S+)\))?: ([a-z, ]+) - (.{10,})$", l)
            if m:
                got[(m.group(2) or "", m.group(1))] = set(v.strip() for v in m.group(3).split(","))
        self.assertEqual(got, rules_of(role), caveats)

    def test_readme_lists_every_permission_with_why(self):
        import yaml
        rc, out, err = run(["rbac", "-A"])
        (role,) = [d for d in yaml.safe_load_all(out) if d]
        with open(os.path.join(ROOT, "README.md")) as f:
            rows = [l for l in f if l.startswith("| `")]
        for (group, res), verbs in rules_of(role).items():
            with self.subTest(resource=res):
                row = [r for r in rows if r.startswith("| `%s`" % res)]
                self.assertEqual(len(row), 1, res)
                cells = [c.strip() for c in row[0].strip().strip("|").split("|")]
                self.assertEqual(set(v.strip() for v in cells[1].split(",")), verbs)
                if group:
                    self.assertIn(group, cells[0])
                self.assertGreater(len(cells[2]), 10, "no why for " + res)


DOC_ID = re.compile(r"\((?:[A-N]\d+[a-z]?|env-vars \d+|dynamo\.md [\d.]+)(?:[,)])")


class TestWords(unittest.TestCase):
    """Issue 44 point 11: the words a newcomer reads first."""

    @classmethod
    def setUpClass(cls):
        cls.c = Cluster("demo.yaml")
        cls.table = run(["check", "-n", "demo", "--kubeconfig", cls.c.kubeconfig])
        cls.json = run(["check", "-n", "demo", "-o", "json", "--kubeconfig", cls.c.kubeconfig])

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()

    def test_no_doc_ids(self):
        for rc, out, err in (self.table, self.json):
            self.assertIsNone(DOC_ID.search(out + err), DOC_ID.search(out + err))

    def test_status_word_once(self):
        rc, out, err = self.table
        lines = [l for l in out.splitlines() if re.match(r"^(fail|warn|skipped) ", l)]
        self.assertTrue(lines)
        for l in lines:
            status, rest = l.split(" ", 1)
            self.assertNotRegex(rest.split(":", 1)[0], r"\b%s\b" % status, l)
        self.assertIn("fail rdma-devices on 1 of 7 pods: qwen-prefill-2", out)

    def test_fix_first_is_the_check_and_the_fix(self):
        rc, out, err = self.table
        (line,) = [l for l in out.splitlines() if l.startswith("Fix first: ")]
        self.assertTrue(line.startswith("Fix first: rdma-devices fail on 1 of 7 pods: qwen-prefill-2"), line)
        self.assertIn("; fix: the RDMA device plugin did not mount /dev/infiniband", line)
        # Not the finding's detail again: it is the line above.
        self.assertNotIn("9 RDMA devices", line)
        doc = json.loads(self.json[1])
        self.assertIn("9 RDMA devices", doc["verdict"]["fixFirst"])   # JSON keeps it whole

    def test_empty_namespace_hints_where_workers_are(self):
        rc, out, err = run(["check", "-n", "default", "--kubeconfig", self.c.kubeconfig])
        self.assertEqual(rc, 1)
        self.assertIn('error: no Dynamo worker pods found in namespace "default"', err)
        self.assertRegex(err, r"hint: .*namespace \"demo\".*-n demo")

    def test_help_lists_only_its_flags_and_the_output_values(self):
        for sub, absent, values in (("version", "--kubeconfig", "(table, json, yaml)"),
                                    ("env", "--selector", "(table, json, yaml)"),
                                    ("node", "--all-namespaces", "(table, json, yaml)"),
                                    ("probe-script", "--output", None),
                                    ("check", None, "(table, wide, json, yaml, junit, html, prometheus)")):
            rc, out, err = run([sub, "-h"])
            self.assertEqual(rc, 0, sub)
            if absent:
                self.assertNotIn(absent, out, sub)
            if values:
                self.assertIn("Output format. One of: " + values, out, sub)
            if absent:
                rc, out, err = run([sub, absent, "x"])
                self.assertEqual(rc, 1, sub)
                self.assertIn("unknown flag: " + absent, err, sub)


GOOD_DGD = ("kind: DynamoGraphDeployment\nmetadata: {name: g}\nspec:\n  services:\n"
            "    w: {componentType: worker, extraPodSpec: {mainContainer: {env: "
            "[{name: UCX_TLS, value: %s}]}}}\n")


class TestEnvLikeCheck(unittest.TestCase):
    """Issue 44 point 10: `env` speaks like `check`."""

    def env(self, files, *argv):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            for name, text in files.items():
                os.makedirs(os.path.dirname(os.path.join(d, name)), exist_ok=True)
                with open(os.path.join(d, name), "w") as f:
                    f.write(text)
            return run(["env", d] + list(argv))

    def test_no_verdict_after_an_error(self):
        rc, out, err = self.env({"a-bad.yaml": "kind: DynamoGraphDeployment\nspec: [\n",
                                 "c-good.yaml": GOOD_DGD % "tcp"})
        self.assertEqual(rc, 1)
        self.assertIn("UCX_TLS=tcp", out)       # what could be read is shown
        self.assertNotIn("Verdict:", out)
        self.assertNotIn("Fix first", out)
        self.assertIn("error: ", err)

    def test_fix_first_only_with_not_ready(self):
        # Warnings only: nothing failed, so nothing to fix first; like
        # check, the unproven is "Not confirmed".
        rc, out, err = self.env({"g.yaml": GOOD_DGD % "tcp"})
        self.assertEqual(rc, 3, out + err)
        self.assertIn("Verdict: UNVERIFIED", out)
        self.assertNotIn("Fix first", out)
        self.assertIn("Not confirmed: UCX_TLS=tcp lacks cuda_copy", out)

    def test_file_paths_relative_to_the_argument(self):
        rc, out, err = self.env({"deep/er/g.yaml": GOOD_DGD % "tcp"})
        rows = out.splitlines()
        self.assertTrue(rows[1].startswith("deep/er/g.yaml "), out)
        self.assertIn("warn deep/er/g.yaml g/w: ", out)
        self.assertNotIn("/tmp", out)


class TestProgress(unittest.TestCase):
    """Issue 44 point 6: on a terminal the progress line names what it waits
    for.  The content is asserted, never when it appears."""

    @classmethod
    def setUpClass(cls):
        cls.c = Cluster("faults.yaml", faults=["exec-hang=f-hang"])

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()

    def on_a_tty(self, argv):
        """stderr on a pseudo-terminal (stdout to a pipe): all it showed."""
        import pty
        import select
        master, slave = pty.openpty()
        p = subprocess.Popen([PLUGIN] + argv, stdout=subprocess.PIPE, stderr=slave,
                             stdin=subprocess.DEVNULL, env=plugin_env())
        os.close(slave)
        shown = b""
        while True:
            r, _, _ = select.select([master], [], [], 120)
            if not r:
                break
            try:
                chunk = os.read(master, 65536)
            except OSError:      # EIO: the plugin closed its end
                break
            if not chunk:
                break
            shown += chunk
        out = p.stdout.read()
        p.wait(timeout=60)
        os.close(master)
        return p.returncode, out.decode(errors="replace"), shown.decode(errors="replace")

    def test_waiting_for_the_hung_pod_and_its_deadline(self):
        rc, out, tty = self.on_a_tty(["check", "-n", "faults", "-l", "", "--probe-timeout", "6s",
                                      "--logs=false", "-o", "json", "--kubeconfig", self.c.kubeconfig])
        frames = [f for f in re.split(r"[\r\n]", tty) if f.startswith("probing ")]
        self.assertTrue(frames, tty)
        # f-hang outlives every other probe: while it hangs the line names
        # it and its deadline (the last frame is the final count).
        waiting = [f for f in frames if re.match(
            r"^probing \d+/15 pods(, \d+ failed)?; waiting for faults/f-hang "
            r"\(\d+s of its 6s deadline\)", f)]
        self.assertTrue(waiting, frames)
        self.assertRegex(frames[-1], r"^probing 15/15 pods, 1 failed\x1b\[K$")
        json.loads(out)     # the report itself is untouched by the line

    def test_no_progress_off_a_terminal(self):
        rc, out, err = run(["check", "-n", "faults", "-l", "", "--probe-timeout", "6s",
                            "--logs=false", "--kubeconfig", self.c.kubeconfig])
        self.assertNotIn("probing", err)
        self.assertNotIn("waiting for", err)


class TestProvenance(unittest.TestCase):
    """Issue 44 point 8: every report says where it comes from."""

    @classmethod
    def setUpClass(cls):
        cls.c = Cluster("demo.yaml")
        cls.kc = ["--kubeconfig", cls.c.kubeconfig]
        cls.sha = script_sha256("probe.sh")
        cls.version = json.loads(run(["version", "-o", "json"])[1])["clientVersion"]["gitVersion"][1:]

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()

    def check_source(self, src, all_ns=False):
        self.assertRegex(src["generated"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        self.assertEqual(src["pluginVersion"], self.version)
        self.assertEqual(src["probeScriptSHA256"], self.sha)
        self.assertEqual(src["context"], self.c.kc["current-context"])
        self.assertEqual(src["server"], self.c.url)
        self.assertEqual(src["scope"], {"allNamespaces": all_ns, "namespace": None if all_ns else "demo"})

    def test_json_and_yaml(self):
        import yaml
        import jsonschema
        rc, out, err = run(["check", "-n", "demo", "-o", "json"] + self.kc)
        doc = json.loads(out)
        self.check_source(doc["source"])
        with open(os.path.join(ROOT, "schema", "interconnect-report.schema.json")) as f:
            jsonschema.validate(doc, json.load(f))
        rc, out, err = run(["check", "-A", "-o", "yaml"] + self.kc)
        self.check_source(yaml.safe_load(out)["source"], all_ns=True)

    def test_junit_properties(self):
        import xml.etree.ElementTree as ET
        rc, out, err = run(["check", "-n", "demo", "-o", "junit"] + self.kc)
        suite = ET.fromstring(out).find("testsuite")
        props = {p.get("name"): p.get("value") for p in suite.find("properties")}
        self.assertEqual(props["probe-script-sha256"], self.sha)
        self.assertEqual(props["plugin-version"], self.version)
        self.assertEqual(props["server"], self.c.url)
        self.assertEqual(props["context"], self.c.kc["current-context"])
        self.assertEqual(props["scope"], "demo")
        self.assertRegex(props["generated"], r"^\d{4}-")

    def test_html_header_width_and_edges(self):
        rc, out, err = run(["check", "-n", "demo", "-o", "html"] + self.kc)
        head = re.search(r'<p class="source">(.*?)</p>', out)
        self.assertTrue(head, out[:2000])
        for want in (self.sha, "v" + self.version, self.c.url, "namespace demo"):
            self.assertIn(want, head.group(1))
        # 800 px: wide tables scroll inside themselves, the graph scales.
        self.assertIn("overflow-x:auto", out)
        self.assertRegex(out, r'<svg [^>]*viewBox="0 0 760 \d+"[^>]*max-width:100%')
        # No healthy (RDMA green / NVLink blue) edge touches a NotReady pod:
        # in the demo the graph's nodes with a NotReady pod draw none.
        doc = json.loads(run(["check", "-n", "demo", "-o", "json"] + self.kc)[1])
        bad_nodes = {p["node"] for p in doc["pods"] if p["verdict"] == "NOT READY"}
        self.assertTrue(bad_nodes)
        svg = out[out.index("<svg"):]
        # Box (side, y) -> node; an edge runs from y1+15 on the left to y2+15.
        boxes = {(int(x), int(y) + 15): node for x, y, node in re.findall(
            r'<rect x="(\d+)" y="(\d+)"[^>]*/><text [^>]*>(?:prefill|decode) (\S+) \(', svg)}
        healthy = ("#2e7d32", "#1565c0")     # RDMA, NVLink
        edges = re.findall(r'<line x1="230" y1="(\d+)" x2="530" y2="(\d+)" stroke="([^"]+)"', svg)
        self.assertTrue(edges)
        for y1, y2, colour in edges:
            ends = {boxes[(10, int(y1))], boxes[(530, int(y2))]}
            if ends & bad_nodes:
                self.assertNotIn(colour, healthy, (ends, colour))


class TestDeps(unittest.TestCase):
    """Issue 44 points 2: two set-up paths."""

    def stubbed(self, script, missing=()):
        """Runs tests/tools/SCRIPT with apt-get/apt-cache stubs on PATH (as
        root, which these tests are); (rc, output, packages installed)."""
        import shutil
        import tempfile
        d = tempfile.mkdtemp(prefix="nc-deps-")
        try:
            tools = os.path.join(d, "tools")
            os.mkdir(tools)
            shutil.copy(os.path.join(ROOT, "tests", "tools", script), tools)
            with open(os.path.join(tools, "deps-dist.sh"), "w") as f:
                f.write("echo dist-stub\n")
            bind = os.path.join(d, "bin")
            os.mkdir(bind)
            log = os.path.join(d, "installed")
            with open(os.path.join(bind, "apt-get"), "w") as f:
                f.write('#!/bin/sh\n[ "$1" = install ] && shift 4 && echo "$@" >> %s\nexit 0\n' % log)
            with open(os.path.join(bind, "apt-cache"), "w") as f:
                f.write('#!/bin/sh\ncase " %s " in *" $2 "*) exit 100;; esac\nexit 0\n' % " ".join(missing))
            for n in ("apt-get", "apt-cache"):
                os.chmod(os.path.join(bind, n), 0o755)
            env = dict(os.environ, PATH=bind + ":/usr/bin:/bin")
            p = subprocess.run(["sh", os.path.join(tools, script)], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, env=env)
            installed = open(log).read().split() if os.path.exists(log) else []
            return p.returncode, p.stdout.decode(), installed
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def test_demo_deps_are_the_build_and_demo_only(self):
        rc, out, pkgs = self.stubbed("deps-demo.sh")
        self.assertEqual(rc, 0, out)
        for lib in ("libcurl4-openssl-dev", "libyaml-dev", "libcjson-dev", "libssl-dev", "python3-yaml"):
            self.assertIn(lib, pkgs)
        for heavy in ("clang", "valgrind", "chromium", "zsh", "fish", "prometheus", "tmux"):
            self.assertNotIn(heavy, pkgs)

    def test_demo_deps_name_a_missing_package(self):
        rc, out, pkgs = self.stubbed("deps-demo.sh", missing=("libcjson-dev",))
        self.assertEqual(rc, 1)
        self.assertIn("libcjson-dev", out)
        self.assertIn("universe", out)
        self.assertEqual(pkgs, [])

    def test_full_deps_skip_what_the_distribution_lacks(self):
        rc, out, pkgs = self.stubbed("deps.sh", missing=("chromium",))
        self.assertEqual(rc, 0, out)
        self.assertIn("deps.sh: skipping chromium: not in this distribution's package lists", out)
        self.assertNotIn("chromium", pkgs)
        self.assertIn("valgrind", pkgs)

    def test_readme_quick_start_uses_the_demo_script(self):
        with open(os.path.join(ROOT, "README.md")) as f:
            readme = f.read()
        quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
        self.assertIn("tests/tools/deps-demo.sh", quick)
        self.assertIn("Ubuntu 22.04", quick)


class TestSuggestEnv(unittest.TestCase):
    """Issue 44 point 5: --suggest-env covers every env finding."""

    def test_every_env_finding_has_its_fix_in_the_block(self):
        c = Cluster("demo.yaml")
        try:
            kc = ["--kubeconfig", c.kubeconfig, "-n", "demo"]
            doc = json.loads(run(["check", "-o", "json"] + kc)[1])
            rc, out, err = run(["check", "--suggest-env"] + kc)
        finally:
            c.cleanup()
        self.assertIn("Suggested env (check --suggest-env):", out)
        block = out.split("Suggested env (check --suggest-env):", 1)[1]
        self.assertNotIn("none, no finding suggests a variable", block)
        env_findings = [(p["name"], ch) for p in doc["pods"] for ch in p["checks"]
                        if ch["family"] == "ENV" and ch["status"] in ("fail", "warn") and p["probed"]]
        self.assertTrue(env_findings)     # the demo's UCX_TLS=tcp
        for pod, ch in env_findings:
            part = block.split("# demo/%s:" % pod, 1)
            self.assertEqual(len(part), 2, (pod, block))
            mine = part[1].split("\n# demo/", 1)[0]
            self.assertIn("%s: %s" % (ch["name"], ch["remedy"]), mine)
        # Still pasteable YAML: every non-comment line is part of an env list.
        import yaml
        for chunk in block.split("\n# demo/")[1:]:
            yaml.safe_load("\n".join(l for l in chunk.splitlines()[1:]))
