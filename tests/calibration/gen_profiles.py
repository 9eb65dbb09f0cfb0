#!/usr/bin/python3
"""Writes the calibration profiles (tests/calibration/profiles/) from the
test cluster's healthy profiles (tests/cluster/profiles/{h100-ib-ok,roce-ok,
efa-ok}) and the real captures in captures/: each profile starts from a base
node and replaces what the probe reads with what a real node showed, so the
evidence a verdict is judged on is real wherever a capture exists (each
profile's SOURCE.md says which file comes from where).

    tests/calibration/gen_profiles.py           # rewrite profiles/
    tests/calibration/gen_profiles.py --check   # exit 1 if one is stale

The directories are committed (the test cluster reads profiles as plain
files).  Edit this file, the captures or the base profiles, then rerun it.
"""
import importlib.util
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BASES = os.path.join(ROOT, "tests", "cluster", "profiles")
CAPTURES = os.path.join(HERE, "captures")
OUT = os.path.join(HERE, "profiles")

# The profile editor and the UCX helpers of the test cluster's own generator.
_spec = importlib.util.spec_from_file_location("cluster_gen_profiles", os.path.join(BASES, "gen_profiles.py"))
cg = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cg)

UCXD = "bin/out/ucx_info-d.txt"
NVQ = "bin/out/nvidia-smi-q.txt"


def capture(name):
    """A capture's text without its `# source:` header line."""
    with open(os.path.join(CAPTURES, name)) as f:
        text = f.read()
    assert text.startswith("# source: "), name
    return text.split("\n", 1)[1]


# -- what the Dynamo recipes set (tests/fixtures/recipes, copied as facts) ---
# kustomize/components/disagg-workers/rdma-defaults + nebius-ib: the
# environment an IB disagg worker of a Dynamo recipe gets.  No UCX_TLS, no
# UCX_NET_DEVICES: UCX picks its transports and devices itself.
RECIPE_IB_ENV = [("NIXL_TELEMETRY_ENABLE", "y"), ("NIXL_TELEMETRY_EXPORTER", "prometheus"),
                 ("NIXL_TELEMETRY_PROMETHEUS_PORT", "19090"), ("NCCL_DEBUG", "WARN"),
                 ("NCCL_SOCKET_IFNAME", "eth0")]
# gke-roce + rdma-defaults.
RECIPE_ROCE_ENV = RECIPE_IB_ENV + [("NCCL_CROSS_NIC", "0")]
# recipes/qwen3-32b-fp8/vllm/disagg/deploy.yaml, prefill and decode workers
# (RoCE: UCX_IB_ADDR_TYPE=eth).
RECIPE_QWEN3_ROCE_ENV = [("UCX_TLS", "rc_x,rc,cuda_copy,cuda_ipc"), ("UCX_NET_DEVICES", "mlx5_0:1"),
                         ("UCX_IB_ADDR_TYPE", "eth"), ("UCX_RNDV_SCHEME", "get_zcopy"),
                         ("UCX_RNDV_THRESH", "0")]
# aws-efa + rdma-defaults.
RECIPE_EFA_ENV = [("DYN_KVBM_NIXL_BACKEND_LIBFABRIC", "true"), ("DYN_KVBM_NIXL_BACKEND_UCX", "false"),
                  ("FI_PROVIDER", "efa"), ("FI_EFA_USE_DEVICE_RDMA", "1"),
                  ("FI_EFA_ENABLE_SHM_TRANSFER", "0"), ("FI_LOG_LEVEL", "warn"),
                  ("NIXL_TELEMETRY_ENABLE", "y"), ("NIXL_TELEMETRY_EXPORTER", "prometheus"),
                  ("NIXL_TELEMETRY_PROMETHEUS_PORT", "19090"), ("NCCL_DEBUG", "WARN")]
# Transport variables of the base profiles that no recipe sets.
TRANSPORT_PREFIXES = ("UCX_", "NCCL_", "FI_", "VLLM_NIXL_", "NIXL_TELEMETRY", "DYN_KVBM_")


def recipe_env(p, pairs):
    """Keeps the image's own variables (PATH, NIXL_PREFIX, ...) of the base
    profile and replaces its transport variables by the recipe's."""
    keep = [l for l in p.read("env").splitlines() if l and not l.startswith(TRANSPORT_PREFIXES)]
    p.write("env", "\n".join(keep + ["%s=%s" % kv for kv in pairs]) + "\n")


