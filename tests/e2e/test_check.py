#!/usr/bin/python3
"""The plugin's `check` command end to end: one test cluster per scenario
(tests/cluster/scenarios), whose pods are realistic node profiles
(tests/cluster/profiles, see each SOURCE.md), probed for real in their
sandboxes.  Asserts exit codes, verdicts, which check fails on which pod,
fix-first, skipped-never-ok, and the table of `make demo`.  The broken
scenarios and their expected outcomes are one table,
tests/cluster/scenarios/broken.py: one test class per row, asserting that
row.  Classes on the same scenario share one cluster (fc.shared_cluster).

Environment: DI_PLUGIN (the binary; default ./kubectl-dynamo_interconnect).
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "cluster"))
import fc  # noqa: E402  (the test cluster's own test helper)
sys.path.insert(0, os.path.join(ROOT, "tests", "cluster", "scenarios"))
import broken  # noqa: E402  (the broken scenarios and their outcomes)

from plugin import PLUGIN, run  # noqa: E402
PROFILES = os.path.join(ROOT, "tests", "cluster", "profiles")
EXIT = {"READY": 0, "NOT READY": 2, "UNVERIFIED": 3}
# -o wide: a column per family (the default table names the families
# that are not ok in one NOT OK cell: test_newcomer_table.py).
HEADER = ["POD", "ROLE", "NODE", "RDMA", "GPUDIRECT", "GDRCOPY", "NVLINK", "UCX",
          "NIXL", "EFA", "ENV", "LIMITS", "SPEC", "LOGS", "CONTAINER", "NODE-IP",
          "UCX-VERSION", "NIXL-VERSION", "IMAGE", "VERDICT"]




def not_applicable(c):
    """A skip because the rule does not apply here (EFA rules on IB...):
    the JSON gives such results no remedy, while a skip for want of a
    tool or file always carries one."""
    return c["status"] == "skipped" and c.get("remedy") is None


class CheckCase:
    """Mixin (not a TestCase itself, so the base is never run alone: the
    e2e runner counts a skip as a failure)."""
    SCENARIO = None
    EXTRA = []          # more `check` arguments

    @classmethod
    def scenario(cls):
        return cls.SCENARIO

    @classmethod
    def setUpClass(cls):
        # one cluster per scenario and module (tearDownModule stops them)
        cls.c = fc.shared_cluster(cls.scenario())
        cls.rc, out, cls.err = run(["check", "--kubeconfig", cls.c.kubeconfig, "-n", "demo",
                                    "-o", "json"] + cls.EXTRA)
        cls.out = out
        try:
            cls.doc = json.loads(out)
        except ValueError:
            cls.doc = None

    # -- helpers ------------------------------------------------------
    def pod(self, name):
        for p in self.doc["pods"]:
            if p["name"] == name:
                return p
        self.fail("pod %s not in the report: %s" % (name, [p["name"] for p in self.doc["pods"]]))

    def check(self, pod, name):
        for c in self.pod(pod)["checks"]:
            if c["name"] == name:
                return c
        self.fail("check %s not reported for %s" % (name, pod))

    def statuses(self, pod, status):
        return sorted(c["name"] for c in self.pod(pod)["checks"] if c["status"] == status)

    def open_items(self, pod):
        """Links of the KV path that keep a pod from READY without failing
        it: those with no evidence (checks.md N).  Warnings never do."""
        return sorted(l["name"] for l in self.pod(pod)["links"] if l["status"] == "missing")

    def describe(self):
        return "rc=%s stderr=%r\n%s" % (self.rc, self.err[-2000:], self.out[:3000])

    # -- every scenario -----------------------------------------------
    def test_document(self):
        self.assertIsNotNone(self.doc, self.describe())
        self.assertEqual(self.doc["apiVersion"], "dynamo-interconnect/v1")
        self.assertEqual(self.doc["kind"], "InterconnectReport")
        v = self.doc["verdict"]
        self.assertIn(v["status"], EXIT)
        self.assertEqual(v["exitCode"], EXIT[v["status"]])
        self.assertEqual(self.rc, v["exitCode"], self.describe())
        for p in self.doc["pods"]:
            self.assertTrue(p["probed"], p)
            self.assertIsNone(p["error"], p)
            self.assertEqual(p["namespace"], "demo")
            self.assertEqual(p["container"], "main")
            self.assertEqual(p["phase"], "Running")
            names = [c["name"] for c in p["checks"]]
            self.assertEqual(len(names), len(set(names)), names)
            for c in p["checks"]:
                self.assertIn(c["status"], ("ok", "warn", "fail", "skipped"), c)
                self.assertTrue(c["detail"], c)
                if c["status"] == "ok":
                    self.assertIsNone(c["remedy"], c)
                if c["status"] in ("warn", "fail"):
                    self.assertTrue(c["remedy"], c)
            # The pod's verdict follows from its checks.
            st = [c["status"] for c in p["checks"]]
            links = {l["status"] for l in p["links"]}
            for l in p["links"]:
                self.assertIn(l["status"], ("proven", "broken", "missing"), l)
                self.assertTrue(l["name"] and l["detail"], l)
            if "fail" in st:
                self.assertEqual(p["verdict"], "NOT READY", p["name"])
            elif self.open_items(p["name"]):
                self.assertEqual(p["verdict"], "UNVERIFIED", p["name"])
            elif links == {"proven"}:
                self.assertEqual(p["verdict"], "READY", p["name"])
        if v["status"] == "NOT READY":
            self.assertTrue(v["fixFirst"])
            self.assertIsNone(v["unconfirmed"])
        elif v["status"] == "UNVERIFIED":
            self.assertTrue(v["unconfirmed"])
            self.assertIsNone(v["fixFirst"])
        else:
            self.assertIsNone(v["fixFirst"])
            self.assertIsNone(v["unconfirmed"])

    def test_workers_only(self):
        self.assertIsNotNone(self.doc, self.describe())
        roles = {p["name"]: p["role"] for p in self.doc["pods"]}
        for name, role in roles.items():
            self.assertIn(role, ("prefill", "decode"), name)
            self.assertNotIn("frontend", name)


# ---------------------------------------------------------------- healthy

class HealthyCase(CheckCase):  # mixin
    FABRIC = None
    MUST_BE_OK = []

    def test_ready(self):
        v = self.doc["verdict"]
        self.assertEqual((self.rc, v["status"]), (0, "READY"), self.describe())
        self.assertEqual(v["fabric"], self.FABRIC)
        self.assertEqual(v["findings"], [])
        for p in self.doc["pods"]:
            self.assertEqual(p["verdict"], "READY", p["name"])
            self.assertEqual(p["fabric"], self.FABRIC)
            self.assertEqual(self.statuses(p["name"], "fail"), [])
            self.assertEqual(self.statuses(p["name"], "warn"), [])
            self.assertEqual(self.open_items(p["name"]), [])

    def test_fast_path_evidence(self):
        for p in self.doc["pods"]:
            for name in self.MUST_BE_OK:
                self.assertEqual(self.check(p["name"], name)["status"], "ok",
                                 (p["name"], self.check(p["name"], name)))


IB_OK = ["rdma-devices", "rdma-ports", "rdma-verbs", "rdma-rate", "gpudirect-peermem",
         "gpudirect-ucx-md", "gpudirect-affinity", "gdrcopy-driver", "gdrcopy-ucx",
         "nvlink-links", "nvlink-fabric", "ucx-version", "ucx-rdma", "ucx-cuda",
         "nixl-installed", "nixl-plugin", "env-ucx-tls", "env-ucx-net-devices",
         "env-nccl-net", "limits-gpus", "limits-memlock", "limits-driver",
         "pod-rdma-resource", "pod-ipc-lock", "pod-shm", "limits-shm"]


class TestHealthyIB(HealthyCase, unittest.TestCase):
    SCENARIO = "healthy-ib.yaml"
    FABRIC = "infiniband"
    MUST_BE_OK = IB_OK

    def test_details(self):
        self.assertIn("8 ports Active", self.check("qwen-decode-0", "rdma-ports")["detail"])
        self.assertIn("nvidia_peermem", self.check("qwen-decode-0", "gpudirect-peermem")["detail"])
        self.assertIn("8 GPUs", self.check("qwen-prefill-0", "limits-gpus")["detail"])
        # Rules for other fabrics do not apply (and say so).
        for name in ("rdma-roce", "efa-devices", "efa-provider", "efa-hmem", "env-fi"):
            self.assertTrue(not_applicable(self.check("qwen-decode-0", name)), name)
        # Sub-component label contract: worker + sub-type prefill/decode.
        self.assertEqual(self.pod("qwen-prefill-0")["role"], "prefill")
        self.assertEqual(self.pod("qwen-decode-0")["role"], "decode")


class TestHealthyRoCE(HealthyCase, unittest.TestCase):
    SCENARIO = "roce-ok.yaml"
    FABRIC = "roce"
    MUST_BE_OK = [c for c in IB_OK] + ["rdma-roce", "env-gid-index"]

    def test_gid_index(self):
        # The profile pins index 3 (RoCE v2, IPv4) for UCX and NCCL: the
        # rule book judges the pin against each port's GID table (A9).
        self.assertIn("RoCE v2 GID", self.check("qwen-decode-0", "rdma-roce")["detail"])
        self.assertIn("UCX_IB_GID_INDEX=3", self.check("qwen-decode-0", "env-gid-index")["detail"])


class TestEFA(CheckCase, unittest.TestCase):
    SCENARIO = "efa-ok.yaml"
    EFA_OK = ["efa-devices", "efa-provider", "efa-hmem", "env-fi", "pod-host-ipc",
              "pod-rdma-resource", "nixl-installed", "nixl-plugin", "limits-gpus",
              "limits-memlock", "nvlink-links", "gpudirect-affinity",
              "limits-shm", "limits-hugepages"]

    def test_efa_fast_path(self):
        self.assertEqual(self.doc["verdict"]["fabric"], "efa")
        for p in self.doc["pods"]:
            self.assertEqual(p["fabric"], "efa")
            self.assertEqual(self.statuses(p["name"], "fail"), [], p["name"])
            for name in self.EFA_OK:
                self.assertEqual(self.check(p["name"], name)["status"], "ok", (p["name"], name))
            self.assertIn("libplugin_LIBFABRIC.so", self.check(p["name"], "nixl-plugin")["detail"])
            # IB/RoCE-only rules do not apply on EFA.
            for name in ("rdma-devices", "rdma-ports", "gpudirect-peermem", "ucx-rdma"):
                self.assertTrue(not_applicable(self.check(p["name"], name)), name)
            # NVSwitch fabric registration is N/A on A100: skipped, never ok.
            self.assertEqual(self.check(p["name"], "nvlink-fabric")["status"], "skipped")

    def test_verdict(self):
        # The NIXL backend comes from the pods' own --kv-transfer-config
        # (LIBFABRIC), so nothing is left open.
        v = self.doc["verdict"]
        self.assertEqual((self.rc, v["status"]), (0, "READY"), self.describe())
        for p in self.doc["pods"]:
            self.assertEqual(self.open_items(p["name"]), [], p["name"])
            self.assertEqual(self.check(p["name"], "nixl-backend")["status"], "ok")
            self.assertIn("LIBFABRIC", self.check(p["name"], "nixl-backend")["detail"])


class TestPCIeNoNVLink(CheckCase, unittest.TestCase):
    SCENARIO = "pcie-no-nvlink.yaml"

    def test_ready_with_warnings(self):
        # checks.md N: no NVLink and a far NIC are degradations off the
        # cross-pod RoCE path: listed and counted, READY all the same.
        v = self.doc["verdict"]
        self.assertEqual((self.rc, v["status"]), (0, "READY"), self.describe())
        self.assertEqual(v["fabric"], "roce")
        self.assertIsNone(v["unconfirmed"])
        self.assertGreaterEqual(v["warnings"], 2)
        self.assertTrue(any(f["name"] == "nvlink-links" and f["status"] == "warn"
                            for f in v["findings"]))
        for p in self.doc["pods"]:
            self.assertEqual(p["verdict"], "READY")
            self.assertEqual({l["status"] for l in p["links"]}, {"proven"}, p["links"])
            self.assertEqual(self.statuses(p["name"], "fail"), [])
            self.assertEqual(self.check(p["name"], "nvlink-links")["status"], "warn")
            self.assertIn("PCIe", self.check(p["name"], "nvlink-links")["detail"])
            self.assertEqual(self.check(p["name"], "gpudirect-affinity")["status"], "warn")
            # Fabric State N/A (no NVSwitch): not applicable, not ok, not fail.
            self.assertTrue(not_applicable(self.check(p["name"], "nvlink-fabric")))
            for name in ("rdma-devices", "rdma-ports", "rdma-roce", "gpudirect-peermem",
                         "ucx-rdma", "ucx-cuda", "limits-gpus"):
                self.assertEqual(self.check(p["name"], name)["status"], "ok", (p["name"], name))
            self.assertIn("4 GPUs", self.check(p["name"], "limits-gpus")["detail"])


# ---------------------------------------------------------------- broken

_BROKEN_DIR = []


def broken_scenario(row):
    """The scenario file of a row of broken.TABLE, written once per module."""
    if not _BROKEN_DIR:
        _BROKEN_DIR.append(tempfile.mkdtemp(prefix="e2e-broken-"))
    path = os.path.join(_BROKEN_DIR[0], "broken-%s.yaml" % row.name)
    return path if os.path.exists(path) else row.write(_BROKEN_DIR[0])


def tearDownModule():
    fc.stop_shared()
    for d in _BROKEN_DIR:
        subprocess.run(["rm", "-rf", d])


class BrokenCase(CheckCase):  # mixin
    """A healthy prefill (h100-ib-ok) and a decode with one thing broken:
    ROW (a row of broken.TABLE) says what and what `check` must say."""
    BROKEN = "qwen-decode-0"
    HEALTHY = "qwen-prefill-0"
    NODE = "gpu-h100-02"
    ROW = None

    @classmethod
    def scenario(cls):
        return broken_scenario(cls.ROW)

    def test_verdict(self):
        v, want = self.doc["verdict"], self.ROW.verdict
        self.assertEqual((self.rc, v["status"], v["exitCode"]), (EXIT[want], want, EXIT[want]), self.describe())
        self.assertEqual(self.pod(self.BROKEN)["verdict"], want)
        self.assertEqual(self.pod(self.HEALTHY)["verdict"], "READY")

    def test_intended_check_fails_on_broken_pod_only(self):
        row = self.ROW
        if row.check:
            self.assertEqual(self.check(self.BROKEN, row.check)["status"], "fail",
                             self.check(self.BROKEN, row.check))
            self.assertEqual(self.check(self.HEALTHY, row.check)["status"], "ok",
                             self.check(self.HEALTHY, row.check))
        self.assertEqual(set(self.statuses(self.BROKEN, "fail")),
                         ({row.check} if row.check else set()) | row.consequences)
        self.assertEqual(self.statuses(self.HEALTHY, "fail"), [])

    def test_fix_first(self):
        ff = self.doc["verdict"]["fixFirst"]
        if not self.ROW.check:
            self.assertIsNone(ff)
            return
        self.assertTrue(ff.startswith(self.ROW.check + " fail"), ff)
        self.assertIn(self.BROKEN, ff)
        self.assertIn(self.NODE, ff)
        self.assertNotIn(self.HEALTHY, ff)
        first = self.doc["verdict"]["findings"][0]
        self.assertEqual((first["name"], first["status"]), (self.ROW.check, "fail"), first)
        self.assertEqual(self.doc["verdict"]["fabric"], "infiniband")

    def test_one_root_cause(self):
        """The row's consequences (written with the row, before the fold
        existed) carry the row's check as their cause in JSON and have no
        finding of their own; the root carries none (checks.md N)."""
        if not self.ROW.check:
            return
        self.assertNotIn("cause", self.check(self.BROKEN, self.ROW.check))
        for name in self.ROW.consequences:
            self.assertEqual(self.check(self.BROKEN, name).get("cause"), self.ROW.check,
                             self.check(self.BROKEN, name))
            self.assertEqual([f for f in self.doc["verdict"]["findings"] if f["name"] == name], [])
        if self.ROW.consequences:
            first = self.doc["verdict"]["findings"][0]
            self.assertTrue(self.ROW.consequences <= set(first.get("folded", [])), first)

    def test_what_the_checks_say(self):
        for pod, want in ((self.BROKEN, self.ROW.broken), (self.HEALTHY, self.ROW.healthy)):
            for name, fields in want.items():
                c = self.check(pod, name)
                for k, v in fields.items():
                    if isinstance(v, list):     # substrings of detail / remedy
                        for part in v:
                            self.assertIn(part, c[k], (pod, c))
                    else:
                        self.assertEqual(c[k], v, (pod, c))


class ToolsMissingChecks:  # mixin of the tools-missing row's class
    # Checks whose only evidence is a tool that is gone from the image.
    # rdma-verbs is not one: the verbs stack's files (libibverbs and each
    # device's provider, checks.md A5) still show it without ibv_devinfo.
    NEED_TOOLS = ["ucx-version", "ucx-rdma", "ucx-cuda", "gpudirect-ucx-md", "limits-gpus",
                  "nvlink-links", "nvlink-fabric", "gpudirect-affinity"]

    def test_skipped_never_ok(self):
        for name in self.NEED_TOOLS:
            c = self.check("qwen-decode-0", name)
            self.assertEqual(c["status"], "skipped", c)
            self.assertFalse(not_applicable(c), c)      # a gap, not "does not apply"
            self.assertRegex(c["detail"], "not found", c)
            self.assertEqual(self.check("qwen-prefill-0", name)["status"], "ok", name)

    def test_file_based_checks_still_judge(self):
        # sysfs, /dev, /proc and env need no tool: still ok in the slim image.
        for name in ("rdma-devices", "rdma-ports", "gpudirect-peermem", "gdrcopy-driver",
                     "env-ucx-tls", "limits-memlock", "nixl-plugin", "rdma-verbs"):
            self.assertEqual(self.check("qwen-decode-0", name)["status"], "ok", name)


MORE = {"tools-missing": (ToolsMissingChecks,)}
ACRONYMS = {"ib": "IB", "ucx": "UCX", "nccl": "Nccl", "rdma": "RDMA", "tls": "Tls", "nixl": "Nixl"}


def _class_name(row):
    return "TestBroken" + "".join(ACRONYMS.get(w, w.capitalize()) for w in row.name.split("-"))


for _row in broken.TABLE:
    globals()[_class_name(_row)] = type(_class_name(_row), MORE.get(_row.name, ()) +
                                        (BrokenCase, unittest.TestCase), {"ROW": _row})


class TestShmRuntimeDefault(CheckCase, unittest.TestCase):
    """8-GPU workers without a /dev/shm emptyDir: the container really has
    the runtime's 64 MiB tmpfs, and df in the pod says so (H3)."""
    SCENARIO = "transfer.yaml"

    def test_limits_shm_measures_64_mib(self):
        for p in self.doc["pods"]:
            c = self.check(p["name"], "limits-shm")
            self.assertEqual(c["status"], "warn", c)
            self.assertIn("/dev/shm is 64 MiB in the container", c["detail"])
            self.assertIn("emptyDir", c["remedy"])
            self.assertEqual(self.check(p["name"], "pod-shm")["status"], "warn")


