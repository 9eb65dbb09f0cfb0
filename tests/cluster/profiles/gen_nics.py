"""Issue 25's NIC variants of the test profiles (docs/checks.md E7):
BlueField functions on RoCE, bond members, a sysfs PCI tree without
nvidia-smi.  Loaded by gen_profiles.py, whose helpers (G) and variant
registry they use; run gen_profiles.py, not this file."""
import os
import re
import shutil

G = None
_LATER = []


def _variant(name, doc, base=None):
    """gen_profiles.variant, applied once register() has G."""
    def deco(fn):
        _LATER.append((name, doc, base, fn))
        return fn
    return deco


def register(g):
    """Registers these variants with gen_profiles, whose names g holds."""
    global G
    G = g
    for name, doc, base, fn in _LATER:
        g.variant(name, doc, base=base or g.BASE)(fn)


# ---- Issue 25: BlueField functions on RoCE (checks.md E7) -------------
# The BlueField-3 files: part id 41692 (0xa2dc, UCX's "BlueField 3"), fw
# and board as ibv_devinfo of ai-dynamo/dynamo#814 lists its BlueField-3
# ports in Ethernet mode (tests/calibration/captures/
# ibv_devinfo_bf3_roce_two_node_dynamo814.txt).
BF3 = (41692, "32.41.1000", "MT_0000000884")


def as_bf3(p, dev, card=BF3):
    """RDMA device dev of a RoCE profile relabelled as a BlueField-3
    function (or the (part, fw, board) of card): sysfs hca_type/fw_ver/
    board_id and its ibv_devinfo block."""
    part, fw, board = card
    for attr, val in (("hca_type", "MT%d" % part), ("fw_ver", fw), ("board_id", board)):
        p.write(G.IB + dev + "/" + attr, val + "\n")
    rel = "bin/out/ibv_devinfo.txt"
    b = G.block(p.read(rel), "hca_id:\t%s", dev)
    n = re.sub(r"(vendor_part_id:\s+)\d+", r"\g<1>%d" % part, b)
    n = re.sub(r"(board_id:\s+)\S+", r"\g<1>" + board, n)
    n = re.sub(r"(fw_ver:\s+)\S+", r"\g<1>" + fw, n)
    G.edit_blocks(p, rel, "hca_id:", lambda bl: [n if x == b else x for x in bl])


def add_roce_nic(p, src, dev, ndev, ipv4, links, rate):
    """A RoCE port dev cloned from src (sysfs with its GID table, ibstatus,
    ibv_devinfo, ibdev2netdev, ucx_info -d), its netdev ndev carrying
    ipv4 (GIDs 2/3, IPv4-mapped) and links its topo -m cells for GPU0..7."""
    shutil.copytree(p.path(G.IB + src), p.path(G.IB + dev))
    net = p.path(G.IB + dev + "/device/net")
    if os.path.isdir(net):
        for old in os.listdir(net):
            os.rename(os.path.join(net, old), os.path.join(net, ndev))
    port = G.IB + dev + "/ports/1/"
    p.write(port + "rate", rate + "\n")
    a = [int(x) for x in ipv4.split(".")]
    for i in (2, 3):
        p.write(port + "gids/%d" % i, "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x" % tuple(a))
    # its own MAC/GUID: the last two bytes of src's, replaced
    guid = p.read(port + "gids/0").strip()[-4:]
    for i in (0, 1):
        p.sub(port + "gids/%d" % i, guid, GUID_TAIL)
    for f in os.listdir(p.path(port + "gid_attrs/ndevs")):
        p.write(port + "gid_attrs/ndevs/" + f, ndev)
    for rel, start in (("bin/out/ibv_devinfo.txt", "hca_id:\t%s"),
                       ("bin/out/ibstatus.txt", "Infiniband device '%s' port 1 status:")):
        b = G.block(p.read(rel), start, src).replace("'%s'" % src, "'%s'" % dev)
        b = b.replace("\t" + src + "\n", "\t" + dev + "\n")
        b = re.sub(r"rate:(\s+).*", r"rate:\g<1>" + rate, b).replace(guid, GUID_TAIL)
        G.edit_blocks(p, rel, start.split("%s")[0], lambda bl: bl + [b])
    t = p.read("bin/out/ibdev2netdev.txt")
    p.write("bin/out/ibdev2netdev.txt", t + "%s port 1 ==> %s (Up)\n" % (dev, ndev))
    t = p.read(G.UCXD)
    md = G.ucx_md_block(t, src).replace(src + ":", dev + ":").replace(
        "Memory domain: " + src + "\n", "Memory domain: " + dev + "\n")
    i = t.index("#\n# Memory domain: cma")
    p.write(G.UCXD, t[:i] + md + t[i:])
    p.write(G.TOPO, G.topo_edit(p.read(G.TOPO), add=((dev, links),)))
    G.uverbs_nodes(p)


