"""The NIC(s) each GPU's KV uses, VMs and real topologies (issue 25 items
1, 2 and 5; checks.md E7, B4, B7).

Expectations, written and committed before the tool was run on these
scenarios (each scenario's header says the same):
- nicgpu-hgx-h200-all (HGX H200, 8 InfiniBand rails + BlueField-3 bond +
  two ConnectX-6 Dx management ports + a down BlueField-3 port,
  UCX_NET_DEVICES=all): READY, ucx-nic-select warn naming mlx5_bond_0,
  mlx5_2 and mlx5_3, never the down mlx5_10; suggestion = the 8 Active
  InfiniBand ports; fed back: READY, ucx-nic-select ok.
- nicgpu-dgx-h100-storage (DGX H100, 8 compute rails + storage/in-band
  ConnectX-7 ports in Ethernet mode, unset): READY, ucx-nic-select warn
  naming mlx5_2, mlx5_3, mlx5_10, not the down mlx5_11; the same
  suggestion; fed back: READY, ucx-nic-select ok.
- nicgpu-kvm-pix (KVM guest, 8x H200 + 8x ConnectX-7 passthrough, PIX
  pairs, unset; ai-dynamo/dynamo#12463): READY with gpudirect-vm-p2p warn
  naming dynamo#12463, QEMU, PIX, that UCX_NET_DEVICES is unset, and ATS
  and ACS in its remedy; ucx-nic-select ok.  Without DMI in the pod
  (pcie-no-nvlink's profile has none): gpudirect-vm-p2p skipped, never ok.
  Scenario change after the first run: this first expected the skip on
  healthy-ib, whose profile h100-ib-ok had no DMI, unlike any real node
  (pods read /sys/class/dmi/id), and test_check showed the skip as a
  finding on the healthy scenarios, which must have none.  h100-ib-ok and
  roce-ok now carry a bare-metal DMI and cpuinfo (the scenario was
  unrealistic, not the tool wrong), so on healthy-ib gpudirect-vm-p2p is
  ok, "not a virtual machine", and the no-DMI skip is asserted where a
  profile truly has none.
- nicgpu-numa0-rails (8 GPUs, the 4 rails on NUMA 0): READY,
  gpudirect-affinity warn naming GPU4-7, ucx-nic-select ok.
- Every pod's JSON has gpuNics: one entry per GPU row of topo -m, with
  the NIC(s) UCX uses for that GPU's memory: UCX_NET_DEVICES's ports, or
  with unset/all every Active port, of which UCX ranks the nearest by its
  sysfs distance (ucs/sys/topo/base/topo.c: same PCIe switch > same NUMA
  node > PCIe host bridge > across NUMA); on these nodes that is each
  GPU's PIX rail, and for GPU4-7 of nicgpu-numa0-rails the four rails at
  SYS.
  Revised (issue 25's multi-rail item, before the tool models it): the
  entry lists the ports one NIXL put/get stripes over, UCX's multi-lane
  selection (ucp/proto/proto_multi.c) up to NIXL's rails (UCX_MAX_RMA_RAILS
  of the env, else 2, or 4 with UCX >= 1.20: ai-dynamo/nixl ucx_utils.cpp),
  lanes by bandwidth (the NIC's, capped by the distance: NODE 17 GB/s, PHB
  3.5 GB/s, SYS 220 MB/s), those under a quarter of the best dropped; so on
  these UCX 1.19 nodes each GPU's PIX rail and one NODE rail, and for GPU4-7
  of nicgpu-numa0-rails two of the four SYS rails; maxRails 2.
  TestRmaRailsEnv: UCX_MAX_RMA_RAILS=1 gives each GPU its PIX rail, =4 the
  PIX rail and three NODE rails.  Each NIC with its link layer and state; the GPU with its NUMA
  node and link.  Where a suggestion exists, each entry also has the
  NIC(s) under the suggested UCX_NET_DEVICES, and check --suggest-env
  prints that mapping as comment lines under the pod's env block.
The expected values are read from the profiles' own sysfs and topo -m.
"""
import os
import re
import unittest

import yaml

from base import E2ECase, parse_json, scenario_report
from plugin import run
from test_nicsel import ORDER, assert_fed_back_ok, result, suggestion, with_env

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENARIOS = os.path.join(ROOT, "tests", "cluster", "scenarios")
PROFILES = os.path.join(ROOT, "tests", "cluster", "profiles")


def read(path):
    with open(path) as f:
        return f.read().strip()


