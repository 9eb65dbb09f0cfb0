"""A Secret's value never reaches an output (issue 37 item 1; product.md
"Read-only and secret-free").

The sentinel S3NT1NEL is planted in every Secret-fed variable of a pod (the
pod's process environment, as the kubelet would set it from the Secret) and
`check` runs in every output format, once at -v 9: neither stdout nor
stderr may hold it.  hostile-secret-engine is the scenario of the issue's
cases (engine paths made of HF_TOKEN, the kubelet's $(HF_TOKEN),
MOONCAKE_DEVICE with a blank and a ":port"); test_secrets_sweep.py plants
the sentinel in every scenario of tests/cluster/scenarios whose pods take
env from a Secret.
"""
import copy
import os
import unittest

import yaml

from base import E2ECase, ROOT, parse_json
from plugin import run

SCENARIOS = os.path.join(ROOT, "tests", "cluster", "scenarios")
SENTINEL = "S3NT1NEL"
FORMATS = ("table", "wide", "json", "yaml", "junit", "html", "prometheus")
# Variables an envFrom Secret may set in a Dynamo worker (its token and the
# transport variables the probe reads), each with a value that has the
# shapes masking must cope with: ","-lists, a blank, ":port", "/" of base64.
ENVFROM_PLANTS = {
    "HF_TOKEN": "/" + SENTINEL + "hf/aGVsbG8=",
    "UCX_TLS": "rc_x,cuda_copy," + SENTINEL + "tls",
    "UCX_NET_DEVICES": "mlx5_0:1," + SENTINEL + "dev:1",
    "MOONCAKE_DEVICE": "mlx5_0:1 " + SENTINEL + "mc",
    "NIXL_ETCD_ENDPOINTS": "http://" + SENTINEL + "etcd:2379",
    "NCCL_IB_HCA": "=" + SENTINEL + "hca:1",
}


def workload(pod):
    """The workload container of a scenario pod's spec (the test cluster's
    choice: `main`, else the first), or {}."""
    cs = [c for c in ((pod.get("spec") or {}).get("containers") or pod.get("containers") or [])
          if isinstance(c, dict)]
    for c in cs:
        if c.get("name") == "main":
            return c
    return cs[0] if cs else {}


def secret_fed(container):
    """(names from secretKeyRef, prefixes of envFrom secretRefs, names env
    sets itself) of a container."""
    names, prefixes, own = [], [], set()
    for e in container.get("env") or []:
        if (e.get("valueFrom") or {}).get("secretKeyRef"):
            names.append(e.get("name"))
        else:
            own.add(e.get("name"))
    for ef in container.get("envFrom") or []:
        if "secretRef" in ef:
            prefixes.append(ef.get("prefix") or "")
    return names, prefixes, own


def plant(doc, base):
    """doc with the sentinel in every Secret-fed variable of every pod, its
    relative paths (profile, files, logs) made absolute against base;
    the number of pods planted."""
    doc = copy.deepcopy(doc)
    n = 0
    for pod in doc.get("pods") or []:
        if pod.get("profile"):
            pod["profile"] = os.path.join(base, pod["profile"])
        if isinstance(pod.get("files"), dict):
            pod["files"] = {k: os.path.join(base, v) for k, v in pod["files"].items()}
        if isinstance(pod.get("logs"), dict):
            pod["logs"] = {k: os.path.join(base, v) for k, v in pod["logs"].items()}
        elif isinstance(pod.get("logs"), str):
            pod["logs"] = os.path.join(base, pod["logs"])
        names, prefixes, own = secret_fed(workload(pod))
        env = dict(pod.get("env") or {})
        for name in names:
            if SENTINEL not in str(env.get(name, "")):
                env[name] = SENTINEL + "-" + name.lower()
        for p in prefixes:
            for k, v in ENVFROM_PLANTS.items():
                if p + k not in own and p + k not in names:
                    env[p + k] = v
        if names or prefixes:
            pod["env"] = env
            n += 1
    return doc, n


