#!/usr/bin/python3
"""Prefill and decode on the wire (issue 25 items 3 and 4, docs/checks.md
A10, D4b): whether the RoCE GIDs the two KV libraries use reach each other, each
scenario's verdict written here before the tool was run on it.

- gid-routed: two racks of a routed RoCE v2 fabric, RoCE v2 IPv4 GIDs in
  different /26 subnets with a static route per rail: READY, no pair line.
- gid-noroute: the same, but decode's rails have no route to prefill's
  rack: NOT READY on a pair-consistency fail naming the missing route.
- gid-linklocal: link-local-only GID tables in the same two subnets: NOT
  READY, env-gid-index warns on both pods (one pod cannot tell its peer's
  segment: issue 39 item 4 changed it from fail) and the pair line fails:
  the link-local GID does not cross the subnets.
- topo-gid-linklocal-flat: the same GIDs on one flat L2 segment per rail
  (one /24 per rail, no route): READY, env-gid-index warns, no pair line.
- mooncake-gid-auto: SGLang workers on the Mooncake backend, the rails'
  IPv4 GIDs listed without a netdev, MC_GID_INDEX unset: Mooncake's own
  choice is the netdev-backed link-local GID 1: NOT READY, env-gid-index
  warns naming Mooncake's GID 1 and the pair line says it does not cross
  the subnets (kvcache-ai/Mooncake#2747).
  Its profiles pip-install mooncake-transfer-engine 0.3.12.post1.
- mooncake-gid-auto-old: the same with Mooncake 0.3.9, whose first-match
  scan (<= 0.3.11) takes the IPv4 GID 3: READY, env-gid-index ok.
- mooncake-gid-auto-nover: the same with no Mooncake dist-info (version
  unknown): READY, env-gid-index warns naming GID 1 (>= 0.3.12) and GID 3
  (<= 0.3.11) and that the version decides; no pair line.
- mooncake-gid-pinned: the same with MC_GID_INDEX=3: READY.
- nvlink-domain-one / -two: GB200 NVL72 trays with MNNVL (ComputeDomain
  claims, UCX_CUDA_IPC_ENABLE_MNNVL=y) in one NVLink domain: READY; in two
  (different ClusterUUID): NOT READY on a pair-consistency fail (D4b).
- the probe keeps SGLang's and TensorRT-LLM's KV-transfer variables, never
  a secret-looking one (probe.sh env_filter, with and without grep).

Environment: DI_PLUGIN (the binary; default ./kubectl-dynamo_interconnect).
"""
import os
import re
import subprocess
import tempfile
import unittest

from base import ROOT, E2ECase

SCENARIOS = os.path.join(ROOT, "tests", "cluster", "scenarios")
EXIT = {"READY": 0, "NOT READY": 2, "UNVERIFIED": 3}


class Pair:
    """Mixin of an E2ECase: one `check -o json` on a prefill/decode pair."""
    CHECK = ["-n", "demo"]
    VERDICT = None

    def check(self, pod, name):
        for p in self.doc["pods"]:
            if p["name"] == pod:
                for c in p["checks"]:
                    if c["name"] == name:
                        return c
        self.fail("check %s not reported for %s" % (name, pod))

    def pair_lines(self, needle):
        return [f for f in self.doc["verdict"]["findings"]
                if f["name"] == "pair-consistency" and needle in f["detail"]]

    def test_verdict(self):
        self.assertEqual(len(self.doc["pods"]), 2, self.err)
        self.assertEqual(self.doc["verdict"]["status"], self.VERDICT,
                         self.doc["verdict"]["findings"])
        self.assertEqual(self.rc, EXIT[self.VERDICT], self.err)


class Clean:
    """Mixin of a Pair whose GIDs reach each other: no pair line, each pod's
    CLEAN checks ok."""
    PODS = ("gid-prefill-0", "gid-decode-0")
    CLEAN = ("rdma-roce", "env-gid-index")

    def test_no_pair_line(self):
        self.assertEqual([f for f in self.doc["verdict"]["findings"]
                          if f["name"] == "pair-consistency"], [])

    def test_each_pod_clean(self):
        for pod in self.PODS:
            for name in self.CLEAN:
                self.assertEqual(self.check(pod, name)["status"], "ok", (pod, name))


class Routed(Clean, Pair, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "gid-routed.yaml")
    VERDICT = "READY"