def ports(profile):
    """{dev:port: (state word, link layer)} from the profile's sysfs."""
    base = os.path.join(PROFILES, profile, "root", "sys", "class", "infiniband")
    out = {}
    for dev in os.listdir(base):
        pd = os.path.join(base, dev, "ports")
        for p in os.listdir(pd):
            d = os.path.join(pd, p)
            out["%s:%s" % (dev, p)] = (read(os.path.join(d, "state")).split()[-1],
                                       read(os.path.join(d, "link_layer")))
    return out


def ib_rails(profile):
    return {k for k, (st, ll) in ports(profile).items() if st == "ACTIVE" and ll == "InfiniBand"}


def nic_order(profile):
    """The NIC names in topo -m's column order (its legend)."""
    text = read(os.path.join(PROFILES, profile, "bin", "out", "nvidia-smi-topo-m.txt"))
    legend = [l.strip().split(":") for l in text.splitlines()
              if re.match(r"\s*NIC\d+: ", l)]
    return [v.strip() for k, v in sorted(legend, key=lambda kv: int(kv[0][3:]))]


def topo(profile):
    """({gpu index: {nic: link}}, {gpu index: numa}) of the profile's topo -m."""
    text = read(os.path.join(PROFILES, profile, "bin", "out", "nvidia-smi-topo-m.txt"))
    lines = text.splitlines()
    head = lines[0].split("\t")
    legend = {}
    for line in lines:
        s = line.strip()
        if s.startswith("NIC") and ":" in s and len(s.split()) == 2:
            k, v = s.split(":")
            legend[k] = v.strip()
    rows, numa = {}, {}
    numa_col = head.index("NUMA Affinity")
    for line in lines[1:]:
        cells = line.split("\t")
        if not cells[0].startswith("GPU"):
            continue
        g = int(cells[0][3:])
        # read() strips the header's leading tab: head[i] is cells[i + 1]
        rows[g] = {legend[h]: cells[i + 1].strip() for i, h in enumerate(head) if h.startswith("NIC")}
        numa[g] = int(cells[numa_col + 1])
    return rows, numa


# UCX's bandwidth of a lane for GPU memory: the NIC's, capped by the
# GPU-NIC distance (ucs/sys/topo/base/topo.c: under one PCIe switch, PIX/PXB,
# no cap; same NUMA node across host bridges, NODE, 17000 MB/s; through the
# host bridge, PHB, at most 3500 MB/s; across NUMA nodes, SYS, 220 MB/s;
# proto_common.c takes the minimum).  UCS_MBYTE is 2^20.
MIB = 2 ** 20
DIST_BW = {"PIX": float("inf"), "PXB": float("inf"), "NODE": 17000 * MIB,
           "PHB": 3500 * MIB, "SYS": 220 * MIB}


def rates(profile):
    """{dev:port: Gb/s} of the profile's sysfs ports (None when unreadable)."""
    base = os.path.join(PROFILES, profile, "root", "sys", "class", "infiniband")
    out = {}
    for dev in os.listdir(base):
        for p in os.listdir(os.path.join(base, dev, "ports")):
            m = re.match(r"(\d+)", read(os.path.join(base, dev, "ports", p, "rate")))
            out["%s:%s" % (dev, p)] = int(m.group(1)) if m else None
    return out


def max_rails(profile):
    """The rails one NIXL put/get may stripe over: UCX_MAX_RMA_RAILS of the
    worker's env, else what NIXL sets (ai-dynamo/nixl src/utils/ucx/
    ucx_utils.cpp: 4 with UCX >= 1.20, else 2; config.cpp modify() leaves a
    variable the environment sets)."""
    for line in read(os.path.join(PROFILES, profile, "env")).splitlines():
        if line.startswith("UCX_MAX_RMA_RAILS="):
            return int(line.split("=", 1)[1])
    v = read(os.path.join(PROFILES, profile, "bin", "out", "ucx_info-v.txt"))
    m = re.search(r"Library version: (\d+)\.(\d+)", v)
    return 4 if (int(m.group(1)), int(m.group(2))) >= (1, 20) else 2


# openucx/ucx history (issue 42 item 2, openucx/ucx#11680): PR #11547 is
# on master since 38c99d4 and on v1.22.x since ecb919e, the commit after
# the v1.22.0 tag (8a6b06f); in no tag up to v1.22.0.
UCX_11547 = ("38c99d4", "ecb919e")
UCX_V122_TAGS = ("8a6b06f", "9851e5e", "96e58a1", "f04c0b6")


