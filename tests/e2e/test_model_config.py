"""The served model's config.json, read in the pod (issue 41 point 2).

ModelSection runs probe.sh's model_config section itself (the helpers of
its head, then the section's functions) on a PID 1 made of files: which
argv word names the model, where its config.json is (a directory, the
Hugging Face cache as huggingface_hub resolves it), what is refused, and
that only the fixed keys leave.  ModelScenario runs the real probe in the
test cluster on model-configs.yaml (real config.json key sets of
tests/fixtures/models) and reads each pod's `model` in `check -o json`;
ModelSecret feeds a config.json full of secret-looking keys and values
(model-secret.yaml) and finds them in no output of any format.
"""
import os
import shutil
import subprocess
import tempfile
import unittest

from base import E2ECase, ROOT, parse_json
from plugin import run

MODELS = os.path.join(ROOT, "tests", "fixtures", "models")
SCENARIOS = os.path.join(ROOT, "tests", "cluster", "scenarios")
SECRET = "S3CR3T"
REV = "7129260dd854a80eb10ace5f61c20324b472b31c"
KEYS = ("source", "state", "model_type", "architecture", "sliding_window", "hybrid_linear",
        "mla", "num_key_value_heads", "num_hidden_layers", "text_config", "bad")


def fixture(name):
    with open(os.path.join(MODELS, name, "config.json")) as f:
        return f.read()


def section_script():
    """probe.sh's helpers and the model_config section, PID 1 left to be
    replaced."""
    with open(os.path.join(ROOT, "src", "probe", "probe.sh")) as f:
        sh = f.read()
    head = sh[sh.index("have() {"):sh.index("end() {")]
    head += sh[sh.index("end() {"):].split("\n", 1)[0] + "\n"
    body = sh[sh.index("_mc_keys() {"):]
    body = body[:body.index("\nmodel_config_section\n") + len("\nmodel_config_section\n")]
    return head + body


