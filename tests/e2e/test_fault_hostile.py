#!/usr/bin/python3
"""Hostile input ends safely (issue 12), through the product and the test
cluster: a server or a pod that sends terminal escapes, a kubeconfig whose
token smuggles a second request, envFrom Secrets, a server that drips,
loops its continue tokens, sends oversized pages or a redirect.  Each test
fails on the code before issue 12.  The other half of the fault matrix
(test_fault_matrix.py); a file of its own so that the e2e runner can run
the two side by side (test_slow_drip_meets_the_default_deadline alone
waits out the plugin's 60 s default deadline)."""
import json
import os
import sys
import tempfile
import unittest

import yaml

from base import ROOT, E2ECase
from plugin import run_timed as run

HERE = os.path.dirname(os.path.abspath(__file__))

SMALL = os.path.join(HERE, "scenarios", "fault-small.yaml")
SECRET = os.path.join(HERE, "scenarios", "hostile-secret.yaml")
MARGIN = 10


def mutated_kubeconfig(c, mutate):
    """A copy of the cluster's kubeconfig changed by mutate(dict)."""
    with open(c.kubeconfig) as f:
        kc = yaml.safe_load(f)
    mutate(kc)
    fd, path = tempfile.mkstemp(prefix="kubeconfig-", dir=c.dir)
    with os.fdopen(fd, "w") as f:
        yaml.safe_dump(kc, f)
    os.chmod(path, 0o600)
    return path


def admin(kc):
    return [u for u in kc["users"] if u["name"] == "admin"][0]["user"]


class OnCluster(E2ECase):
    """The test cluster of SCENARIO with FAULTS, shared by the classes of
    this module that need the same (their tests count requests as
    before/after deltas)."""
    SCENARIO = SMALL
    SHARED = True


class TestHeaderSmuggling(OnCluster):
    """A CR/LF in a token or header value is refused before anything is sent."""

    def assertRefused(self, argv, header, source):
        before = len(self.c.log())
        rc, out, err, _ = run(argv)
        self.assertEqual(rc, 1, err)
        self.assertIn('net/http: invalid header field value for "%s"' % header, err)
        self.assertIn(source, err)
        self.assertNotIn("DELETE", err)
        self.assertEqual(len(self.c.log()), before, "nothing reached the server")

    def test_token_in_kubeconfig(self):
        tok = self.c.token() + "\r\nDELETE /api/v1/namespaces/faults/pods/normal-0 HTTP/1.1\r\nX: y"
        kc = mutated_kubeconfig(self.c, lambda k: admin(k).update(token=tok))
        for sub in (["pods", "-n", "faults"], ["check", "-n", "faults", "-l", ""],
                    ["node", "--pod", "normal-0", "-n", "faults"]):
            self.assertRefused(sub + ["--kubeconfig", kc], "Authorization",
                               "users[].user.token")

    def test_token_flag(self):
        self.assertRefused(["pods", "-n", "faults", "--kubeconfig", self.c.kubeconfig,
                            "--token", "abc\nX-Evil: 1"], "Authorization", "--token")

    def test_impersonation(self):
        kc = mutated_kubeconfig(self.c, lambda k: admin(k).update(
            **{"as": "alice\r\nImpersonate-Group: system:masters"}))
        self.assertRefused(["pods", "-n", "faults", "--kubeconfig", kc],
                           "Impersonate-User", "users[].user.as")

    def test_proxy_credentials(self):
        def m(k):
            k["clusters"][0]["cluster"]["proxy-url"] = "http://u:p\r\nX: y@127.0.0.1:9"
        kc = mutated_kubeconfig(self.c, m)
        before = len(self.c.log())
        rc, _, err, _ = run(["pods", "-n", "faults", "--kubeconfig", kc])
        self.assertEqual(rc, 1, err)
        self.assertIn("net/url: invalid control character in URL", err)
        self.assertEqual(len(self.c.log()), before)