# -- driver 580 (open kernel module), as on the 2025/26 nodes ------------------
def driver_580_open(p):
    """nvidia-smi and /proc of a node on the 580.95.05 open kernel module:
    /proc/driver/nvidia/version and the nvidia-smi header line are the real
    ones of capture proc_driver_nvidia_version_open_580_95_05_and_nvidia-smi;
    the table body is the real 8x H100 one of nvidia-smi_h100_550_90_07_gpud
    (same bus ids as the -q capture); each GPU's -q Fabric block gets the
    values of the real 580-driver H100 (qx-h100.xml: Completed, Success,
    CliqueId 0, zero ClusterUUID, Health Summary/Bandwidth N/A) in the text
    layout of the real 2025 driver block (dra626 capture)."""
    both = capture("proc_driver_nvidia_version_open_580_95_05_and_nvidia-smi.txt").split("\n")
    header = next(l for l in both if "Driver Version: 580.95.05" in l)
    i = both.index(next(l for l in both if l.startswith("NVRM version:")))
    p.write("root/proc/driver/nvidia/version", "\n".join(both[i:i + 2]) + "\n")
    table = capture("nvidia-smi_h100_550_90_07_gpud.txt").split("\n")
    j = next(k for k, l in enumerate(table) if "Driver Version: 550.90.07" in l)
    table[j] = header
    p.write("bin/out/nvidia-smi.txt", "\n".join(table))
    p.sub(NVQ, "Driver Version                            : 535.161.08",
          "Driver Version                            : 580.95.05")
    p.sub(NVQ, "CUDA Version                              : 12.2",
          "CUDA Version                              : 13.0")
    p.sub(NVQ, "    Fabric\n"
               "        State                             : Completed\n"
               "        Status                            : Success\n",
          "    Fabric\n"
          "        State                             : Completed\n"
          "        Status                            : Success\n"
          "        CliqueId                          : 0\n"
          "        ClusterUUID                       : 00000000-0000-0000-0000-000000000000\n"
          "        Health\n"
          "            Summary                       : N/A\n"
          "            Bandwidth                     : N/A\n", count=-1)
    # The open module is Dual MIT/GPL: no proprietary (P) taint flag.
    mods = p.read("root/proc/modules").split("\n")
    mods = [l.replace(" (POE)", " (OE)") if l.startswith(("nvidia ", "nvidia_")) else l for l in mods]
    p.write("root/proc/modules", "\n".join(mods))


def ib_mds_import_dmabuf(p):
    """No peer-memory module, and the IB memory domains can register
    DMA-BUF: their register line becomes the real one of ucx#10929
    (`register: unlimited, dmabuf, cost: 16000 + 0.060 * N nsec`); they
    list host memory only (ib_md.c adds cuda only with peer memory)."""
    cg.no_peermem(p)
    p.sub(UCXD, "#             register: unlimited, cost: 16000 + 0.060 * N nsec\n",
          "#             register: unlimited, dmabuf, cost: 16000 + 0.060 * N nsec\n", count=-1)


def dmabuf_instead_of_peermem(p):
    """No peer-memory module; the IB memory domains register through
    DMA-BUF: their register line is the real one of ucx#10929
    (`register: unlimited, dmabuf, cost: 16000 + 0.060 * N nsec`) and they
    list host memory only (ib_md.c adds cuda only with peer memory); the
    cuda_cpy md's memory types are the real line of an H100 node that
    exports dmabuf (vllm#26382, tests/fixtures/tools)."""
    ib_mds_import_dmabuf(p)
    real = next(l for l in fixture("ucx_info_d_cuda_cpy_md_with_dmabuf_vllm26382.txt").split("\n")
                if "memory types:" in l)
    p.sub(UCXD, "#         memory types: host (reg), cuda (access,alloc,reg,detect), "
          "cuda-managed (access,alloc,reg,cache,detect)", real)


PROFILES = []
# What driver_580_open takes from the captures.
USES_580 = ["captures/proc_driver_nvidia_version_open_580_95_05_and_nvidia-smi.txt: /proc/driver/nvidia/version, nvidia-smi header line",
            "captures/nvidia-smi_h100_550_90_07_gpud.txt: bin/out/nvidia-smi.txt table",
            "captures/nvidia-smi_q_x_h100_580_fabric_na_k8s-test-infra.txt: -q Fabric values "
            "(text layout of captures/nvidia-smi_q_fabric_unhealthy_grep_dra626.txt)"]