# A BlueField-3 DPU's function on the host (north-south: the host network),
# on the CPU's root complex of socket 0 like the host NICs of
# hgx-h200-mgmt-bf3: NODE to GPU0-3, SYS to GPU4-7.
DPU_LINKS = ["NODE"] * 4 + ["SYS"] * 4
GUID_TAIL = "2a40"


@_variant("roce-h100-bf3-dpu", """roce-ok (8x H100, 8 ConnectX-7 RoCE rails PIX to their GPUs) with a
BlueField-3 DPU function on the host network, mlx5_8 (part 41692, netdev
enp41s0f0np0, 10.20.0.11, Active, 200G, NODE/SYS to the GPUs), as the
BlueField NICs beside the rails that ai-dynamo/dynamo PR #10852 names;
UCX_NET_DEVICES unset as in Dynamo's recipes.  Intended finding:
ucx-nic-select warn naming mlx5_8 (BlueField), the 8 ConnectX-7 rails
suggested.""", base="roce-ok")
def roce_h100_bf3_dpu(p):
    add_roce_nic(p, "mlx5_7", "mlx5_8", "enp41s0f0np0", "10.20.0.11", DPU_LINKS,
                 "200 Gb/sec (2X NDR)")
    as_bf3(p, "mlx5_8")
    p.env("UCX_NET_DEVICES", None)
    p.env("NCCL_IB_HCA", "=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7")


@_variant("roce-spectrumx-bf3", """A Spectrum-X node: the 8 RoCE rails are BlueField-3 SuperNICs (part
41692 in NIC mode, one under each GPU's PCIe switch: PIX), beside a
BlueField-3 DPU function on the host network (mlx5_8, NODE/SYS), the
east-west/north-south split of NVIDIA's Spectrum-X platform; UCX_NET_DEVICES
unset.  Intended finding: ucx-nic-select warn naming mlx5_8 only (the
SuperNICs are the rails), the 8 SuperNIC ports suggested.""", base="roce-ok")
def roce_spectrumx_bf3(p):
    roce_h100_bf3_dpu(p)
    for k in range(8):
        as_bf3(p, "mlx5_%d" % k)



# The PCI tree of an HGX H100 board as sysfs shows it: GPU k (its bus id
# from nvidia-smi -q) and rail mlx5_k behind one PCIe switch under root port
# RC:01.0 (rail at the GPU's bus - 1), host NICs on root ports of their own.
H100_GPU_BUS = [0x19, 0x3b, 0x4c, 0x5d, 0x9b, 0xbb, 0xcb, 0xdb]


def pci_dev(p, path, ven, dev, cls):
    """A PCI function at sysfs path (under root/sys/devices), with its
    /sys/bus/pci/devices link."""
    addr = path.rsplit("/", 1)[1]
    for attr, val in (("vendor", ven), ("device", dev), ("class", cls)):
        p.write("root/sys/devices/%s/%s" % (path, attr), val + "\n")
    link = p.path("root/sys/bus/pci/devices/" + addr)
    os.makedirs(os.path.dirname(link), exist_ok=True)
    os.symlink("../../../devices/" + path, link)


def ib_device_at(p, dev, path, cls="0x020000"):
    """RDMA device dev's device link to PCI function path (its device/
    directory, netdevs and all, moved there)."""
    pci_dev(p, path, "0x15b3", "0x1021", cls)
    d = p.path(G.IB + dev + "/device")
    if os.path.isdir(d):
        for e in os.listdir(d):
            shutil.move(os.path.join(d, e), p.path("root/sys/devices/%s/%s" % (path, e)))
        os.rmdir(d)
    os.symlink("../../../devices/" + path, d)