class NoRoute(Pair, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "gid-noroute.yaml")
    VERDICT = "NOT READY"

    def test_pair_line_names_the_missing_route(self):
        f = self.pair_lines("no route")
        self.assertEqual(len(f), 1, self.doc["verdict"]["findings"])
        f = f[0]
        self.assertEqual(f["status"], "fail")
        self.assertEqual(f["family"], "RDMA")
        self.assertEqual(f["pods"], ["gid-prefill-0", "gid-decode-0"])
        self.assertIn("different subnets (10.14.0.0/26 vs 10.14.0.64/26)", f["detail"])
        self.assertIn("decode gid-decode-0's UCX GID 3 on mlx5_0:1 (ens108np0) has no "
                      "route to prefill gid-prefill-0's GID 10.14.0.10", f["detail"])
        self.assertIn("route between their subnets", f["remedy"])

    def test_each_pod_alone_clean(self):
        for pod in ("gid-prefill-0", "gid-decode-0"):
            for name in ("rdma-roce", "env-gid-index"):
                self.assertEqual(self.check(pod, name)["status"], "ok", (pod, name))


class LinkLocalPair:
    """Mixin of a Pair where WHO (the library) uses the link-local GID 1
    across two subnets: env-gid-index warns on both PODS naming A9 (one pod
    cannot tell its peer's segment), and one pair line fails: the GID is
    not routed and the subnets differ."""
    PODS = ("gid-prefill-0", "gid-decode-0")
    WHO = "UCX"
    A9 = "link-local"

    def test_each_pod_warns_a9(self):
        # one pod cannot tell whether its peer shares its L2 segment: the
        # per-pod check warns and the pair line, which knows the subnets,
        # fails (issue 39 item 4: one GID rule read by both)
        for pod in self.PODS:
            c = self.check(pod, "env-gid-index")
            self.assertEqual(c["status"], "warn", c["detail"])
            self.assertIn(self.A9, c["detail"])
            self.assertIn("link-local", c["detail"])

    def test_pair_line(self):
        f = self.pair_lines("link-local")
        self.assertEqual(len(f), 1, self.doc["verdict"]["findings"])
        f = f[0]
        self.assertEqual(f["status"], "fail")
        self.assertEqual(f["pods"], list(self.PODS))
        self.assertIn("prefill %s uses the link-local fe80:: GID (not routed), "
                      "%s GID 1 on mlx5_0:1 (ens108np0)" % (self.PODS[0], self.WHO), f["detail"])
        self.assertIn("in different subnets (10.14.0.0/26 vs 10.14.0.64/26)", f["detail"])


class LinkLocal(LinkLocalPair, Pair, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "gid-linklocal.yaml")
    VERDICT = "NOT READY"


class LinkLocalFlat(Pair, E2ECase):
    """gid-linklocal one setting away: the same link-local GIDs on one flat
    L2 segment per rail (issue 39 item 4): READY with env-gid-index warn
    on both pods and no pair-consistency line (the pair shares a subnet)."""
    SCENARIO = os.path.join(SCENARIOS, "topo-gid-linklocal-flat.yaml")
    VERDICT = "READY"
    PODS = ("gid-prefill-0", "gid-decode-0")

    def test_each_pod_warns_a9(self):
        for pod in self.PODS:
            c = self.check(pod, "env-gid-index")
            self.assertEqual(c["status"], "warn", c["detail"])
            self.assertIn("link-local", c["detail"])
            self.assertEqual(self.check(pod, "rdma-roce")["status"], "ok", pod)

    def test_no_pair_line(self):
        self.assertEqual([f for f in self.doc["verdict"]["findings"]
                          if f["name"] == "pair-consistency"], [])


class MooncakeAuto(LinkLocalPair, Pair, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "mooncake-gid-auto.yaml")
    VERDICT = "NOT READY"
    PODS = ("mc-prefill-0", "mc-decode-0")
    WHO = "Mooncake"
    A9 = "Mooncake uses GID 1 on mlx5_0:1"


class MooncakePinned(Clean, Pair, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "mooncake-gid-pinned.yaml")
    VERDICT = "READY"
    PODS = ("mc-prefill-0", "mc-decode-0")
    CLEAN = ("env-gid-index",)


class MooncakeAutoOld(Clean, Pair, E2ECase):
    """mooncake-gid-auto with Mooncake 0.3.9: its first-match scan takes the
    IPv4 GID 3 (rdma_context.cpp up to v0.3.11.post1)."""
    SCENARIO = os.path.join(SCENARIOS, "mooncake-gid-auto-old.yaml")
    VERDICT = "READY"
    PODS = ("mc-prefill-0", "mc-decode-0")
    CLEAN = ("env-gid-index",)


class MooncakeAutoNoVersion(Pair, E2ECase):
    """mooncake-gid-auto with no Mooncake dist-info: the releases disagree
    (GID 1 vs 3), so A9 warns naming both and the version."""
    SCENARIO = os.path.join(SCENARIOS, "mooncake-gid-auto-nover.yaml")
    VERDICT = "READY"
    PODS = ("mc-prefill-0", "mc-decode-0")

    def test_each_pod_warns_both_gids(self):
        for pod in self.PODS:
            c = self.check(pod, "env-gid-index")
            self.assertEqual(c["status"], "warn", c["detail"])
            self.assertIn("Mooncake version unknown", c["detail"])
            self.assertIn("on mlx5_0:1 mooncake-transfer-engine >= 0.3.12 picks GID 1, "
                          "<= 0.3.11 GID 3", c["detail"])
            self.assertIn("the installed version decides", c["detail"])

    def test_no_pair_line(self):
        self.assertEqual([f for f in self.doc["verdict"]["findings"]
                          if f["name"] == "pair-consistency"], [])


