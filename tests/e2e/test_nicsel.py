"""The NICs UCX will use (issue 25 items 1 and 2, checks.md E7,
ucx-nic-select), on the HGX H100 pair of healthy-ib (8 ConnectX-7
InfiniBand rails + mlx5_bond_0, the BlueField-3 Ethernet bond of the host
network, tests/cluster/profiles/h100-ib-ok/SOURCE.md).

Expectations, written before the check was run on these scenarios
(first commit), and revised once before it was run on nicsel-nogid: the
first rule failed every pod where UCX may take an Ethernet port beside the
InfiniBand rails, and test_calibration showed it failing real gpud
captures of that very layout (mlx5_0..7 InfiniBand + mlx5_8 Ethernet,
Dynamo's own recipe leaving UCX_NET_DEVICES unset) that are READY.  The
source shows a certain start-up failure only where UCX cannot open the
port (no GID: smg-project/smg#2520); elsewhere a risk (ai-dynamo/dynamo PR
#10852: fails where the host network does not route between the workers).
- nicsel-nogid (UCX_NET_DEVICES unset, the bond's GID table empty): NOT
  READY, ucx-nic-select fail naming mlx5_bond_0, and the suggested
  UCX_NET_DEVICES is the Active InfiniBand ports of the pod; fed back as
  the pods' UCX_NET_DEVICES: READY, ucx-nic-select ok.
- nicsel-unset (unset) and nicsel-all (=all), the bond's GIDs not
  captured: READY, ucx-nic-select warn naming mlx5_bond_0, the same
  suggestion.
- nicsel-far (only the four NUMA-0 rails listed): GPU4-7 reach the NICs UCX
  may use only across the CPU interconnect (SYS, openucx/ucx#11259): READY,
  ucx-nic-select warn naming those GPUs, and the suggestion is the rails
  nearest each GPU in nvidia-smi topo -m.
- healthy-ib (the rails listed): ucx-nic-select ok.
- nicsel-roce-dpu (RoCE, 8 ConnectX-7 rails + a BlueField-3 DPU function
  mlx5_8 at NODE/SYS, unset) and nicsel-spectrumx (the 8 rails BlueField-3
  SuperNICs PIX to their GPUs + the DPU function, unset): READY,
  ucx-nic-select warn naming mlx5_8:1 (BlueField) and no rail, the 8 rails
  suggested; fed back: READY, ucx-nic-select ok (written before the tool
  ran on them).
- nicsel-bond-members (RoCE, 8 rails + two host ports enslaved to bond0
  without a LAG, the inactive one with an empty GID table, unset): NOT
  READY, ucx-nic-select fail naming mlx5_8:1, mlx5_9:1 as bond0 members and
  no rail, the 8 rails suggested; fed back: ucx-nic-select ok (written
  before the tool ran on it).
- nicsel-no-topo (RoCE, no nvidia-smi so no topo -m; 8 rails each behind a
  GPU's PCIe switch in sysfs, the BlueField-3 DPU function mlx5_8 and a
  ConnectX-6 Dx host port mlx5_9 on root ports of their own, unset):
  ucx-nic-select warn naming mlx5_8:1 only, the 8 rails suggested without
  mlx5_9:1; fed back: ucx-nic-select ok (written before the tool ran on it).
The expected values are read from the profile's own sysfs and topo -m
capture, not written down here.
"""
import copy
import os
import shutil
import tempfile
import unittest

import yaml

from base import E2ECase, parse_json, scenario_report
from plugin import run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENARIOS = os.path.join(ROOT, "tests", "cluster", "scenarios")
PROFILE = os.path.join(ROOT, "tests", "cluster", "profiles", "h100-ib-ok")
CHECK = "ucx-nic-select"
ORDER = ["PIX", "PXB", "PHB", "NODE", "SYS"]


def read(path):
    with open(path) as f:
        return f.read().strip()