# ---------------------------------------------------------------- demo

class TestDemo(CheckCase, unittest.TestCase):
    SCENARIO = "demo.yaml"
    WORKERS = ["qwen-decode-0", "qwen-decode-1", "qwen-decode-2", "qwen-decode-3",
               "qwen-prefill-0", "qwen-prefill-1", "qwen-prefill-2"]
    # pod -> (node, the failing check that makes it NOT READY)
    BROKEN = {"qwen-decode-2": ("gpu-h100-05", "gpudirect-peermem"),    # no nvidia_peermem
              "qwen-prefill-2": ("gpu-h100-06", "rdma-devices"),        # no /dev/infiniband
              "qwen-decode-3": ("gpu-h100-07", "env-ucx-tls")}          # UCX_TLS=tcp

    def test_json(self):
        v = self.doc["verdict"]
        self.assertEqual((self.rc, v["status"]), (2, "NOT READY"), self.describe())
        self.assertEqual(sorted(p["name"] for p in self.doc["pods"]), self.WORKERS)
        for name in self.WORKERS:
            want = "NOT READY" if name in self.BROKEN else "READY"
            self.assertEqual(self.pod(name)["verdict"], want, name)
        for name, (node, check) in self.BROKEN.items():
            self.assertEqual(self.check(name, check)["status"], "fail", name)
            self.assertEqual(self.pod(name)["node"], node)
        # The most fundamental failure comes first: no verbs device at all.
        ff = v["fixFirst"]
        self.assertTrue(ff.startswith("rdma-devices fail on 1 of 7 pods: qwen-prefill-2"), ff)
        self.assertIn("gpu-h100-06", ff)
        # The demo's 3 broken pods read as 3 root causes (issue 22 item 5):
        # one fail finding each, everything that follows from it folded
        # under it, the odd node out and the pairs included.
        fails = [f for f in v["findings"] if f["status"] == "fail"]
        self.assertEqual(sorted(f["name"] for f in fails),
                         sorted(check for _, check in self.BROKEN.values()), fails)
        by = {f["name"]: f for f in fails}
        self.assertIn("node-consistency", by["gpudirect-peermem"].get("folded", []))
        self.assertIn("pair-consistency", by["env-ucx-tls"].get("folded", []))
        self.assertIn("pair-consistency", by["rdma-devices"].get("folded", []))
        self.assertTrue({"rdma-verbs", "ucx-rdma"} <= set(by["rdma-devices"]["folded"]))
        self.assertEqual(self.check("qwen-prefill-2", "ucx-rdma").get("cause"), "rdma-devices")
        self.assertFalse([f for f in v["findings"] if "differs across pods" in f["detail"]])
        self.assertFalse([f for f in v["findings"] if f["name"] in ("pair-consistency",
                                                                   "node-consistency")])

    def test_table(self):
        rc, out, err = run(["check", "--kubeconfig", self.c.kubeconfig, "-n", "demo", "-o", "wide"])
        self.assertEqual(rc, 2, err)
        lines = out.splitlines()
        self.assertEqual(lines[0].split(), HEADER)
        rows = [l.split() for l in lines[1:1 + len(self.WORKERS)]]
        self.assertEqual([r[0] for r in rows], self.WORKERS)
        for r in rows:
            # One token per cell (product.md "Output"): VERDICT is NotReady.
            self.assertEqual(len(r), len(HEADER), r)
            self.assertEqual(r[1], "decode" if "decode" in r[0] else "prefill")
        by_name = {r[0]: r for r in rows}
        for name in self.BROKEN:
            self.assertEqual(by_name[name][-1], "NotReady", name)
        self.assertEqual(by_name["qwen-decode-2"][HEADER.index("GPUDIRECT")], "fail")
        self.assertEqual(by_name["qwen-prefill-2"][HEADER.index("RDMA")], "fail")
        self.assertEqual(by_name["qwen-decode-3"][HEADER.index("ENV")], "fail")
        for r in rows:
            if r[0] not in self.BROKEN:
                self.assertEqual(r[-1], "Ready", r)
                self.assertEqual(r[HEADER.index("RDMA")], "ok", r)
        self.assertNotIn("qwen-frontend-0", out)
        self.assertRegex(out, r"(?m)^Verdict: NOT READY \(fabric: infiniband; 7 pods, 7 probed, 4 ready(, \d+ warnings?)?\)$")
        self.assertRegex(out, r"(?m)^Fix first: rdma-devices fail on 1 of 7 pods: qwen-prefill-2")