def profile(name, base, doc, uses):
    """Registers a profile: its base, what it is, and the real captures and
    fixtures its files come from (listed in its SOURCE.md)."""
    def deco(fn):
        PROFILES.append((name, base, doc + "\n\nReal outputs used (beyond the base's):\n"
                         + "".join("- %s\n" % u for u in uses), fn))
        return fn
    return deco


@profile("ib-h100-580-peermem", "h100-ib-ok", """Healthy HGX H100 NDR InfiniBand node on driver 580.95.05 (open kernel
module) with nvidia_peermem, running a Dynamo recipe's worker env
(rdma-defaults + nebius-ib: no UCX_TLS / UCX_NET_DEVICES).""",
         USES_580)
def ib_h100_580_peermem(p):
    driver_580_open(p)
    recipe_env(p, RECIPE_IB_ENV)


@profile("ib-h100-580-dmabuf", "h100-ib-ok", """Healthy HGX H100 NDR InfiniBand node using DMA-BUF instead of
nvidia_peermem (NVIDIA's recommended setup: open kernel module 580.95.05,
UCX 1.19): no nvidia_peermem, no memory_peers; UCX's IB mds register
through dmabuf; cuda_cpy exports dmabuf.""",
         USES_580 + [
     "captures/ucx_info_d_register_dmabuf_and_debug_ucx10929.txt: the IB mds' register line",
     "tests/fixtures/tools/ucx_info_d_cuda_cpy_md_with_dmabuf_vllm26382.txt: cuda_cpy's memory types line"])
def ib_h100_580_dmabuf(p):
    dmabuf_instead_of_peermem(p)    # first: it edits the 535 module lines
    ib_h100_580_peermem(p)


@profile("ib-h100-580-no-proc-version", "h100-ib-ok", """ib-h100-580-peermem whose /proc/driver/nvidia/version is not there
(the issue's pod where it was unreadable); nvidia-smi still answers with
the driver version and /proc/modules lists nvidia.""",
         USES_580)
def ib_h100_580_no_proc_version(p):
    ib_h100_580_peermem(p)
    p.rm("root/proc/driver/nvidia/version")


@profile("ib-h100-535-peermem-debug", "h100-ib-ok", """The h100-ib-ok node as captured (driver 535.161.08, proprietary module,
nvidia_peermem) with the recipe env and UCX_LOG_LEVEL=debug, so that the
worker log carries UCX's debug lines (a proprietary module exports no
DMA-BUF: 'dmabuf is not supported on cuda device 0').""",
         ["tests/fixtures/tools/ucx_debug_log_gdr_disabled_no_dmabuf_ucx9908.txt, ucx_worker_inter_node_rc_mlx5_nixl149.txt: its log (../logs/ucx-debug-peermem.txt)"])
def ib_h100_535_peermem_debug(p):
    recipe_env(p, RECIPE_IB_ENV + [("UCX_LOG_LEVEL", "debug")])


@profile("ib-h100-535-no-gdr", "h100-ib-ok", """The h100-ib-ok node without any GPUDirect path: driver 535.161.08
(proprietary module: no DMA-BUF), nvidia_peermem not loaded, no
memory_peers; UCX's IB mds list host memory only and no dmabuf, cuda_cpy
lists no dmabuf (as in ucx#9908).  UCX_LOG_LEVEL=debug (someone
triaging), so the log carries ucx#9908's debug lines.""",
         ["tests/fixtures/tools/ucx_debug_log_gdr_disabled_no_dmabuf_ucx9908.txt: its log (../logs/ucx-gdr-disabled-debug.txt)"])
def ib_h100_535_no_gdr(p):
    cg.no_peermem(p)
    recipe_env(p, RECIPE_IB_ENV + [("UCX_LOG_LEVEL", "debug")])