class OneDomain(Pair, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "nvlink-domain-one.yaml")
    VERDICT = "READY"

    def test_no_pair_line(self):
        self.assertEqual([f for f in self.doc["verdict"]["findings"]
                          if f["name"] == "pair-consistency"], [])

    def test_each_pod_mnnvl_ok(self):
        for pod in ("nvl-prefill-0", "nvl-decode-0"):
            for name in ("nvlink-imex", "nvlink-fabric"):
                self.assertEqual(self.check(pod, name)["status"], "ok", (pod, name))

    def test_grace_tray_read(self):
        """The aarch64 tray as the tool reads it: SYS to every NIC is
        NVLink-C2C (B4 ok), no flags line on arm64 (B7 by DMI)."""
        for pod in ("nvl-prefill-0", "nvl-decode-0"):
            c = self.check(pod, "gpudirect-affinity")
            self.assertEqual(c["status"], "ok", c["detail"])
            self.assertIn("4 of 4 GPUs reach the RDMA NICs through their Grace CPU by NVLink-C2C", c["detail"])
            c = self.check(pod, "gpudirect-vm-p2p")
            self.assertEqual(c["status"], "ok", c["detail"])
            self.assertIn("arm64", c["detail"])


class TwoDomains(Pair, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "nvlink-domain-two.yaml")
    VERDICT = "NOT READY"

    def test_pair_line(self):
        f = self.pair_lines("NVLink domains")
        self.assertEqual(len(f), 1, self.doc["verdict"]["findings"])
        f = f[0]
        self.assertEqual(f["status"], "fail")
        self.assertEqual(f["family"], "NVLINK")
        self.assertEqual(f["pods"], ["nvl-prefill-0", "nvl-decode-0"])
        self.assertIn("prefill nvl-prefill-0 in ClusterUUID "
                      "dc6e40c4-d722-4357-9ba6-5291dd461278, CliqueId 2", f["detail"])
        self.assertIn("decode nvl-decode-0 in ClusterUUID "
                      "5b1f7a2e-3c4d-4e8f-9a0b-1c2d3e4f5a6b, CliqueId 2", f["detail"])
        self.assertIn("UCX_CUDA_IPC_ENABLE_MNNVL=n", f["remedy"])

    def test_each_pod_alone_ok(self):
        for pod in ("nvl-prefill-0", "nvl-decode-0"):
            for name in ("nvlink-imex", "nvlink-fabric"):
                self.assertEqual(self.check(pod, name)["status"], "ok", (pod, name))


def env_filter_text():
    with open(os.path.join(ROOT, "src", "probe", "probe.sh")) as f:
        sh = f.read()
    m = re.search(r"(?ms)^env_filter\(\) \{\n.*?^\}\n", sh)
    return "have() { command -v \"$1\" >/dev/null 2>&1; }\n" + m.group(0) + "env_filter\n"


class EnvFilter(unittest.TestCase):
    ENV = ("SGLANG_DISAGGREGATION_IB_DEVICE=mlx5_0\nSGLANG_MOONCAKE_TRANS_THREAD=8\n"
           "TRTLLM_UCX_INTERFACE=eth1\nTRTLLM_USE_NIXL_KVCACHE=1\n"
           "SGLANG_DISAGGREGATION_BOOTSTRAP_TOKEN=hunter2\n"
           "TRTLLM_NIXL_METADATA_SERVER_URL=http://u:p@etcd:2379\n"
           "MC_REDIS_PASSWORD=hunter2\nSGLANG_FORCE_SHUTDOWN=1\nMC_GID_INDEX=3\n")
    KEPT = ["SGLANG_DISAGGREGATION_IB_DEVICE=mlx5_0", "SGLANG_MOONCAKE_TRANS_THREAD=8",
            "TRTLLM_UCX_INTERFACE=eth1", "TRTLLM_USE_NIXL_KVCACHE=1", "MC_GID_INDEX=3"]

    def run_filter(self, path):
        p = subprocess.run(["/bin/sh", "-c", env_filter_text()], input=self.ENV,
                           capture_output=True, text=True, env={"PATH": path}, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout.splitlines()

    def test_with_grep(self):
        self.assertEqual(self.run_filter(os.environ.get("PATH", "/usr/bin:/bin")), self.KEPT)

    def test_without_grep(self):
        with tempfile.TemporaryDirectory() as empty:
            self.assertEqual(self.run_filter(empty), self.KEPT)


if __name__ == "__main__":
    unittest.main()