# ---------------------------------------------------------------- profiles

def _read(p):
    with open(p) as f:
        return f.read()


class TestProfiles(unittest.TestCase):
    """Each profile is one consistent machine; the variants are current."""

    def test_variants_generated(self):
        p = subprocess.run(["/usr/bin/python3", os.path.join(PROFILES, "gen_profiles.py"), "--check"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.assertEqual(p.returncode, 0, p.stdout.decode())

    def profiles(self):
        return sorted(d for d in os.listdir(PROFILES)
                      if os.path.isfile(os.path.join(PROFILES, d, "SOURCE.md")))

    def test_consistent(self):
        self.assertGreaterEqual(len(self.profiles()), 13)
        for prof in self.profiles():
            with self.subTest(profile=prof):
                self._consistent(os.path.join(PROFILES, prof))

    def _consistent(self, d):
        out = os.path.join(d, "bin", "out")
        env = dict(l.split("=", 1) for l in _read(os.path.join(d, "env")).splitlines() if "=" in l)
        sysfs = os.path.join(d, "root", "sys", "class", "infiniband")
        devs = sorted(os.listdir(sysfs)) if os.path.isdir(sysfs) else []
        devdir = os.path.join(d, "root", "dev", "infiniband")
        uverbs = sorted(f for f in os.listdir(devdir) if f.startswith("uverbs")) if os.path.isdir(devdir) else []
        # path-efa-ibp-fixed holds no uverbs node for the host's mlx5_0 on
        # purpose (its SOURCE.md: the fixed EFA device plugin)
        unopened = {"path-efa-ibp-fixed": 1}.get(os.path.basename(d), 0)
        if uverbs:
            self.assertEqual(len(uverbs) + unopened, len(devs))
        for tool_out, pat in (("ibstat.txt", r"^CA '(\S+)'"), ("ibv_devinfo.txt", r"^hca_id:\s+(\S+)"),
                              ("ibstatus.txt", r"^Infiniband device '(\S+)'")):
            f = os.path.join(out, tool_out)
            if os.path.exists(f) and "No IB devices" not in _read(f):
                self.assertEqual(sorted(re.findall(pat, _read(f), re.M)), devs, tool_out)
        f = os.path.join(out, "ucx_info-d.txt")
        if os.path.exists(f):
            ucx_devs = set(re.findall(r"^#         Device: (\w+):\d+$", _read(f), re.M))
            self.assertLessEqual(ucx_devs, set(devs))
        # ucx-net-devices-missing names one absent HCA on purpose (its
        # SOURCE.md); every other entry must exist.
        absent = {"ucx-net-devices-missing": ["mlx5_2"]}.get(os.path.basename(d), [])
        # "all" is UCX's keyword for every device (ucp_context.c), not a name
        names = [tok.split(":")[0] for tok in filter(None, env.get("UCX_NET_DEVICES", "").split(","))
                 if tok != "all"]
        self.assertEqual([n for n in names if n not in devs], absent, "UCX_NET_DEVICES")
        # NCCL_IB_HCA: a leading "^" (exclude) or "=" (exact names) applies to
        # the whole list, and an entry may name its port (NCCL env docs)
        hca = env.get("NCCL_IB_HCA", "").lstrip("^=")
        for tok in filter(None, hca.split(",")):
            self.assertIn(tok.split(":")[0], devs, "NCCL_IB_HCA")
        q = os.path.join(out, "nvidia-smi-q.txt")
        if os.path.exists(q):
            qt = _read(q)
            n = int(re.search(r"^Attached GPUs\s+: (\d+)", qt, re.M).group(1))
            uuids = re.findall(r"^    GPU UUID\s+: (\S+)", qt, re.M)
            self.assertEqual(len(uuids), n)
            self.assertEqual(re.findall(r"\(UUID: (\S+)\)", _read(os.path.join(out, "nvidia-smi-L.txt"))), uuids)
            nv = _read(os.path.join(out, "nvidia-smi-nvlink-status.txt"))
            if nv:
                self.assertEqual(re.findall(r"\(UUID: (\S+)\)", nv), uuids)
            topo = _read(os.path.join(out, "nvidia-smi-topo-m.txt"))
            self.assertEqual(len(re.findall(r"^GPU\d+\t", topo, re.M)), n)
            self.assertEqual(sorted(re.findall(r"^  NIC\d+: (\S+)$", topo, re.M)), devs)
            drv = re.search(r"^Driver Version\s+: (\S+)", qt, re.M).group(1)
            self.assertIn(drv, _read(os.path.join(d, "root", "proc", "driver", "nvidia", "version")))


if __name__ == "__main__":
    unittest.main()