@profile("ib-h100-535-dmabuf-import-only", "h100-ib-ok", """The h100-ib-ok node (driver 535.161.08, proprietary module) without
nvidia_peermem, whose HCAs can import DMA-BUF (the IB mds' register line
ends in ', dmabuf', as on ucx#10929 and Azure VFs) while the proprietary
driver exports none (cuda_cpy without dmabuf, as captured on ucx#9908):
half a DMA-BUF path.""",
         ["captures/ucx_info_d_register_dmabuf_and_debug_ucx10929.txt: the IB mds' register line"])
def ib_h100_535_dmabuf_import_only(p):
    ib_mds_import_dmabuf(p)
    recipe_env(p, RECIPE_IB_ENV)


# h100-ib-ok's HCA names -> those of the HDR node's ibstatus (same order).
HDR_NAMES = {"mlx5_0": "mlx5_0", "mlx5_1": "mlx5_1", "mlx5_4": "mlx5_2", "mlx5_5": "mlx5_3",
             "mlx5_6": "mlx5_4", "mlx5_7": "mlx5_5", "mlx5_8": "mlx5_6", "mlx5_9": "mlx5_7",
             "mlx5_bond_0": "mlx5_8"}


def rename_hcas(text, names):
    return re.sub(r"\bmlx5_(?:bond_)?\d+\b", lambda m: names.get(m.group(0), m.group(0)), text)


def ibstatus_ports(text):
    """(device, {attr: value}) per port block of `ibstatus` output: the
    sysfs attribute values it prints (state, phys_state, rate, link_layer)."""
    keys = {"state:": "state", "phys state:": "phys_state", "rate:": "rate", "link_layer:": "link_layer"}
    out = []
    for line in text.split("\n"):
        m = re.match(r"Infiniband device '(\S+)' port 1 status:", line)
        if m:
            out.append((m.group(1), {}))
            continue
        for k, attr in keys.items():
            if out and line.strip().startswith(k):
                out[-1][1][attr] = line.strip()[len(k):].strip()
    return out


@profile("ib-h100-580-hdr", "h100-ib-ok", """ib-h100-580-peermem on an HDR InfiniBand fabric: the HCAs are those of
a real A100 node's `ibstatus` (gpud testdata, tests/fixtures/tools/
ibstatus_a100_all_active.txt): mlx5_0..mlx5_7 InfiniBand 4X HDR 200 Gb/s
Active/LinkUp, mlx5_8 Ethernet 40G.  sysfs carries exactly the values
ibstatus printed (hca_type, fw_ver and board_id are not in the capture and
are left out); bin/ibstatus prints the capture; no ibstat or ibv_devinfo
in this image.  UCX's device blocks and the topo NIC legend are
h100-ib-ok's renamed to these HCAs in order (their bandwidth figures stay
those UCX printed for the NDR rails).""",
         USES_580 + ["tests/fixtures/tools/ibstatus_a100_all_active.txt: bin/out/ibstatus.txt and the sysfs values"])
def ib_h100_580_hdr(p):
    ib_h100_580_peermem(p)
    status = fixture("ibstatus_a100_all_active.txt")
    p.rm("root/sys/class/infiniband")
    for dev, attrs in ibstatus_ports(status):
        for attr, val in attrs.items():
            p.write("root/sys/class/infiniband/%s/ports/1/%s" % (dev, attr), val)
    p.write("bin/out/ibstatus.txt", status)
    p.write("bin/ibstatus", "#!/bin/sh\n# prints captured output (bin/out/ibstatus.txt)\n"
            'cat "${0%/*}/out/ibstatus.txt"\n', 0o755)
    for f in ("bin/ibstat", "bin/out/ibstat.txt", "bin/ibv_devinfo", "bin/out/ibv_devinfo.txt"):
        p.rm(f)
    for f in (UCXD, "bin/out/nvidia-smi-topo-m.txt"):
        p.write(f, rename_hcas(p.read(f), HDR_NAMES))


@profile("ib-h100-580-vllm-slim", "h100-ib-ok", """ib-h100-580-peermem in an image like Dynamo's CUDA vllm-runtime: NIXL
from the pip wheels at /opt/dynamo/nixl (NIXL_PLUGIN_DIR
/opt/dynamo/nixl/plugins, dynamo.md 5.1), and no ucx_info, ibstat or
ibv_devinfo in the image.""",
         USES_580)
