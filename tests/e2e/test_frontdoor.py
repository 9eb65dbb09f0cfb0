#!/usr/bin/python3
"""Front doors (issue 13): the plugin through a server URL with a path prefix
(Rancher's /k8s/clusters/ID), behind a proxy that answers 414 to request
lines over 8 KiB, as a kubeconfig user that impersonates.  `pods`, `check`
(exec and log reads), `node --pod` and `nixl --pod` all work, every request
the test cluster saw came in under the prefix, with a short request line and
the impersonation headers, and ran as the impersonated user."""
import json
import os
import unittest

import yaml

from base import E2ECase
from plugin import run, script_sha256

HERE = os.path.dirname(os.path.abspath(__file__))

SCENARIO = os.path.join(HERE, "scenarios", "frontdoor.yaml")
PREFIX = "/k8s/clusters/c-7x2kq"
LIMIT = 8192


def impersonating_kubeconfig(c, path, server_suffix="", **user):
    """c's kubeconfig, user `gateway` with the given as/as-groups/... keys."""
    kc = json.loads(json.dumps(c.kc))
    kc["clusters"][0]["cluster"]["server"] += server_suffix
    for u in kc["users"]:
        if u["name"] == "gateway":
            u["user"].update(user)
    kc["contexts"] = [{"name": "gw", "context": {"cluster": "fakecluster", "user": "gateway",
                                                 "namespace": "fd"}}]
    kc["current-context"] = "gw"
    with open(path, "w") as f:
        yaml.safe_dump(kc, f)
    return path