def ucx_11547(profile):
    """Whether the profile's UCX build carries PR #11547's tie-break, from
    its ucx_info -v: the revision when it names the PR's commits or a
    v1.22.0 tag, else the version (before 1.22: no; 1.22.0 past the tag on
    v1.22.x, a later 1.22 or 1.23 master: yes; otherwise no)."""
    v = read(os.path.join(PROFILES, profile, "bin", "out", "ucx_info-v.txt"))
    m = re.search(r"Library version: (\d+)\.(\d+)\.(\d+)", v)
    g = re.search(r"Git branch '([^']*)', revision ([0-9a-f]+)", v)
    rev = g.group(2)[:7] if g else ""
    if rev in UCX_11547:
        return True
    if not m:
        return False
    ver = tuple(int(x) for x in m.groups())
    if ver < (1, 22, 0):
        return False
    if ver == (1, 22, 0):
        return bool(rev) and rev not in UCX_V122_TAGS and g.group(1) == "v1.22.x"
    return True


def ucx_choice(g, row, order, allowed, rate, rails, pr11547=False):
    """The ports of `allowed` UCX stripes GPU g's put/get over, and their
    best link (ucp/proto/proto_multi.c): lanes slower than a quarter of the
    fastest are dropped (UCX_MULTI_LANE_MAX_RATIO 4), then up to `rails`
    are taken greedily by bandwidth, a tie going to the tied device at
    g modulo their number in PCI order with UCX PR #11547 (pr11547), else
    to the first (here topo -m's NIC order stands for the PCI order)."""
    def bw(p):
        nic = rate[p] * 1e9 / 8 if rate.get(p) else float("inf")
        return min(nic, DIST_BW[row[p.split(":")[0]]])
    top = max(bw(p) for p in allowed)
    cand = sorted((p for p in allowed if bw(p) * 4 >= top), key=lambda p: order.index(p.split(":")[0]))
    got = []
    while cand and len(got) < rails:
        m = max(bw(p) for p in cand)
        tied = [p for p in cand if bw(p) == m]
        got.append(tied[g % len(tied)] if pr11547 else tied[0])
        cand.remove(got[-1])
    return set(got), min((row[p.split(":")[0]] for p in got), key=ORDER.index)


def gpu_nics(pod):
    return {e["gpu"]: e for e in pod.get("gpuNics") or []}


class Base(E2ECase):
    NAME = PROFILE = None

    @classmethod
    def fixture(cls):
        cls.rc, cls.doc, cls.err = scenario_report(os.path.join(SCENARIOS, cls.NAME + ".yaml"))

    def pods(self):
        self.assertIsNotNone(self.doc, self.err)
        self.assertEqual(len(self.doc["pods"]), 2, [p["name"] for p in self.doc["pods"]])
        return self.doc["pods"]

    def assert_gpu_nics(self, allowed, key="nics"):
        """Each pod's gpuNics[*][key] is UCX's choice among `allowed`."""
        rows, numa = topo(self.PROFILE)
        states, rate = ports(self.PROFILE), rates(self.PROFILE)
        order, rails = nic_order(self.PROFILE), max_rails(self.PROFILE)
        self.assertEqual(len(rows), 8)
        for pod in self.pods():
            got = gpu_nics(pod)
            self.assertEqual(sorted(got), sorted(rows), pod.get("gpuNics"))
            for g, row in rows.items():
                want, link = ucx_choice(g, row, order, allowed, rate, rails, ucx_11547(self.PROFILE))
                e = got[g]
                with self.subTest(pod=pod["name"], gpu=g):
                    self.assertEqual(sorted(n["device"] for n in e[key]), sorted(want), e)
                    self.assertEqual(e["numa"], numa[g], e)
                    if key == "nics":
                        self.assertEqual(e["link"], link, e)
                    for n in e[key]:
                        st, ll = states[n["device"]]
                        self.assertEqual((n["state"], n["linkLayer"]), (st, ll), n)


