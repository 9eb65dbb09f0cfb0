"""The test-profile generators' library (gen_profiles.py, gen_images.py,
gen_nics.py through gen_profiles, tests/calibration/gen_profiles.py): a
profile directory being edited (P), the edits the variants share (ucx_info
-d memory domains and transports, nvidia-smi topo -m columns, ibstat /
ibv_devinfo blocks, RDMA devices and Ethernet NICs, the ip tool, DMI), and
the write-or---check loop every generator runs (generate)."""
import filecmp
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = "h100-ib-ok"      # the healthy profile the variants are copies of

class P:
    """A profile directory being edited."""

    def __init__(self, root):
        self.root = root

    def path(self, rel):
        return os.path.join(self.root, rel)

    def read(self, rel):
        with open(self.path(rel)) as f:
            return f.read()

    def write(self, rel, text, mode=0o644):
        p = self.path(rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)
        os.chmod(p, mode)

    def sub(self, rel, old, new, count=1):
        t = self.read(rel)
        if old not in t:
            raise SystemExit("gen_profiles: %r not in %s" % (old, rel))
        self.write(rel, t.replace(old, new, count), os.stat(self.path(rel)).st_mode & 0o777)

    def resub(self, rel, pattern, repl, flags=re.M):
        t = self.read(rel)
        n = re.subn(pattern, repl, t, flags=flags)
        if not n[1]:
            raise SystemExit("gen_profiles: /%s/ not in %s" % (pattern, rel))
        self.write(rel, n[0], os.stat(self.path(rel)).st_mode & 0o777)

    def rm(self, rel):
        p = self.path(rel)
        if os.path.isdir(p):
            shutil.rmtree(p)
        else:
            os.remove(p)
        # git keeps no empty directories: leave none, or a fresh clone
        # would differ from what this script writes.
        parent = os.path.dirname(p)
        while parent != self.root and not os.listdir(parent):
            os.rmdir(parent)
            parent = os.path.dirname(parent)

    def env(self, key, value):
        """Sets (value not None) or removes KEY in env."""
        lines = [l for l in self.read("env").splitlines() if l and not l.startswith(key + "=")]
        if value is not None:
            lines.append("%s=%s" % (key, value))
        self.write("env", "\n".join(lines) + "\n")


def ucx_drop_md(text, pred):
    """ucx_info -d without the memory domains (and their transports) for
    which pred(name, component) is true."""
    blocks = re.split(r"(?m)^(?=#\n# Memory domain: )", text)
    keep = []
    for b in blocks:
        m = re.search(r"^# Memory domain: (\S+)\n#     Component: (\S+)", b, re.M)
        if m and pred(m.group(1), m.group(2)):
            continue
        keep.append(b)
    return "".join(keep)


def ucx_drop_transports(text, device):
    """Drops the transports listed on DEVICE (e.g. "mlx5_4:1"); UCX skips
    ports that are not active but still opens their memory domain.  A
    transport block is 9 lines: Transport, Device, Type, System device, #,
    capabilities:, bandwidth, latency, #."""
    out, n = re.subn(r"(?m)^#      Transport: \S+\n#         Device: %s\n(?:.*\n){7}" % re.escape(device),
                     "", text)
    if not n:
        raise SystemExit("gen_profiles: no transport on %s" % device)
    return out


UCXD = "bin/out/ucx_info-d.txt"


def topo_drop_nics(text):
    """nvidia-smi topo -m of a pod without RDMA devices: no NIC columns,
    rows or legend."""
    lines = text.split("\n")
    head = lines[0].split("\t")
    nic = set(i for i, h in enumerate(head) if h.startswith("NIC"))
    out = []
    for line in lines:
        if line.startswith("NIC Legend:"):
            break
        if line.startswith("NIC"):
            continue
        if line is lines[0] or line.startswith("GPU"):
            line = "\t".join(c for i, c in enumerate(line.split("\t")) if i not in nic)
        out.append(line)
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"


