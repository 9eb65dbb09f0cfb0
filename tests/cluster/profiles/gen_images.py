#!/usr/bin/python3
"""Writes the img-* profiles: the healthy node of h100-ib-ok (or roce-ok)
under the image side of a real, publicly built image (Dynamo's vLLM, SGLang
and TRT-LLM runtimes, lmsysorg/sglang, TensorRT-LLM's release image).

The node side (root/sys, root/proc, root/dev, limits, nvidia-smi and its
captured outputs: the driver mount) is copied from the base profile.  The
image side follows the image's public build recipe: install paths under
root/, the tools the image has (and only those), the image's ENV lines plus
what the Dynamo operator injects plus the DGD's env in `env`.  Each
profile's SOURCE.md names the recipe file and lines every piece follows.

    tests/cluster/profiles/gen_images.py           # rewrite the img-* profiles
    tests/cluster/profiles/gen_images.py --check   # exit 1 if one is stale

Edit this file (or the base profiles), then rerun it.  Symlinks of the image
(e.g. /opt/dynamo/nixl) are written relative so that they resolve the same
inside the pod and in a checkout.
"""
import importlib.util
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("cluster_gen_profiles", os.path.join(HERE, "gen_profiles.py"))
cg = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cg)

DYN = "ai-dynamo/dynamo main of 2026-08-21 (commit 2a6da14c, the tree docs/dynamo.md cites; read from the fork wxsms/dynamo)"
SITE = "/usr/local/lib/python3.12/dist-packages"
OUT = "/usr/local/bin/out"   # the profile's bin/out/, as the pod sees it

# -- the node (driver mount, kernel, sysfs): copied, never edited -------------
NODE_FILES = ("limits",)
NODE_DIRS = ("root/sys", "root/proc", "root/dev")


def copy_node(base, d):
    src = os.path.join(HERE, base)
    for rel in NODE_DIRS:
        shutil.copytree(os.path.join(src, rel), os.path.join(d, rel), symlinks=True)
    for rel in NODE_FILES:
        shutil.copy2(os.path.join(src, rel), os.path.join(d, rel))
    os.makedirs(os.path.join(d, "bin", "out"))
    shutil.copy2(os.path.join(src, "bin", "nvidia-smi"), os.path.join(d, "bin", "nvidia-smi"))
    for f in sorted(os.listdir(os.path.join(src, "bin", "out"))):
        if f.startswith("nvidia-smi"):
            shutil.copy2(os.path.join(src, "bin", "out", f), os.path.join(d, "bin", "out", f))


def base_text(base, rel):
    with open(os.path.join(HERE, base, rel)) as f:
        return f.read()


# -- environment ---------------------------------------------------------------
# The operator's worker env (deploy/operator/internal/dynamo/component_common.go
# getCommonContainer, component_worker.go GetBaseContainer).  Per-pod values
# (POD_NAME, HOSTNAME, the per-role DYN_COMPONENT) come from each scenario
# pod's `env:`, as one profile serves the prefill and the decode pod; POD_UID
# is left out (the probe reads none of them).
OPERATOR_ENV = [("DYN_NAMESPACE", "demo-qwen"), ("DYN_PARENT_DGD_K8S_NAME", "qwen"),
                ("DYN_PARENT_DGD_K8S_NAMESPACE", "demo"), ("POD_NAMESPACE", "demo"),
                ("DYN_DISCOVERY_BACKEND", "kubernetes"), ("DYN_SYSTEM_ENABLED", "true"),
                ("DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS", '["generate"]'), ("DYN_SYSTEM_PORT", "9090"),
                ("DYN_HEALTH_CHECK_ENABLED", "false"), ("NIXL_TELEMETRY_ENABLE", "n"),
                ("NIXL_TELEMETRY_EXPORTER", "prometheus"), ("NIXL_TELEMETRY_PROMETHEUS_PORT", "19090")]
# The DGD's env: Dynamo's IB disagg recipe components rdma-defaults +
# nebius-ib (tests/fixtures/recipes; the same list tests/calibration uses),
# merged over the operator's by name (graph.go MergeEnvs).  No UCX_TLS, no
# UCX_NET_DEVICES: UCX picks its transports and devices itself.
DGD_ENV = [("NIXL_TELEMETRY_ENABLE", "y"), ("NIXL_TELEMETRY_EXPORTER", "prometheus"),
           ("NIXL_TELEMETRY_PROMETHEUS_PORT", "19090"), ("NCCL_DEBUG", "WARN"),
           ("NCCL_SOCKET_IFNAME", "eth0")]
# envFrom: [{secretRef: {name: hf-token-secret}}] (the DGD's envFromSecret).
SECRET_ENV = [("HF_TOKEN", "hf_fakeclusterTokenNotASecret")]
# What the kubelet adds to every container (service links off: only the API).
KUBELET_ENV = [("KUBERNETES_SERVICE_HOST", "10.96.0.1"), ("KUBERNETES_SERVICE_PORT", "443"),
               ("KUBERNETES_SERVICE_PORT_HTTPS", "443")]

CUDA_BASE_ENV = [("NVARCH", "x86_64"), ("NVIDIA_VISIBLE_DEVICES", "all"),
                 ("NVIDIA_DRIVER_CAPABILITIES", "compute,utility")]


def merged_env(image):
    """Image ENV, then the pod's env (operator, DGD over it by name, the
    secret, the kubelet's): a later name replaces an earlier one in place."""
    out = []
    for k, v in list(image) + OPERATOR_ENV + DGD_ENV + SECRET_ENV + KUBELET_ENV:
        out = [(a, b) for a, b in out if a != k] + [(k, v)]
    return "".join("%s=%s\n" % kv for kv in out)