def hgx_pci_tree(p, host):
    """GPUs and rails mlx5_0..7 as H100_GPU_BUS lays them out; host: [(dev,
    root complex bus)] each on a root port of its own."""
    for k, g in enumerate(H100_GPU_BUS):
        rc = g - 4
        sw = "pci0000:%02x/0000:%02x:01.0/0000:%02x:00.0" % (rc, rc, rc + 1)
        pci_dev(p, "%s/0000:%02x:00.0/0000:%02x:00.0" % (sw, rc + 2, g), "0x10de", "0x2330", "0x030200")
        ib_device_at(p, "mlx5_%d" % k, "%s/0000:%02x:01.0/0000:%02x:00.0" % (sw, rc + 2, g - 1))
    for dev, rc in host:
        ib_device_at(p, dev, "pci0000:%02x/0000:%02x:01.0/0000:%02x:00.0" % (rc, rc, rc + 2))


@_variant("roce-h100-no-topo", """roce-h100-bf3-dpu (8 ConnectX-7 RoCE rails, the BlueField-3 DPU function
mlx5_8) with a ConnectX-6 Dx host port mlx5_9 (Active, 100G, GIDs on
eno1np0, 10.30.0.11) and no nvidia-smi: the pod gets the driver's compute
libraries only (NVIDIA_DRIVER_CAPABILITIES=compute; the NVIDIA Container
Toolkit mounts nvidia-smi with the utility capability), so no topo -m.
sysfs shows the PCI tree: GPU k and rail mlx5_k behind one PCIe switch
(GPU bus ids of nvidia-smi -q, rail at the bus below), mlx5_8 and mlx5_9 on
root ports of their own (/sys/class/infiniband/X/device and
/sys/bus/pci/devices links into /sys/devices).  UCX_NET_DEVICES unset.
Intended finding: ucx-nic-select warn naming mlx5_8 (BlueField) only, the 8
rails suggested (not mlx5_9, which shares no PCIe switch with a GPU).""",
         base="roce-ok")
def roce_h100_no_topo(p):
    roce_h100_bf3_dpu(p)
    add_roce_nic(p, "mlx5_7", "mlx5_9", "eno1np0", "10.30.0.11", DPU_LINKS, "100 Gb/sec (4X EDR)")
    as_bf3(p, "mlx5_9", CX6DX)
    hgx_pci_tree(p, [("mlx5_8", 0x27), ("mlx5_9", 0xa7)])
    p.rm("bin/nvidia-smi")
    for f in os.listdir(p.path("bin/out")):
        if f.startswith("nvidia-smi"):
            p.rm("bin/out/" + f)
    p.env("NVIDIA_DRIVER_CAPABILITIES", "compute")


# ConnectX-6 Dx (part 4125) as the host ports of hgx-h200-mgmt-bf3.
CX6DX = (4125, "22.39.1002", "MT_0000000359")


@_variant("roce-h100-bond-members", """roce-ok with the host network on a Linux bond over two ConnectX-6 Dx
ports of different adapters (mlx5_8 ens3f0np0, mlx5_9 ens4f0np0, 100G,
NODE/SYS to the GPUs; bond0 active-backup, 10.20.0.11): no RoCE LAG (mlx5
offloads a LAG only over the ports of one adapter, and then shows one
mlx5_bond_N device), so both ports stay RDMA devices whose netdevs are
bond0's slaves (sysfs device/net/X/master).  The kernel's RoCE GID
management (drivers/infiniband/core/roce_gid_mgmt.c) puts bond0's GIDs on
the active slave's port only and removes the inactive slave's: mlx5_8
lists bond0's GIDs (gid_attrs/ndevs bond0), mlx5_9's table is all zero.
UCX_NET_DEVICES unset.  Intended finding: ucx-nic-select fail naming
mlx5_8 and mlx5_9 as bond0 members, the 8 rails suggested.""", base="roce-ok")
def roce_h100_bond_members(p):
    for dev, nd in (("mlx5_8", "ens3f0np0"), ("mlx5_9", "ens4f0np0")):
        add_roce_nic(p, "mlx5_7", dev, nd, "10.20.0.11", DPU_LINKS, "100 Gb/sec (4X EDR)")
        as_bf3(p, dev, CX6DX)
        port = G.IB + dev + "/ports/1/"
        for f in os.listdir(p.path(port + "gid_attrs/ndevs")):
            p.write(port + "gid_attrs/ndevs/" + f, "bond0")
        p.write(G.IB + dev + "/device/net/%s/master/uevent" % nd, "DEVTYPE=bond\nINTERFACE=bond0\nIFINDEX=7\n")
    port = G.IB + "mlx5_9/ports/1/"
    for i in range(4):
        p.write(port + "gids/%d" % i, "0000:0000:0000:0000:0000:0000:0000:0000")
        p.rm(port + "gid_attrs/types/%d" % i)
        p.rm(port + "gid_attrs/ndevs/%d" % i)
    p.env("UCX_NET_DEVICES", None)
    p.env("NCCL_IB_HCA", "=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7")


