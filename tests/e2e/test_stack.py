#!/usr/bin/python3
"""Which NIXL and UCX really load, end to end (issue 26 item 1, checks.md
F6-F8): `check` on scenarios of Dynamo's runtime images, each verdict and
check result written here before the tool was run on the scenario.

- stack-trtllm-6671: Dynamo's TensorRT-LLM runtime before its fix
  (ai-dynamo/dynamo#6671): three libnixl copies, no LD_PRELOAD, the system
  NIXL's directory on LD_LIBRARY_PATH, TensorRT-LLM's NIXL wrapper with
  RUNPATH=$ORIGIN/nixl/ (readelf in the image).  LD_LIBRARY_PATH is
  searched before DT_RUNPATH, so the system libnixl.so loads instead of the
  wrapper's own: nixl-lib-shadow fails on both workers, which breaks the
  nixl-backend link: NOT READY.  ldd -r answers nothing (the image's ldd
  is asked only about the plugin): nixl-cuda-mix and nixl-lib-symbols are
  skipped.
- stack-vllm-cuda-mix: Dynamo's vLLM runtime (CUDA 13) with nixl 1.2.0's
  nixl-cu12 and nixl-cu13 (the cu12 build's nixl_ep installed last,
  ai-dynamo/nixl#1705), whose nixl_ep_cpp needs libcudart.so.12, absent
  from the CUDA 13 image (vllm-project/vllm#39923, PR #44266):
  nixl-cuda-mix fails: NOT READY; nixl-known-bad still warns (F5 row).
- stack-trtllm-9752: TensorRT-LLM 1.1.0rc5's NIXL wrapper (built for NIXL
  < 0.6) in Dynamo's TensorRT-LLM runtime, the system NIXL (>= 0.6, whose
  nixlDescList constructor lost `sorted`) first on LD_LIBRARY_PATH, no
  LD_PRELOAD (NVIDIA/TensorRT-LLM#9752): ldd -r of the wrapper names the
  two old nixlDescList constructors undefined: nixl-lib-symbols fails and
  breaks the nixl-backend link: NOT READY.  The report names no pip nixl,
  so no NIXL version is visible: nixl-known-bad is skipped, not failed;
  no readelf, but ldd shows the system NIXL loading instead of the
  wrapper's bundled copy: nixl-lib-shadow fails too (issue 39 item 3;
  skipped before); nixl-cuda-mix ok (no libcudart).
  nixl-lib-symbols is the only failing check.
- stack-ldconf-hpcx: Dynamo's TensorRT-LLM runtime with the NGC base's
  /etc/ld.so.conf.d/hpcx.conf (HPC-X's /opt/hpcx/ucx/lib in ld.so.cache),
  TensorRT-LLM's own UCX 1.21.0 in /usr/local/ucx (what ucx_info -v
  reports) on no LD_LIBRARY_PATH of the pod (TensorRT-LLM's install_ucx.sh
  writes it only into the shell's $ENV file), and the bundled NIXL's UCX
  plugin, whose RUNPATH ($ORIGIN/..) names no UCX (readelf in the image).
  ld.so takes libucp.so.0 from ld.so.cache: HPC-X's copy, listed by
  hpcx.conf before x86_64-linux-gnu.conf's /usr/lib/x86_64-linux-gnu,
  which holds an apt libucp.so.0 too.  nixl-lib-shadow warns, naming the
  HPC-X copy, ld.so.cache, hpcx.conf and the UCX ucx_info describes;
  ucx-nixl-lib warns as well (ldd shows the HPC-X copy); nothing fails:
  both workers READY.
- stack-ldconf-lpath: the near miss, the same image and the same
  hpcx.conf, with /usr/local/ucx/lib first on the pod's LD_LIBRARY_PATH
  (the line TensorRT-LLM's install scripts mean it to have): LD_LIBRARY_PATH
  comes before ld.so.cache, the UCX that ucx_info describes loads:
  nixl-lib-shadow ok, naming that copy and LD_LIBRARY_PATH; READY.
- the stock images img-dynamo-trtllm-ib and img-dynamo-vllm-ib (no
  readelf/objdump, ldd answering only for the plugin): the three new
  checks are skipped with the reason, nixl-installed and nixl-plugin stay
  ok, the nixl-backend link proven, and both workers READY.

Environment: DI_PLUGIN (the binary; default ./kubectl-dynamo_interconnect).
"""
import os
import unittest