def ib_rails():
    """dev:port of every ACTIVE InfiniBand port in the profile's sysfs."""
    base = os.path.join(PROFILE, "root", "sys", "class", "infiniband")
    rails = set()
    for dev in os.listdir(base):
        ports = os.path.join(base, dev, "ports")
        for p in os.listdir(ports):
            d = os.path.join(ports, p)
            if read(os.path.join(d, "state")).endswith("ACTIVE") and \
                    read(os.path.join(d, "link_layer")) == "InfiniBand":
                rails.add("%s:%s" % (dev, p))
    return rails


def topo():
    """({gpu: {nic name: link}}, nic legend) from the topo -m capture."""
    text = read(os.path.join(PROFILE, "bin", "out", "nvidia-smi-topo-m.txt"))
    lines = text.splitlines()
    head = lines[0].split()
    legend = {}
    for line in lines:
        s = line.strip()
        if s.startswith("NIC") and ":" in s and len(s.split()) == 2:
            k, v = s.split(":")
            legend[k] = v.strip()
    rows = {}
    for line in lines[1:]:
        cells = line.split("\t")
        if not cells[0].startswith("GPU"):
            continue
        rows[cells[0]] = {legend[h]: cells[i + 1].strip() for i, h in enumerate(head)
                          if h.startswith("NIC")}
    return rows


def nearest(row, allowed):
    """The NICs of `allowed` at the best link of a topo row, and that link."""
    best = min(ORDER.index(row[n.split(":")[0]]) for n in allowed)
    return {n for n in allowed if ORDER.index(row[n.split(":")[0]]) == best}, ORDER[best]


def result(pod, name=CHECK):
    for c in pod.get("checks", []):
        if c["name"] == name:
            return c
    return None


def suggestion(check):
    return (check.get("suggestedEnv") or {}).get("UCX_NET_DEVICES")


def with_env(name, env_of):
    """The report of scenario `name` with env_of(pod name) over each pod's env."""
    with open(os.path.join(SCENARIOS, name + ".yaml")) as f:
        sc = copy.deepcopy(yaml.safe_load(f))
    for p in sc["pods"]:
        p["env"] = env_of(p["name"])
        p["profile"] = os.path.join(SCENARIOS, p["profile"])
        if p.get("logs"):
            p["logs"] = os.path.join(SCENARIOS, p["logs"])
    with tempfile.TemporaryDirectory(prefix="nicsel-") as d:
        path = os.path.join(d, "scenario.yaml")
        with open(path, "w") as f:
            yaml.safe_dump(sc, f)
        return scenario_report(path)


def feed_back(case, name, doc):
    """The scenario with each pod's suggested UCX_NET_DEVICES set: its report."""
    sugg = {p["name"]: suggestion(result(p)) for p in doc["pods"]}

    def env_of(pod):
        case.assertTrue(sugg.get(pod), pod)
        return {"UCX_NET_DEVICES": sugg[pod]}
    return with_env(name, env_of)


def assert_fed_back_ok(case, ready=True):
    """case's scenario fed back its suggestion: ucx-nic-select ok on every
    pod and, with ready, the pods and the report READY; the report."""
    case.assertIsNotNone(case.doc, case.err)
    rc, doc, err = feed_back(case, case.NAME, case.doc)
    case.assertIsNotNone(doc, err)
    for pod in doc["pods"]:
        case.assertEqual(result(pod)["status"], "ok", result(pod))
        if ready:
            case.assertEqual(pod["verdict"], "READY", pod["name"])
    if ready:
        case.assertEqual((rc, doc["verdict"]["status"]), (0, "READY"))
    return doc


def assert_names_only(case, c, named, rails):
    """c names every port of `named` and no rail, and suggests the rails."""
    for m in named:
        case.assertIn(m, c["detail"])
    for r in rails:
        case.assertNotIn(r, c["detail"])
    case.assertEqual(sorted(suggestion(c).split(",")), sorted(rails))


