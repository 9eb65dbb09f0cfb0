#!/usr/bin/python3
"""The plugin binary's `pods` command, and every way of reaching the API
server (kubeconfig forms, overrides, errors), against the test cluster.

Environment: DI_PLUGIN (the binary; default ./kubectl-dynamo_interconnect).
"""
import base64
import json
import os
import shutil
import subprocess
import unittest

import yaml

from base import ROOT, E2ECase
from plugin import PLUGIN, run
HEADER = ["POD", "ROLE", "NODE", "CONTAINER", "STATUS", "AGE"]




def rows(out):
    return [line.split() for line in out.splitlines()]


class PodsCase(E2ECase):
    # classes on the same scenario and mode share one cluster; requests
    # are counted as before/after deltas, so other clients do not matter
    SCENARIO = "basic.yaml"
    SHARED = True
    TMP = "e2e-pods-"

    def kc(self, *more):
        return ["--kubeconfig", self.c.kubeconfig] + list(more)

    def requests(self):
        with open(self.c.logpath) as f:
            return [json.loads(line) for line in f if line.strip()]

    def write_kc(self, name, doc):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            yaml.safe_dump(doc, f)
        return path


class TestPodsTable(PodsCase):
    def test_workers_table(self):
        rc, out, err = run(["pods"] + self.kc())
        self.assertEqual(rc, 0, err)
        r = rows(out)
        self.assertEqual(r[0], HEADER)
        # Frontend left out; sorted by name; roles from the labels.
        self.assertEqual([x[:5] for x in r[1:]],
                         [["qwen-decode-0", "decode", "gpu-a2", "main", "Running"],
                          ["qwen-prefill-0", "prefill", "gpu-a1", "main", "Running"]])
        self.assertEqual(err, "")

    def test_geometry_is_kubectls(self):
        rc, out, _ = run(["pods"] + self.kc())
        lines = out.splitlines()
        for line in lines:
            self.assertEqual(line, line.rstrip(), "no trailing spaces")
        # Every column starts where its header does: the widest cell + 3.
        starts = [lines[0].index(h) for h in HEADER]
        self.assertEqual(starts[1], len("qwen-prefill-0") + 3)
        for line in lines[1:]:
            for col in starts[1:]:
                self.assertEqual(line[col - 1], " ", line)
                self.assertNotEqual(line[col], " ", line)

    def test_no_headers_and_wide(self):
        rc, out, _ = run(["pods", "--no-headers", "-o", "wide"] + self.kc())
        self.assertEqual(rc, 0)
        r = rows(out)
        self.assertEqual(len(r), 2)
        self.assertEqual(r[0][0], "qwen-decode-0")
        self.assertTrue(r[0][7].startswith("registry.local/"), r[0])

    def test_all_namespaces_with_selector(self):
        rc, out, err = run(["pods", "-A", "-l", "app"] + self.kc())
        self.assertEqual(rc, 0, err)
        r = rows(out)
        self.assertEqual(r[0][0], "NAMESPACE")
        got = {(x[0], x[1]): x for x in r[1:]}
        self.assertIn(("other", "privileged-0"), got)
        self.assertEqual(got[("demo", "pending-0")][5], "Pending")
        self.assertEqual(got[("demo", "crashing-0")][5], "CrashLoopBackOff")
        # main exists, so it wins over the default-container annotation.
        self.assertEqual(got[("demo", "two-containers")][4], "main")
        req = [q for q in self.requests() if q["path"] == "/api/v1/pods"]
        self.assertTrue(req, "an -A list goes to /api/v1/pods")

    def test_container_flag(self):
        rc, out, _ = run(["pods", "-l", "app=multi", "-c", "sidecar"] + self.kc())
        self.assertEqual(rc, 0)
        self.assertEqual(rows(out)[1][3], "sidecar")

    def test_no_resources(self):
        rc, out, err = run(["pods", "-n", "nothere"] + self.kc())
        self.assertEqual((rc, out), (0, ""))
        self.assertEqual(err, "No resources found in nothere namespace.\n")
        rc, out, err = run(["pods", "-A", "-l", "app=none"] + self.kc())
        self.assertEqual(err, "No resources found\n")

    def test_flag_forms(self):
        for argv in (["-n", "other"], ["-nother"], ["-n=other"], ["--namespace", "other"],
                     ["--namespace=other"]):
            rc, out, err = run(["pods", "-l", "app=priv"] + argv + self.kc())
            self.assertEqual(rc, 0, err)
            self.assertEqual(rows(out)[1][0], "privileged-0", argv)

    def test_read_only(self):
        run(["pods", "-A"] + self.kc())
        for q in self.requests():
            self.assertEqual(q["method"], "GET", q)

    def test_through_kubectl_plugin_lookup(self):
        bindir = os.path.join(self.tmp, "bin")
        os.makedirs(bindir, exist_ok=True)
        link = os.path.join(bindir, "kubectl-dynamo_interconnect")
        if not os.path.exists(link):
            os.symlink(PLUGIN, link)
        env = dict(os.environ, PATH=bindir + ":" + os.environ["PATH"],
                   KUBECONFIG=self.c.kubeconfig, HOME=self.c.home)
        p = subprocess.run(["kubectl", "dynamo-interconnect", "pods", "-n", "demo"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(rows(p.stdout.decode())[0], HEADER)
        self.assertEqual(len(rows(p.stdout.decode())), 3)
        p = subprocess.run(["kubectl", "dynamo-interconnect", "pods", "--bogus"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=60)
        self.assertEqual(p.returncode, 1)
        self.assertIn("See 'kubectl dynamo-interconnect pods -h'", p.stderr.decode())


class TestPagination(PodsCase):
    SCENARIO = "many.yaml"

    def test_pages(self):
        before = len([q for q in self.requests() if q["path"] == "/api/v1/pods"])
        rc, out, err = run(["pods", "-A", "--chunk-size", "100", "--no-headers"] + self.kc())
        self.assertEqual(rc, 0, err)
        names = [(r[0], r[1]) for r in rows(out)]
        self.assertEqual(len(names), 650)
        self.assertEqual(len(set(names)), 650, "every pod exactly once")
        lists = [q for q in self.requests() if q["path"] == "/api/v1/pods"]
        self.assertEqual(len(lists) - before, 7)
        self.assertTrue(all("limit" in json.dumps(q["query"]) for q in lists))

    def test_default_page_size(self):
        before = len(self.requests())
        rc, out, _ = run(["pods", "-A", "--no-headers"] + self.kc())
        self.assertEqual(len(rows(out)), 650)
        self.assertEqual(len(self.requests()) - before, 2)


class TestAuthForms(PodsCase):
    def ok(self, argv, env=None):
        rc, out, err = run(["pods", "-n", "demo"] + argv, env=env)
        self.assertEqual(rc, 0, err)
        self.assertEqual(len(rows(out)), 3, out)
        return self.requests()[-1]["user"]

    def test_token(self):
        self.assertEqual(self.ok(self.kc()), "admin")

    def test_client_certificate_data(self):
        self.assertEqual(self.ok(self.kc("--context", "fakecluster-cert-user")), "cert-user")

    def test_client_certificate_files(self):
        crt, key = self.c.cert_files("cert-user")
        argv = ["-s", self.c.url, "--certificate-authority", self.c.cafile,
                "--client-certificate", crt, "--client-key", key]
        self.assertEqual(self.ok(argv), "cert-user")

    def test_exec_plugin_v1_and_v1beta1(self):
        self.assertEqual(self.ok(self.kc("--context", "fakecluster-plugin-user")), "plugin-user")
        self.assertEqual(self.ok(self.kc("--context", "fakecluster-plugin-beta")), "plugin-beta")

    def test_token_file_relative(self):
        with open(self.c.kubeconfig) as f:
            doc = yaml.safe_load(f)
        with open(os.path.join(self.tmp, "tok"), "w") as f:
            f.write(self.c.token("viewer") + "\n")
        for u in doc["users"]:
            if u["name"] == "admin":
                u["user"] = {"tokenFile": "tok"}
        path = self.write_kc("kc-tokenfile", doc)
        self.assertEqual(self.ok(["--kubeconfig", path]), "viewer")

    def test_kubeconfig_merge_first_wins(self):
        with open(self.c.kubeconfig) as f:
            doc = yaml.safe_load(f)
        first = {"apiVersion": "v1", "kind": "Config", "current-context": "merged",
                 "contexts": [{"name": "merged", "context": {"cluster": "fakecluster",
                                                              "user": "cert-user",
                                                              "namespace": "demo"}}],
                 "users": [{"name": "admin", "user": {"token": "wrong"}}]}
        a = self.write_kc("kc-a", first)
        b = self.write_kc("kc-b", doc)
        missing = os.path.join(self.tmp, "missing")
        env = {"KUBECONFIG": ":".join([a, missing, b])}
        self.assertEqual(self.ok([], env=env), "cert-user")
        # admin comes from the first file (a wrong token): the whole entry wins.
        rc, _, err = run(["pods", "--user", "admin"], env=env)
        self.assertEqual(rc, 1)
        self.assertEqual(err, "error: You must be logged in to the server (Unauthorized)\n")

    def test_in_cluster(self):
        sa = os.path.join(self.tmp, "sa")
        os.makedirs(sa, exist_ok=True)
        with open(os.path.join(sa, "token"), "w") as f:
            f.write(self.c.token())
        shutil.copy(self.c.cafile, os.path.join(sa, "ca.crt"))
        with open(os.path.join(sa, "namespace"), "w") as f:
            f.write("demo\n")
        env = {"KUBERNETES_SERVICE_HOST": "127.0.0.1",
               "KUBERNETES_SERVICE_PORT": str(self.c.port),
               "DI_SERVICEACCOUNT_DIR": sa, "HOME": sa}
        rc, out, err = run(["pods"], env=env)
        self.assertEqual(rc, 0, err)
        self.assertEqual(len(rows(out)), 3)

    def test_insecure_and_server_override(self):
        self.assertEqual(self.ok(["-s", self.c.url, "--insecure-skip-tls-verify",
                                  "--token", self.c.token()]), "admin")


class TestErrors(PodsCase):
    def err(self, argv, env=None):
        rc, out, err = run(["pods"] + argv, env=env)
        self.assertEqual(rc, 1, (out, err))
        self.assertEqual(out, "")
        lines = [l for l in err.splitlines() if not l.startswith("hint: ")]  # 403: RBAC hint
        self.assertEqual(len(lines), 1 if "See '" not in err else 2, err)
        return err

    def test_unauthorized(self):
        self.assertEqual(self.err(self.kc("--token", "nope")),
                         "error: You must be logged in to the server (Unauthorized)\n")

    def test_forbidden(self):
        c = self.new_cluster(os.path.join(ROOT, "tests", "e2e", "scenarios", "rbac.yaml"))
        e = self.err(["--kubeconfig", c.kubeconfig, "--context", "fakecluster-nolist"])
        self.assertTrue(e.startswith('Error from server (Forbidden): pods is forbidden: '
                                     'User "nolist" cannot list resource "pods"'), e)
        self.assertIn("\nhint: ", e)
        self.assertIn("deploy/rbac.yaml", e)

    def test_missing_context_cluster_user(self):
        self.assertEqual(self.err(self.kc("--context", "nope")), 'error: context "nope" does not exist\n')
        self.assertEqual(self.err(self.kc("--cluster", "nope")), 'error: cluster "nope" does not exist\n')
        self.assertEqual(self.err(self.kc("--user", "nope")), 'error: auth info "nope" does not exist\n')

    def test_missing_kubeconfig(self):
        e = self.err(["--kubeconfig", "/nonexistent/kc"])
        self.assertIn("/nonexistent/kc", e)
        self.assertIn("no such file or directory", e)

    def test_broken_kubeconfig(self):
        path = os.path.join(self.tmp, "broken")
        with open(path, "w") as f:
            f.write("apiVersion: v1\nclusters: [\n")
        e = self.err(["--kubeconfig", path])
        self.assertTrue(e.startswith('error: error loading config file "%s"' % path), e)

    def test_connection_refused(self):
        self.assertEqual(self.err(["-s", "https://127.0.0.1:1", "--insecure-skip-tls-verify"]),
                         "The connection to the server 127.0.0.1:1 was refused - "
                         "did you specify the right host or port?\n")

    def test_unknown_ca(self):
        other = os.path.join(self.tmp, "other-ca.crt")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj",
                        "/CN=other", "-keyout", os.path.join(self.tmp, "other.key"),
                        "-out", other, "-days", "1"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        e = self.err(["-s", self.c.url, "--certificate-authority", other, "--token", self.c.token()])
        self.assertTrue(e.startswith("Unable to connect to the server: tls: failed to verify certificate"), e)

    def test_tls_server_name(self):
        # The server's certificate names 127.0.0.1 and localhost, not this name.
        e = self.err(self.kc("--tls-server-name", "kubernetes.example"))
        self.assertIn("Unable to connect to the server", e)
        rc, out, err = run(["pods"] + self.kc("--tls-server-name", "localhost"))
        self.assertEqual(rc, 0, err)

    def test_bad_flags(self):
        # Typed by hand (argv[0] as typed): usage names the binary.
        p = subprocess.run(["./kubectl-dynamo_interconnect", "pods", "--foo"],
                           cwd=os.path.dirname(PLUGIN), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=30)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr.decode(), "error: unknown flag: --foo\n"
                         "See 'kubectl-dynamo_interconnect pods -h' for help and examples\n")
        e = self.err(["--request-timeout", "abc"] + self.kc())
        self.assertIn("Invalid timeout value", e)

    def test_hung_server_times_out(self):
        import socket
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        s.listen(1)   # accepts TCP, never answers TLS
        try:
            rc, out, err = run(["pods", "-s", "https://127.0.0.1:%d" % s.getsockname()[1],
                                "--insecure-skip-tls-verify", "--request-timeout", "2s"],
                               timeout=20)
        finally:
            s.close()
        self.assertEqual(rc, 1)
        self.assertTrue(err.startswith("Unable to connect to the server:"), err)


class TestV4Mode(PodsCase):
    MODE = "v4"

    def test_same_table(self):
        rc, out, err = run(["pods"] + self.kc())
        self.assertEqual(rc, 0, err)
        self.assertEqual(len(rows(out)), 3)


if __name__ == "__main__":
    unittest.main()