SENTINELS = ("SENTINELenvfromnoprefix4b1d", "SENTINELenvfromprefix77c2")


class TestEnvFromSecret(OnCluster):
    """Variables from envFrom secretRef are <from secret NAME> everywhere."""
    SCENARIO = SECRET

    def test_every_subcommand_and_format(self):
        kc = ["-n", "hostile", "--kubeconfig", self.c.kubeconfig]
        runs = []
        for v in ([], ["-v", "9"]):
            for fmt in ("table", "wide", "json", "yaml"):
                runs.append(["check", "-o", fmt] + v + kc)
                runs.append(["pods", "-o", fmt] + v + kc)
            for fmt in ("table", "json", "yaml"):
                runs.append(["node", "--pod", "hs-prefill-0", "-o", fmt] + v + kc)
                runs.append(["nixl", "--pod", "hs-prefill-0", "-o", fmt] + v + kc)
        shown = ""
        for argv in runs:
            rc, out, err, _ = run(argv)
            if rc == 1 and "unable to match a printer" in err:
                continue   # a format this subcommand does not have
            self.assertIn(rc, (0, 2, 3), (argv, err[-1000:]))
            for s in SENTINELS:
                self.assertNotIn(s, out, argv)
                self.assertNotIn(s, err, argv)
            shown += out
        self.assertTrue(shown, "the runs printed something")
        # the plan and the reports did show the variables, redacted
        self.assertIn("UCX_SOCKADDR_AUTH='<from secret ucx-creds>'", shown)
        # envFrom with a prefix: the last source that matches names it
        self.assertIn("UCX_IB_SECRET_KEY='<from secret nixl-creds>'", shown)
        self.assertIn("UCX_IB_GID_INDEX='<from secret nixl-creds>'", shown)
        # a variable that env sets itself is shown as it is
        self.assertIn("UCX_NET_DEVICES='eth0'", shown)


ESCAPES = "scenarios/hostile-escapes.yaml"
RAW = ("\x1b", "\r", "\u202e", "\u009b", "\x07")