def rename_rdma_dev(p, old, new):
    """The RDMA device old named new throughout the profile: its sysfs
    directory and every mention in the tools' outputs and env (as an
    mlx5 LAG device is named mlx5_bond_N by the driver)."""
    for dirpath, dirs, files in os.walk(p.root, topdown=False):
        for f in files:
            rel = os.path.relpath(os.path.join(dirpath, f), p.root)
            if os.path.islink(p.path(rel)):
                continue
            t = p.read(rel)
            n = re.sub(r"\b%s\b" % re.escape(old), new, t)
            if n != t:
                p.write(rel, n, os.stat(p.path(rel)).st_mode & 0o777)
        for d in dirs:
            if d == old:
                os.rename(os.path.join(dirpath, d), os.path.join(dirpath, new))


IB = "root/sys/class/infiniband/"


TOPO = "bin/out/nvidia-smi-topo-m.txt"


def topo_edit(text, drop=(), add=()):
    """nvidia-smi topo -m with the NIC columns of `drop` (device names)
    removed and, for each (name, [link of GPU0..7]) of `add`, a NIC column
    appended: its row and the NIC-NIC cells are SYS/NODE by the NUMA of the
    GPU it is nearest (PIX/PXB/NODE cells), as the real tool prints them."""
    lines = text.rstrip("\n").split("\n")
    head = lines[0].split("\t")
    legend_at = lines.index("NIC Legend:")
    legend = {}
    for l in lines[legend_at + 1:]:
        s = l.strip()
        if s.startswith("NIC") and ":" in s:
            k, v = s.split(":")
            legend[k] = v.strip()
    rows = {}
    order = []
    for l in lines[1:]:
        c = l.split("\t")
        if c[0].startswith("GPU") or (c[0].startswith("NIC") and ":" not in c[0] and len(c) > 2):
            rows[c[0]] = c
            order.append(c[0])
    nics = [h for h in head if h.startswith("NIC")]
    names = [legend[n] for n in nics]
    gpus = [h for h in head if re.match(r"GPU\d+$", h)]
    tail = head[len(gpus) + len(nics) + 1:]
    keep = [n for n in names if n not in drop] + [a[0] for a in add]
    link = {}
    for g in gpus:
        c = rows[g]
        for i, n in enumerate(names):
            link[(g, n)] = c[1 + len(gpus) + i]
    for name, cells in add:
        for i, g in enumerate(gpus):
            link[(g, name)] = cells[i]
    numa = {g: rows[g][1 + len(gpus) + len(nics) + 1] for g in gpus}

    def nic_numa(n):
        near = [g for g in gpus if link[(g, n)] in ("PIX", "PXB", "PHB", "NODE")]
        return numa[near[0]] if near else None

    def nn(a, b):
        if a == b:
            return " X "
        return "NODE" if nic_numa(a) == nic_numa(b) else "SYS"
    newnics = ["NIC%d" % i for i in range(len(keep))]
    out = ["\t".join([""] + gpus + newnics + tail)]
    for g in gpus:
        c = rows[g]
        out.append("\t".join([g] + c[1:1 + len(gpus)] + [link[(g, n)] for n in keep] +
                             c[1 + len(gpus) + len(nics):]))
    for i, n in enumerate(keep):
        out.append("\t".join(["NIC%d" % i] + [link[(g, n)] for g in gpus] + [nn(n, m) for m in keep]))
    start = lines.index("Legend:")
    out += [""] + lines[start:legend_at + 1] + [""]
    out += ["  NIC%d: %s" % (i, n) for i, n in enumerate(keep)]
    return "\n".join(out) + "\n"


def ucx_md_block(text, dev):
    m = re.search(r"(?ms)^#\n# Memory domain: %s\n.*?(?=^#\n# Memory domain: )" % re.escape(dev), text)
    if not m:
        raise SystemExit("gen_profiles: no memory domain %s" % dev)
    return m.group(0)


def blocks(text, start):
    """ibstat ("CA '") or ibv_devinfo ("hca_id:") output as its device
    blocks, each without its trailing blank lines."""
    parts = re.split(r"(?m)^(?=%s)" % re.escape(start), text)
    return [b.rstrip("\n") for b in parts if b.strip()]


def join_blocks(bl, start):
    return ("\n" if start.startswith("CA") else "\n\n").join(bl) + "\n"


def edit_blocks(p, rel, start, fn):
    p.write(rel, join_blocks(fn(blocks(p.read(rel), start)), start))