# -- fake tools ----------------------------------------------------------------
def python3_tool(ok=True):
    """The image's python3, reduced to the probe's `import nixl` one-liner."""
    if ok:
        answer = '*"import nixl"*) cat %s/python3-nixl.txt; exit 0 ;;' % OUT
    else:
        answer = ('*"import nixl"*) cat %s/python3-nixl-error.txt >&2; exit 1 ;;' % OUT)
    return ("#!/bin/sh\n# python3 of the image, reduced to the probe's `import nixl` one-liner\n"
            "# (answered as the image's python answers it).\n"
            'case "$1" in\n--version | -V) echo "Python 3.12.3"; exit 0 ;;\n-c)\n'
            '\tcase "$2" in\n\t%s\n\tesac ;;\nesac\n'
            'echo "python3: this test image runs only the NIXL import check" >&2\nexit 1\n' % answer)


def ldd_tool(libs):
    """ldd (libc-bin, in every Ubuntu image): the resolved libraries of the
    NIXL UCX plugin(s), by file name."""
    cases = "".join('*/%s) cat %s/ldd-%s.txt ;;\n' % (n, OUT, n) for n in libs)
    return ("#!/bin/sh\n# ldd of the image (libc-bin), reduced to the libraries the probe asks about.\n"
            'case "$1" in\n%s*) echo "ldd: $1: not a dynamic executable" >&2; exit 1 ;;\nesac\n' % cases)


UCX_INFO = ("#!/bin/sh\n# ucx_info of the image's UCX build: captured output for -v and -d.\n"
            'case "$*" in\n-v) cat %s/ucx_info-v.txt ;;\n-d) cat %s/ucx_info-d.txt ;;\n'
            '*) echo "Usage: ucx_info [options]" >&2; exit 1 ;;\nesac\n' % (OUT, OUT))


def ldd_lines(libdir, names, base_addr=0x7f3a1c000000):
    lines = ["\tlinux-vdso.so.1 (0x00007ffd5b9e4000)"]
    for i, n in enumerate(names):
        lines.append("\t%s => %s/%s (0x%016x)" % (n.split("@")[0], libdir, n.split("@")[-1],
                                                  base_addr + i * 0x200000))
    lines.append("\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f3a1a000000)")
    lines.append("\t/lib64/ld-linux-x86-64.so.2 (0x00007f3a1d000000)")
    return "\n".join(lines) + "\n"


# auditwheel names the wheel's private UCX libraries <name>-<hash>.so.N.M.K
# (container/deps/sglang/discover_nixl_ucx_layout.py matches
# "libucp-[0-9A-Fa-f]+.so.N"); the hashes here are illustrative.
WHEEL_UCX = ["libucp-6b1f3e2a.so.0.0.0", "libucs-9c4d7a10.so.0.0.0",
             "libuct-2e8b5f44.so.0.0.0", "libucm-71a0c3d9.so.0.0.0"]
WHEEL_PLUGINS = ["libplugin_GDS.so", "libplugin_GDS_MT.so", "libplugin_OBJ.so",
                 "libplugin_POSIX.so", "libplugin_UCX.so"]
WHEEL_CORE = ["libnixl.so", "libnixl_build.so", "libnixl_common.so", "libserdes.so", "libstream.so"]


def pip_wheel(p, site, cu, version):
    """The nixl + nixl-cuNN wheels from PyPI as pip lays them out under SITE:
    the meta package `nixl`, the meson-python private library directory
    .nixl_cuNN.mesonpy.libs (libnixl*.so, plugins/) and auditwheel's
    nixl_cuNN.libs (the bundled UCX and its modules).  Returns the python
    answer lines for `import nixl`."""
    s = site.lstrip("/")
    p.write("root/%s/nixl/__init__.py" % s, "")
    p.write("root/%s/nixl_cu%s/__init__.py" % (s, cu), "")
    for f in WHEEL_CORE:
        p.write("root/%s/.nixl_cu%s.mesonpy.libs/%s" % (s, cu, f), "")
    for f in WHEEL_PLUGINS:
        p.write("root/%s/.nixl_cu%s.mesonpy.libs/plugins/%s" % (s, cu, f), "")
    for f in WHEEL_UCX:
        p.write("root/%s/nixl_cu%s.libs/%s" % (s, cu, f), "")
    for f in ("libuct_ib.so.0", "libuct_cuda.so.0", "libucx_perftest_cuda.so.0", "libuct_cma.so.0"):
        p.write("root/%s/nixl_cu%s.libs/ucx/%s" % (s, cu, f), "")
    pd = "%s/.nixl_cu%s.mesonpy.libs/plugins" % (site, cu)
    return ("module=%s/nixl/__init__.py\nversion=nixl %s\nversion=nixl-cu%s %s\nplugin_dir=%s\n" %
            (site, version, cu, version, pd) + "".join("plugin=%s\n" % f for f in WHEEL_PLUGINS))


def wheel_ldd(p, site, cu):
    libdir = "%s/nixl_cu%s.libs" % (site, cu)
    # ldd prints the SONAME the plugin asks for (the mangled one) on the left
    names = ["%s@%s" % (n[:n.index(".so.") + 5], n) for n in WHEEL_UCX]
    p.write("bin/out/ldd-libplugin_UCX.so.txt", ldd_lines(libdir, names))
    p.write("bin/ldd", ldd_tool(["libplugin_UCX.so"]), 0o755)