# ---- Issue 39 item 4: link-local GIDs on one flat L2 segment (A9, A10) --
def flat_l2(p):
    """roce_rack's rails on one flat L2 segment per rail: the VF's address
    in 10.14.k.0/24 (rack a .10, rack b .74: one subnet), only the
    connected route, no gateway or static route, as on a single-switch
    RoCE rail where the two nodes' ports share one broadcast domain."""
    a = "bin/out/ip-o-4-addr.txt"
    r = "bin/out/ip-4-route.txt"
    p.write(a, re.sub(r"inet 10\.14\.(\d+)\.(\d+)/26 brd 10\.14\.\d+\.\d+",
                      r"inet 10.14.\1.\2/24 brd 10.14.\1.255", p.read(a)))
    p.write(r, "".join(re.sub(r"^10\.14\.(\d+)\.\d+/26 dev", r"10.14.\1.0/24 dev", l) + "\n"
                       for l in p.read(r).splitlines() if "proto static" not in l))


def gid_flat(p, rack):
    """roce_rack's rack with link-local GIDs only on flat_l2's segments, no
    GID index set (UCX's own pick)."""
    G.roce_rack(p, rack, gids=False)
    flat_l2(p)
    p.env("UCX_IB_GID_INDEX", None)
    p.env("NCCL_IB_GID_INDEX", None)


@_variant("topo-gid-flat-a", """roce-linklocal-a (link-local GIDs only, UCX takes
the link-local RoCE v2 GID 1) with its rails on one flat L2 segment per
rail: 10.14.k.10/24, only the connected route (issue 39 item 4).""",
          base="roce-ok")
def topo_gid_flat_a(p):
    gid_flat(p, "a")


@_variant("topo-gid-flat-b", """topo-gid-flat-a's peer node on the same segments:
10.14.k.74/24 (roce-linklocal-b's hosts, one subnet with rack a).""",
          base="roce-ok")
def topo_gid_flat_b(p):
    gid_flat(p, "b")


# ---- Issue 39 item 2: MNNVL by UCX's default (D4b) ----------------------
def gb200_default(p, cluster):
    """A GB200 tray (gen_profiles.gb200_tray) whose image sets no MNNVL
    variable: UCX_CUDA_IPC_ENABLE_MNNVL unset is "try" from UCX 1.18.0
    (src/uct/cuda/cuda_ipc/cuda_ipc_md.c), and the image's UCX is 1.19.0,
    so cuda_ipc still takes multi-node NVLink where an IMEX channel is."""
    G.gb200_tray(p, cluster, "2")
    p.env("UCX_CUDA_IPC_ENABLE_MNNVL", None)
    p.env("NCCL_MNNVL_ENABLE", None)


@_variant("topo-gb200-default-a", """gb200-nvl72-a with no MNNVL variable in the image
(UCX_CUDA_IPC_ENABLE_MNNVL, NCCL_MNNVL_ENABLE unset): UCX 1.19.0's default
"try" (cuda_ipc_md.c, since 1.18.0) still takes multi-node NVLink.""")
def topo_gb200_default_a(p):
    gb200_default(p, "dc6e40c4-d722-4357-9ba6-5291dd461278")


@_variant("topo-gb200-default-b", """topo-gb200-default-a in gb200-nvl72-b's NVLink domain
(ClusterUUID 5b1f7a2e-3c4d-4e8f-9a0b-1c2d3e4f5a6b).""")
def topo_gb200_default_b(p):
    gb200_default(p, "5b1f7a2e-3c4d-4e8f-9a0b-1c2d3e4f5a6b")