class ModelSection(unittest.TestCase):
    def section(self, argv, env=None, files=(), links=()):
        """(rc, {key: value}, the raw output) of the section with PID 1's
        argv, environment and cwd replaced; files are (path under the
        scratch directory, text)."""
        d = tempfile.mkdtemp(prefix="model-probe-")
        self.addCleanup(shutil.rmtree, d, ignore_errors=True)
        with open(os.path.join(d, "cmdline"), "wb") as f:
            f.write(b"".join(a.encode() + b"\0" for a in argv))
        with open(os.path.join(d, "environ"), "wb") as f:
            f.write(b"".join(b"%s=%s\0" % (k.encode(), v.replace("@D", d).encode())
                             for k, v in (env or {}).items()))
        for path, text in files:
            p = os.path.join(d, "cwd", path)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(text)
        for path, target in links:
            p = os.path.join(d, "cwd", path)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            os.symlink(target, p)
        os.makedirs(os.path.join(d, "cwd"), exist_ok=True)
        body = section_script().replace("/proc/1/cmdline", d + "/cmdline").replace(
            "/proc/1/environ", d + "/environ").replace("/proc/1/cwd", d + "/cwd")
        r = subprocess.run(["sh", "-c", body], capture_output=True, timeout=60)
        out = r.stdout.decode()
        lines = out.splitlines()
        self.assertEqual(lines[0], "@@@ model_config", out)
        self.assertTrue(lines[-1].startswith("@@@ end model_config rc="), out)
        kv = {}
        for line in lines[1:-1]:
            k, _, v = line.partition("=")
            self.assertIn(k, KEYS, out)
            kv.setdefault(k, v) if k != "bad" else kv.setdefault("bad", []).append(v)
        return int(lines[-1].rsplit("=", 1)[1]), kv, out

    def hub_files(self, cache, repo, name="llama-3-70b", rev=REV):
        d = "%s/models--%s" % (cache, repo.replace("/", "--"))
        return [(d + "/refs/main", rev), (d + "/snapshots/%s/config.json" % rev, fixture(name))]

    def test_argv_forms(self):
        """vllm serve DIR, --model=, --model-path, trtllm-serve, sh -c:
        the word each engine takes (argparse: the last one)."""
        files = [("m/config.json", fixture("deepseek-v3"))]
        for argv in (["vllm", "serve", "m", "--tensor-parallel-size", "8"],
                     ["/usr/bin/vllm", "serve", "./m"],
                     ["python3", "-m", "dynamo.vllm", "--model=m"],
                     ["python3", "-m", "dynamo.sglang", "--model-path", "x", "--model-path", "m"],
                     ["python3", "-m", "dynamo.trtllm", "--model", "m"],
                     ["trtllm-serve", "m", "--backend", "pytorch"],
                     ["trtllm-serve", "serve", "m"],
                     ["sh", "-c", "exec python3 -m sglang.launch_server --model 'm' --tp 8"]):
            rc, kv, out = self.section(argv, files=files)
            self.assertEqual((rc, kv.get("source"), kv.get("state")), (0, "path", "ok"), (argv, out))
            self.assertEqual((kv["model_type"], kv["mla"], kv["num_hidden_layers"]),
                             ("deepseek_v3", "1", "61"), out)

    def test_no_engine_no_model(self):
        rc, kv, out = self.section(["python3", "server.py", "--port", "8000"])
        self.assertEqual((rc, kv), (127, {}), out)
        rc, kv, out = self.section(["python3", "-m", "dynamo.vllm", "--tensor-parallel-size", "2"])
        self.assertEqual((rc, kv), (1, {"state": "unresolved"}), out)
        for word in ("$(MODEL)", "${MODEL}", "a/b/c", "a\\b", "o/m;x"):
            rc, kv, out = self.section(["vllm", "serve", word])
            self.assertEqual(kv.get("state"), "unresolved", (word, out))

    def test_trtllm_env_and_default(self):
        """Dynamo TRT-LLM's --model falls back to DYN_TRTLLM_MODEL, then to
        TinyLlama/TinyLlama-1.1B-Chat-v1.0 (components/src/dynamo/trtllm/
        backend_args.py add_argument env_var, DEFAULT_MODEL)."""
        argv = ["python3", "-m", "dynamo.trtllm", "--disaggregation-mode", "decode"]
        files = [("m/config.json", fixture("nemotron-h-8b"))]
        rc, kv, out = self.section(argv, env={"DYN_TRTLLM_MODEL": "m"}, files=files)
        self.assertEqual((kv.get("source"), kv.get("model_type")), ("path", "nemotron_h"), out)
        rc, kv, out = self.section(argv + ["--model", "x"], env={"DYN_TRTLLM_MODEL": "m"}, files=files)
        self.assertEqual((kv.get("source"), kv.get("state")), ("hub", "absent"), out)
        rc, kv, out = self.section(argv, env={"HF_HUB_CACHE": "@D/cwd/hub"},
                                   files=self.hub_files("hub", "TinyLlama/TinyLlama-1.1B-Chat-v1.0"))
        self.assertEqual((kv.get("source"), kv.get("state"), kv.get("model_type")), ("hub", "ok", "llama"), out)
        # vLLM has no such fallback
        rc, kv, out = self.section(["python3", "-m", "dynamo.vllm"], env={"DYN_TRTLLM_MODEL": "m"}, files=files)
        self.assertEqual(kv, {"state": "unresolved"}, out)

    def test_hub_cache_order(self):
        """huggingface_hub constants.py: HF_HUB_CACHE, HUGGINGFACE_HUB_CACHE,
        HF_HOME/hub, XDG_CACHE_HOME/huggingface/hub, ~/.cache/huggingface/hub."""
        argv = ["vllm", "serve", "meta-llama/Meta-Llama-3-70B-Instruct"]
        repo = "meta-llama/Meta-Llama-3-70B-Instruct"
        cases = (
            ({"HF_HUB_CACHE": "@D/cwd/a", "HUGGINGFACE_HUB_CACHE": "@D/cwd/x", "HF_HOME": "@D/cwd/y"}, "a"),
            ({"HUGGINGFACE_HUB_CACHE": "@D/cwd/b", "HF_HOME": "@D/cwd/y"}, "b"),
            ({"HF_HOME": "@D/cwd/c", "XDG_CACHE_HOME": "@D/cwd/y"}, "c/hub"),
            ({"XDG_CACHE_HOME": "@D/cwd/d", "HOME": "@D/cwd/y"}, "d/huggingface/hub"),
            ({"HOME": "@D/cwd/e"}, "e/.cache/huggingface/hub"),
        )
        for env, cache in cases:
            rc, kv, out = self.section(argv, env=env, files=self.hub_files(cache, repo))
            self.assertEqual((kv.get("source"), kv.get("state"), kv.get("model_type")),
                             ("hub", "ok", "llama"), (env, out))
        # not downloaded, or refs/main no commit hash: absent, nothing followed
        rc, kv, out = self.section(argv, env={"HOME": "@D/cwd/e"})
        self.assertEqual((rc, kv), (1, {"source": "hub", "state": "absent"}), out)
        files = self.hub_files("e/.cache/huggingface/hub", repo, rev="../../../../m")
        files.append(("m/config.json", fixture("gpt-oss-120b")))
        rc, kv, out = self.section(argv, env={"HOME": "@D/cwd/e"}, files=files)
        self.assertEqual(kv.get("state"), "absent", out)
        # a cache path that is no plain absolute path is not used
        rc, kv, out = self.section(argv, env={"HF_HUB_CACHE": "rel/hub"}, files=self.hub_files("rel/hub", repo))
        self.assertEqual(kv.get("state"), "unresolved", out)

    def test_snapshot_link(self):
        """The cache's link into its blobs is read; one out of the repo is not."""
        d = "hub/models--o--m"
        files = [(d + "/refs/main", REV), (d + "/blobs/abc", fixture("gpt-oss-120b")),
                 ("outside/config.json", fixture("deepseek-v3"))]
        rc, kv, out = self.section(["vllm", "serve", "o/m"], env={"HF_HUB_CACHE": "@D/cwd/hub"}, files=files,
                                   links=[(d + "/snapshots/%s/config.json" % REV, "../../blobs/abc")])
        self.assertEqual((kv.get("state"), kv.get("model_type")), ("ok", "gpt_oss"), out)
        rc, kv, out = self.section(["vllm", "serve", "o/m"], env={"HF_HUB_CACHE": "@D/cwd/hub"}, files=files,
                                   links=[(d + "/snapshots/%s/config.json" % REV, "../../../../outside/config.json")])
        self.assertEqual((rc, kv.get("state"), kv.get("model_type")), (1, "denied", None), out)

    def test_states(self):
        rc, kv, out = self.section(["vllm", "serve", "/nonexistent-model-dir"])
        self.assertEqual((rc, kv), (1, {"source": "path", "state": "absent"}), out)
        big = '{"model_type": "llama", "pad": "' + "x" * 262144 + '"}'
        rc, kv, out = self.section(["vllm", "serve", "m"], files=[("m/config.json", big)])
        self.assertEqual(kv, {"source": "path", "state": "too_large"}, out)
        deep = '{"model_type": "llama", "x": ' + "[" * 65 + "]" * 65 + "}"
        rc, kv, out = self.section(["vllm", "serve", "m"], files=[("m/config.json", deep)])
        self.assertEqual(kv, {"source": "path", "state": "too_large"}, out)
        deep = '{"model_type": "llama", "x": ' + "[" * 63 + "]" * 63 + "}"
        rc, kv, out = self.section(["vllm", "serve", "m"], files=[("m/config.json", deep)])
        self.assertEqual(kv.get("model_type"), "llama", out)
        rc, kv, out = self.section(["vllm", "serve", "m"], files=[("m/config.json/x", "")])
        self.assertEqual(kv.get("state"), "denied", out)

    def test_markers(self):
        """Each marker on its own, from the transformers config classes."""
        cases = (
            ('{"layer_types": ["sliding_attention", "full_attention"]}', "sliding_window", "1"),
            ('{"sliding_window": 131072, "use_sliding_window": false}', "sliding_window", "0"),
            ('{"sliding_window": null}', "sliding_window", "0"),
            ('{"text_config": {"sliding_window": 1024}}', "sliding_window", "1"),
            ('{"layer_types": ["linear_attention", "full_attention"]}', "hybrid_linear", "1"),
            ('{"layers_block_type": ["mamba", "attention"]}', "hybrid_linear", "1"),
            ('{"attn_layer_period": 8, "attn_layer_offset": 4}', "hybrid_linear", "1"),
            ('{"full_attention_interval": 4}', "hybrid_linear", "1"),
            ('{"hybrid_override_pattern": "M-M*-"}', "hybrid_linear", "1"),
            ('{"hybrid_override_pattern": "*-*-"}', "hybrid_linear", "0"),
            ('{"model_type": "mamba2"}', "hybrid_linear", "1"),
            ('{"model_type": "falcon_h1"}', "hybrid_linear", "1"),
            ('{"model_type": "lfm2", "layer_types": ["conv", "full_attention"]}', "hybrid_linear", "1"),
            ('{"layer_types": ["conv", "full_attention"]}', "hybrid_linear", "1"),
            ('{"model_type": "llama", "layer_types": ["full_attention"]}', "hybrid_linear", "0"),
            ('{"kv_lora_rank": 512}', "mla", "1"),
            ('{"kv_lora_rank": null}', "mla", "0"),
            ('{"foo": {"kv_lora_rank": 512}, "bar": [{"sliding_window": 4}]}', "mla", "0"),
            ('{"foo": {"kv_lora_rank": 512}, "bar": [{"sliding_window": 4}]}', "sliding_window", "0"),
            ('{"architectures": ["A", "LlamaForCausalLM"]}', "bad", ["architecture"]),
            ('{"num_hidden_layers": 1.5}', "bad", ["num_hidden_layers"]),
            ('{"model_type": "llama\\u0022x"}', "bad", ["model_type"]),
        )
        for text, key, want in cases:
            rc, kv, out = self.section(["vllm", "serve", "m"], files=[("m/config.json", text)])
            self.assertEqual(kv.get(key), want, (text, out))

    def test_fixtures(self):
        """The real key sets: the markers the pair rules need."""
        want = {
            "gpt-oss-120b": ("gpt_oss", "GptOssForCausalLM", "1", "0", "0", "8", "36"),
            "deepseek-v3": ("deepseek_v3", "DeepseekV3ForCausalLM", "0", "0", "1", "128", "61"),
            "qwen3-next-80b-a3b": ("qwen3_next", "Qwen3NextForCausalLM", "0", "1", "0", "2", "48"),
            "nemotron-h-8b": ("nemotron_h", "NemotronHForCausalLM", "0", "1", "0", "8", "52"),
            "llama-3-70b": ("llama", "LlamaForCausalLM", "0", "0", "0", "8", "80"),
            "gemma-3-27b": ("gemma3", "Gemma3ForConditionalGeneration", "1", "0", "0", "16", "62"),
        }
        for name, w in want.items():
            rc, kv, out = self.section(["vllm", "serve", "m"], files=[("m/config.json", fixture(name))])
            got = tuple(kv.get(k) for k in ("model_type", "architecture", "sliding_window", "hybrid_linear",
                                            "mla", "num_key_value_heads", "num_hidden_layers"))
            self.assertEqual(got, w, (name, out))
        self.assertEqual(kv.get("text_config"), "1")

    def test_only_fixed_keys_leave(self):
        rc, kv, out = self.section(["vllm", "serve", "/home/alice-S3CR3T/m"],
                                   files=[("m/config.json", fixture("secret-laden"))])
        self.assertEqual(kv, {"source": "path", "state": "absent"}, out)
        self.assertNotIn("alice", out)
        rc, kv, out = self.section(["python3", "-m", "dynamo.vllm", "--model", "m"],
                                   env={"HF_TOKEN": "hf_S3CR3Tenv"},
                                   files=[("m/config.json", fixture("secret-laden"))])
        self.assertNotIn(SECRET, out)
        self.assertNotIn("alice", out)
        self.assertEqual(sorted(kv["bad"]), ["architecture", "model_type", "num_hidden_layers"], out)
        self.assertEqual((kv["num_key_value_heads"], kv["sliding_window"]), ("8", "0"), out)