class TestEscapes(OnCluster):
    """Escapes from the server (hostile-strings) and from a pod's output
    never reach the terminal raw; JSON and YAML stay valid UTF-8."""
    SCENARIO = os.path.join(HERE, ESCAPES)
    FAULTS = ("hostile-strings",)

    @classmethod
    def fixture(cls):
        cls.kc = ["-n", "hostile", "--kubeconfig", cls.c.kubeconfig]

    def run_raw(self, argv):
        import subprocess
        from plugin import PLUGIN, plugin_env
        p = subprocess.run([PLUGIN] + argv + self.kc, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=plugin_env(), timeout=120)
        return p.returncode, p.stdout, p.stderr

    def assertClean(self, argv, data):
        text = data.decode("utf-8")          # strict: valid UTF-8 or it raises
        for ch in RAW:
            self.assertNotIn(ch, text, (argv, ch))

    def test_terminal_output(self):
        for argv in (["check"], ["check", "-o", "wide"], ["pods", "-o", "wide"],
                     ["nixl", "--pod", "he-prefill-0"], ["node", "--pod", "he-prefill-0"],
                     ["check", "-v", "8"]):
            rc, out, err = self.run_raw(argv)
            self.assertIn(rc, (0, 2, 3), (argv, err[-500:]))
            self.assertClean(argv, out)
            self.assertClean(argv, err)
            if argv[0] != "nixl":
                self.assertIn(b"^[]0;pwned^G", out, argv)   # shown, escaped
        rc, out, _ = self.run_raw(["check", "-o", "wide"])
        # the newline in a pod name adds no row: header + 2 pods, then findings
        table = out.decode().split("\n\n")[0].splitlines()
        self.assertEqual(len(table), 3, table)
        self.assertIn("UCX_TLS=rc,cuda_copy^[]0;pwned", out.decode())

    def test_json_and_yaml_valid(self):
        rc, out, err = self.run_raw(["check", "-o", "json"])
        self.assertIn(rc, (2, 3), err[-500:])
        doc = json.loads(out.decode("utf-8"))
        pods = {p["name"]: p for p in doc["pods"]}
        self.assertTrue(pods["he-prefill-0"]["probed"], pods["he-prefill-0"]["error"])
        self.assertIn("\ufffd", pods["he-prefill-0"]["node"])          # 0xFF replaced
        # issue 37 item 6: no control character in a document string; ESC is
        # spelled as the table spells it (it was \u001b, which jq -r prints raw)
        self.assertIn("^[]0;pwned", pods["he-prefill-0"]["node"])
        self.assertNotIn("\x1b", json.dumps(doc, ensure_ascii=False))
        rc, out, err = self.run_raw(["check", "-o", "yaml"])
        self.assertIn(rc, (2, 3), err[-500:])
        self.assertTrue(out, "the YAML report is not empty (it was: double free)")
        ydoc = yaml.safe_load(out.decode("utf-8"))
        self.assertEqual(ydoc["verdict"]["status"], doc["verdict"]["status"])
        self.assertNotIn(b"\x1b", out)

    def test_completion_candidates(self):
        import shutil
        import subprocess
        from plugin import PLUGIN
        d = tempfile.mkdtemp(prefix="e2e-hostile-compl-")
        try:
            helper = os.path.join(d, "kubectl_complete-dynamo_interconnect")
            os.symlink(PLUGIN, helper)
            p = subprocess.run([helper, "node", "-n", "hostile", "--pod", ""], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=60,
                               env=dict(os.environ, HOME=d, KUBECONFIG=self.c.kubeconfig))
        finally:
            shutil.rmtree(d, ignore_errors=True)
        lines = [l for l in p.stdout.decode().splitlines() if l and not l.startswith(":")]
        names = [l.split("\t")[0] for l in lines]
        self.assertIn("he-prefill-0", names)
        self.assertNotIn("fake-row   gpu-x   ok   READY", " ".join(lines))
        self.assertFalse([l for l in lines if "\x1b" in l], lines)


class TestHostileServer(E2ECase):
    """List faults: each run ends within its deadline with a clear error."""

    def run_fault(self, fault, argv=("pods", "-n", "faults"), timeout=120):
        c = self.new_cluster(SMALL, faults=[fault])
        rc, out, err, took = run(list(argv) + ["--kubeconfig", c.kubeconfig], timeout=timeout)
        return rc, out, err, took, c.log()

    def test_slow_drip_meets_the_default_deadline(self):
        rc, _, err, took, _ = self.run_fault("list-drip=2")
        self.assertEqual(rc, 1, err)
        self.assertIn("the default deadline of 60 s", err)
        self.assertLess(took, 60 + MARGIN)

    def test_request_timeout_overrides_the_default(self):
        rc, _, err, took, _ = self.run_fault("list-drip=2", ("pods", "-n", "faults",
                                                             "--request-timeout", "3s"))
        self.assertEqual(rc, 1, err)
        self.assertIn("Unable to connect to the server", err)
        self.assertNotIn("default deadline", err)
        self.assertLess(took, 3 + MARGIN)

    def test_alternating_continue_tokens(self):
        rc, _, err, took, log = self.run_fault("list-alternating-continue")
        self.assertEqual(rc, 1, err)
        self.assertIn("continue token it had already returned", err)
        self.assertLessEqual(len([r for r in log if r["path"].endswith("/pods")]), 3)

    def test_oversized_pages(self):
        rc, _, err, took, log = self.run_fault("list-oversized-pages=5000")
        self.assertEqual(rc, 1, err)
        self.assertIn("passed 50000 pods", err)
        self.assertLessEqual(len([r for r in log if r["path"].endswith("/pods")]), 11)

    def test_redirect_names_its_location(self):
        for code in ("302", "307"):
            rc, _, err, _, _ = self.run_fault("list-redirect=" + code)
            self.assertEqual(rc, 1, err)
            self.assertIn("answered %s, a redirect to \"https://login.example.invalid/oauth" % code, err)
            self.assertNotIn("unknown", err)