# ---- Issue 39 item 6: a wheel-only image without nvidia-smi (E3, N) ----
@_variant("topo-wheel-no-smi", """nixl-wheel-ib (vLLM-style image: NIXL from the pip
wheel with its bundled UCX, no ucx_info) with no nvidia-smi either: the pod
gets the driver's compute libraries only (NVIDIA_DRIVER_CAPABILITIES=compute;
the NVIDIA Container Toolkit mounts nvidia-smi with the utility capability).
The links UCX would use are then seen only in the wheel's own UCX modules
(nixl_cu12.libs: libuct_ib*, libuct_cuda*) and the hardware (sysfs).""",
          base="nixl-wheel-ib")
def topo_wheel_no_smi(p):
    p.rm("bin/nvidia-smi")
    for f in os.listdir(p.path("bin/out")):
        if f.startswith("nvidia-smi"):
            p.rm("bin/out/" + f)
    p.env("NVIDIA_DRIVER_CAPABILITIES", "compute")


@_variant("topo-wheel-no-smi-noib", """topo-wheel-no-smi whose wheel carries no UCX IB
module (libuct_ib*, libuct_rdmacm removed from nixl_cu12.libs/ucx: a UCX
built without verbs): the hardware offers InfiniBand, the wheel's UCX
cannot use it, KV between the nodes falls back to TCP.""",
          base="topo-wheel-no-smi")
def topo_wheel_no_smi_noib(p):
    d = "root/usr/local/lib/python3.12/dist-packages/nixl_cu12.libs/ucx"
    for f in os.listdir(p.path(d)):
        if f.startswith("libuct_ib") or f.startswith("libuct_rdmacm"):
            p.rm(d + "/" + f)


# ---- Issue 39 item 3: which NIXL loads, told by ldd alone (F6) ----------
TRT_SITE = "/usr/local/lib/python3.12/dist-packages"
LDD_TRT_WRAPPER = """\tlinux-vdso.so.1 (0x00007ffc3a5f2000)
\tlibnixl.so => %s (0x00007f2b9c000000)
\tlibstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6 (0x00007f2b9b800000)
\tlibgcc_s.so.1 => /lib/x86_64-linux-gnu/libgcc_s.so.1 (0x00007f2b9b600000)
\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f2b9b400000)
\t/lib64/ld-linux-x86-64.so.2 (0x00007f2b9d000000)
"""


def trt_ldd_only(p, nixl):
    """kb-dynamo-trtllm-6671 without binutils (no readelf, no objdump: a
    slim runtime image; glibc's ldd stays), ldd of TensorRT-LLM's NIXL
    wrapper resolving libnixl.so to nixl, as ld.so would under PID 1's
    LD_LIBRARY_PATH (the addresses are illustrative)."""
    p.rm("bin/readelf")
    p.write("bin/out/ldd-libtensorrt_llm_nixl_wrapper.so.txt", LDD_TRT_WRAPPER % nixl)
    p.write("bin/ldd", """#!/bin/sh
# ldd of the image (libc-bin), reduced to the libraries the probe asks
# about; the file is the last argument (the probe runs ldd -r FILE).
for _f; do :; done
case "$_f" in
*/libplugin_UCX.so) cat /usr/local/bin/out/ldd-libplugin_UCX.so.txt ;;
*/libtensorrt_llm_nixl_wrapper.so) cat /usr/local/bin/out/ldd-libtensorrt_llm_nixl_wrapper.so.txt ;;
*) echo "ldd: $1: not a dynamic executable" >&2; exit 1 ;;
esac
""", 0o755)


@_variant("topo-trtllm-ldd", """kb-dynamo-trtllm-6671 (three libnixl copies: /opt/nvidia/nvda_nixl,
TensorRT-LLM's tensorrt_llm/libs/nixl, the pip wheel's; LD_LIBRARY_PATH
naming /opt/nvidia/nvda_nixl first, as ai-dynamo/dynamo#6671 reports) with
no readelf or objdump in the image, only glibc's ldd: ldd of the wrapper
shows the system libnixl.so loading, not the copy it ships beside.""",
          base="kb-dynamo-trtllm-6671")
def topo_trtllm_ldd(p):
    trt_ldd_only(p, "/opt/nvidia/nvda_nixl/lib/x86_64-linux-gnu/libnixl.so")