from base import ROOT, E2ECase, PairWorkers

SCENARIOS = os.path.join(ROOT, "tests", "cluster", "scenarios")
NEW = ("nixl-lib-shadow", "nixl-cuda-mix", "nixl-lib-symbols")
SITE = "/usr/local/lib/python3.12/dist-packages"


class Stack(PairWorkers):
    VERDICT = None
    STATUS = {}          # check name -> status on every worker
    DETAIL = {}          # check name -> strings its detail holds
    LINK = "proven"      # nixl-backend

    def test_checks(self):
        for p in self.doc["pods"]:
            for name, st in self.STATUS.items():
                c = self.check(p, name)
                self.assertEqual(c["status"], st, (p["name"], name, c["detail"]))
                for s in self.DETAIL.get(name, ()):
                    self.assertIn(s, c["detail"])

    def test_nixl_found(self):
        for p in self.doc["pods"]:
            for name in ("nixl-installed", "nixl-plugin"):
                self.assertEqual(self.check(p, name)["status"], "ok", name)

    def test_link(self):
        for p in self.doc["pods"]:
            link = [l for l in p["links"] if l["name"] == "nixl-backend"]
            self.assertEqual([l["status"] for l in link], [self.LINK], link)


class Trtllm6671(Stack, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "stack-trtllm-6671.yaml")
    VERDICT = "NOT READY"
    LINK = "broken"
    STATUS = {"nixl-lib-shadow": "fail", "nixl-cuda-mix": "skipped",
              "nixl-lib-symbols": "skipped", "nixl-known-bad": "ok"}
    DETAIL = {"nixl-lib-shadow": (
        SITE + "/tensorrt_llm/libs/libtensorrt_llm_nixl_wrapper.so needs libnixl.so",
        "LD_LIBRARY_PATH's /opt/nvidia/nvda_nixl/lib/x86_64-linux-gnu/libnixl.so is loaded",
        "not " + SITE + "/tensorrt_llm/libs/nixl/libnixl.so that its DT_RUNPATH names",
        "ai-dynamo/dynamo#6671")}


class VllmCudaMix(Stack, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "stack-vllm-cuda-mix.yaml")
    VERDICT = "NOT READY"
    LINK = "broken"
    # nixl-lib-shadow: no readelf/objdump, so before issue 39 item 3 it was
    # skipped; now ldd's resolution judges it: every NIXL/UCX library
    # loads the copy its object ships beside
    STATUS = {"nixl-cuda-mix": "fail", "nixl-lib-shadow": "ok",
              "nixl-known-bad": "warn"}
    DETAIL = {"nixl-cuda-mix": (SITE + "/nixl_ep/nixl_ep_cpp.cpython-312-x86_64-linux-gnu.so needs libcudart.so.12",
                                "vllm-project/vllm PR #44266"),
              "nixl-lib-shadow": ("no readelf or objdump in the image", "judged from ldd")}


class VllmCudaMixFold(E2ECase):
    """The same pods: the libcudart.so.12 symbols ldd -r finds undefined
    fail nixl-lib-symbols too, folded under nixl-cuda-mix (checks.md N).
    Written after fold.c gained the row, before this run."""
    SCENARIO = VllmCudaMix.SCENARIO
    CHECK = ["-n", "demo"]

    def test_symbols_follow(self):
        for p in self.doc["pods"]:
            c = [c for c in p["checks"] if c["name"] == "nixl-lib-symbols"][0]
            self.assertEqual(c["status"], "fail", c["detail"])
            self.assertIn("first cudaGetDevice", c["detail"])
            self.assertEqual(c.get("cause"), "nixl-cuda-mix", c)