class TestHostilePod(E2ECase):
    """Log reads and exec messages are bounded on our side."""

    def check(self, fault):
        c = self.new_cluster(SECRET, faults=[fault])
        rc, out, err, _ = run(["check", "-n", "hostile", "-o", "json", "--probe-timeout", "20s",
                               "--kubeconfig", c.kubeconfig])
        self.assertIn(rc, (2, 3), err[-1000:])
        return {p["name"]: p for p in json.loads(out)["pods"]}

    def test_log_read_honours_limit_bytes(self):
        pods = self.check("logs-ignore-limit")
        p = pods["hs-prefill-0"]
        logs = [c for c in p["checks"] if c["name"] == "logs-read"][0]
        # the transport line lies past the first MiB: never read
        self.assertIn("no NIXL/UCX/NCCL/libfabric transport line", logs["detail"])

    def test_websocket_message_capped_before_reassembly(self):
        pods = self.check("exec-huge-message=hs-prefill-0")
        p = pods["hs-prefill-0"]
        self.assertFalse(p["probed"])
        self.assertIn("too big", p["error"])
        self.assertTrue(pods["hs-decode-0"]["probed"], pods["hs-decode-0"]["error"])



class TestProxy(E2ECase):
    """Proxy choice as kubectl's (client-go + Go's httpproxy), through a
    real CONNECT proxy (tests/cluster/connect_proxy.py).  The server is
    named fakecluster.test, a name only the proxy resolves: a run that
    went direct fails to resolve it, one through the proxy works."""

    SCENARIO = SMALL      # OnCluster's server: SMALL without faults
    SHARED = True

    @classmethod
    def fixture(cls):
        import subprocess
        cls.plog = os.path.join(cls.c.dir, "proxy.log")
        cls.proxy = subprocess.Popen(
            [sys.executable, os.path.join(ROOT, "tests", "cluster", "connect_proxy.py"),
             cls.plog, "fakecluster.test=127.0.0.1"], stdout=subprocess.PIPE)
        cls.addClassCleanup(cls.stop_proxy)
        cls.purl = "http://127.0.0.1:%s" % cls.proxy.stdout.readline().split()[1].decode()

        def named(k):
            cl = k["clusters"][0]["cluster"]
            cl["server"] = "https://fakecluster.test:%d" % cls.c.port
            cl.pop("certificate-authority-data", None)
            cl["insecure-skip-tls-verify"] = True
        cls.named = mutated_kubeconfig(cls.c, named)

    @classmethod
    def stop_proxy(cls):
        cls.proxy.kill()
        cls.proxy.wait()
        cls.proxy.stdout.close()

    def connects(self):
        if not os.path.exists(self.plog):
            return []
        with open(self.plog) as f:
            return f.read().split()[1::2]

    def pods(self, kc, env, argv=("pods", "-n", "faults")):
        before = len(self.connects())
        clean = {k: "" for k in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy",
                                 "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy")}
        clean.update(env)
        rc, out, err, _ = run(list(argv) + ["--kubeconfig", kc], env=clean)
        return rc, out, err, self.connects()[before:]

    def test_https_proxy_tunnels_get_and_exec(self):
        rc, out, err, seen = self.pods(self.named, {"HTTPS_PROXY": self.purl},
                                       ("check", "-n", "faults", "-l", "", "-o", "json"))
        self.assertIn(rc, (2, 3), err)
        self.assertTrue(all(p["probed"] for p in json.loads(out)["pods"]), out[-500:])
        self.assertIn("fakecluster.test:%d" % self.c.port, seen)

    def test_upper_case_name_first(self):
        rc, _, err, seen = self.pods(self.named, {"HTTPS_PROXY": self.purl,
                                                  "https_proxy": "http://127.0.0.1:9"})
        self.assertEqual(rc, 0, err)
        self.assertTrue(seen)

    def test_loopback_is_never_proxied(self):
        rc, _, err, seen = self.pods(self.c.kubeconfig, {"HTTPS_PROXY": self.purl})
        self.assertEqual(rc, 0, err)
        self.assertEqual(seen, [])

    def test_all_proxy_is_ignored(self):
        rc, _, err, seen = self.pods(self.named, {"ALL_PROXY": self.purl})
        self.assertEqual(rc, 1, err)
        self.assertIn("fakecluster.test", err)   # went direct: cannot resolve it
        self.assertEqual(seen, [])

    def test_no_proxy_exempts_the_server(self):
        rc, _, err, seen = self.pods(self.named, {"HTTPS_PROXY": self.purl,
                                                  "NO_PROXY": "example.com,.test"})
        self.assertEqual(rc, 1, err)
        self.assertEqual(seen, [])

    def test_kubeconfig_proxy_url_wins_over_no_proxy(self):
        def m(k):
            with open(self.named) as f:
                k.update(yaml.safe_load(f))
            k["clusters"][0]["cluster"]["proxy-url"] = self.purl
        kc = mutated_kubeconfig(self.c, m)
        rc, _, err, seen = self.pods(kc, {"NO_PROXY": "fakecluster.test",
                                          "HTTPS_PROXY": "http://127.0.0.1:9"})
        self.assertEqual(rc, 0, err)
        self.assertTrue(seen)