@_variant("topo-trtllm-ldd-ok", """topo-trtllm-ldd one setting away: LD_LIBRARY_PATH without
/opt/nvidia/nvda_nixl, so ldd of the wrapper resolves libnixl.so to the copy
it ships beside (tensorrt_llm/libs/nixl, its RUNPATH $ORIGIN/nixl/).""",
          base="kb-dynamo-trtllm-6671")
def topo_trtllm_ldd_ok(p):
    trt_ldd_only(p, TRT_SITE + "/tensorrt_llm/libs/nixl/libnixl.so")
    p.env("LD_LIBRARY_PATH", TRT_SITE + "/torch/lib:/usr/local/cuda/compat/lib:"
          "/usr/local/nvidia/lib:/usr/local/nvidia/lib64")


# ---- Issue 39 item 1: UCX's default on an off-fabric port (E7, A10) ----
def offfabric(p, rack):
    """roce_rack's rack (routed RoCE v2 rails, 10.14.k.H/26, a route to
    10.14.0.0/16 on each) with roce-h100-bf3-dpu's BlueField-3 DPU function
    mlx5_8 on the host's storage network: enp41s0f0np0 10.20.R.11/24 (R 0 in
    rack a, 1 in rack b), only its connected route, none to the rails'
    10.14.0.0/16; UCX_NET_DEVICES unset."""
    G.roce_rack(p, rack)
    r = {"a": 0, "b": 1}[rack]
    add_roce_nic(p, "mlx5_7", "mlx5_8", "enp41s0f0np0", "10.20.%d.11" % r, DPU_LINKS,
                 "200 Gb/sec (2X NDR)")
    as_bf3(p, "mlx5_8")
    a, rt = "bin/out/ip-o-4-addr.txt", "bin/out/ip-4-route.txt"
    p.write(a, p.read(a) + "20: enp41s0f0np0    inet 10.20.%d.11/24 brd 10.20.%d.255 scope "
            "global enp41s0f0np0\\       valid_lft forever preferred_lft forever\n" % (r, r))
    p.write(rt, p.read(rt) + "10.20.%d.0/24 dev enp41s0f0np0 proto kernel scope link src "
            "10.20.%d.11\n" % (r, r))
    p.env("UCX_NET_DEVICES", None)
    p.env("NCCL_IB_HCA", "=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7")


@_variant("topo-offfabric-a", """roce-routed-a (8 RoCE v2 rails, 10.14.k.10/26, UCX
1.19.0) with a BlueField-3 DPU function mlx5_8 (part 41692, Active, 200G,
NODE/SYS to the GPUs) on the storage network 10.20.0.11/24, no route from
it to the rails' 10.14.0.0/16; UCX_NET_DEVICES unset (issue 39 item 1).""",
          base="roce-ok")
def topo_offfabric_a(p):
    offfabric(p, "a")


@_variant("topo-offfabric-b", """topo-offfabric-a's peer in rack b: rails
10.14.k.74/26, mlx5_8 on 10.20.1.11/24, no route to 10.14.0.0/16.""",
          base="roce-ok")
def topo_offfabric_b(p):
    offfabric(p, "b")


@_variant("topo-offfabric-old-a", """topo-offfabric-a with UCX 1.18.1 (ucx_info -v), the
last release without the RoCE route check (openucx/ucx PR #10135 is first in
1.19.0): UCX keeps every RoCE lane whatever the routes.""",
          base="topo-offfabric-a")
def topo_offfabric_old_a(p):
    old_ucx(p)


@_variant("topo-offfabric-old-b", """topo-offfabric-b with UCX 1.18.1.""",
          base="topo-offfabric-b")
def topo_offfabric_old_b(p):
    old_ucx(p)


def old_ucx(p):
    """UCX 1.18.1 in ucx_info -v and the image's version list."""
    p.resub("bin/out/ucx_info-v.txt", r"1\.19\.0", "1.18.1")
    p.resub("root/opt/dynamo/nixl-versions.txt", r"1\.19\.0", "1.18.1")