class OffFabric:
    """(mixin) unset/all on a node with ports that cannot carry KV: warn naming
    them, the rails suggested, READY with ucx-nic-select ok fed back."""
    BAD = KEPT = ()
    SET = None

    def test_warn_names_off_fabric_ports_only(self):
        rails = ib_rails(self.PROFILE)
        self.assertEqual(len(rails), 8, rails)
        for pod in self.pods():
            c = result(pod)
            self.assertIsNotNone(c, pod["name"])
            self.assertEqual(c["status"], "warn", c)
            self.assertEqual(pod["verdict"], "READY", pod["name"])
            for dev in self.BAD:
                self.assertIn(dev + ":1", c["detail"])
            for dev in self.KEPT:
                self.assertNotIn(dev + ":", c["detail"])
            got = suggestion(c)
            self.assertIsNotNone(got, c)
            self.assertEqual(sorted(got.split(",")), sorted(rails))
        self.assertEqual((self.rc, self.doc["verdict"]["status"]), (0, "READY"))

    def test_gpu_nics_under_ucx_default_and_suggestion(self):
        every = {k for k, (st, ll) in ports(self.PROFILE).items() if st == "ACTIVE"}
        self.assert_gpu_nics(every)
        self.assert_gpu_nics(ib_rails(self.PROFILE), key="suggested")
        for pod in self.pods():
            for e in pod["gpuNics"]:
                self.assertEqual(e["chosenBy"], self.SET, e)

    def test_suggestion_fed_back_is_ready(self):
        for pod in assert_fed_back_ok(self)["pods"]:
            for e in pod["gpuNics"]:
                self.assertEqual(e["chosenBy"], "UCX_NET_DEVICES", e)
                self.assertNotIn("suggested", e)


class TestHgxH200All(OffFabric, Base):
    NAME, PROFILE = "nicgpu-hgx-h200-all", "hgx-h200-mgmt-bf3"
    BAD, KEPT, SET = ("mlx5_bond_0", "mlx5_2", "mlx5_3"), ("mlx5_10",), "all"


class TestDgxH100Storage(OffFabric, Base):
    NAME, PROFILE = "nicgpu-dgx-h100-storage", "dgx-h100-storage"
    BAD, KEPT, SET = ("mlx5_2", "mlx5_3", "mlx5_10"), ("mlx5_11",), "unset"


class TestKvmPix(Base):
    NAME, PROFILE = "nicgpu-kvm-pix", "kvm-h200-pix"

    def test_warns_of_dynamo_12463(self):
        for pod in self.pods():
            c = result(pod, "gpudirect-vm-p2p")
            self.assertIsNotNone(c, pod["name"])
            self.assertEqual(c["status"], "warn", c)
            for word in ("ai-dynamo/dynamo#12463", "QEMU", "PIX", "UCX_NET_DEVICES is unset"):
                self.assertIn(word, c["detail"])
            for word in ("ATS", "ACS"):
                self.assertIn(word, c["remedy"])
            self.assertEqual(result(pod)["status"], "ok", result(pod))
            self.assertEqual(pod["verdict"], "READY", pod["name"])
        self.assertEqual((self.rc, self.doc["verdict"]["status"]), (0, "READY"))

    def test_gpu_nics_are_the_pix_pairs(self):
        self.assert_gpu_nics(ib_rails(self.PROFILE))
        for pod in self.pods():
            for e in pod["gpuNics"]:
                self.assertEqual(e["link"], "PIX", e)
                self.assertEqual(e["chosenBy"], "unset", e)


class TestNoDmi(Base):
    NAME = "pcie-no-nvlink"

    def test_vm_check_skipped_without_dmi(self):
        self.assertIsNotNone(self.doc, self.err)
        self.assertFalse(os.path.exists(os.path.join(PROFILES, "pcie-no-nvlink", "root", "sys",
                                                     "class", "dmi")))
        for pod in self.doc["pods"]:
            c = result(pod, "gpudirect-vm-p2p")
            self.assertIsNotNone(c, pod["name"])
            if c["applicable"]:
                self.assertEqual(c["status"], "skipped", c)
                self.assertIn("dmi", c["detail"])


class TestBareMetal(Base):
    NAME, PROFILE = "healthy-ib", "h100-ib-ok"

    def test_vm_check_ok_on_bare_metal(self):
        for pod in self.pods():
            c = result(pod, "gpudirect-vm-p2p")
            self.assertIsNotNone(c, pod["name"])
            self.assertEqual(c["status"], "ok", c)
            self.assertIn("not a virtual machine", c["detail"])

    def test_gpu_nics_follow_ucx_net_devices(self):
        self.assert_gpu_nics(ib_rails(self.PROFILE))
        for pod in self.pods():
            for e in pod["gpuNics"]:
                self.assertEqual(e["chosenBy"], "UCX_NET_DEVICES", e)