class NicSelBase(E2ECase):
    NAME = None

    @classmethod
    def fixture(cls):
        cls.rc, cls.doc, cls.err = scenario_report(os.path.join(SCENARIOS, cls.NAME + ".yaml"))

    def pods(self):
        self.assertIsNotNone(self.doc, self.err)
        pods = self.doc["pods"]
        self.assertEqual(len(pods), 2, [p["name"] for p in pods])
        return pods

    def judged(self, status, verdict=None):
        """Each pod's ucx-nic-select result, asserted to be `status` (and,
        given, the pod's verdict)."""
        out = []
        for pod in self.pods():
            c = result(pod)
            self.assertIsNotNone(c, pod["name"])
            self.assertEqual(c["status"], status, c)
            if verdict:
                self.assertEqual(pod["verdict"], verdict, pod["name"])
            out.append(c)
        return out


class TestUnsetAndAll(NicSelBase):
    """UCX_NET_DEVICES unset or =all lets UCX take the bond: fail where it
    has no GID, warn where its GIDs are not shown."""

    EXPECT = {"nicsel-nogid": ("fail", "NOT READY", 2),
              "nicsel-unset": ("warn", "READY", 0),
              "nicsel-all": ("warn", "READY", 0)}

    @classmethod
    def fixture(cls):
        cls.reports = {n: scenario_report(os.path.join(SCENARIOS, n + ".yaml"))
                       for n in cls.EXPECT}

    def test_names_the_bond_and_suggests_the_rails(self):
        rails = ib_rails()
        self.assertEqual(len(rails), 8, rails)
        for name, (rc, doc, err) in self.reports.items():
            status, verdict, code = self.EXPECT[name]
            with self.subTest(scenario=name):
                self.assertIsNotNone(doc, err)
                self.assertEqual((rc, doc["verdict"]["status"]), (code, verdict))
                for pod in doc["pods"]:
                    c = result(pod)
                    self.assertIsNotNone(c, pod["name"])
                    self.assertEqual(pod["verdict"], verdict, pod["name"])
                    self.assertEqual(c["status"], status, c)
                    self.assertIn("mlx5_bond_0", c["detail"])
                    if status == "fail":
                        self.assertIn("empty GID table", c["detail"])
                    got = suggestion(c)
                    self.assertIsNotNone(got, c)
                    self.assertEqual(sorted(got.split(",")), sorted(rails))
                    self.assertIn("UCX_NET_DEVICES=" + got, c["remedy"])

    def test_suggestion_fed_back_is_ready(self):
        self.rc, self.doc, self.err = self.reports["nicsel-nogid"]
        self.NAME = "nicsel-nogid"
        assert_fed_back_ok(self)


class TestFar(NicSelBase):
    NAME = "nicsel-far"

    def test_warn_names_far_gpus_and_suggests_affine_rails(self):
        listed = {"mlx5_0:1", "mlx5_1:1", "mlx5_4:1", "mlx5_5:1"}
        rows = topo()
        far = sorted(g for g, row in rows.items() if nearest(row, listed)[1] in ("NODE", "SYS"))
        self.assertEqual(len(far), 4, far)
        affine = set()
        for row in rows.values():
            affine |= nearest(row, ib_rails())[0]
        for pod in self.pods():
            c = result(pod)
            self.assertIsNotNone(c, pod["name"])
            self.assertEqual(c["status"], "warn", c)
            self.assertEqual(pod["verdict"], "READY", pod["name"])
            for g in far:
                self.assertIn(g, c["detail"])
            self.assertIn("SYS", c["detail"])
            self.assertEqual(sorted(suggestion(c).split(",")), sorted(affine))
        self.assertEqual((self.rc, self.doc["verdict"]["status"]), (0, "READY"))


class TestRailsListed(NicSelBase):
    NAME = "healthy-ib"

    def test_ok(self):
        for pod in self.pods():
            c = result(pod)
            self.assertIsNotNone(c, pod["name"])
            self.assertEqual(c["status"], "ok", c)
            self.assertNotIn("suggestedEnv", c)