# ---- Issue 42 item 3: the cuda_ipc path as a path (docs/checks.md D6) ---
def no_rdma(p):
    """The pod with no RDMA device (as ib-no-rdma-resource): no
    /sys/class/infiniband or /dev/infiniband entry, ibv_devinfo finds
    none, UCX opens no IB memory domain, topo -m shows no NIC; no device
    list in the image's env."""
    p.rm("root/dev/infiniband")
    p.rm("root/sys/class/infiniband")
    for tool in ("ibstat", "ibstatus"):
        if os.path.exists(p.path("bin/out/%s.txt" % tool)):
            p.write("bin/out/%s.txt" % tool, "")
    p.write("bin/out/ibv_devinfo.txt", "No IB devices found\n")
    p.sub("bin/ibv_devinfo", 'cat "${0%/*}/out/ibv_devinfo.txt"\n',
          'cat "${0%/*}/out/ibv_devinfo.txt" >&2\nexit 255\n')
    p.write(G.UCXD, G.ucx_drop_md(p.read(G.UCXD), lambda n, c: c == "ib"))
    topo = "bin/out/nvidia-smi-topo-m.txt"
    p.write(topo, G.topo_drop_nics(p.read(topo)))
    for k in ("UCX_NET_DEVICES", "UCX_IB_GID_INDEX", "NCCL_IB_HCA", "NCCL_IB_GID_INDEX"):
        p.env(k, None)


@_variant("path-pcie-no-rdma", """pcie-no-nvlink (4 A10 PCIe GPUs, no NVLink: nvidia-smi
nvlink --status prints nothing) with no RDMA device in the pod, standing for
the L40/L20 nodes of vllm-project/vllm#52607 and ai-dynamo/nixl#1097: the
condition UCX tests is the same (src/uct/cuda/cuda_ipc/cuda_ipc_iface.c,
uct_cuda_ipc_iface_get_max_get_zcopy: no NVLink on GPU 0 and
UCX_CUDA_IPC_ENABLE_GET_ZCOPY not y: cuda_ipc offers no GET).  UCX_TLS
keeps cuda_ipc and tcp, so KV between two pods of the node goes over
cuda_ipc where it can and over TCP where it cannot.""",
          base="pcie-no-nvlink")
def path_pcie_no_rdma(p):
    no_rdma(p)
    p.env("UCX_TLS", None)


@_variant("path-gb200-no-ib", """gb200-nvl72-a with no RDMA device given to the pod:
KV between trays of the NVLink domain has multi-node NVLink (cuda_ipc,
UCX_CUDA_IPC_ENABLE_MNNVL=y) as its only fast path.""",
          base="gb200-nvl72-a")
def path_gb200_no_ib(p):
    no_rdma(p)
    p.env("UCX_TLS", None)


# ---- Issue 42 item 2: E7's tie-break keyed on the UCX build ------------
@_variant("path-h100-ucx-11547", """h100-ib-ok with the UCX of a v1.22.x branch build past
the v1.22.0 tag: ucx_info -v "Library version: 1.22.0", "Git branch
'v1.22.x', revision ecb919e" (openucx/ucx ecb919ed61, the v1.22.x backport
of PR #11547, 2026-08-14), so UCX breaks ties among equal lanes by the
GPU's ordinal (openucx/ucx#11680) where the 1.19.0 build takes the first.""")
def path_h100_ucx_11547(p):
    p.resub("bin/out/ucx_info-v.txt", r"1\.19\.0", "1.22.0")
    p.resub("bin/out/ucx_info-v.txt", r"Git branch '', revision e4bb802",
            "Git branch 'v1.22.x', revision ecb919e")
    p.resub("root/opt/dynamo/nixl-versions.txt", r"v1\.19\.0", "v1.22.0")


# ---- Issue 42: a non-EFA device in an EFA allocation (checks.md G1) ------
def efa_ibp(p, handed_out):
    """efa-ok with a p6-b200 ibp* NVLink controller beside its EFA devices:
    the ConnectX-7 device mlx5_0 (netdev ibp115s0f0, NDR InfiniBand) in
    sysfs, which a container does not scope, and so in nvidia-smi topo -m
    (NODE to GPUs 0-3, SYS to 4-7: placed on socket 0, constructed).
    handed_out: the EFA device
    plugin before 0.5.10 hands its uverbs node out as an EFA device
    (aws/sagemaker-hyperpod-cli PR #282), and libfabric's EFA provider,
    which opens every verbs device, reports -61 (aws-samples/aws-do-eks
    PR #63's measurement with the mlx5 uverbs nodes in the pod)."""
    d = G.IB + "mlx5_0/"
    p.write(d + "hca_type", "MT4129\n")
    p.write(d + "node_type", "1: CA\n")
    p.write(d + "fw_ver", "28.39.1002\n")
    p.write(d + "board_id", "MT_0000000838\n")
    p.write(d + "ports/1/rate", "400 Gb/sec (4X NDR)\n")
    p.write(d + "ports/1/phys_state", "5: LinkUp\n")
    p.write(d + "ports/1/state", "4: ACTIVE\n")
    p.write(d + "ports/1/link_layer", "InfiniBand\n")
    p.write(d + "device/net/ibp115s0f0/operstate", "up\n")
    # nvidia-smi lists every NIC of the host (sysfs is not namespaced):
    # a column for it, placed on socket 0's root complex as a host device
    p.write(G.TOPO, G.topo_edit(p.read(G.TOPO), add=(("mlx5_0", DPU_LINKS),)))
    if handed_out:
        G.uverbs_nodes(p)
        p.write("bin/out/fi_info-p-efa.txt", "fi_getinfo: -61 (No data available)\n")
        p.write("bin/out/fi_info-p-efa-hmem.txt", "fi_getinfo: -61 (No data available)\n")