def ucx_source_build(p, base, version, branch, rev, configure, gdrcopy):
    """UCX built from source into /usr/local/ucx with its ucx_info."""
    p.write("root/usr/local/ucx/bin/ucx_info", UCX_INFO, 0o755)
    for f in ("libucp.so.0", "libucs.so.0", "libuct.so.0", "libucm.so.0"):
        p.write("root/usr/local/ucx/lib/%s" % f, "")
    p.write("bin/out/ucx_info-v.txt",
            "# Library version: %s\n# Library path: /usr/local/ucx/lib/libucs.so.0\n"
            "# API headers version: %s\n# Git branch '%s', revision %s\n# Configured with: %s\n"
            % (version, version, branch, rev, configure))
    d = base_text(base, "bin/out/ucx_info-d.txt")
    if not gdrcopy:
        # no --with-gdrcopy: UCX has no gdr_copy component at all
        d = cg.ucx_drop_md(d, lambda name, comp: comp == "gdr_copy")
    p.write("bin/out/ucx_info-d.txt", d)


def ucx_ldd(p, plugin_names):
    names = ["libucp.so.0@libucp.so.0", "libucs.so.0@libucs.so.0", "libuct.so.0@libuct.so.0",
             "libucm.so.0@libucm.so.0"]
    for n in plugin_names:
        p.write("bin/out/ldd-%s.txt" % n, ldd_lines("/usr/local/ucx/lib", names))
    p.write("bin/ldd", ldd_tool(plugin_names), 0o755)


def verbs_stack(p, rdmav="34"):
    """rdma-core's userspace verbs (libibverbs1 + ibverbs-providers): the
    library and the mlx5 provider, as the Ubuntu packages
    install them (provider ABI rdmav34 since rdma-core 18)."""
    p.write("root/usr/lib/x86_64-linux-gnu/libibverbs.so.1", "")
    p.write("root/usr/lib/x86_64-linux-gnu/libibverbs/libmlx5-rdmav%s.so" % rdmav, "")


def ibstat_from(p, base):
    p.write("bin/ibstat", base_text("h100-ib-ok", "bin/ibstat"), 0o755)
    p.write("bin/out/ibstat.txt", base_text(base, "bin/out/ibstat.txt"))


# -- the images ----------------------------------------------------------------
IMAGES = []


def image(name, base, title):
    def deco(fn):
        IMAGES.append((name, base, title, fn))
        return fn
    return deco


