#!/usr/bin/python3
"""-o json and -o yaml load everywhere (issue 37 item 6): cluster text that
YAML 1.1 or 1.2 would read as another type (an image "=", a key "<<", pod
and node names 0b101 and 1:20, "y", "On", limits "1", ".5"), control bytes
in names, images and transport variables, and two limits keys that a NUL
makes equal ("cpu", "cpu\\0shadow").  Each YAML output is read by PyYAML
(SafeLoader and CSafeLoader: the YAML 1.1 resolvers), ruamel.yaml (1.2 and
1.1), and Go's YAML (kubectl label --local of the document wrapped in a
ConfigMap: sigs.k8s.io/yaml, what kubectl -f uses), the JSON output by jq
and Python: all must give the same document as -o json, so every string is
a string.  No string holds a C0/C1 control but LF, no mapping a key twice.
`check` and `pods` documents both.

Scenario: tests/e2e/scenarios/hostile-formats.yaml (its header says what is
expected).
"""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

import yaml

from base import ROOT, E2ECase
from plugin import run, untimed

try:
    import ruamel.yaml as ruamel
except ImportError:          # tests/tools/deps.sh installs python3-ruamel.yaml
    ruamel = None

SCENARIO = os.path.join(ROOT, "tests", "e2e", "scenarios", "hostile-formats.yaml")
KUBECTL = shutil.which("kubectl")
JQ = shutil.which("jq")


def no_dup_pairs(pairs):
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), "duplicate key in %r" % keys
    return dict(pairs)


def strings(node):
    """Every key and string value of a loaded document."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield k
            yield from strings(v)
    elif isinstance(node, list):
        for v in node:
            yield from strings(v)
    elif isinstance(node, str):
        yield node


def controls(s):
    return [c for c in s if c != "\n" and (ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f)]


class DupCheckLoader(yaml.SafeLoader):
    """PyYAML's SafeLoader, refusing a key twice in one mapping (PyYAML
    keeps the last silently)."""

    def construct_mapping(self, node, deep=False):
        keys = [self.construct_object(k, deep=True) for k, _ in node.value]
        if len(keys) != len(set(map(repr, keys))):
            raise AssertionError("duplicate key in %r" % keys)
        return super().construct_mapping(node, deep=deep)


class TestDocsLoad(E2ECase):
    SCENARIO = SCENARIO
    # (name, argv): each prints the same document with -o json and -o yaml.
    COMMANDS = [("check", ["check", "-n", "fmt", "--dgd", "fmt"]),
                ("pods", ["pods", "-n", "fmt"])]

    @classmethod
    def fixture(cls):
        cls.runs = {}
        for name, argv in cls.COMMANDS:
            base = [argv[0], "--kubeconfig", cls.c.kubeconfig] + argv[1:]
            rc_j, out_j, err_j = run(base + ["-o", "json"], timeout=300)
            rc_y, out_y, err_y = run(base + ["-o", "yaml"], timeout=300)
            cls.runs[name] = dict(rc=(rc_j, rc_y), err=err_j + err_y, json=out_j, yaml=out_y,
                                  doc=json.loads(out_j))
        cls.doc = cls.runs["check"]["doc"]

    def each(self):
        for name, r in self.runs.items():
            with self.subTest(command=name):
                yield name, r

    def test_exit_codes(self):
        self.assertEqual(self.runs["check"]["rc"], (2, 2), self.runs["check"]["err"])
        self.assertEqual(self.runs["pods"]["rc"], (0, 0), self.runs["pods"]["err"])

    def test_hostile_values_are_there_as_strings(self):
        pods = {p["name"]: p for p in self.doc["pods"]}
        self.assertEqual(sorted(pods), ["0b101", "y"])
        self.assertEqual(pods["0b101"]["image"], "=")
        self.assertEqual(pods["0b101"]["node"], "1:20")
        comps = self.doc["dynamoGraphDeployments"][0]["components"]
        lim = [c for c in comps if c["name"] == "null"][0]["resources"]["limits"]
        self.assertEqual(lim, {"cpu": "1", "cpu#2": "2", "On": ".5"})
        items = {p["name"]: p for p in self.runs["pods"]["doc"]["items"]}
        self.assertEqual(items["0b101"]["image"], "=")

    def test_check_document_matches_the_schema(self):
        import jsonschema
        with open(os.path.join(ROOT, "schema", "interconnect-report.schema.json")) as f:
            jsonschema.Draft202012Validator(json.load(f)).validate(self.doc)

    def test_json_has_no_key_twice(self):
        for _, r in self.each():
            json.loads(r["json"], object_pairs_hook=no_dup_pairs)

    def test_json_has_no_control_characters(self):
        for _, r in self.each():
            for s in strings(r["doc"]):
                self.assertEqual(controls(s), [], repr(s))
        self.assertIn("^[", json.dumps(self.doc))   # ESC shown as the table shows it

    def same(self, got, r, how):
        # the JSON and YAML come from two runs: the probe's measured
        # times differ (issue 46), the rest is one document
        self.assertEqual(untimed(got), untimed(r["doc"]), "%s reads another document" % how)

    def test_pyyaml_both_loaders(self):
        for _, r in self.each():
            self.same(yaml.load(r["yaml"], Loader=DupCheckLoader), r, "PyYAML SafeLoader")
            if hasattr(yaml, "CSafeLoader"):
                self.same(yaml.load(r["yaml"], Loader=yaml.CSafeLoader), r, "PyYAML CSafeLoader")

    @unittest.skipUnless(ruamel, "python3-ruamel.yaml not installed")
    def test_ruamel_12_and_11(self):
        for _, r in self.each():
            for version in (None, (1, 1)):
                y = ruamel.YAML(typ="safe", pure=True)
                y.allow_duplicate_keys = False
                if version:
                    y.version = version
                self.same(y.load(r["yaml"]), r, "ruamel.yaml %s" % (version or "1.2",))

    @unittest.skipUnless(KUBECTL, "kubectl not installed")
    def test_go_yaml_via_kubectl(self):
        for _, r in self.each():
            body = "".join("  " + line + "\n" for line in r["yaml"].splitlines())
            wrapped = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: doc\ndoc:\n" + body
            with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
                f.write(wrapped)
                f.flush()
                p = subprocess.run([KUBECTL, "label", "--local", "-f", f.name, "x=y", "-o", "json"],
                                   capture_output=True, text=True, timeout=120,
                                   env=dict(os.environ, KUBECONFIG=os.devnull))
            self.assertEqual(p.returncode, 0, p.stderr)
            self.same(json.loads(p.stdout)["doc"], r, "Go's YAML (kubectl)")

    @unittest.skipUnless(JQ, "jq not installed")
    def test_jq_reads_every_string_plain(self):
        for _, r in self.each():
            p = subprocess.run([JQ, "-r", "[.. | strings] + [paths | .[] | strings] | .[]"],
                               input=r["json"], capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(controls(p.stdout), [])
        self.assertIn("cpu#2", subprocess.run([JQ, "-r", "paths | .[] | strings"],
                                              input=self.runs["check"]["json"],
                                              capture_output=True, text=True, timeout=60).stdout)


if __name__ == "__main__":
    unittest.main()