@_variant("path-efa-ibp", """efa-ok (p4de, 4 EFA devices) with an ibp* NVLink
controller of p6-b200 (mlx5_0, netdev ibp115s0f0) handed out beside them by an
EFA device plugin before 0.5.10 (aws/sagemaker-hyperpod-cli PR #282): its
uverbs node in the pod, fi_info -p efa -61 (aws-samples/aws-do-eks PR #63).
Constructed, not captured (issue 42).""", base="efa-ok")
def path_efa_ibp(p):
    efa_ibp(p, True)


@_variant("path-efa-ibp-fixed", """path-efa-ibp's node with the EFA device plugin
0.5.10: mlx5_0 still in sysfs (host-wide), but the pod holds only the four EFA
devices' uverbs nodes; fi_info -p efa as efa-ok.""", base="efa-ok")
def path_efa_ibp_fixed(p):
    efa_ibp(p, False)


# ---- Issue 42: Mooncake's rail sets on a rail-only fabric (E8b) ---------
def rail_only(p, rack):
    """roce_rack's rack (IPv4 RoCE v2 GIDs 2/3 with their netdevs) on
    flat_l2's rail-only addressing: rail k 10.14.k.H/24, only its connected
    route, none between rails (each rail its own subnet and switch, as the
    rail-only fabrics of kvcache-ai/Mooncake#3828 and NVIDIA-NeMo/RL PR
    #2935's RoCE runners); mooncake-transfer-engine 0.3.12.post1 installed."""
    G.roce_rack(p, rack)
    flat_l2(p)
    G.mooncake_wheel(p, "0.3.12.post1")


@_variant("path-roce-railonly-a", """roce-routed-a's rails without the route between
them: rail k 10.14.k.10/24, only the connected route (rail-only, one subnet
per rail shared with rack b); Mooncake 0.3.12.post1 (issue 42, E8b).""",
          base="roce-ok")
def path_roce_railonly_a(p):
    rail_only(p, "a")


@_variant("path-roce-railonly-b", """path-roce-railonly-a's peer: rail k
10.14.k.74/24.""", base="roce-ok")
def path_roce_railonly_b(p):
    rail_only(p, "b")


# ---- Issue 42 item 2: Mooncake on a Grace-Blackwell tray (E8c) ----------
@_variant("path-gb200-mc-a", """gb200-nvl72-a (4 GB200 GPUs on their own PCI
domains, SYS to every NIC in topo -m, each GPU's memory a NUMA node; rails
mlx5_0, mlx5_1 on Grace 0, mlx5_4, mlx5_5 on Grace 1) with SGLang's
mooncake-transfer-engine 0.3.12.post1 pip-installed: a release whose
topology.cpp still ranks NICs by getPciDistance's sysfs-path prefix, which
on GB200 prefers one NIC per NUMA node (kvcache-ai/Mooncake PR #1974, open
when 0.3.12.post1 was the latest tag).  Constructed (issue 42).""",
          base="gb200-nvl72-a")
def path_gb200_mc_a(p):
    G.mooncake_wheel(p, "0.3.12.post1")


@_variant("path-gb200-mc-b", """path-gb200-mc-a in gb200-nvl72-b's tray.""",
          base="gb200-nvl72-b")
def path_gb200_mc_b(p):
    G.mooncake_wheel(p, "0.3.12.post1")