class Trtllm9752(Stack, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "stack-trtllm-9752.yaml")
    VERDICT = "NOT READY"
    LINK = "broken"
    WRAPPER = SITE + "/tensorrt_llm/libs/libtensorrt_llm_nixl_wrapper.so"
    # nixl-lib-shadow: skipped before issue 39 item 3 (no readelf); ldd
    # now shows what this scenario is built on, the system NIXL first on
    # LD_LIBRARY_PATH loading instead of the wrapper's bundled copy: fail
    STATUS = {"nixl-lib-symbols": "fail", "nixl-known-bad": "skipped",
              "nixl-lib-shadow": "fail", "nixl-cuda-mix": "ok"}
    DETAIL = {"nixl-lib-symbols": (
        WRAPPER + ": 2 undefined symbol(s)",
        "first _ZN12nixlDescListI12nixlBlobDescEC1ERK10nixl_mem_tRKbRKi",
        "nixlDescList", "NVIDIA/TensorRT-LLM#9752"),
        "nixl-known-bad": ("version not reported",),
        "nixl-lib-shadow": ("no readelf or objdump in the image",
                            "loads /opt/nvidia/nvda_nixl/lib/x86_64-linux-gnu/libnixl.so",
                            "not " + SITE + "/tensorrt_llm/libs/nixl/libnixl.so")}

    def test_only_symbols_fail(self):
        for p in self.doc["pods"]:
            bad = sorted(c["name"] for c in p["checks"] if c["status"] == "fail")
            self.assertEqual(bad, ["nixl-lib-shadow", "nixl-lib-symbols"], p["name"])
            # the shadowed copy is the root; the undefined symbols follow
            # from it (fold.c's existing row, checks.md N)
            c = self.check(p, "nixl-lib-symbols")
            self.assertEqual(c.get("cause"), "nixl-lib-shadow", c)


class StockTrtllm(Stack, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "img-dynamo-trtllm-ib.yaml")
    VERDICT = "READY"
    STATUS = dict((n, "skipped") for n in NEW)
    DETAIL = {"nixl-lib-shadow": ("no readelf or objdump in the image",),
              "nixl-lib-symbols": ("ldd -r did not answer",)}


class StockVllm(Stack, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "img-dynamo-vllm-ib.yaml")
    VERDICT = "READY"
    STATUS = dict((n, "skipped") for n in NEW)
    DETAIL = {"nixl-lib-shadow": ("no readelf or objdump in the image",)}


class LdconfHpcx(Stack, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "stack-ldconf-hpcx.yaml")
    VERDICT = "READY"
    # the plugin's directory is NIXL_PLUGIN_DIR's value, which the DGD's
    # envFrom secretRef could set: shown as "<from secret ...>" (product.md)
    STATUS = {"nixl-lib-shadow": "warn", "ucx-nixl-lib": "warn"}
    DETAIL = {"nixl-lib-shadow": (
        "<from secret hf-token-secret>/libplugin_UCX.so needs libucp.so.0",
        "ld.so.cache's /opt/hpcx/ucx/lib/libucp.so.0",
        "/etc/ld.so.conf.d/hpcx.conf",
        "ucx_info describes /usr/local/ucx/lib")}


class LdconfLpath(Stack, E2ECase):
    SCENARIO = os.path.join(SCENARIOS, "stack-ldconf-lpath.yaml")
    VERDICT = "READY"
    STATUS = {"nixl-lib-shadow": "ok", "ucx-nixl-lib": "ok"}
    DETAIL = {"nixl-lib-shadow": (
        "libucp.so.0 from LD_LIBRARY_PATH: /usr/local/ucx/lib/libucp.so.0",)}


if __name__ == "__main__":
    unittest.main()
