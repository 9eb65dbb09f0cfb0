#!/usr/bin/python3
"""Issue 39, "READY exactly when the KV path works": topologies the corpus
lacked, each scenario's verdict written here before the tool was run on
it, each with its near miss one setting away.

- topo-gb200-noipc-ib (item 5): two GB200 NVL72 trays in one NVLink
  domain, UCX_TLS=^cuda_ipc, KV between the trays over working InfiniBand:
  READY with env-ucx-tls warn saying KV takes RDMA instead of MNNVL and
  what that costs, never "same-node".  Near miss: UCX_TLS=^cuda_ipc,ib
  leaves no RDMA transport, cuda_ipc was the only GPU path: NOT READY.

Environment: DI_PLUGIN (the binary; default ./kubectl-dynamo_interconnect).
"""
import os
import unittest

import yaml

from base import EXIT, ROOT, E2ECase

SCENARIOS = os.path.join(ROOT, "tests", "cluster", "scenarios")


def with_env(name, **env):
    """Scenario NAME with env set on every pod (written to a scratch
    directory: paths made absolute)."""
    with open(os.path.join(SCENARIOS, name)) as f:
        doc = yaml.safe_load(f)
    for p in doc["pods"]:
        p["env"] = dict(p.get("env") or {}, **env)
        for k in ("profile", "logs"):
            p[k] = os.path.normpath(os.path.join(SCENARIOS, p[k]))
    return doc


class Topo:
    """Mixin of an E2ECase: one `check -o json` on a prefill/decode pair."""
    CHECK = ["-n", "demo"]
    VERDICT = None

    def check(self, p, name):
        for c in p["checks"]:
            if c["name"] == name:
                return c
        self.fail("check %s not reported for %s" % (name, p["name"]))

    def test_verdict(self):
        self.assertEqual(len(self.doc["pods"]), 2, self.err)
        bad = [(p["name"], c["name"], c["status"], c["detail"])
               for p in self.doc["pods"] for c in p["checks"] if c["status"] in ("fail", "warn")]
        self.assertEqual(self.doc["verdict"]["status"], self.VERDICT, bad)
        self.assertEqual(self.rc, EXIT[self.VERDICT], self.err)


class NoIpcOverIb(Topo, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "topo-gb200-noipc-ib.yaml")
    VERDICT = "READY"

    def test_tls_warns_the_cost(self):
        for p in self.doc["pods"]:
            c = self.check(p, "env-ucx-tls")
            self.assertEqual(c["status"], "warn", c["detail"])
            self.assertIn("RDMA", c["detail"])
            self.assertIn("multi-node NVLink", c["detail"])
            self.assertNotIn("same-node", c["detail"])


class NoIpcNoRdma(Topo, E2ECase):
    SCENARIO = with_env("topo-gb200-noipc-ib.yaml", UCX_TLS="^cuda_ipc,ib")
    TMP = "topo-"
    VERDICT = "NOT READY"

    def test_tls_fails(self):
        for p in self.doc["pods"]:
            self.assertEqual(self.check(p, "env-ucx-tls")["status"], "fail", p["name"])


if __name__ == "__main__":
    unittest.main()