def block(text, start, dev):
    """The ibstat ("CA 'dev'") or ibv_devinfo ("hca_id:\tdev") block."""
    head = start % dev
    for b in blocks(text, start.split("%s")[0]):
        if b.split("\n")[0] == head or b.startswith(head + "\n"):
            return b
    raise SystemExit("gen_profiles: no %r" % head)


TOOLS = (("bin/out/ibstat.txt", "CA '%s'"), ("bin/out/ibv_devinfo.txt", "hca_id:\t%s"))


def drop_nic(p, dev):
    """Removes RDMA device dev from sysfs, ibstat, ibv_devinfo, ucx_info -d
    and topo -m (the pod does not see it)."""
    p.rm(IB + dev)
    for rel, start in TOOLS:
        b = block(p.read(rel), start, dev)
        edit_blocks(p, rel, start.split("%s")[0], lambda bl: [x for x in bl if x != b])
    p.write(UCXD, ucx_drop_md(p.read(UCXD), lambda n, c: n == dev))
    p.write(TOPO, topo_edit(p.read(TOPO), drop=(dev,)))
    uverbs_nodes(p)


def uverbs_nodes(p):
    """One uverbsN/umadN pair per RDMA device of sysfs, N from 0, as the
    device plugin mounts them."""
    n = len(os.listdir(p.path(IB)))
    for f in sorted(os.listdir(p.path("root/dev/infiniband"))):
        if re.match(r"(uverbs|umad)\d+$", f):
            os.remove(p.path("root/dev/infiniband/" + f))
    for i in range(n):
        p.write("root/dev/infiniband/uverbs%d" % i, "")
        p.write("root/dev/infiniband/umad%d" % i, "")


def add_eth_nic(p, dev, part, board, rate, links, up=True):
    """An Ethernet RDMA port dev (PCI part id `part`, e.g. 4125 ConnectX-6
    Dx, 41692 BlueField-3) cloned from mlx5_bond_0's files, Active or Down,
    with links: its topo -m cell for GPU0..7."""
    base = "mlx5_bond_0"
    state = ("4: ACTIVE", "5: LinkUp") if up else ("1: DOWN", "3: Disabled")
    for attr, val in (("hca_type", "MT%d" % part), ("fw_ver", p.read(IB + base + "/fw_ver").strip()),
                      ("board_id", board)):
        p.write(IB + dev + "/" + attr, val + "\n")
    for attr, val in (("link_layer", "Ethernet"), ("phys_state", state[1]),
                      ("rate", rate), ("state", state[0])):
        p.write(IB + dev + "/ports/1/" + attr, val + "\n")
    b = block(p.read(TOOLS[0][0]), TOOLS[0][1], base).replace(base, dev).replace("MT41692", "MT%d" % part)
    if not up:
        b = b.replace("State: Active", "State: Down").replace("Physical state: LinkUp",
                                                              "Physical state: Disabled")
    edit_blocks(p, TOOLS[0][0], "CA '", lambda bl: bl + [b])
    b = block(p.read(TOOLS[1][0]), TOOLS[1][1], base).replace(base, dev).replace("41692", "%d" % part)
    if not up:
        b = b.replace("PORT_ACTIVE (4)", "PORT_DOWN (1)")
    edit_blocks(p, TOOLS[1][0], "hca_id:", lambda bl: bl + [b])
    t = p.read(UCXD)
    if base in t:
        md = ucx_md_block(t, base).replace(base, dev)
    else:
        raise SystemExit("gen_profiles: %s has no %s memory domain to clone" % (p.root, base))
    if not up:
        md = ucx_drop_transports(md, dev + ":1")
    i = t.index("#\n# Memory domain: cma")
    p.write(UCXD, t[:i] + md + t[i:])
    p.write(TOPO, topo_edit(p.read(TOPO), add=((dev, links),)))
    uverbs_nodes(p)