def outputs(c):
    """[(what, text)] of `check -A` in every format (stdout and stderr),
    and of the table at -v 9."""
    got = []
    for fmt in FORMATS:
        rc, out, err = run(["check", "--kubeconfig", c.kubeconfig, "-A", "-o", fmt], timeout=300)
        got += [(fmt + " stdout", out), (fmt + " stderr", err)]
    rc, out, err = run(["check", "--kubeconfig", c.kubeconfig, "-A", "-v", "9"], timeout=300)
    return got + [("-v 9 stdout", out), ("-v 9 stderr", err)]


class SecretSweep:
    """Mixin of an E2ECase: SCENARIO_FILE planted, every format grepped."""
    SCENARIO_FILE = None
    TMP = "secrets-"

    @classmethod
    def scenario(cls):
        with open(cls.SCENARIO_FILE) as f:
            doc, cls.planted = plant(yaml.safe_load(f), os.path.dirname(cls.SCENARIO_FILE))
        return cls.write_scenario(doc)

    @classmethod
    def fixture(cls):
        cls.got = outputs(cls.c)

    def test_no_sentinel(self):
        self.assertGreater(self.planted, 0, "no Secret-fed pod in " + self.SCENARIO_FILE)
        leaks = [what for what, text in self.got if SENTINEL in text]
        self.assertEqual(leaks, [], "%s: %s" % (os.path.basename(self.SCENARIO_FILE), [
            text[max(0, text.index(SENTINEL) - 120):text.index(SENTINEL) + 40]
            for what, text in self.got if SENTINEL in text][:3]))

    def test_judged(self):
        """The run itself worked: pods were probed (the sweep is no pass by
        an empty output)."""
        doc = parse_json(dict(self.got)["json stdout"])
        self.assertIsNotNone(doc)
        self.assertTrue(doc["pods"])


class HostileSecretEngine(SecretSweep, E2ECase):
    SCENARIO_FILE = os.path.join(SCENARIOS, "hostile-secret-engine.yaml")

    def pod(self, infix):
        doc = parse_json(dict(self.got)["json stdout"])
        return [p for p in doc["pods"] if infix in p["name"]][0]

    def check(self, infix, name):
        return [c for c in self.pod(infix)["checks"] if c["name"] == name][0]

    def test_engine_word_named_not_used(self):
        """fw-trtllm skipped, naming the spec's word and the Secret; the
        file the Secret's value names is not judged."""
        for infix, word in (("slash", "/${HF_TOKEN}"), ("yaml", "${HF_TOKEN}.yaml"),
                            ("base64", "${HF_TOKEN}"), ("kubelet", "$(HF_TOKEN)")):
            c = self.check(infix, "fw-trtllm")
            self.assertEqual(c["status"], "skipped", c)
            self.assertIn("engine config " + word + " ", c["detail"])
            self.assertIn("HF_TOKEN is from Secret hf-token-secret", c["detail"])

    def test_mooncake_judged(self):
        """MOONCAKE_DEVICE from a Secret is judged on its real value (a
        device the pod lacks: fail) and named only as the Secret."""
        c = self.check("mooncake", "fw-mooncake")
        self.assertEqual(c["status"], "fail", c)
        self.assertIn("<from secret hf-token-secret>", c["detail"])