@image("img-dynamo-vllm-ib", "h100-ib-ok", "nvcr.io/nvidia/ai-dynamo/vllm-runtime (CUDA 13) on a healthy H100 InfiniBand node")
def dynamo_vllm(p, base):
    env = [("PATH", "/opt/uv/bin:/usr/local/bin/etcd:/usr/local/nvidia/bin:/usr/local/cuda/bin:"
                    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"),
           ("NVARCH", "x86_64"), ("NVIDIA_REQUIRE_CUDA", "cuda>=13.0"), ("CUDA_VERSION", "13.0.2"),
           ("LD_LIBRARY_PATH", "/opt/dynamo/nixl:/opt/dynamo/nixl/plugins:/usr/local/nvidia/lib:/usr/local/nvidia/lib64"),
           ("NVIDIA_VISIBLE_DEVICES", "all"), ("NVIDIA_DRIVER_CAPABILITIES", "video,compute,utility"),
           ("DEBIAN_FRONTEND", "noninteractive"), ("UV_HTTP_TIMEOUT", "500"),
           ("UV_INDEX_STRATEGY", "unsafe-best-match"), ("VLLM_USAGE_SOURCE", "production-docker-image"),
           ("DYNAMO_HOME", "/opt/dynamo"), ("HOME", "/home/dynamo"),
           ("NIXL_PREFIX", "/opt/dynamo/nixl"), ("NIXL_LIB_DIR", "/opt/dynamo/nixl"),
           ("NIXL_PLUGIN_DIR", "/opt/dynamo/nixl/plugins"), ("DYNAMO_COMMIT_SHA", "2a6da14c83617f5412caba5777dbf0e2399e9c5f")]
    p.write("env", merged_env(env))
    p.write("bin/out/python3-nixl.txt", pip_wheel(p, SITE, "13", "1.3.1"))
    p.write("bin/python3", python3_tool(), 0o755)
    # install_nixl_from_wheel: NIXL_PREFIX is a symlink to the wheel's libs
    os.makedirs(p.path("root/opt/dynamo"), exist_ok=True)
    os.symlink("../../usr/local/lib/python3.12/dist-packages/.nixl_cu13.mesonpy.libs", p.path("root/opt/dynamo/nixl"))
    wheel_ldd(p, SITE, "13")
    verbs_stack(p)


@image("img-dynamo-sglang-ib", "h100-ib-ok", "nvcr.io/nvidia/ai-dynamo/sglang-runtime (CUDA 13) on a healthy H100 InfiniBand node")
def dynamo_sglang(p, base):
    env = [("PATH", "/usr/local/bin/etcd:/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/sbin:"
                    "/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/usr/local/nvidia/bin"),
           ("NVARCH", "x86_64"), ("NVIDIA_REQUIRE_CUDA", "cuda>=13.0"), ("CUDA_VERSION", "13.0.1"),
           ("LD_LIBRARY_PATH", "/opt/dynamo/nixl-ucx-compat:/usr/local/nvidia/lib:/usr/local/nvidia/lib64:"
                               "/usr/local/nvidia/lib:/usr/local/nvidia/lib64"),
           ("NVIDIA_VISIBLE_DEVICES", "all"), ("NVIDIA_DRIVER_CAPABILITIES", "video,compute,utility"),
           ("DEBIAN_FRONTEND", "noninteractive"), ("CUDA_HOME", "/usr/local/cuda"),
           ("LANG", "en_US.UTF-8"), ("LANGUAGE", "en_US:en"), ("LC_ALL", "en_US.UTF-8"),
           ("SGLANG_FORCE_SHUTDOWN", "1"), ("HOME", "/home/dynamo"),
           ("DYNAMO_COMMIT_SHA", "2a6da14c83617f5412caba5777dbf0e2399e9c5f")]
    p.write("env", merged_env(env))
    p.write("bin/out/python3-nixl.txt", pip_wheel(p, SITE, "13", "1.3.1"))
    p.write("bin/python3", python3_tool(), 0o755)
    # install_nixl_ucx_compat.sh: generic SONAME aliases of the wheel's UCX
    for alias, target in (("libucp.so.0", WHEEL_UCX[0]), ("libucs.so.0", WHEEL_UCX[1])):
        os.makedirs(p.path("root/opt/dynamo/nixl-ucx-compat"), exist_ok=True)
        os.symlink("../../../usr/local/lib/python3.12/dist-packages/nixl_cu13.libs/" + target,
                   p.path("root/opt/dynamo/nixl-ucx-compat/" + alias))
    p.write("root/%s/mooncake/__init__.py" % SITE.lstrip("/"), "")
    wheel_ldd(p, SITE, "13")
    ibstat_from(p, base)
    verbs_stack(p)


@image("img-dynamo-trtllm-ib", "h100-ib-ok", "nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime (CUDA 13.1) on a healthy H100 InfiniBand node")
def dynamo_trtllm(p, base):
    trt_nixl = SITE + "/tensorrt_llm/libs/nixl"
    env = [("PATH", "/opt/dynamo/venv/bin:/opt/uv/bin:/usr/local/bin/etcd:/usr/local/nvidia/bin:"
                    "/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/usr/local/ucx/bin"),
           ("NVIDIA_VISIBLE_DEVICES", "all"), ("NVIDIA_DRIVER_CAPABILITIES", "compute,utility,video"),
           ("LD_LIBRARY_PATH", SITE + "/torch/lib:/usr/local/cuda/compat/lib:/usr/local/nvidia/lib:/usr/local/nvidia/lib64"),
           ("BASH_ENV", "/etc/bash.bashrc"), ("ENV", "/etc/shinit_v2"),
           ("PYTORCH_CUDA_ALLOC_CONF", "garbage_collection_threshold:0.99999"),
           ("TRT_LLM_VERSION", "1.3.0rc24"),
           ("DYNAMO_HOME", "/workspace"), ("HOME", "/home/dynamo"), ("VIRTUAL_ENV", "/opt/dynamo/venv"),
           ("IMAGEIO_FFMPEG_EXE", "/usr/local/bin/ffmpeg"),
           ("LD_PRELOAD", "/opt/dynamo/libstdc++.so.6:%s/libnixl.so" % trt_nixl),
           ("NIXL_PLUGIN_DIR", trt_nixl + "/plugins"), ("NIXL_VERSION", ""),
           ("DYNAMO_COMMIT_SHA", "2a6da14c83617f5412caba5777dbf0e2399e9c5f")]
    p.write("env", merged_env(env))
    s = trt_nixl.lstrip("/")
    p.write("root/%s/libnixl.so" % s, "")
    trt_plugins = ["libplugin_GDS.so", "libplugin_GDS_MT.so", "libplugin_LIBFABRIC.so", "libplugin_UCX.so"]
    for f in trt_plugins:
        p.write("root/%s/plugins/%s" % (s, f), "")
        p.write("root/opt/nvidia/nvda_nixl/lib/x86_64-linux-gnu/plugins/%s" % f, "")
    p.write("root/opt/nvidia/nvda_nixl/lib/x86_64-linux-gnu/libnixl.so", "")
    # the Dynamo venv's nixl wheels (for KVBM's `import nixl`), version NIXL_REF
    venv_site = "/opt/dynamo/venv/lib/python3.12/site-packages"
    py = pip_wheel(p, venv_site, "13", "1.3.1")
    p.write("bin/out/python3-nixl.txt", py)
    p.write("root/opt/dynamo/venv/bin/python3", python3_tool(), 0o755)
    p.write("root/opt/dynamo/nixl-versions.txt",
            "Name: nixl\nVersion: 1.3.1\nName: nixl-cu13\nVersion: 1.3.1\nloaded_libnixl: %s/libnixl.so\n" % trt_nixl)
    ucx_source_build(p, base, "1.21.0", "v1.21.x", "167a4c6",
                     "--prefix=/usr/local/ucx/ --enable-shared --disable-static --disable-doxygen-doc "
                     "--enable-optimizations --enable-cma --enable-devel-headers --with-cuda=/usr/local/cuda "
                     "--with-verbs --with-dm --enable-mt", gdrcopy=False)
    ucx_ldd(p, ["libplugin_UCX.so"])


@image("img-sglang-ib", "h100-ib-ok", "lmsysorg/sglang (v0.5.5, CUDA 12.9) on a healthy H100 InfiniBand node")
def sglang(p, base):
    env = [("PATH", "/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:"
                    "/usr/bin:/sbin:/bin:/usr/local/nvidia/bin"),
           ("NVARCH", "x86_64"), ("NVIDIA_REQUIRE_CUDA", "cuda>=12.9"), ("CUDA_VERSION", "12.9.1"),
           ("LD_LIBRARY_PATH", "/usr/local/nvidia/lib:/usr/local/nvidia/lib64:/usr/local/nvidia/lib:/usr/local/nvidia/lib64"),
           ("NVIDIA_VISIBLE_DEVICES", "all"), ("NVIDIA_DRIVER_CAPABILITIES", "compute,utility"),
           ("NV_CUDNN_VERSION", "9.10.2.21-1"), ("DEBIAN_FRONTEND", "noninteractive"),
           ("CUDA_HOME", "/usr/local/cuda"), ("GDRCOPY_HOME", "/usr/src/gdrdrv-2.5.1/"),
           ("LANG", "en_US.UTF-8"), ("LANGUAGE", "en_US:en"), ("LC_ALL", "en_US.UTF-8"), ("HOME", "/root")]
    p.write("env", merged_env(env))
    p.write("bin/out/python3-nixl.txt", pip_wheel(p, SITE, "12", "0.7.1"))
    p.write("bin/python3", python3_tool(), 0o755)
    p.write("root/%s/mooncake/__init__.py" % SITE.lstrip("/"), "")
    wheel_ldd(p, SITE, "12")
    ibstat_from(p, base)
    verbs_stack(p)


@image("img-trtllm-ib", "h100-ib-ok", "nvcr.io/nvidia/tensorrt-llm/release (1.3.0rc24) on a healthy H100 InfiniBand node")
def trtllm(p, base):
    env = [("PATH", "/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:"
                    "/usr/bin:/sbin:/bin:/usr/local/ucx/bin"),
           ("NVIDIA_VISIBLE_DEVICES", "all"), ("NVIDIA_DRIVER_CAPABILITIES", "compute,utility,video"),
           ("LD_LIBRARY_PATH", SITE + "/torch/lib:/usr/local/cuda/compat/lib:/usr/local/nvidia/lib:/usr/local/nvidia/lib64"),
           ("BASH_ENV", "/etc/bash.bashrc"), ("ENV", "/etc/shinit_v2"),
           ("PYTORCH_CUDA_ALLOC_CONF", "garbage_collection_threshold:0.99999"),
           ("TRT_LLM_VERSION", "1.3.0rc24"), ("HOME", "/root")]
    p.write("env", merged_env(env))
    plugins = ["libplugin_GDS.so", "libplugin_GDS_MT.so", "libplugin_LIBFABRIC.so", "libplugin_UCX.so"]
    for f in plugins:
        p.write("root/opt/nvidia/nvda_nixl/lib/x86_64-linux-gnu/plugins/%s" % f, "")
        p.write("root/%s/tensorrt_llm/libs/nixl/plugins/%s" % (SITE.lstrip("/"), f), "")
    p.write("root/opt/nvidia/nvda_nixl/lib/x86_64-linux-gnu/libnixl.so", "")
    p.write("root/%s/tensorrt_llm/libs/nixl/libnixl.so" % SITE.lstrip("/"), "")
    # no `nixl` Python package: TRT-LLM drives libnixl.so from C++
    p.write("bin/out/python3-nixl-error.txt",
            "Traceback (most recent call last):\n  File \"<string>\", line 2, in <module>\n"
            "ModuleNotFoundError: No module named 'nixl'\n")
    p.write("bin/python3", python3_tool(ok=False), 0o755)
    ucx_source_build(p, base, "1.21.0", "v1.21.x", "167a4c6",
                     "--prefix=/usr/local/ucx/ --enable-shared --disable-static --disable-doxygen-doc "
                     "--enable-optimizations --enable-cma --enable-devel-headers --with-cuda=/usr/local/cuda "
                     "--with-verbs --with-dm --enable-mt", gdrcopy=False)
    ucx_ldd(p, ["libplugin_UCX.so"])


@image("img-dynamo-vllm-roce", "roce-ok", "nvcr.io/nvidia/ai-dynamo/vllm-runtime (CUDA 13) on a healthy H100 RoCE v2 node")
def dynamo_vllm_roce(p, base):
    dynamo_vllm(p, base)
    # the DGD takes Dynamo's gke-roce recipe component instead of nebius-ib
    p.env("NCCL_CROSS_NIC", "0")


@image("kb-dynamo-vllm-cu12-cu13", "h100-ib-ok", "img-dynamo-vllm-ib with nixl 1.2.0 from PyPI: nixl-cu12 and nixl-cu13 both installed")
def kb_dynamo_vllm_cu12_cu13(p, base):
    # checks.md F5: `pip install nixl==1.2.0` pulls both CUDA builds, whose
    # nixl_ep/nixl_ep_cpp.so clobber each other (ai-dynamo/nixl#1705)
    dynamo_vllm(p, base)
    py = pip_wheel(p, SITE, "13", "1.2.0")
    pip_wheel(p, SITE, "12", "1.2.0")
    p.write("bin/out/python3-nixl.txt",
            py.replace("version=nixl 1.2.0\n", "version=nixl 1.2.0\nversion=nixl-cu12 1.2.0\n"))


# readelf -d of TensorRT-LLM's NIXL wrapper as ai-dynamo/dynamo#6671 shows it
# (RUNPATH=$ORIGIN/nixl/, built against the bundled NIXL 0.8.0); the offset and
# entry count are illustrative.
READELF_TRT_WRAPPER = """
Dynamic section at offset 0x2dd80 contains 31 entries:
  Tag        Type                         Name/Value
 0x0000000000000001 (NEEDED)             Shared library: [libnixl.so]
 0x0000000000000001 (NEEDED)             Shared library: [libstdc++.so.6]
 0x0000000000000001 (NEEDED)             Shared library: [libgcc_s.so.1]
 0x0000000000000001 (NEEDED)             Shared library: [libc.so.6]
 0x000000000000000e (SONAME)             Library soname: [libtensorrt_llm_nixl_wrapper.so]
 0x000000000000001d (RUNPATH)            Library runpath: [$ORIGIN/nixl/]
 0x000000000000000c (INIT)               0x12000
"""


def readelf_tool(files):
    """readelf (binutils) of the image, reduced to -d of the named files;
    the profile's other files are empty, as readelf says of them."""
    cases = "".join('*/%s) cat %s/readelf-d-%s.txt ;;\n' % (n, OUT, n) for n in files)
    return ("#!/bin/sh\n# readelf of the image (binutils), reduced to -d of the files the probe asks about.\n"
            '[ "$1" = -d ] || { echo "readelf: this test image answers only -d" >&2; exit 1; }\n'
            'case "$2" in\n%s*) echo "readelf: Error: Not an ELF file - it has the wrong magic bytes at the start" >&2; exit 1 ;;\nesac\n'
            % cases)


@image("kb-dynamo-trtllm-6671", "h100-ib-ok", "img-dynamo-trtllm-ib as ai-dynamo/dynamo#6671 reports it: three libnixl copies, LD_LIBRARY_PATH before the wrapper's RUNPATH")
def kb_dynamo_trtllm_6671(p, base):
    # checks.md F6: the image before Dynamo's fix (no LD_PRELOAD of TRT-LLM's
    # libnixl.so, ai-dynamo/dynamo PR #9299), the system NIXL's directory on
    # LD_LIBRARY_PATH, the wrapper whose RUNPATH names its bundled copy
    dynamo_trtllm(p, base)
    p.env("LD_PRELOAD", None)
    p.env("LD_LIBRARY_PATH", "/opt/nvidia/nvda_nixl/lib/x86_64-linux-gnu:" + SITE +
          "/torch/lib:/usr/local/cuda/compat/lib:/usr/local/nvidia/lib:/usr/local/nvidia/lib64")
    p.write("root%s/tensorrt_llm/libs/libtensorrt_llm_nixl_wrapper.so" % SITE, "")
    p.write("bin/out/readelf-d-libtensorrt_llm_nixl_wrapper.so.txt", READELF_TRT_WRAPPER)
    p.write("bin/readelf", readelf_tool(["libtensorrt_llm_nixl_wrapper.so"]), 0o755)


# ldd -r of the cu12 build's nixl_ep_cpp in a CUDA 13 image: libcudart.so.12
# missing, its symbols undefined, Python's C API from the interpreter
# (vllm-project/vllm#39923's ImportError; the addresses are illustrative).
LDD_R_NIXL_EP = """\tlinux-vdso.so.1 (0x00007ffd5b9e4000)
\tlibcudart.so.12 => not found
\tlibnixl.so => %(site)s/.nixl_cu12.mesonpy.libs/libnixl.so (0x00007f3a1c000000)
\tlibstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6 (0x00007f3a1b800000)
\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f3a1a000000)
\t/lib64/ld-linux-x86-64.so.2 (0x00007f3a1d000000)
undefined symbol: PyExc_RuntimeError\t(%(ep)s)
undefined symbol: cudaGetDevice, version libcudart.so.12\t(%(ep)s)
undefined symbol: cudaMalloc, version libcudart.so.12\t(%(ep)s)
"""


@image("kb-dynamo-vllm-cuda-mix", "h100-ib-ok", "kb-dynamo-vllm-cu12-cu13 with the cu12 build's nixl_ep installed last: nixl_ep_cpp needs libcudart.so.12 in a CUDA 13 image")
def kb_dynamo_vllm_cuda_mix(p, base):
    # checks.md F7: both nixl-cuNN wheels write nixl_ep/nixl_ep_cpp (before
    # 1.3.0, ai-dynamo/nixl#1705); here the cu12 one won (vllm-project/vllm
    # PR #44266, vllm#39923) in the CUDA 13 vllm-runtime
    kb_dynamo_vllm_cu12_cu13(p, base)
    ep = SITE + "/nixl_ep/nixl_ep_cpp.cpython-312-x86_64-linux-gnu.so"
    p.write("root%s/nixl_ep/__init__.py" % SITE, "")
    p.write("root" + ep, "")
    p.write("bin/out/ldd-nixl_ep_cpp.txt", LDD_R_NIXL_EP % {"site": SITE, "ep": ep})
    # ldd, also with -r, for the wheel's UCX plugin and nixl_ep_cpp
    p.write("bin/ldd", "#!/bin/sh\n# ldd of the image (libc-bin), reduced to the libraries the probe asks about.\n"
            '[ "$1" = -r ] && shift\n'
            'case "$1" in\n*/libplugin_UCX.so) cat %s/ldd-libplugin_UCX.so.txt ;;\n'
            '*/nixl_ep_cpp*.so) cat %s/ldd-nixl_ep_cpp.txt ;;\n'
            '*) echo "ldd: $1: not a dynamic executable" >&2; exit 1 ;;\nesac\n' % (OUT, OUT), 0o755)


# ldd -r of TensorRT-LLM 1.1.0rc5's NIXL wrapper (built against NIXL < 0.6)
# when the system NIXL (>= 0.6) loads: NVIDIA/TensorRT-LLM#9752 gives the old
# constructor nixlDescList(const nixl_mem_t &, const bool &, const int &) and
# the mangling `_ZN12nixlDescListI...EC1ERK10nixl_mem_tRKi` of the new one; the
# template argument it elides is filled with NIXL's two list types
# (nixl_reg_dlist_t = nixlDescList<nixlBlobDesc>, nixl_xfer_dlist_t =
# nixlDescList<nixlBasicDesc>, nixl_types.h).  Addresses are illustrative.
LDD_R_TRT_WRAPPER = """\tlinux-vdso.so.1 (0x00007ffd5b9e4000)
\tlibnixl.so => /opt/nvidia/nvda_nixl/lib/x86_64-linux-gnu/libnixl.so (0x00007f3a1c000000)
\tlibstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6 (0x00007f3a1b800000)
\tlibgcc_s.so.1 => /lib/x86_64-linux-gnu/libgcc_s.so.1 (0x00007f3a1b600000)
\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f3a1a000000)
\t/lib64/ld-linux-x86-64.so.2 (0x00007f3a1d000000)
undefined symbol: _ZN12nixlDescListI12nixlBlobDescEC1ERK10nixl_mem_tRKbRKi\t(%(w)s)
undefined symbol: _ZN12nixlDescListI13nixlBasicDescEC1ERK10nixl_mem_tRKbRKi\t(%(w)s)
"""


@image("kb-dynamo-trtllm-9752", "h100-ib-ok", "img-dynamo-trtllm-ib with TensorRT-LLM 1.1.0rc5's NIXL wrapper loading a NIXL >= 0.6 (NVIDIA/TensorRT-LLM#9752)")
def kb_dynamo_trtllm_9752(p, base):
    # checks.md F8 and F5's wrapper row: the wrapper calls the nixlDescList
    # constructor with `sorted` that NIXL 0.6.0 removed (ai-dynamo/nixl PR
    # #731); the system NIXL wins as in ai-dynamo/dynamo#6671 (its directory
    # first on LD_LIBRARY_PATH, no LD_PRELOAD of the bundled libnixl.so)
    dynamo_trtllm(p, base)
    p.env("TRT_LLM_VERSION", "1.1.0rc5")
    p.env("LD_PRELOAD", None)
    p.env("LD_LIBRARY_PATH", "/opt/nvidia/nvda_nixl/lib/x86_64-linux-gnu:" + SITE +
          "/torch/lib:/usr/local/cuda/compat/lib:/usr/local/nvidia/lib:/usr/local/nvidia/lib64")
    # the report names no pip nixl: no wheel (nor Dynamo's list of them) in
    # the venv, TensorRT-LLM drives libnixl.so from C++ (checks.md F1)
    venv_site = "opt/dynamo/venv/lib/python3.12/site-packages"
    for d in ("nixl", "nixl_cu13", ".nixl_cu13.mesonpy.libs", "nixl_cu13.libs"):
        p.rm("root/%s/%s" % (venv_site, d))
    p.rm("root/opt/dynamo/nixl-versions.txt")
    p.rm("bin/out/python3-nixl.txt")
    p.write("bin/out/python3-nixl-error.txt",
            "Traceback (most recent call last):\n  File \"<string>\", line 2, in <module>\n"
            "ModuleNotFoundError: No module named 'nixl'\n")
    p.write("root/opt/dynamo/venv/bin/python3", python3_tool(ok=False), 0o755)
    w = SITE + "/tensorrt_llm/libs/libtensorrt_llm_nixl_wrapper.so"
    p.write("root" + w, "")
    p.write("bin/out/ldd-libtensorrt_llm_nixl_wrapper.so.txt", LDD_R_TRT_WRAPPER % {"w": w})
    # ldd, also with -r, for the UCX plugin and the wrapper
    p.write("bin/ldd", "#!/bin/sh\n# ldd of the image (libc-bin), reduced to the libraries the probe asks about.\n"
            '[ "$1" = -r ] && shift\n'
            'case "$1" in\n*/libplugin_UCX.so) cat %s/ldd-libplugin_UCX.so.txt ;;\n'
            '*/libtensorrt_llm_nixl_wrapper.so) cat %s/ldd-libtensorrt_llm_nixl_wrapper.so.txt ;;\n'
            '*) echo "ldd: $1: not a dynamic executable" >&2; exit 1 ;;\nesac\n' % (OUT, OUT), 0o755)


# -- ld.so.cache (checks.md F6): the conf files ldconfig reads ------------------
# Ubuntu's /etc/ld.so.conf and the libc-bin files of /etc/ld.so.conf.d, as
# glibc's ldconfig reads them (elf/ldconfig.c parse_conf: the include line,
# one directory a line); hpcx.conf as the NGC CUDA DL base's build copies it
# (`cp etc/ld.so.conf.d/hpcx.conf /etc/ld.so.conf.d/ && ... && ldconfig`; its
# first lines, HPC-X's UCX and UCC).
LDCONF_UBUNTU = {"ld.so.conf": "include /etc/ld.so.conf.d/*.conf\n\n",
                 "ld.so.conf.d/libc.conf": "# libc default configuration\n/usr/local/lib\n",
                 "ld.so.conf.d/x86_64-linux-gnu.conf": "# Multiarch support\n/usr/local/lib/x86_64-linux-gnu\n"
                                                      "/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu\n"}
HPCX_CONF = "/opt/hpcx/ucx/lib\n/opt/hpcx/ucc/lib\n"

# readelf -d of the UCX plugin of TensorRT-LLM's bundled NIXL: NEEDED UCX's
# libraries, RUNPATH its own NIXL directory only (illustrative: the offset,
# the entry count and the RUNPATH value; the point is that it names no UCX).
READELF_TRT_UCX_PLUGIN = """
Dynamic section at offset 0x5bd80 contains 34 entries:
  Tag        Type                         Name/Value
 0x0000000000000001 (NEEDED)             Shared library: [libucp.so.0]
 0x0000000000000001 (NEEDED)             Shared library: [libucs.so.0]
 0x0000000000000001 (NEEDED)             Shared library: [libstdc++.so.6]
 0x0000000000000001 (NEEDED)             Shared library: [libc.so.6]
 0x000000000000001d (RUNPATH)            Library runpath: [$ORIGIN/..]
 0x000000000000000c (INIT)               0x1a000
"""


@image("kb-dynamo-trtllm-hpcx", "h100-ib-ok", "img-dynamo-trtllm-ib with the NGC base's hpcx.conf: HPC-X's UCX in ld.so.cache, TensorRT-LLM's UCX on no LD_LIBRARY_PATH of the pod")
def kb_dynamo_trtllm_hpcx(p, base):
    # checks.md F6: ld.so.cache comes after LD_LIBRARY_PATH and DT_RUNPATH;
    # a plugin whose RUNPATH names no UCX gets the cache's first libucp.so.0
    dynamo_trtllm(p, base)
    for rel, text in sorted(LDCONF_UBUNTU.items()):
        p.write("root/etc/" + rel, text)
    p.write("root/etc/ld.so.conf.d/hpcx.conf", HPCX_CONF)
    for f in ("libucp.so.0", "libucs.so.0", "libuct.so.0", "libucm.so.0"):
        p.write("root/opt/hpcx/ucx/lib/" + f, "")
    p.write("root/opt/hpcx/ucc/lib/libucc.so.1", "")
    # Ubuntu's libucx0 (apt), in x86_64-linux-gnu.conf's directory
    p.write("root/usr/lib/x86_64-linux-gnu/libucp.so.0", "")
    p.write("bin/out/readelf-d-libplugin_UCX.so.txt", READELF_TRT_UCX_PLUGIN)
    p.write("bin/readelf", readelf_tool(["libplugin_UCX.so"]), 0o755)
    names = ["libucp.so.0@libucp.so.0", "libucs.so.0@libucs.so.0", "libuct.so.0@libuct.so.0",
             "libucm.so.0@libucm.so.0"]
    p.write("bin/out/ldd-libplugin_UCX.so.txt", ldd_lines("/opt/hpcx/ucx/lib", names))
    # ldd, also with -r, for the plugin (E1 and F7/F8 read the same answer)
    p.write("bin/ldd", "#!/bin/sh\n# ldd of the image (libc-bin), reduced to the libraries the probe asks about.\n"
            '[ "$1" = -r ] && shift\n'
            'case "$1" in\n*/libplugin_UCX.so) cat %s/ldd-libplugin_UCX.so.txt ;;\n'
            '*) echo "ldd: $1: not a dynamic executable" >&2; exit 1 ;;\nesac\n' % OUT, 0o755)


@image("kb-dynamo-trtllm-hpcx-lpath", "h100-ib-ok", "kb-dynamo-trtllm-hpcx with /usr/local/ucx/lib first on LD_LIBRARY_PATH: TensorRT-LLM's UCX loads before ld.so.cache's")
def kb_dynamo_trtllm_hpcx_lpath(p, base):
    # the near miss: the LD_LIBRARY_PATH line of TensorRT-LLM's install_ucx.sh
    kb_dynamo_trtllm_hpcx(p, base)
    p.env("LD_LIBRARY_PATH", "/usr/local/ucx/lib:" + SITE +
          "/torch/lib:/usr/local/cuda/compat/lib:/usr/local/nvidia/lib:/usr/local/nvidia/lib64")
    names = ["libucp.so.0@libucp.so.0", "libucs.so.0@libucs.so.0", "libuct.so.0@libuct.so.0",
             "libucm.so.0@libucm.so.0"]
    p.write("bin/out/ldd-libplugin_UCX.so.txt", ldd_lines("/usr/local/ucx/lib", names))


# -- writing -------------------------------------------------------------------
def source_md(name, title, base):
    with open(os.path.join(HERE, "img-sources", name + ".md")) as f:
        body = f.read()
    return ("# %s: %s\n\n%s\nNode side (root/sys, root/proc, root/dev, limits, bin/nvidia-smi and\n"
            "bin/out/nvidia-smi*: the kernel and the driver mount, nothing of the image)\n"
            "copied from ../%s (see its SOURCE.md).  Generated by ../gen_images.py;\n"
            "edit that (and ../img-sources/%s.md), not this directory.\n"
            % (name, title, body, base, name))


def build(dest_root):
    for name, base, title, fn in IMAGES:
        d = os.path.join(dest_root, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        copy_node(base, d)
        fn(cg.P(d), base)
        cg.P(d).write("SOURCE.md", source_md(name, title, base))


def main():
    return cg.generate("gen_images", [n for n, _, _, _ in IMAGES], build, HERE)


if __name__ == "__main__":
    sys.exit(main())