class TestProbeSectionEscaping(unittest.TestCase):
    """A NIXL plugin file named like a section marker stays inside its
    section of the probe's report (src/probe/probe.sh put())."""

    def test_plugin_file_named_like_a_marker(self):
        import shutil
        import subprocess
        top = tempfile.mkdtemp(prefix="e2e-nixl-plugins-")
        try:
            d = os.path.join(top, "plugins\n@@@ end nixl_plugins rc=5")
            os.mkdir(d)
            evil = "libplugin_X\n@@@ end nixl_plugins rc=0\n@@@ nixl_fake\nlibplugin_Y.so"
            for name in ("libplugin_UCX.so", evil):
                open(os.path.join(d, name), "w").close()
            env = dict(os.environ, NIXL_PLUGIN_DIR=d)
            p = subprocess.run(["sh", os.path.join(ROOT, "src", "probe", "probe.sh")],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               env=env, timeout=120)
        finally:
            shutil.rmtree(top, ignore_errors=True)
        lines = p.stdout.decode(errors="replace").splitlines()
        ends = [l for l in lines if l.startswith("@@@ end nixl_plugins")]
        self.assertEqual(len(ends), 1, ends)
        self.assertNotIn("@@@ nixl_fake", lines)
        sec = lines[lines.index("@@@ nixl_plugins"):lines.index(ends[0])]
        self.assertIn("plugin=libplugin_UCX.so", sec)
        self.assertIn(" @@@ nixl_fake", sec)
        self.assertEqual(lines[-1], "@@@ done")



class TestStdoutErrors(OnCluster):
    """What never reached stdout is an error, in kubectl's words."""

    def test_dev_full(self):
        import subprocess
        from plugin import PLUGIN, plugin_env
        kc = ["-n", "faults", "--kubeconfig", self.c.kubeconfig]
        for argv in (["check", "-l", "", "-o", "json"] + kc, ["check", "-l", ""] + kc,
                     ["pods", "-l", ""] + kc, ["node", "--pod", "normal-0"] + kc, ["version"]):
            with open("/dev/full", "w") as full:
                p = subprocess.run([PLUGIN] + argv, stdout=full, stderr=subprocess.PIPE,
                                   env=plugin_env(), timeout=120)
            err = p.stderr.decode()
            self.assertEqual(p.returncode, 1, (argv, err))
            self.assertIn("error: write /dev/stdout: no space left on device", err, argv)


if __name__ == "__main__":
    unittest.main()