WANT = {  # pod: (state, source, type, architecture, slidingWindow, hybridLinear, mla, kvHeads, layers)
    "gptoss-sglang-prefill-0": ("ok", "hub", "gpt_oss", "GptOssForCausalLM", True, False, False, 8, 36),
    "dsv3-vllm-decode-0": ("ok", "path", "deepseek_v3", "DeepseekV3ForCausalLM", False, False, True, 128, 61),
    "qwen3next-vllm-prefill-1": ("ok", "hub", "qwen3_next", "Qwen3NextForCausalLM", False, True, False, 2, 48),
    "nemotronh-trtllm-decode-1": ("ok", "path", "nemotron_h", "NemotronHForCausalLM", False, True, False, 8, 52),
    "llama-vllm-prefill-2": ("ok", "hub", "llama", "LlamaForCausalLM", False, False, False, 8, 80),
    "gemma-sglang-decode-2": ("ok", "path", "gemma3", "Gemma3ForConditionalGeneration", True, False, False, 16, 62),
    "absent-vllm-decode-3": ("absent", "hub", None, None, None, None, None, None, None),
    "nomodel-vllm-prefill-3": ("unresolved", None, None, None, None, None, None, None, None),
}
FIELDS = ("state", "source", "type", "architecture", "slidingWindow", "hybridLinear", "mla", "kvHeads", "layers")


