#!/usr/bin/python3
"""`make dist` and the krew manifest: the archive's binary under ldd
(libyaml built in), the manifest against krew's validation rules
(kubectl-conventions.md §3), and an install the way krew does it (files
extracted, LICENSE among them, kubectl-dynamo_interconnect linked to bin on
PATH) run through the real kubectl.  Only linux/amd64 is built here."""
import hashlib
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import unittest

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KUBECTL = "/usr/bin/kubectl"
HEX64 = re.compile(r"^[a-fA-F0-9]{64}$")
SEMVER = re.compile(r"^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")


def validate_manifest(path):
    """krew's validate.go and validate-krew-manifest rules; a list of problems."""
    with open(path) as f:
        m = yaml.safe_load(f)
    bad = []
    name = m.get("metadata", {}).get("name", "")
    if m.get("apiVersion") != "krew.googlecontainertools.github.com/v1alpha2" or m.get("kind") != "Plugin":
        bad.append("apiVersion/kind")
    if not re.match(r"^[\w-]+$", name) or name + ".yaml" != os.path.basename(path):
        bad.append("name %r vs file name" % name)
    spec = m.get("spec", {})
    if not SEMVER.match(spec.get("version", "")):
        bad.append("version not semver with v")
    sd = spec.get("shortDescription", "")
    if not sd or "\n" in sd.strip():
        bad.append("shortDescription missing or not one line")
    plats = spec.get("platforms") or []
    if not plats:
        bad.append("no platforms")
    seen = []
    for p in plats:
        labels = (p.get("selector") or {}).get("matchLabels") or {}
        if not labels or set(labels) - {"os", "arch"}:
            bad.append("selector %r" % labels)
        for key in ("uri", "sha256", "bin"):
            if not p.get(key):
                bad.append("platform %r lacks %s" % (labels, key))
        if not HEX64.match(str(p.get("sha256", ""))):
            bad.append("sha256 not hex")
        if "files" in p and not p["files"]:
            bad.append("empty files")
        if not str(p.get("uri", "")).endswith((".tar.gz", ".zip")):
            bad.append("archive type")
        # overlapping: one selector's labels all contained in another's
        for other in seen:
            if all(other.get(k) == v for k, v in labels.items()) or \
               all(labels.get(k) == v for k, v in other.items()):
                bad.append("overlapping selectors %r %r" % (labels, other))
        seen.append(labels)
    want = {("linux", "amd64"), ("linux", "arm64")}
    if not want <= {(s.get("os"), s.get("arch")) for s in seen}:
        bad.append("linux/amd64 and linux/arm64 required")
    return m, bad


class Dist(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="e2e-dist-")
        cls.manifest = os.path.join(cls.tmp, "dynamo-interconnect.yaml")
        p = subprocess.run(["make", "--no-print-directory", "-C", ROOT, "dist", "DISTDIR=" + cls.tmp,
                            "KREW_MANIFEST=" + cls.manifest], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=600)
        cls.make = (p.returncode, p.stdout.decode())
        cls.tgz = os.path.join(cls.tmp, "kubectl-dynamo-interconnect_linux_amd64.tar.gz")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        self.assertEqual(self.make[0], 0, self.make[1])

    def test_archive_contents(self):
        with tarfile.open(self.tgz) as t:
            names = sorted(os.path.normpath(n) for n in t.getnames() if n not in (".", "./"))
        self.assertEqual(names, ["LICENSE", "README.md", "kubectl-dynamo_interconnect",
                                 "kubectl_complete-dynamo_interconnect"])

    def test_ldd(self):
        d = os.path.join(self.tmp, "ldd")
        with tarfile.open(self.tgz) as t:
            t.extractall(d)
        out = subprocess.run(["ldd", os.path.join(d, "kubectl-dynamo_interconnect")],
                             stdout=subprocess.PIPE, check=True).stdout.decode()
        print("\nldd of the archived binary:\n" + out)
        libs = re.findall(r"^\s*(\S+)", out, re.M)
        self.assertFalse([l for l in libs if "libyaml" in l], out)
        self.assertIn("libcurl.so.4", libs)
        self.assertNotIn("not found", out)

    def test_manifest_valid_and_sha(self):
        m, bad = validate_manifest(self.manifest)
        self.assertEqual(bad, [])
        with open(self.tgz, "rb") as f:
            sha = hashlib.sha256(f.read()).hexdigest()
        amd64 = [p for p in m["spec"]["platforms"] if p["selector"]["matchLabels"]["arch"] == "amd64"][0]
        self.assertEqual(amd64["sha256"], sha)
        self.assertIn("libcjson1", m["spec"]["caveats"])
        self.assertIn("pods/exec", m["spec"]["caveats"])

    def test_committed_manifest_valid(self):
        self.assertEqual(validate_manifest(os.path.join(ROOT, "krew", "dynamo-interconnect.yaml"))[1], [])

    def test_validator_has_teeth(self):
        with open(os.path.join(ROOT, "krew", "dynamo-interconnect.yaml")) as f:
            m = yaml.safe_load(f)
        m["spec"]["version"] = "0.1"
        m["spec"]["platforms"][1]["selector"]["matchLabels"]["arch"] = "amd64"
        path = os.path.join(self.tmp, "other-name.yaml")
        with open(path, "w") as f:
            yaml.safe_dump(m, f)
        bad = validate_manifest(path)[1]
        self.assertTrue(any("semver" in b for b in bad), bad)
        self.assertTrue(any("overlapping" in b for b in bad), bad)
        self.assertTrue(any("file name" in b for b in bad), bad)

    def test_krew_style_install_runs_through_kubectl(self):
        m, _ = validate_manifest(self.manifest)
        plat = [p for p in m["spec"]["platforms"] if p["selector"]["matchLabels"]["arch"] == "amd64"][0]
        unpack, store, bindir = (os.path.join(self.tmp, d) for d in ("unpack", "store", "bin"))
        with tarfile.open(self.tgz) as t:
            t.extractall(unpack)
        os.makedirs(store)
        for f in plat["files"]:
            shutil.copy2(os.path.join(unpack, f["from"]), os.path.join(store, f["to"]))
        self.assertTrue(os.path.exists(os.path.join(store, "LICENSE")), "LICENSE not extracted")
        os.makedirs(bindir)
        # krew: kubectl-<name with - -> _> -> bin
        os.symlink(os.path.join(store, plat["bin"]),
                   os.path.join(bindir, "kubectl-" + m["metadata"]["name"].replace("-", "_")))
        env = {"PATH": bindir + ":/usr/bin:/bin", "HOME": self.tmp}
        p = subprocess.run([KUBECTL, "plugin", "list"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.assertIn(os.path.join(bindir, "kubectl-dynamo_interconnect"), p.stdout.decode(), p.stderr.decode())
        p = subprocess.run([KUBECTL, "dynamo-interconnect", "version"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=env)
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        self.assertIn("v" + m["spec"]["version"].lstrip("v"), p.stdout.decode())


if __name__ == "__main__":
    unittest.main()