def ib_h100_580_vllm_slim(p):
    ib_h100_580_peermem(p)
    for tool in ("ucx_info", "ibstat", "ibv_devinfo"):
        p.rm("bin/" + tool)
    for out in ("ucx_info-d.txt", "ucx_info-v.txt", "ibstat.txt", "ibv_devinfo.txt"):
        p.rm("bin/out/" + out)
    src = "root/opt/nvidia/nvda_nixl/lib/x86_64-linux-gnu/plugins"
    for f in sorted(os.listdir(p.path(src))):
        p.write("root/opt/dynamo/nixl/plugins/" + f, p.read(src + "/" + f))
    p.rm("root/opt/nvidia")
    p.rm("root/opt/dynamo/nixl-versions.txt")     # a TRT-LLM image file (dynamo.md 5.1)
    env = p.read("env")
    env = env.replace("NIXL_PREFIX=/opt/nvidia/nvda_nixl", "NIXL_PREFIX=/opt/dynamo/nixl")
    env = env.replace("NIXL_PLUGIN_DIR=/opt/nvidia/nvda_nixl/lib/x86_64-linux-gnu/plugins",
                      "NIXL_PLUGIN_DIR=/opt/dynamo/nixl/plugins")
    env = env.replace("/opt/nvidia/nvda_nixl/lib/x86_64-linux-gnu", "/opt/dynamo/nixl")
    p.write("env", env)


@profile("ib-sriov-vf-port-down", "h100-ib-ok", """An SR-IOV InfiniBand pod (NVIDIA network-operator) whose only RDMA
device is the ConnectX-6 VF mlx5_7 (MT4124, fw 20.28.4000) of
network-operator#249: physical link up but port State Down (no LID from
the subnet manager).  ibstat prints the real capture; sysfs carries the
same facts in the kernel's format; UCX opens no transport on a port that
is not active, so ucx_info -d lists no IB memory domain; no ibv_devinfo
in this image.  GPU side: ib-h100-580-peermem.  The sysfs files are the
capture's facts in the kernel's format (state "1: DOWN", phys_state
"5: LinkUp", rate "200 Gb/sec (4X HDR)").""",
         USES_580 + [
     "captures/ibstat_sriov_vf_port_down_network_operator249.txt: bin/out/ibstat.txt and the sysfs facts"])
def ib_sriov_vf_port_down(p):
    ib_h100_580_peermem(p)
    p.rm("root/sys/class/infiniband")
    port = "root/sys/class/infiniband/mlx5_7/"
    for attr, val in (("hca_type", "MT4124"), ("fw_ver", "20.28.4000"),
                      ("ports/1/state", "1: DOWN"), ("ports/1/phys_state", "5: LinkUp"),
                      ("ports/1/rate", "200 Gb/sec (4X HDR)"), ("ports/1/link_layer", "InfiniBand")):
        p.write(port + attr, val)
    p.rm("root/dev/infiniband")
    for dev in ("uverbs0", "umad0", "rdma_cm"):
        p.write("root/dev/infiniband/" + dev, "")
    text = capture("ibstat_sriov_vf_port_down_network_operator249.txt")
    p.write("bin/out/ibstat.txt", text.split("\n", 1)[1])    # without the shell prompt line
    p.rm("bin/ibv_devinfo")
    p.rm("bin/out/ibv_devinfo.txt")
    p.write(UCXD, cg.ucx_drop_md(p.read(UCXD), lambda n, c: c == "ib"))


@profile("ib-h100-580-ucx-no-verbs", "h100-ib-ok", """ib-h100-580-peermem whose image's UCX was built without RDMA support
(ai-dynamo/dynamo PR 1314: "`ucx_info -d` will not show RDMA devices,
results in TCP being selected"): configure line without --with-verbs /
--with-dm / --with-efa, no IB memory domain in ucx_info -d.""",
         USES_580 + [
     "tests/fixtures/tools/nixl_write_blocks_tcp_vs_rdma_dynamo1314.txt: via ../../cluster/scenarios/logs/nixl-tcp-fallback.txt"])
def ib_h100_580_ucx_no_verbs(p):
    ib_h100_580_peermem(p)
    p.write(UCXD, cg.ucx_drop_md(p.read(UCXD), lambda n, c: c == "ib"))
    p.sub("bin/out/ucx_info-v.txt", " --with-verbs --with-dm", "")
    p.sub("bin/out/ucx_info-v.txt", " --with-efa", "")


