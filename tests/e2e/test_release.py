#!/usr/bin/python3
"""What ships beside the binary: the man page (mandoc -Tlint clean, every
subcommand and flag covered), the JSON schema of the InterconnectReport
(validated against real `check -o json|yaml` output), the RBAC example, and
the kubectl-style flag errors that go with them.

Environment: DI_PLUGIN (the binary; default ./kubectl-dynamo_interconnect).
"""
import copy
import json
import os
import re
import subprocess
import sys
import unittest

import jsonschema
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "cluster"))
from fc import Cluster  # noqa: E402

from plugin import PLUGIN, run  # noqa: E402
MAN = os.path.join(ROOT, "man", "kubectl-dynamo_interconnect.1")
SCHEMA = os.path.join(ROOT, "schema", "interconnect-report.schema.json")




def subcommands():
    out = run(["-h"])[1]
    return re.findall(r"(?m)^  (\S+)\s{2,}", out.split("Available Commands:")[1].split("Usage:")[0])


class ManPage(unittest.TestCase):
    def test_lint_clean(self):
        p = subprocess.run(["mandoc", "-Tlint", "-W", "style", MAN], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
        self.assertEqual((p.returncode, p.stdout.decode()), (0, ""))

    def test_covers_every_subcommand_and_flag(self):
        with open(MAN) as f:
            man = f.read()
        commands = man.split(".SH COMMANDS")[1].split(".SH ")[0]
        for sub in subcommands():
            with self.subTest(sub=sub):
                self.assertIn(".B %s\n" % sub, commands)
                h = run([sub, "-h"])[1]
                for flag in sorted(set(re.findall(r"(?m)^\s+(?:-\w, )?--([\w-]+)", h))):
                    self.assertIn("\\-\\-" + flag.replace("-", "\\-"), man, flag)


class Schema(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(SCHEMA) as f:
            cls.schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(cls.schema)
        cls.v = jsonschema.Draft202012Validator(cls.schema)
        cls.c = Cluster("demo.yaml")
        kc = ["-n", "demo", "--kubeconfig", cls.c.kubeconfig]
        try:
            cls.json = run(["check", "-o", "json"] + kc)
            cls.yaml = run(["check", "-o", "yaml"] + kc)
            cls.node = run(["node", "--pod", "qwen-decode-0", "-o", "json"] + kc)
        finally:
            cls.c.stop()
            cls.c.cleanup()

    def errors(self, doc):
        return ["%s: %s" % (list(e.absolute_path), e.message) for e in self.v.iter_errors(doc)]

    def test_check_json_valid(self):
        rc, out, err = self.json
        self.assertEqual(rc, 2, err)
        doc = json.loads(out)
        self.assertEqual(self.errors(doc), [])
        self.assertGreaterEqual(len(doc["pods"]), 5)

    def test_check_yaml_same_document(self):
        self.assertEqual(yaml.safe_load(self.yaml[1]), json.loads(self.json[1]))

    def test_node_json_valid(self):
        self.assertEqual(self.errors(json.loads(self.node[1])), [])

    def test_schema_rejects_drift(self):
        # The schema has teeth: a renamed, retyped or unknown-valued field fails.
        doc = json.loads(self.json[1])
        for mutate in (lambda d: d["verdict"].pop("fixFirst"),
                       lambda d: d["pods"][0].__setitem__("probed", "yes"),
                       lambda d: d["pods"][0]["checks"][0].__setitem__("status", "passed"),
                       lambda d: d.__setitem__("kind", "Report")):
            bad = copy.deepcopy(doc)
            mutate(bad)
            self.assertNotEqual(self.errors(bad), [])


class Flags(unittest.TestCase):
    def test_color_value(self):
        rc, out, err = run(["check", "--color=sometimes"])
        self.assertEqual(rc, 1)
        self.assertEqual(err.splitlines()[0], 'error: invalid argument "sometimes" for "--color" flag: '
                                              'must be auto, always or never')
        self.assertIn("check -h' for help and examples", err)


class Rbac(unittest.TestCase):
    def test_rules(self):
        with open(os.path.join(ROOT, "deploy", "rbac.yaml")) as f:
            docs = list(yaml.safe_load_all(f))
        self.assertEqual(sorted(d["kind"] for d in docs), ["ClusterRole", "Role"])
        for d in docs:
            rules = {r["resources"][0]: set(r["verbs"]) for r in d["rules"]}
            self.assertEqual(rules["pods"], {"get", "list"})
            self.assertEqual(rules["pods/log"], {"get"})
            self.assertEqual(rules["pods/exec"], {"get", "create"})
            # DRA claims (pod-rdma-resource): read, never written.
            claims = [r for r in d["rules"] if r["resources"] == ["resourceclaims"]]
            self.assertEqual([(r["apiGroups"], r["verbs"]) for r in claims],
                             [(["resource.k8s.io"], ["get", "list"])])


if __name__ == "__main__":
    unittest.main()
