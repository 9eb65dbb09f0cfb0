#!/usr/bin/python3
"""A probe that the image cannot stall (issue 37 item 7): the real probe
script (src/probe/probe.sh) runs in pods of scenarios/hostile-probe.yaml,
each holding one thing an image may hold that stalled it or left a process
behind: a FIFO or a /dev/zero link at nixl-versions.txt or at Mooncake's
METADATA, a 1 GiB line in /etc/ld.so.conf, an include glob matching 30,000
long names, a tool that ignores SIGTERM, a tool that leaves a child holding
its output.

Each probe runs through build/tools/di_exec with a generous deadline
(DEADLINE_MS): a stalled probe is seen as an exec that did not finish (the
assertion is on the outcome and the report, never on how long it took).
Then the pod's process table (ps in the pod's PID namespace) must hold only
the pod's own first process and its sleep: nothing of the probe survives.
Last, `check -o json` on the same pods: every pod probed, and where the
hostile file fed a check, that check says why it could not look.

Environment: DI_PLUGIN, DI_TOOLS (directory holding di_exec), DI_PROBE (the
script; default src/probe/probe.sh).
"""
import concurrent.futures
import json
import os
import subprocess
import time
import unittest

from base import ROOT, E2ECase

TOOLS = os.environ.get("DI_TOOLS") or os.path.join(ROOT, "build", "tools")
DI_EXEC = os.path.join(os.path.abspath(TOOLS), "di_exec")
SCENARIO = os.path.join(ROOT, "tests", "cluster", "scenarios", "hostile-probe.yaml")
PROBE = os.environ.get("DI_PROBE") or os.path.join(ROOT, "src", "probe", "probe.sh")
# A healthy probe of the minimal profile ends in a few seconds; a tool that
# ignores SIGTERM costs its 5 s limit and the 2 s before SIGKILL.  A stalled
# one never ends: this only has to be far above the first and finite.
DEADLINE_MS = 90000
SITE = "/usr/local/lib/python3.12/dist-packages"
META = SITE + "/mooncake_transfer_engine-0.3.12.dist-info/METADATA"
PODS = ("hp-versions-fifo", "hp-versions-zero", "hp-metadata-fifo", "hp-metadata-zero",
        "hp-ldconf-line", "hp-ldconf-glob", "hp-tool-term", "hp-tool-daemon")
# The pod's own processes (fc_podinit: the first process loops on sleep).
POD_OWN = ("sh -c trap 'exit 0' TERM; while :; do sleep 3600 & wait; done", "sleep 3600")


def di_exec(kubeconfig, pod, argv, timeout_ms, stdin_file=None):
    cmd = [DI_EXEC, "--kubeconfig", kubeconfig, "-n", "demo", "--timeout-ms", str(timeout_ms),
           "--max-output", str(4 << 20)]
    if stdin_file:
        cmd += ["--stdin-file", stdin_file]
    cmd += [pod, "--"] + list(argv)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=timeout_ms / 1000.0 + 60)
    lines = p.stdout.decode().splitlines()
    if p.returncode != 0 or len(lines) != 1:
        return {"outcome": "di_exec failed", "stdout": "", "message": p.stderr.decode()[-2000:]}
    return json.loads(lines[0])


def sections(out):
    """{NAME: (body lines, rc)} of a probe report."""
    secs, cur, body = {}, None, []
    for ln in out.splitlines():
        if ln.startswith("@@@ end "):
            name, _, rc = ln[8:].rpartition(" rc=")
            secs[name] = (body, rc)
            cur, body = None, []
        elif ln.startswith("@@@ ") and ln != "@@@ done":
            cur, body = ln[4:], []
        elif cur is not None:
            body.append(ln)
    return secs


