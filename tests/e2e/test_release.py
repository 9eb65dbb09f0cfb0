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
import unittest

import jsonschema
import yaml

from base import ROOT, E2ECase
from plugin import PLUGIN, run, untimed

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

    def man(self):
        with open(MAN) as f:
            return f.read()

    def section(self, name):
        return self.man().split("\n.SH %s\n" % name)[1].split("\n.SH ")[0]

    def test_every_flag_has_its_own_entry(self):
        # The tag line after each .TP of OPTIONS: one flag (and its shorthand).
        tags = re.findall(r"(?m)^\.TP\n(.*)$", self.section("OPTIONS"))
        named = {}
        for t in tags:
            longs = re.findall(r"\\-\\-((?:[\w]|\\-)+)", t)
            self.assertEqual(len(longs), 1, t)
            named[longs[0].replace("\\-", "-")] = t
        for sub in subcommands():
            h = run([sub, "-h"])[1]
            for flag in set(re.findall(r"(?m)^\s+(?:-\w, )?--([\w-]+)", h)):
                self.assertIn(flag, named, (sub, flag))
        opts = self.section("OPTIONS")
        xfer = opts.split(".B \\-\\-transfer\n")[1].split("\n.TP")[0]
        self.assertIn("Not read-only:", xfer)
        self.assertIn("the one action", xfer)

    def test_sections_of_a_reference(self):
        for sec in ("SYNOPSIS", "COMMANDS", "OPTIONS", "CHECKS", "EXIT STATUS", "FILES", "SEE ALSO"):
            self.assertIn("\n.SH %s\n" % sec, self.man(), sec)
        syn = self.section("SYNOPSIS")
        for sub in subcommands():
            self.assertEqual(syn.count(".B kubectl dynamo-interconnect %s" % sub), 1, sub)
        tags = re.findall(r"(?m)^\.TP\n\.B (\S+)$", self.section("COMMANDS"))
        self.assertEqual(sorted(tags), sorted(subcommands()))

    def test_every_check_in_the_table_is_in_the_man_page(self):
        # The table of the binary (tests/tools/di_checks prints check_defs()):
        # a check added anywhere must be documented under its family.
        tool = os.path.join(os.environ.get("DI_TOOLS") or os.path.join(ROOT, "build", "tools"), "di_checks")
        rows = [l.split("\t") for l in subprocess.run([tool], stdout=subprocess.PIPE, check=True)
                .stdout.decode().splitlines()]
        self.assertGreater(len(rows), 40)
        checks = self.section("CHECKS")
        families = {}
        for part in checks.split("\n.SS ")[1:]:
            fam = part.split("\n")[0]
            families[fam] = re.findall(r"(?m)^\.TP\n\.B (\S+)$", part)
        for name, fam, rule in rows:
            with self.subTest(check=name):
                self.assertIn(name.replace("-", "\\-"), families.get(fam, []), fam)
        # The DGD checks are rows too (src/check/dgd.def, di_checks dgd).
        dgd = [l.split("\t")[0] for l in subprocess.run([tool, "dgd"], stdout=subprocess.PIPE, check=True)
               .stdout.decode().splitlines()]
        self.assertGreaterEqual(len(dgd), 4)
        for name in dgd:
            with self.subTest(check=name):
                self.assertIn(name.replace("-", "\\-"), families.get("DynamoGraphDeployment", []))
        documented = {n for v in families.values() for n in v}
        self.assertEqual(documented - {r[0].replace("-", "\\-") for r in rows}
                         - {n.replace("-", "\\-") for n in dgd},
                         {"pair\\-consistency", "node\\-consistency"})


class Schema(E2ECase):
    SCENARIO = "demo.yaml"

    @classmethod
    def fixture(cls):
        with open(SCHEMA) as f:
            cls.schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(cls.schema)
        cls.v = jsonschema.Draft202012Validator(cls.schema)
        kc = ["-n", "demo", "--kubeconfig", cls.c.kubeconfig]
        cls.json = run(["check", "-o", "json"] + kc)
        cls.yaml = run(["check", "-o", "yaml"] + kc)
        cls.node = run(["node", "--pod", "qwen-decode-0", "-o", "json"] + kc)

    def errors(self, doc):
        return ["%s: %s" % (list(e.absolute_path), e.message) for e in self.v.iter_errors(doc)]

    def test_check_json_valid(self):
        rc, out, err = self.json
        self.assertEqual(rc, 2, err)
        doc = json.loads(out)
        self.assertEqual(self.errors(doc), [])
        self.assertGreaterEqual(len(doc["pods"]), 5)

    def test_check_yaml_same_document(self):
        # two runs: the probe's measured times differ, the rest may not
        self.assertEqual(untimed(yaml.safe_load(self.yaml[1])), untimed(json.loads(self.json[1])))

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