def active_ports(profile):
    """{dev:port: hca_type} of every ACTIVE port in a profile's sysfs."""
    base = os.path.join(ROOT, "tests", "cluster", "profiles", profile, "root", "sys", "class",
                        "infiniband")
    out = {}
    for dev in os.listdir(base):
        for p in os.listdir(os.path.join(base, dev, "ports")):
            if read(os.path.join(base, dev, "ports", p, "state")).endswith("ACTIVE"):
                out["%s:%s" % (dev, p)] = read(os.path.join(base, dev, "hca_type"))
    return out


class RoceBlueField:
    """(mixin; issue 25: BlueField functions on RoCE) UCX_NET_DEVICES unset on a
    RoCE pair with a BlueField-3 DPU function beside the rails: warn naming
    the DPU function and no rail, the rails suggested, ok fed back."""
    PROFILE = DPU = None

    def rails(self):
        ports = active_ports(self.PROFILE)
        self.assertIn(self.DPU, ports)
        self.assertEqual(ports[self.DPU], "MT41692")
        return {p for p in ports if p != self.DPU}

    def test_warn_names_the_dpu_function_only(self):
        rails = self.rails()
        self.assertEqual(len(rails), 8, rails)
        for c in self.judged("warn", "READY"):
            self.assertIn("BlueField", c["detail"])
            assert_names_only(self, c, [self.DPU], rails)
        self.assertEqual((self.rc, self.doc["verdict"]["status"]), (0, "READY"))

    def test_suggestion_fed_back_is_ready(self):
        assert_fed_back_ok(self)


class TestRoceDpu(RoceBlueField, NicSelBase):
    """ConnectX-7 rails + a BlueField-3 DPU function (NODE/SYS)."""
    NAME, PROFILE, DPU = "nicsel-roce-dpu", "roce-h100-bf3-dpu", "mlx5_8:1"


class TestSpectrumX(RoceBlueField, NicSelBase):
    """BlueField-3 SuperNIC rails (PIX to their GPUs) + a DPU function: the
    SuperNICs stay rails."""
    NAME, PROFILE, DPU = "nicsel-spectrumx", "roce-spectrumx-bf3", "mlx5_8:1"

    def test_rails_are_bluefield(self):
        ports = active_ports(self.PROFILE)
        self.assertEqual(set(ports.values()), {"MT41692"})


class TestEmptyRailNotSuggested(NicSelBase):
    """(issue 39 item 1) nicsel-roce-dpu with rail mlx5_7:1's GID table
    emptied (every gids/N all zero, as on a port whose netdev lost its
    addresses): env-gid-index fails that port, so the suggestion must not
    name it; the 7 other rails are suggested."""
    EMPTY = "mlx5_7"

    @classmethod
    def fixture(cls):
        src = os.path.join(ROOT, "tests", "cluster", "profiles", "roce-h100-bf3-dpu")
        with tempfile.TemporaryDirectory(prefix="nicsel-") as d:
            prof = os.path.join(d, "roce-empty-rail")
            shutil.copytree(src, prof, symlinks=True)
            gids = os.path.join(prof, "root", "sys", "class", "infiniband", cls.EMPTY,
                                "ports", "1", "gids")
            for n in os.listdir(gids):
                with open(os.path.join(gids, n), "w") as f:
                    f.write("0000:0000:0000:0000:0000:0000:0000:0000\n")
            with open(os.path.join(SCENARIOS, "nicsel-roce-dpu.yaml")) as f:
                sc = yaml.safe_load(f)
            for p in sc["pods"]:
                p["profile"] = prof
                p["logs"] = os.path.join(SCENARIOS, p["logs"])
            path = os.path.join(d, "scenario.yaml")
            with open(path, "w") as f:
                yaml.safe_dump(sc, f)
            cls.rc, cls.doc, cls.err = scenario_report(path)

    def test_suggestion_leaves_out_the_empty_rail(self):
        for pod in self.pods():
            c = result(pod)
            self.assertEqual(c["status"], "warn", c)
            got = set(suggestion(c).split(","))
            self.assertNotIn(self.EMPTY + ":1", got, c)
            self.assertEqual(len(got), 7, got)