class TestNuma0Rails(Base):
    NAME, PROFILE = "nicgpu-numa0-rails", "h100-numa0-rails"

    def test_far_gpus(self):
        for pod in self.pods():
            c = result(pod, "gpudirect-affinity")
            self.assertEqual(c["status"], "warn", c)
            for g in range(4, 8):
                self.assertIn("GPU%d" % g, c["detail"])
            self.assertEqual(result(pod)["status"], "ok", result(pod))
            self.assertEqual(pod["verdict"], "READY", pod["name"])
        self.assertEqual((self.rc, self.doc["verdict"]["status"]), (0, "READY"))

    def test_gpu_nics_cross_numa(self):
        rails = ib_rails(self.PROFILE)
        self.assertEqual(len(rails), 4, rails)
        self.assert_gpu_nics(rails)
        for pod in self.pods():
            got = gpu_nics(pod)
            for g in range(4, 8):
                self.assertEqual(got[g]["link"], "SYS", got[g])
                # four rails tie at SYS; NIXL's 2 rails (UCX 1.19) take two
                self.assertEqual(len(got[g]["nics"]), max_rails(self.PROFILE), got[g])
                self.assertEqual(max_rails(self.PROFILE), 2)
                self.assertEqual(got[g]["maxRails"], 2, got[g])


class TestRmaRailsEnv(Base):
    """UCX_MAX_RMA_RAILS in the worker's env caps the rails of each GPU
    (NIXL leaves a set variable as it is): 1 is each GPU's PIX rail alone,
    4 its PIX rail and three rails at NODE (17 GB/s, above a quarter of the
    400 Gb/s rail, so UCX_MULTI_LANE_MAX_RATIO keeps them)."""
    NAME, PROFILE = "healthy-ib", "h100-ib-ok"

    def test_env_caps_the_rails(self):
        rows, _ = topo(self.PROFILE)
        rate, order = rates(self.PROFILE), nic_order(self.PROFILE)
        rails = ib_rails(self.PROFILE)
        for n in (1, 4):
            rc, doc, err = with_env(self.NAME, lambda pod: {"UCX_MAX_RMA_RAILS": str(n)})
            self.assertIsNotNone(doc, err)
            for pod in doc["pods"]:
                got = gpu_nics(pod)
                self.assertEqual(sorted(got), sorted(rows))
                for g, row in rows.items():
                    want, link = ucx_choice(g, row, order, rails, rate, n, ucx_11547(self.PROFILE))
                    with self.subTest(rails=n, pod=pod["name"], gpu=g):
                        self.assertEqual(len(want), n)
                        self.assertEqual(sorted(x["device"] for x in got[g]["nics"]), sorted(want))
                        self.assertEqual(got[g]["link"], "PIX")
                        self.assertEqual(got[g]["maxRails"], n)
                        if n == 4:
                            self.assertEqual(sorted(row[x.split(":")[0]] for x in want),
                                             ["NODE", "NODE", "NODE", "PIX"])


class TestSuggestEnvMapping(E2ECase):
    """--suggest-env: under each pod's env block, one comment line per GPU
    with the NIC(s) it uses under the suggested value (YAML comments, so
    the block stays pasteable)."""

    SCENARIO = os.path.join(SCENARIOS, "nicgpu-hgx-h200-all.yaml")

    def test_per_gpu_lines(self):
        kc = ["--kubeconfig", self.c.kubeconfig, "-n", "demo"]
        rc, out, err = run(["check"] + kc + ["-o", "json"], timeout=300)
        doc = parse_json(out)
        self.assertIsNotNone(doc, err + out[:2000])
        rc2, text, err2 = run(["check"] + kc + ["--suggest-env"], timeout=300)
        self.assertEqual(rc2, rc, err2)
        block = text.split("Suggested env (check --suggest-env):", 1)[1]
        for pod in doc["pods"]:
            value = suggestion(result(pod))
            head = ("# demo/%s: env of its worker container\nenv:\n"
                    "  - name: UCX_NET_DEVICES\n    value: \"%s\"\n" % (pod["name"], value))
            self.assertIn(head, block)
            after = block.split(head, 1)[1].split("\n# demo/", 1)[0]
            lines = [l for l in after.splitlines() if l.strip().startswith("# GPU")]
            self.assertEqual(len(lines), 8, after)
            for e in pod["gpuNics"]:
                line = [l for l in lines if l.strip().startswith("# GPU%d " % e["gpu"])]
                self.assertEqual(len(line), 1, lines)
                for n in e["suggested"]:
                    self.assertIn(n["device"], line[0])
                for n in e["nics"]:
                    self.assertIn(n["device"], line[0])
            parsed = yaml.safe_load(head + after)
            self.assertEqual(parsed["env"], [{"name": "UCX_NET_DEVICES", "value": value}])


if __name__ == "__main__":
    unittest.main()