class FrontDoor(E2ECase):
    SCENARIO = SCENARIO
    ARGS = ["--path-prefix", PREFIX, "--max-request-line", str(LIMIT)]
    TMP = "fd-"

    @classmethod
    def fixture(cls):
        # a trailing slash on the server URL, as users paste it from Rancher
        cls.kc = impersonating_kubeconfig(cls.c, os.path.join(cls.tmp, "kc"), "/",
                                          **{"as": "dynamo-viewer", "as-groups": ["dynamo-ops", "system:authenticated"]})
        n0 = len(cls.c.log())
        k = ["--kubeconfig", cls.kc]
        cls.runs = {
            "pods": run(["pods"] + k),
            "check": run(["check", "-o", "json"] + k),
            "node": run(["node", "--pod", "w-decode-0", "-o", "json"] + k),
            "nixl": run(["nixl", "--pod", "w-prefill-0"] + k),
        }
        cls.reqs = cls.c.log()[n0:]

    def test_commands_work(self):
        for name, (rc, out, err) in self.runs.items():
            # product.md exit codes: 0 READY, 2 NOT READY, 3 UNVERIFIED are
            # verdicts (the minimal profile has no fabric); 1 is an error
            self.assertIn(rc, (0, 2, 3) if name != "pods" else (0,), (name, err))
            if name in ("check", "node"):
                self.assertTrue(out.startswith("{"), (name, out[:200], err))
                json.loads(out)
        doc = json.loads(self.runs["check"][1])
        self.assertEqual(sorted(p["name"] for p in doc["pods"] if p.get("probed")),
                         ["w-decode-0", "w-prefill-0"], doc)
        self.assertIn("w-prefill-0", self.runs["pods"][1])
        self.assertIn("Pod:      fd/w-prefill-0", self.runs["nixl"][1])

    def test_every_request_under_the_prefix_short_and_impersonated(self):
        self.assertTrue(self.reqs)
        kinds = set()
        for q in self.reqs:
            self.assertNotIn("outside_prefix", q, q)
            self.assertNotEqual(q["status"], 414, q)
            self.assertNotEqual(q["status"], 403, q)
            self.assertLess(q["request_line_bytes"], 2048, q["path"])
            self.assertEqual(q["user"], "dynamo-viewer", q)
            self.assertEqual(q["impersonator"], "gateway", q)
            self.assertEqual(q["impersonated_groups"], ["dynamo-ops", "system:authenticated"], q)
            kinds.add(q["path"].rsplit("/", 1)[-1] if q["path"].endswith(("/exec", "/log")) else "get")
        self.assertEqual(kinds, {"exec", "log", "get"})

    def test_probe_on_stdin(self):
        execs = [q for q in self.reqs if q["path"].endswith("/exec")]
        self.assertTrue(execs)
        for q in execs:
            self.assertEqual(q["command"], ["sh", "-s"])
            self.assertEqual(q.get("stdin_sha256"), script_sha256("probe.sh"), q)
            self.assertEqual(q.get("end"), "ok", q)

    def test_v7_shows_impersonation_headers_in_client_go_order(self):
        rc, out, err = run(["pods", "-v", "7", "--kubeconfig", self.kc])
        self.assertEqual(rc, 0, err)
        lines = [l.split("]", 1)[-1].strip() for l in err.splitlines() if "Impersonate-" in l]
        self.assertEqual(lines[:3], ["Impersonate-User: dynamo-viewer", "Impersonate-Group: dynamo-ops",
                                     "Impersonate-Group: system:authenticated"])
        rc, out, err = run(["check", "-v", "7", "--logs=false", "--kubeconfig", self.kc])
        self.assertIn("Impersonate-User: dynamo-viewer", err)

    def test_without_impersonation_the_gateway_is_refused(self):
        kc = impersonating_kubeconfig(self.c, os.path.join(self.tmp, "kc-plain"))
        rc, out, err = run(["pods", "--kubeconfig", kc])
        self.assertNotEqual(rc, 0, err)
        self.assertIn('User "gateway" cannot list', err)

    def test_flags_override_kubeconfig(self):
        kc = impersonating_kubeconfig(self.c, os.path.join(self.tmp, "kc-flags"))
        n0 = len(self.c.log())
        rc, out, err = run(["pods", "--as", "dynamo-viewer", "--as-group", "g1", "--as-group", "g2",
                            "--as-uid", "u-1", "--kubeconfig", kc])
        self.assertEqual(rc, 0, err)
        (q,) = self.c.log()[n0:]
        self.assertEqual((q["user"], q["impersonated_groups"], q["impersonated_uid"]),
                         ("dynamo-viewer", ["g1", "g2"], "u-1"))

    def test_user_extra_keys_escaped(self):
        kc = impersonating_kubeconfig(self.c, os.path.join(self.tmp, "kc-extra"),
                                      **{"as": "dynamo-viewer", "as-user-extra": {"scopes.example.com/a b": ["x", "y"]}})
        n0 = len(self.c.log())
        rc, out, err = run(["pods", "-v", "7", "--kubeconfig", kc])
        self.assertEqual(rc, 0, err)
        self.assertIn("Impersonate-Extra-scopes.example.com%2Fa%20b: x", err)
        (q,) = self.c.log()[n0:]
        self.assertEqual(q["impersonated_extra"], {"scopes.example.com/a b": ["x", "y"]})

    def test_header_injection_refused(self):
        kc = impersonating_kubeconfig(self.c, os.path.join(self.tmp, "kc-bad"),
                                      **{"as": "x\r\nAuthorization: Bearer stolen"})
        n0 = len(self.c.log())
        rc, out, err = run(["pods", "--kubeconfig", kc])
        self.assertNotEqual(rc, 0)
        self.assertIn('invalid header field value for "Impersonate-User"', err)
        self.assertEqual(self.c.log()[n0:], [])


class FrontDoorV4(FrontDoor):
    """v4 cannot close stdin: the script's own `exit` ends the shell."""
    MODE = "v4"


if __name__ == "__main__":
    unittest.main()


class Sidecar(E2ECase):
    """-c takes a native sidecar (restartPolicy: Always) like a container; an
    init container that ran to completion gets a clear reason."""
    SCENARIO = os.path.join(HERE, "scenarios", "sidecar.yaml")

    def check(self, container):
        n0 = len(self.c.log())
        rc, out, err = run(["check", "-o", "json", "--logs=false", "-c", container,
                            "--kubeconfig", self.c.kubeconfig])
        (pod,) = json.loads(out)["pods"]
        return pod, [q for q in self.c.log()[n0:] if q["path"].endswith("/exec")]

    def test_native_sidecar_probed(self):
        pod, execs = self.check("nixl-agent")
        self.assertTrue(pod["probed"], pod)
        (q,) = execs
        self.assertEqual((q["query"].get("container"), q["container"], q["end"]),
                         ("nixl-agent", "nixl-agent", "ok"))

    def test_plain_init_container_refused_clearly(self):
        pod, execs = self.check("setup")
        self.assertFalse(pod["probed"])
        self.assertEqual(execs, [])
        self.assertIn('container "setup" cannot be probed: it is an init container', pod["error"])
