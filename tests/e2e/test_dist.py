#!/usr/bin/python3
"""`make dist` and the krew manifest (docs/kubectl-conventions.md §3): both
archives (linux/amd64, linux/arm64) with what they must hold, stripped and
free of the build path, the libraries they still need, the manifest in dist/
against krew's own validation rules with both real sha256, no tracked file
changed, the same sha256 from two checkouts in two directories, the arm64
binary run under qemu-user (version, help, a check against the test
cluster), and an install the way krew does it run through the real kubectl.
Needs the cross toolchain and qemu-user-static (tests/tools/deps-dist.sh)."""
import hashlib
import json
import os
import re
import shutil
import subprocess
import tarfile
import unittest

import yaml

from base import ROOT, E2ECase

KUBECTL = "/usr/bin/kubectl"
QEMU = "/usr/bin/qemu-aarch64-static"
PROG = "kubectl-dynamo_interconnect"
ARCHES = ("amd64", "arm64")
# krew internal/index/validation/validate.go: lowercase hex only.
HEX64 = re.compile(r"^[a-f0-9]{64}$")
SEMVER = re.compile(r"^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")
# validate.go windowsForbidden
WINDOWS_FORBIDDEN = {"CON", "PRN", "AUX", "NUL"} | {"COM%d" % i for i in range(1, 10)} | \
    {"LPT%d" % i for i in range(1, 10)}
# cmd/validate-krew-manifest allPlatforms()
KREW_PLATFORMS = {("windows", "386"), ("windows", "amd64"), ("windows", "arm64"), ("linux", "386"),
                  ("linux", "amd64"), ("linux", "arm"), ("linux", "arm64"), ("linux", "ppc64le"),
                  ("darwin", "386"), ("darwin", "amd64"), ("darwin", "arm64")}


def tgz_name(arch):
    return "kubectl-dynamo-interconnect_linux_%s.tar.gz" % arch


def too_wide(text, width):
    """validate-krew-manifest validateLineLength: lines over width that
    contain a space (one long word is allowed)."""
    return [ln for ln in (text or "").split("\n") if len(ln) > width and " " in ln.strip()]


def validate_manifest(path):
    """krew's validate.go and validate-krew-manifest rules; a list of problems."""
    with open(path) as f:
        m = yaml.safe_load(f)
    bad = []
    name = m.get("metadata", {}).get("name", "")
    if m.get("apiVersion") != "krew.googlecontainertools.github.com/v1alpha2" or m.get("kind") != "Plugin":
        bad.append("apiVersion/kind")
    if not re.match(r"^[\w-]+$", name) or name.upper() in WINDOWS_FORBIDDEN or \
            name + ".yaml" != os.path.basename(path):
        bad.append("name %r vs file name" % name)
    spec = m.get("spec", {})
    if not SEMVER.match(spec.get("version", "")):
        bad.append("version not semver with v")
    sd = spec.get("shortDescription", "")
    if not sd or re.search(r"[\r\n]", sd.strip()):
        bad.append("shortDescription missing or not one line")
    for field, width in (("description", 80), ("shortDescription", 70), ("caveats", 80)):
        if too_wide(spec.get(field), width):
            bad.append("%s lines over %d: %r" % (field, width, too_wide(spec.get(field), width)))
    plats = spec.get("platforms") or []
    if not plats:
        bad.append("no platforms")
    seen = []
    for p in plats:
        labels = (p.get("selector") or {}).get("matchLabels") or {}
        if not labels or set(labels) - {"os", "arch"}:
            bad.append("selector %r" % labels)
        if (labels.get("os"), labels.get("arch")) not in KREW_PLATFORMS:
            bad.append("selector %r matches no krew platform" % labels)
        for key in ("uri", "sha256", "bin"):
            if not p.get(key):
                bad.append("platform %r lacks %s" % (labels, key))
        if not HEX64.match(str(p.get("sha256", ""))):
            bad.append("sha256 not lowercase hex")
        if "files" in p and (not p["files"] or any(not f.get("from") or not f.get("to") for f in p["files"])):
            bad.append("files empty or without from/to")
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


def make_dist(src, distdir):
    p = subprocess.run(["make", "--no-print-directory", "-j2", "-C", src, "dist", "DISTDIR=" + distdir],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=900)
    return p.returncode, p.stdout.decode()


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def tracked_status():
    return subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                          stdout=subprocess.PIPE, check=True).stdout.decode()


def untracked():
    """Files git does not ignore and does not track (a clone lacks them)."""
    return subprocess.run(["git", "-C", ROOT, "ls-files", "--others", "--exclude-standard"],
                          stdout=subprocess.PIPE, check=True).stdout.decode()