class TestBondMembers(NicSelBase):
    """(issue 25: bond members) two host ports enslaved to bond0 without a
    RoCE LAG, UCX_NET_DEVICES unset: fail naming both as bond0 members,
    the rails suggested, never a member; ok fed back."""
    NAME, PROFILE = "nicsel-bond-members", "roce-h100-bond-members"
    MEMBERS = ("mlx5_8:1", "mlx5_9:1")

    def test_fail_names_the_members_only(self):
        ports = active_ports(self.PROFILE)
        rails = {p for p in ports if p not in self.MEMBERS}
        self.assertEqual(len(rails), 8, rails)
        for c in self.judged("fail", "NOT READY"):
            self.assertIn("bond0", c["detail"])
            self.assertIn("empty GID table", c["detail"])
            assert_names_only(self, c, self.MEMBERS, rails)
        self.assertEqual((self.rc, self.doc["verdict"]["status"]), (2, "NOT READY"))

    def test_suggestion_fed_back_is_ok(self):
        assert_fed_back_ok(self, ready=False)


class TestNoTopo(NicSelBase):
    """(issue 25: RoCE without topo -m) the suggestion still leaves out the
    host port that shares no PCIe switch with a GPU, from sysfs."""
    NAME, PROFILE = "nicsel-no-topo", "roce-h100-no-topo"
    DPU, HOST = "mlx5_8:1", "mlx5_9:1"

    def test_suggestion_leaves_out_host_ports(self):
        self.assertFalse(os.path.exists(os.path.join(ROOT, "tests", "cluster", "profiles",
                                                     self.PROFILE, "bin", "nvidia-smi")))
        ports = active_ports(self.PROFILE)
        self.assertEqual(ports[self.DPU], "MT41692")
        self.assertEqual(ports[self.HOST], "MT4125")
        rails = {p for p in ports if p not in (self.DPU, self.HOST)}
        self.assertEqual(len(rails), 8, rails)
        for c in self.judged("warn"):
            self.assertIn("BlueField", c["detail"])
            self.assertNotIn(self.HOST, c["detail"])
            assert_names_only(self, c, [self.DPU], rails)

    def test_suggestion_fed_back_is_ok(self):
        assert_fed_back_ok(self, ready=False)


class TestSuggestEnv(E2ECase):
    """check --suggest-env prints, after the table, each pod's suggested
    variables as a container env list: the value of JSON's suggestedEnv."""

    SCENARIO = os.path.join(SCENARIOS, "nicsel-nogid.yaml")

    def test_env_block_is_the_json_suggestion(self):
        kc = ["--kubeconfig", self.c.kubeconfig, "-n", "demo"]
        rc, out, err = run(["check"] + kc + ["-o", "json"], timeout=300)
        doc = parse_json(out)
        self.assertIsNotNone(doc, err + out[:2000])
        want = {p["name"]: suggestion(result(p)) for p in doc["pods"]}
        rc2, text, err2 = run(["check"] + kc + ["--suggest-env"], timeout=300)
        self.assertEqual(rc2, rc, err2)
        self.assertIn("Suggested env (check --suggest-env):", text)
        block = text.split("Suggested env (check --suggest-env):", 1)[1]
        for name, value in want.items():
            self.assertIn("# demo/%s: env of its worker container\nenv:\n"
                          "  - name: UCX_NET_DEVICES\n    value: \"%s\"\n" % (name, value), block)
        # without the flag no block
        rc3, plain, _ = run(["check"] + kc, timeout=300)
        self.assertNotIn("Suggested env", plain)


if __name__ == "__main__":
    unittest.main()