class HostileProbe(E2ECase):
    SCENARIO = SCENARIO
    TMP = "e2e-hostile-probe-"

    @classmethod
    def fixture(cls):
        if not os.access(DI_EXEC, os.X_OK):
            raise RuntimeError("%s not built (make unit-tests)" % DI_EXEC)
        with open(PROBE) as f:
            script = f.read()
        # On stdin of `sh -s`, in the shape the plugin sends it (cmd/probescript.c:
        # braces reading /dev/null, then exit): as argv the script would ride
        # the request line, which an API server may refuse as too long (414).
        stdin = os.path.join(cls.tmp, "probe-stdin.sh")
        with open(stdin, "w") as f:
            f.write("{\n%s\n} </dev/null\nexit\n" % script)
        with concurrent.futures.ThreadPoolExecutor(len(PODS)) as ex:
            runs = {p: ex.submit(di_exec, cls.c.kubeconfig, p, ["sh", "-s"], DEADLINE_MS, stdin)
                    for p in PODS}
            cls.res = {p: f.result() for p, f in runs.items()}
            left = {p: ex.submit(cls.leftovers, p) for p in PODS}
            cls.left = {p: f.result() for p, f in left.items()}

    @classmethod
    def leftovers(cls, pod):
        """The pod's processes besides its own and ps, after the probe's
        exec returned; a killed process may stay a zombie until the pod's
        first process reaps it, so this asks again for a while (a probe's
        child that lives on is there at every look)."""
        for _ in range(20):
            r = di_exec(cls.c.kubeconfig, pod, ["ps", "-e", "-o", "stat=,args="], 20000)
            procs = [ln.strip().split(None, 1) for ln in r.get("stdout", "").splitlines() if ln.strip()]
            rest = [a for st, a in procs if not st.startswith("Z") and a not in POD_OWN and
                    not a.startswith("ps -e")]
            if r["outcome"] == "success" and not rest:
                return []
            time.sleep(0.5)
        return rest if r["outcome"] == "success" else [r["message"]]

    def report(self, pod):
        r = self.res[pod]
        self.assertEqual(r["outcome"], "success", (pod, r["message"]))
        self.assertTrue(r["stdout"].rstrip("\n").endswith("@@@ done"), (pod, r["stdout"][-500:]))
        return sections(r["stdout"])

    def test_nothing_left(self):
        self.assertEqual(self.left, {p: [] for p in PODS})

    def test_versions_not_a_file(self):
        for p in ("hp-versions-fifo", "hp-versions-zero"):
            body, rc = self.report(p)["nixl_versions"]
            self.assertEqual(rc, "1", (p, body))
            self.assertEqual(body, ["not a regular file: /opt/dynamo/nixl-versions.txt"], p)

    def test_metadata_not_a_file(self):
        # the version then comes from the directory's name (mooncake.c)
        for p in ("hp-metadata-fifo", "hp-metadata-zero"):
            body, rc = self.report(p)["mooncake_dist"]
            self.assertEqual(rc, "0", (p, body))
            self.assertEqual(body, ["dist=mooncake_transfer_engine-0.3.12.dist-info",
                                    "metadata=not_a_file", "version="], p)

    def test_ldconf_long_line(self):
        body, rc = self.report("hp-ldconf-line")["nixl_stack"]
        lines = [ln for ln in body if ln.startswith("ldconf")]
        self.assertEqual(lines[0], "ldconf_file=/etc/ld.so.conf", body)
        self.assertEqual(lines[1], "ldconf=/usr/local/ucx/lib", body)
        # the second line is cut at the line bound: its start, NULs dropped
        self.assertTrue(lines[2].startswith("ldconf=/opt/hpcx/ucx/lib"), lines[2][:80])
        self.assertLessEqual(len(lines[2]), len("ldconf=") + 1024)
        self.assertIn("ldconf_cut=/etc/ld.so.conf", body)

    def test_ldconf_glob_capped(self):
        body, rc = self.report("hp-ldconf-glob")["nixl_stack"]
        files = [ln for ln in body if ln.startswith("ldconf_file=")]
        self.assertEqual(len(files), 16, files)
        self.assertEqual(files[0], "ldconf_file=/etc/ld.so.conf")
        self.assertTrue(files[1].startswith("ldconf_file=/etc/ld.so.conf.d/000000xxx"), files[1])
        self.assertIn("ldconf_files_capped=1", body)

    def test_tool_term_killed(self):
        body, rc = self.report("hp-tool-term")["ibstatus"]
        self.assertEqual(rc, "124", body)

    def test_tool_daemon_output(self):
        body, rc = self.report("hp-tool-daemon")["ibv_devinfo"]
        self.assertEqual((body, rc), (["hca_id: mlx5_4"], "0"))


class HostileCheck(E2ECase):
    """`check` on the same pods: each probed (no exec deadline hit); the
    NIXL version file's check says why it could not be read."""
    SCENARIO = SCENARIO
    CHECK = ["-n", "demo", "--probe-timeout", "%ds" % (DEADLINE_MS // 1000)]

    def test_all_probed(self):
        self.assertIsNotNone(self.doc, self.err)
        got = {p["name"]: (p["probed"], p.get("error")) for p in self.doc["pods"]}
        self.assertEqual(got, {p: (True, None) for p in PODS})

    def test_versions_check_skipped(self):
        # the file nixl-known-bad reads is no file: skipped, never ok
        for p in self.doc["pods"]:
            if p["name"] in ("hp-versions-fifo", "hp-versions-zero"):
                c = [c for c in p["checks"] if c["name"] == "nixl-known-bad"][0]
                self.assertEqual((c["status"], c["detail"]), (
                    "skipped", "NIXL version not reported: no known-bad row judged"), p["name"])


if __name__ == "__main__":
    unittest.main()