class Dist(E2ECase):
    TMP = "e2e-dist-"

    @classmethod
    def fixture(cls):
        cls.dist = os.path.join(cls.tmp, "dist")
        cls.manifest = os.path.join(cls.dist, "dynamo-interconnect.yaml")
        cls.before = tracked_status()
        cls.make = make_dist(ROOT, cls.dist)
        cls.after = tracked_status()
        cls.tgz = {a: os.path.join(cls.dist, tgz_name(a)) for a in ARCHES}
        cls.unpacked = {}
        if cls.make[0] == 0:
            for a in ARCHES:
                d = cls.unpacked[a] = os.path.join(cls.tmp, "unpack-" + a)
                with tarfile.open(cls.tgz[a]) as t:
                    t.extractall(d)

    def setUp(self):
        self.assertEqual(self.make[0], 0, self.make[1])

    def binary(self, arch):
        return os.path.join(self.unpacked[arch], PROG)

    def test_archive_contents(self):
        # deploy/ as make install has it under share/ (issue 44 point 4).
        want = ["LICENSE", "README.md", "deploy", "deploy/rbac.yaml", "deploy/cronjob.yaml",
                "deploy/alerts.yaml", PROG, PROG + ".1",
                "kubectl_complete-dynamo_interconnect", "schema", "schema/interconnect-report.schema.json",
                "schema/known-issues.schema.json"]
        comp = os.path.join(ROOT, "completions")
        if os.path.isdir(comp):   # the completion scripts, when the tree has them
            for d, dirs, files in os.walk(comp):
                rel = os.path.relpath(d, ROOT)
                want += [rel] + [os.path.join(rel, f) for f in files]
        for a in ARCHES:
            with tarfile.open(self.tgz[a]) as t:
                members = t.getmembers()
            self.assertEqual(sorted(os.path.normpath(m.name) for m in members), sorted(want), a)
            for m in members:   # reproducible tar: owner 0, no group/other write
                self.assertEqual((m.uid, m.gid, m.uname, m.gname), (0, 0, "", ""), m.name)
                self.assertEqual(m.mode & 0o022, 0, m.name)
            with open(os.path.join(self.unpacked[a], PROG + ".1"), "rb") as f, \
                    open(os.path.join(ROOT, "man", PROG + ".1"), "rb") as g:
                self.assertEqual(f.read(), g.read())

    def test_binaries_are_for_their_platform_stripped_and_pathless(self):
        machine = {"amd64": "Advanced Micro Devices X86-64", "arm64": "AArch64"}
        for a in ARCHES:
            h = subprocess.run(["readelf", "-hS", self.binary(a)], stdout=subprocess.PIPE,
                               check=True).stdout.decode()
            self.assertIn(machine[a], h)
            self.assertNotIn(".symtab", h, a + ": not stripped")
            self.assertNotIn(".debug_", h, a + ": debug info left in")
            with open(self.binary(a), "rb") as f:
                data = f.read()
            self.assertNotIn(ROOT.encode(), data, a + ": the build directory is in the binary")

    def needed(self, arch):
        out = subprocess.run(["readelf", "-d", self.binary(arch)], stdout=subprocess.PIPE,
                             check=True).stdout.decode()
        return sorted(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out))

    def test_runtime_libraries(self):
        # libyaml is linked in; what stays shared is what README and the
        # manifest's caveats name (libcurl4, libssl3 for libssl and libcrypto:
        # the CA store is handed to OpenSSL directly, tlsstore.c; libcjson1).
        for a in ARCHES:
            libs = [l for l in self.needed(a) if not l.startswith(("libc.so", "ld-linux"))]
            self.assertEqual(libs, ["libcjson.so.1", "libcrypto.so.3", "libcurl.so.4", "libssl.so.3"], a)
        out = subprocess.run(["ldd", self.binary("amd64")], stdout=subprocess.PIPE, check=True).stdout.decode()
        self.assertNotIn("not found", out)
        self.assertNotIn("libyaml", out)

    def glibc_needed(self, arch):
        out = subprocess.run(["objdump", "-T", self.binary(arch)], stdout=subprocess.PIPE,
                             check=True).stdout.decode()
        return max((tuple(int(x) for x in v.split(".")) for v in re.findall(r"GLIBC_([0-9.]+)", out)))

    def test_glibc_as_documented(self):
        with open(self.manifest) as f:
            caveats = yaml.safe_load(f)["spec"]["caveats"]
        with open(os.path.join(ROOT, "README.md")) as f:
            readme = f.read()
        for a in ARCHES:
            v = ".".join(map(str, self.glibc_needed(a)))
            self.assertIn("glibc %s or newer" % v, caveats, a)
            self.assertIn("glibc %s" % v, readme, a)

    def test_manifest_valid_with_both_sha(self):
        m, bad = validate_manifest(self.manifest)
        self.assertEqual(bad, [])
        for p in m["spec"]["platforms"]:
            a = p["selector"]["matchLabels"]["arch"]
            self.assertEqual(p["sha256"], sha256(self.tgz[a]), a)
            self.assertTrue(p["uri"].endswith("/" + tgz_name(a)), p["uri"])
        for lib in ("libcurl4", "libssl3", "libcjson1", "pods/exec"):
            self.assertIn(lib, m["spec"]["caveats"])

    def test_no_tracked_file_changes(self):
        self.assertEqual(self.after, self.before)

    def test_committed_template_valid(self):
        self.assertEqual(validate_manifest(os.path.join(ROOT, "krew", "dynamo-interconnect.yaml"))[1], [])

    def test_validator_has_teeth(self):
        with open(os.path.join(ROOT, "krew", "dynamo-interconnect.yaml")) as f:
            m = yaml.safe_load(f)
        m["spec"]["version"] = "0.1"
        m["spec"]["platforms"][1]["selector"]["matchLabels"]["arch"] = "amd64"
        m["spec"]["platforms"][0]["sha256"] = "A" * 64
        m["spec"]["caveats"] += "words " * 20 + "\n"   # 120 columns
        m["spec"]["platforms"][0]["files"] = [{"from": "*"}]
        path = os.path.join(self.tmp, "other-name.yaml")
        with open(path, "w") as f:
            yaml.safe_dump(m, f)
        bad = validate_manifest(path)[1]
        for what in ("semver", "overlapping", "file name", "lowercase hex", "caveats lines", "from/to"):
            self.assertTrue(any(what in b for b in bad), (what, bad))

    # Once is enough: the archives do not depend on the sanitizer build, so
    # the ASan pass does not collect this test at all (a skip would count as
    # a failure there, tests/e2e/runner.py).
    if "/san/" not in os.environ.get("DI_PLUGIN", ""):
        def test_reproducible_from_two_clones(self):
            # Two checkouts of the committed tree in directories of different
            # names and depths: the same archives, byte for byte.  When this
            # tree is exactly the commit (nothing changed, nothing untracked:
            # so in CI), its own archives from the fixture are the first and
            # one clone deep elsewhere the second, one build fewer; else two
            # clones.
            shas = []
            if not self.before and not untracked():
                shas.append({a: sha256(self.tgz[a]) for a in ARCHES})
            for d in ("a", os.path.join("somewhere", "much", "deeper", "b"))[len(shas):]:
                clone = os.path.join(self.tmp, "clones", d)
                subprocess.run(["git", "clone", "-q", "--no-hardlinks", ROOT, clone], check=True)
                rc, out = make_dist(clone, os.path.join(clone, "dist"))
                self.assertEqual(rc, 0, out)
                shas.append({a: sha256(os.path.join(clone, "dist", tgz_name(a))) for a in ARCHES})
            print("\nsha256 from two checkouts: %r" % shas)
            self.assertEqual(len(shas), 2)
            self.assertEqual(shas[0], shas[1])

    def test_arm64_under_qemu(self):
        b = self.binary("arm64")
        p = subprocess.run([QEMU, b, "version"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(b"v0.1.0", p.stdout)
        p = subprocess.run([QEMU, b, "-h"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(b"Available Commands:", p.stdout)
        c = self.new_cluster("demo.yaml")
        runs = {}
        for a, argv in (("arm64", [QEMU, b]), ("amd64", [self.binary("amd64")])):
            p = subprocess.run(argv + ["check", "-n", "demo", "-o", "json", "--kubeconfig", c.kubeconfig],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600,
                               env=dict(os.environ, HOME="/nonexistent"))
            runs[a] = (p.returncode, json.loads(p.stdout)["verdict"])
        self.assertIn(runs["arm64"][0], (0, 2, 3), runs)
        self.assertEqual(runs["arm64"], runs["amd64"])
        self.assertGreater(runs["arm64"][1]["probed"], 0)

    def test_krew_style_install_runs_through_kubectl(self):
        m, _ = validate_manifest(self.manifest)
        plat = [p for p in m["spec"]["platforms"] if p["selector"]["matchLabels"]["arch"] == "amd64"][0]
        store, bindir = (os.path.join(self.tmp, d) for d in ("store", "bin"))
        self.assertEqual(plat["files"], [{"from": "*", "to": "."}])   # krew's default: everything
        shutil.copytree(self.unpacked["amd64"], store)
        self.assertTrue(os.path.exists(os.path.join(store, "LICENSE")), "LICENSE not extracted")
        os.makedirs(bindir)
        # krew: kubectl-<name with - -> _> -> bin
        os.symlink(os.path.join(store, plat["bin"]),
                   os.path.join(bindir, "kubectl-" + m["metadata"]["name"].replace("-", "_")))
        env = {"PATH": bindir + ":/usr/bin:/bin", "HOME": self.tmp}
        p = subprocess.run([KUBECTL, "plugin", "list"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.assertIn(os.path.join(bindir, PROG), p.stdout.decode(), p.stderr.decode())
        p = subprocess.run([KUBECTL, "dynamo-interconnect", "version"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=env)
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        self.assertIn("v" + m["spec"]["version"].lstrip("v"), p.stdout.decode())


if __name__ == "__main__":
    unittest.main()