def dmi(p, vendor, product, hypervisor):
    p.write("root/sys/class/dmi/id/sys_vendor", vendor + "\n")
    p.write("root/sys/class/dmi/id/product_name", product + "\n")
    flags = ("fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx "
             "fxsr sse sse2 ss syscall nx pdpe1gb rdtscp lm constant_tsc rep_good nopl xtopology "
             "cpuid tsc_known_freq pni pclmulqdq ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic movbe "
             "popcnt aes xsave avx f16c rdrand %slahf_lm abm 3dnowprefetch avx512f avx512dq "
             "avx512_bf16 amx_bf16 amx_tile amx_int8" % ("hypervisor " if hypervisor else ""))
    cpu = ("processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"
           "model name\t: Intel(R) Xeon(R) Platinum 8480+\nflags\t\t: %s\n\n" % flags)
    p.write("root/proc/cpuinfo", cpu)


def add_eth_nic_from(p, dev, part, up, links):
    """add_eth_nic on a profile without mlx5_bond_0: clones the bond's files
    from the base profile h100-ib-ok."""
    base = P(os.path.join(HERE, BASE))
    p.write(IB + "mlx5_bond_0/hca_type", base.read(IB + "mlx5_bond_0/hca_type"))
    p.write(IB + "mlx5_bond_0/fw_ver", base.read(IB + "mlx5_bond_0/fw_ver"))
    tmp_stat = block(base.read(TOOLS[0][0]), TOOLS[0][1], "mlx5_bond_0")
    tmp_dev = block(base.read(TOOLS[1][0]), TOOLS[1][1], "mlx5_bond_0")
    tmp_md = ucx_md_block(base.read(UCXD), "mlx5_bond_0")
    edit_blocks(p, TOOLS[0][0], "CA '", lambda bl: bl + [tmp_stat])
    edit_blocks(p, TOOLS[1][0], "hca_id:", lambda bl: bl + [tmp_dev])
    t = p.read(UCXD)
    i = t.index("#\n# Memory domain: cma")
    p.write(UCXD, t[:i] + tmp_md + t[i:])
    add_eth_nic(p, dev, part, "MT_0000000838", "200 Gb/sec (2X NDR)", links, up)
    for rel, start in TOOLS:
        b = block(p.read(rel), start, "mlx5_bond_0")
        edit_blocks(p, rel, start.split("%s")[0], lambda bl: [x for x in bl if x != b])
    p.write(UCXD, ucx_drop_md(p.read(UCXD), lambda n, c: n == "mlx5_bond_0"))
    p.rm(IB + "mlx5_bond_0")
    uverbs_nodes(p)


def ip_tool(p, addr, route):
    p.write("bin/ip", """#!/bin/sh
# iproute2 of this pod: prints captured output (bin/out/) for the listings
# the probe runs; anything else is an error like the real tool's.
o=${0%/*}/out
case "$*" in
"-o -4 addr show" | "-o -4 addr" | "-4 -o addr show") cat "$o/ip-o-4-addr.txt" ;;
"-4 route show" | "-4 route" | "route") cat "$o/ip-4-route.txt" ;;
*) echo 'Object "'"$1"'" is unknown, try "ip help".' >&2; exit 255 ;;
esac
""", 0o755)
    p.write("bin/out/ip-o-4-addr.txt", addr)
    p.write("bin/out/ip-4-route.txt", route)


def split_blocks(text, head):
    """text cut before each line matching head: [preamble, block, ...]."""
    return re.split(r"(?m)^(?=%s)" % head, text)


def same_tree(a, b):
    c = filecmp.dircmp(a, b)
    if c.left_only or c.right_only or c.diff_files or c.funny_files:
        return False
    if any(not filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False)
           for f in c.common_files):
        return False
    return all(same_tree(os.path.join(a, s), os.path.join(b, s)) for s in c.common_dirs)


def generate(prog, names, build, here):
    """A generator's main: without arguments build(here) and say what was
    written; with --check build into a scratch directory and exit 1 naming
    each of names whose committed directory under here differs."""
    if sys.argv[1:] == ["--check"]:
        tmp = tempfile.mkdtemp(prefix=prog.replace("_", "-") + "-")
        try:
            build(tmp)
            stale = [n for n in names if not os.path.isdir(os.path.join(here, n))
                     or not same_tree(os.path.join(tmp, n), os.path.join(here, n))]
        finally:
            shutil.rmtree(tmp)
        if stale:
            print("%s: stale: %s (run %s)" % (prog, ", ".join(stale), sys.argv[0]))
            return 1
        return 0
    build(here)
    print("%s: wrote %s" % (prog, ", ".join(names)))
    return 0