@profile("ib-h100-580-memlock-64k", "h100-ib-ok", """ib-h100-580-peermem with Docker's default 64 KiB locked-memory limit (the
scenario gives the container no IPC_LOCK and no privilege): UCX disables
its RDMA transports, so ucx_info -d lists no IB memory domain.""",
         USES_580 + [
     "tests/fixtures/tools/ucx_log_rdma_disabled_memlock_ucx7930.txt: its log (../logs/ucx-memlock-64k.txt)"])
def ib_h100_580_memlock_64k(p):
    ib_h100_580_peermem(p)
    p.write("limits", "memlock=65536\n")
    p.write(UCXD, cg.ucx_drop_md(p.read(UCXD), lambda n, c: c == "ib"))


@profile("ib-h100-580-fabric-insufficient", "h100-ib-ok", """ib-h100-580-peermem whose GPU 0 failed NVLink fabric registration:
its Fabric block's State/Status/CliqueId/ClusterUUID are the real ones of
azhpc-images#506 (Completed, Insufficient Resources, 0, all-zero UUID);
its Health lines and the other GPUs stay as in ib-h100-580-peermem.""",
         USES_580 + ["captures/nvidia-smi_q_fabric_insufficient_resources_azhpc506.txt: GPU 0's Fabric values"])
def ib_h100_580_fabric_insufficient(p):
    ib_h100_580_peermem(p)
    real = capture("nvidia-smi_q_fabric_insufficient_resources_azhpc506.txt").split("\n")[1:5]
    p.sub(NVQ, "        Status                            : Success\n"
               "        CliqueId                          : 0\n"
               "        ClusterUUID                       : 00000000-0000-0000-0000-000000000000\n",
          "".join("    " + l + "\n" for l in real[1:]))


@profile("roce-h100-580", "roce-ok", """The roce-ok node (8x ConnectX-7 RoCE v2, H100) on driver 580.95.05 (open
module, as ib-h100-580-peermem) running the gke-roce recipe's worker env
(rdma-defaults + gke-roce: no UCX_TLS, no GID index: UCX and NCCL pick the
RoCE v2 GID themselves).""",
         USES_580)
def roce_h100_580(p):
    driver_580_open(p)
    recipe_env(p, RECIPE_ROCE_ENV)


@profile("roce-h100-580-qwen3-recipe", "roce-ok", """roce-h100-580 with the transport env of the Dynamo recipe
qwen3-32b-fp8/vllm/disagg (UCX pinned to rc_x/rc + cuda on mlx5_0:1, RoCE
addressing, get_zcopy rendezvous from byte 0).""",
         USES_580 + ["its env: recipes/qwen3-32b-fp8/vllm/disagg/deploy.yaml (shared recipes), as facts"])
def roce_h100_580_qwen3_recipe(p):
    driver_580_open(p)
    recipe_env(p, RECIPE_QWEN3_ROCE_ENV)


@profile("efa-a100", "efa-ok", """The efa-ok node (p4de, 8x A100, 4x EFA, NIXL LIBFABRIC) running the
aws-efa recipe's worker env (rdma-defaults + aws-efa).""",
         ["tests/fixtures/tools/nixl_plugin_load_log_libfabric_llmd741.txt: via ../../cluster/scenarios/logs/nixl-libfabric-efa.txt"])
def efa_a100(p):
    recipe_env(p, RECIPE_EFA_ENV)


@profile("efa-a100-no-hmem", "efa-ok", """efa-a100 where the EFA device cannot register CUDA memory: at
FI_LOG_LEVEL=warn, fi_info -p efa prints libfabric#11256's warning
(tests/fixtures/tools/libfabric_efa_cuda_p2p_unavailable_libfabric11256.txt,
its <warn> line) on stderr before its listing.""",
         ["tests/fixtures/tools/libfabric_efa_cuda_p2p_unavailable_libfabric11256.txt: bin/out/fi_info-warn.txt"])
def efa_a100_no_hmem(p):
    efa_a100(p)
    with open(os.path.join(ROOT, "tests", "fixtures", "tools",
                           "libfabric_efa_cuda_p2p_unavailable_libfabric11256.txt")) as f:
        warn = [l for l in f.read().split("\n")[1:] if "<warn>" in l]
    p.write("bin/out/fi_info-warn.txt", "\n".join(warn) + "\n")
    p.sub("bin/fi_info", '"-p efa") cat "$o/fi_info-p-efa.txt" ;;',
          '"-p efa") [ "$FI_LOG_LEVEL" = warn ] && cat "$o/fi_info-warn.txt" >&2\n'
          '\tcat "$o/fi_info-p-efa.txt" ;;')