class ModelScenario(E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "model-configs.yaml")
    CHECK = ("-n", "demo")

    def test_models(self):
        self.assertIsNotNone(self.doc, self.err)
        got = {p["name"]: tuple((p.get("model") or {}).get(k, "-") for k in FIELDS) for p in self.doc["pods"]}
        self.assertEqual(got, WANT)

    def test_schema(self):
        import json
        import jsonschema
        with open(os.path.join(ROOT, "schema", "interconnect-report.schema.json")) as f:
            jsonschema.Draft202012Validator(json.load(f)).validate(self.doc)


class ModelSecret(E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "model-secret.yaml")
    FORMATS = ("table", "wide", "json", "yaml", "junit", "html", "prometheus")

    @classmethod
    def fixture(cls):
        cls.got = []
        for fmt in cls.FORMATS:
            rc, out, err = run(["check", "--kubeconfig", cls.c.kubeconfig, "-A", "-o", fmt], timeout=300)
            cls.got += [(fmt + " stdout", out), (fmt + " stderr", err)]
        rc, out, err = run(["check", "--kubeconfig", cls.c.kubeconfig, "-A", "-v", "9"], timeout=300)
        cls.got += [("-v 9 stdout", out), ("-v 9 stderr", err)]

    def test_nothing_secret(self):
        for word in (SECRET, "alice"):
            leaks = [what for what, text in self.got if word in text]
            self.assertEqual(leaks, [], word)

    def test_judged(self):
        doc = parse_json(dict(self.got)["json stdout"])
        self.assertIsNotNone(doc)
        m = {p["name"]: p.get("model") for p in doc["pods"]}
        self.assertEqual(m["secret-vllm-prefill-0"], {
            "state": "ok", "source": "path", "type": None, "architecture": None, "slidingWindow": False,
            "hybridLinear": False, "mla": False, "kvHeads": 8, "layers": None})
        self.assertEqual((m["secret-vllm-decode-0"] or {}).get("state"), "absent")


if __name__ == "__main__":
    unittest.main()