class ProbeSection(unittest.TestCase):
    """probe.sh's trtllm_engine section itself (the helpers of its head,
    then _eng_keys up to the section's end) on a PID 1 made of files: what
    it prints is what leaves the pod, and holds no value resolved from the
    environment, nor an argv word that holds one (the kubelet's
    $(HF_TOKEN))."""

    def section(self, argv, env, files=()):
        import subprocess
        import tempfile
        with open(os.path.join(ROOT, "src", "probe", "probe.sh")) as f:
            sh = f.read()
        head = sh[sh.index("have() {"):sh.index("end() {")]
        head += sh[sh.index("end() {"):].split("\n", 1)[0] + "\n"
        body = sh[sh.index("_eng_keys() {"):]
        body = body[:body.index('end trtllm_engine "$_erc"\nfi\n') + len('end trtllm_engine "$_erc"\nfi\n')]
        d = tempfile.mkdtemp(prefix="secrets-probe-")
        try:
            with open(os.path.join(d, "cmdline"), "wb") as f:
                f.write(b"".join(a.encode() + b"\0" for a in argv))
            with open(os.path.join(d, "environ"), "wb") as f:
                f.write(b"".join(b"%s=%s\0" % (k.encode(), v.encode()) for k, v in env.items()))
            for path, text in files:
                with open(os.path.join(d, path), "w") as f:
                    f.write(text)
            body = body.replace("/proc/1/cmdline", d + "/cmdline").replace(
                "/proc/1/environ", d + "/environ").replace("/proc/1/cwd", d)
            r = subprocess.run(["sh", "-c", head + body], capture_output=True, timeout=60)
        finally:
            import shutil
            shutil.rmtree(d, ignore_errors=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.decode()

    def test_nothing_resolved_leaves(self):
        env = {"HF_TOKEN": "/" + SENTINEL + "/aGVsbG8=", "ENGINE_ARGS": "e.yaml", "HOME": "/home/dynamo"}
        for argv in (["sh", "-c", 'trtllm-serve --extra-engine-args "/${HF_TOKEN}"'],
                     ["sh", "-c", "trtllm-serve --extra-engine-args ${HF_TOKEN}.yaml"],
                     ["trtllm-serve", "--extra-engine-args", env["HF_TOKEN"]],          # $(HF_TOKEN)
                     ["trtllm-serve", "--extra-engine-args=/x" + env["HF_TOKEN"]]):
            out = self.section(argv, env)
            self.assertNotIn(SENTINEL, out, argv)
            self.assertIn("flag=--extra-engine-args", out)
        # a plain path word still goes, and the file it names is read
        out = self.section(["trtllm-serve", "--extra-engine-args", "cfg.yaml"], env,
                           [("cfg.yaml", "max_input_len: 4096\n")])
        self.assertIn("path=cfg.yaml\n", out)
        self.assertIn("max_input_len=4096", out)
        # ${ENGINE_ARGS}: resolved in the pod to read the file, sent as written
        out = self.section(["sh", "-c", "trtllm-serve --extra-engine-args ${ENGINE_ARGS}"], env,
                           [("e.yaml", "max_input_len: 2048\n")])
        self.assertIn("path=${ENGINE_ARGS}\n", out)
        self.assertIn("max_input_len=2048", out)


class KubeletExpand(unittest.TestCase):
    """The test cluster expands $(VAR) of command/args as the kubelet does
    (k8s.io/kubernetes third_party/forked/golang/expansion/expand.go and its
    expand_test.go cases), so /proc/1/cmdline shows what a real pod shows."""

    def test_cases(self):
        """expand_test.go doExpansionTest's cases (a selection), then the
        Secret-fed shape of issue 37."""
        from fc_sandbox import kubelet_expand
        env = {"VAR_A": "A", "VAR_B": "B", "VAR_C": "C", "VAR_REF": "$(VAR_A)", "VAR_EMPTY": "",
               "HF_TOKEN": SENTINEL}
        for word, want in (("$(VAR_A)", "A"), ("$(VAR_A)-$(VAR_A)", "A-A"), ("___$(VAR_B)___", "___B___"),
                           ("$$(VAR_B)_$(VAR_A)", "$(VAR_B)_A"), ("f000-$$VAR_A", "f000-$VAR_A"),
                           ("$(VAR_A$(VAR_B))", "$(VAR_A$(VAR_B))"), ("$(VAR_REF)", "$(VAR_A)"),
                           ("foo$(VAR_EMPTY)bar", "foobar"), ("foo$(VAR_Awhoops!", "foo$(VAR_Awhoops!"),
                           ("$?_boo_$!", "$?_boo_$!"), ("$VAR_A", "$VAR_A"), ("$(VAR_DNE)", "$(VAR_DNE)"),
                           ("$$$$$$(BIG_MONEY)", "$$$(BIG_MONEY)"), ("$$$$$$$(VAR_A)", "$$$A"),
                           ("${VAR_A}", "${VAR_A}"), ("$(VAR_C)_______$(", "C_______$("),
                           ("$(VAR_A)foobarzab$", "Afoobarzab$"), ("--$($($($($--", "--$($($($($--"),
                           ("$(foo$$var)", "$(foo$$var)"),
                           ("--extra-engine-args=/$(HF_TOKEN)", "--extra-engine-args=/" + SENTINEL)):
            self.assertEqual(kubelet_expand(word, env), want, word)

if __name__ == "__main__":
    unittest.main()