@profile("roce-h100-580-gids-empty", "roce-ok", """roce-h100-580 seen from a pod whose RoCE GID table is empty: every
ports/1/gids/I of every device all zero and no gid_attrs/types entry (the
kernel lists no type for an empty slot), as show_gids reports n_gids_found=0
inside a k8s pod on calico (the pod's netdev is a veth, so no GID is bound to
it).  Composed: the capture is of a ConnectX-4 Lx pod, the rest of the node
(ucx_info -d included, which still lists the devices) is roce-h100-580's.""",
         USES_580 + ["captures/show_gids_empty_k8s_pod_calico_sriov30.txt: the empty GID table"])
def roce_h100_580_gids_empty(p):
    roce_h100_580(p)
    ib = "root/sys/class/infiniband"
    zero = "0000:0000:0000:0000:0000:0000:0000:0000"
    for dev in sorted(os.listdir(p.path(ib))):
        port = "%s/%s/ports/1" % (ib, dev)
        for i in sorted(os.listdir(p.path(port + "/gids"))):
            p.write("%s/gids/%s" % (port, i), zero)
        p.rm(port + "/gid_attrs")


@profile("img-dynamo-vllm-ib-image-ucx-tls", "img-dynamo-vllm-ib", """img-dynamo-vllm-ib with UCX_TLS=^cuda_ipc as image ENV (not in the pod
spec), the line Dynamo's container/Dockerfile.vllm carried in March 2025
(ai-dynamo/dynamo PR 407 removes it to keep cuda_ipc for intra-node
transfers).  Composed: today's image with that one ENV line added after the
image's NIXL variables.""",
         ["captures/dockerfile_env_nixl_ucx_tls_cuda_ipc_dynamo407.txt: the UCX_TLS ENV line"])
def img_dynamo_vllm_ib_image_ucx_tls(p):
    line = [l for l in capture("dockerfile_env_nixl_ucx_tls_cuda_ipc_dynamo407.txt").splitlines()
            if l.startswith("-ENV UCX_TLS=")][0]
    p.sub("env", "NIXL_PLUGIN_DIR=/opt/dynamo/nixl/plugins\n",
          "NIXL_PLUGIN_DIR=/opt/dynamo/nixl/plugins\n" + line[len("-ENV "):] + "\n")


def fixture(name):
    """A tests/fixtures/tools file without its `# source:` header line."""
    with open(os.path.join(ROOT, "tests", "fixtures", "tools", name)) as f:
        return f.read().split("\n", 1)[1]


# Worker logs (GET .../log): real transport lines of the captures and
# fixtures, in their original order, between vLLM start-up lines of the
# test cluster's own logs (../cluster/scenarios/logs/README.md: filler no
# signature matches).
VLLM_START = ("INFO 05-30 23:21:40 [__init__.py:239] Automatically detected platform cuda.\n"
              "INFO 05-30 23:21:44 [nixl_connector.py:91] NIXL is available\n")
VLLM_SERVING = "INFO 05-30 23:22:01 [api_server.py:1090] Starting vLLM API server on http://0.0.0.0:8000\n"


def ucx9908(first, last):
    return "".join(fixture("ucx_debug_log_gdr_disabled_no_dmabuf_ucx9908.txt").splitlines(True)[first:last])


LOGS = {
    # peermem node at UCX_LOG_LEVEL=debug: UCX's cuda_copy says the
    # (proprietary) driver exports no dmabuf, then the IB device comes up
    # and the inter-node lanes are rc_mlx5.
    "ucx-debug-peermem.txt": VLLM_START + ucx9908(0, 2)
    + "NIXL INFO Backend UCX was instantiated\n"
    + "".join(fixture("ucx_worker_inter_node_rc_mlx5_nixl149.txt").splitlines(True)[:2]) + VLLM_SERVING,
    # no peermem, no dmabuf, UCX_LOG_LEVEL=debug (ucx#9908's lines).
    "ucx-gdr-disabled-debug.txt": VLLM_START + ucx9908(0, 5)
    + "NIXL INFO Backend UCX was instantiated\n" + VLLM_SERVING,
    # SGLang prefill whose NIXL was built for UCX 1.18 but loads 1.12.
    "sglang-ucp-version-incompatible.txt": capture("sglang_log_ucp_version_incompatible_sglang5709.txt"),
    # NIXL built for UCX 1.20 running on 1.18 (nixl#386's two lines).
    "nixl-ucx-api-mismatch.txt": VLLM_START + capture("nixl_log_ucp_api_version_incompatible_nixl386.txt")
    + VLLM_SERVING,
    # UCX at a 64 KiB memlock limit (ucx PR 7930's lines).
    "ucx-memlock-64k.txt": VLLM_START
    + "".join(fixture("ucx_log_rdma_disabled_memlock_ucx7930.txt").splitlines(True)[1:]) + VLLM_SERVING,
    # vLLM NixlConnector worker starting cleanly (vllm#29369's lines,
    # NIXL's Python logger behind vLLM's EngineCore prefix).
    "vllm-nixl-ucx-instantiated.txt": VLLM_START
    + capture("nixl_log_ucx_instantiated_vllm29369.txt") + VLLM_SERVING,
    # vLLM registers its KV caches on cuda and NIXL's UCX takes them for
    # host memory (vllm#41048's lines, vllm-openai v0.20.0-cu129, H200 IB).
    "vllm-nixl-vram-as-host.txt": VLLM_START
    + capture("nixl_log_vram_detected_as_host_vllm41048.txt") + VLLM_SERVING,
    # SGLang with the nixl-cu13 1.0.0 wheel whose bundled CUDA UCX modules
    # are not discovered: NIXL refuses VRAM (nixl#1628's log block, without
    # the reporter's workaround lines, which are no log).
    "sglang-nixl-cu13-vram-as-host.txt":
    "".join(capture("nixl_log_vram_detected_as_host_cu13_nixl1628.txt").splitlines(True)[:5]),
    # EFA worker on an older NIXL at NIXL_LOG_LEVEL=debug, LIBFABRIC from
    # the nixl-cu12 wheel (llm-d PR 391's NIXL lines; the shell and Python
    # prompts left out, they are no worker log).
    "nixl-libfabric-old-wording.txt": VLLM_START
    + "".join(l for l in capture("nixl_log_libfabric_wheel_debug_old_wording_llmd391.txt").splitlines(True)
              if " NIXL INFO " in l or l.startswith("I1207")) + VLLM_SERVING,
}


def build_logs(dest):
    os.makedirs(dest, exist_ok=True)
    for name, text in LOGS.items():
        with open(os.path.join(dest, name), "w") as f:
            f.write(text)


README = """# %s

%s

Generated by ../../gen_profiles.py from ../../../cluster/profiles/%s (see
its SOURCE.md for where its files come from) and the captures named in the
generator's docstrings (../../captures/, ../../captures/SOURCES.md).  Edit
those, not this directory.
"""


def build(dest_root):
    for name, base, doc, fn in PROFILES:
        d = os.path.join(dest_root, name)
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(os.path.join(BASES, base), d, symlinks=True)
        os.remove(os.path.join(d, "SOURCE.md"))
        fn(cg.P(d))
        cg.P(d).write("SOURCE.md", README % (name, doc, base))


def main():
    if sys.argv[1:] == ["--check"]:
        tmp = tempfile.mkdtemp(prefix="gen-calibration-")
        try:
            build(tmp)
            build_logs(os.path.join(tmp, "logs"))
            stale = [n for n, _, _, _ in PROFILES
                     if not os.path.isdir(os.path.join(OUT, n))
                     or not cg.same_tree(os.path.join(tmp, n), os.path.join(OUT, n))]
            if not cg.same_tree(os.path.join(tmp, "logs"), os.path.join(HERE, "logs")):
                stale.append("logs")
        finally:
            shutil.rmtree(tmp)
        if stale:
            print("gen_profiles: stale: %s (run %s)" % (", ".join(stale), sys.argv[0]))
            return 1
        return 0
    os.makedirs(OUT, exist_ok=True)
    build(OUT)
    build_logs(os.path.join(HERE, "logs"))
    print("gen_profiles: wrote %s" % ", ".join(n for n, _, _, _ in PROFILES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
