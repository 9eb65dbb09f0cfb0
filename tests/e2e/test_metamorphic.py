#!/usr/bin/python3
"""Metamorphic tests of the verdict (issue 22 item 4): for every healthy
scenario (each pod READY in tests/calibration/expected.yaml, and the
real-image scenarios of tests/e2e/images_expected.yaml), variants that
must not move any verdict, and variants that break one link and must make
every pod NOT READY with the family that shows it.

Variants that must not matter (each a change real deployments make):
  env-spec        the transport env the image sets (profile `env`) also
                  written literally in the pod spec (DGD `env:`)
  env-configmap   ... as configMapKeyRef
  env-secretkey   ... as secretKeyRef (a Secret's value is judged, shown masked)
  env-envfrom     the operator's `envFromSecret: hf-token-secret` (envFrom
                  secretRef) beside image ENV (ai-dynamo/dynamo operator
                  graph.go: envFromSecret); every value may be a Secret's
  sidecar         a second container before `main` (istio-proxy)
  ucx-debug       UCX_LOG_LEVEL=debug in the process env
  netdev-order    UCX_NET_DEVICES entries in reverse order
  no-ibstat       ibstat / ibstatus removed (sysfs still shows the ports)
  no-ibv-devinfo  ibv_devinfo removed where ucx_info is there (its rc/dc/ud
                  transports still show that verbs opens the devices)
  mgmt-port-down  an extra Ethernet RDMA device whose port is down and
                  that UCX_NET_DEVICES does not name (a management NIC)
  no-binutils     readelf and objdump removed (a slim runtime image): F6
                  then judges from ldd or not at all (issue 39 item 3)
  mnnvl-off       UCX_CUDA_IPC_ENABLE_MNNVL=n: KV between nodes takes RDMA
                  either way on these single-domain scenarios (issue 39
                  items 2 and 5)
  unrelated-nic   a management NIC (mlx5_99, 25 Gb/s Ethernet) on every
                  node that no KV path selects: Active where
                  UCX_NET_DEVICES lists devices, with no link otherwise
                  (issue 39 point 8)
  rename-devices  mlx5_0..mlx5_N renamed in reverse order (mlx5_0 ->
                  mlx5_7 ...) in sysfs, the tools' output, env and logs
  reorder-gids    (RoCE) each port's GIDs moved to other slots in reverse
                  order, every *_GID_INDEX moved with them
Variants that must (IB and RoCE; family that must fail):
  tls-tcp         UCX_TLS=tcp,cuda_copy in the process env       ENV
  no-uverbs       /dev/infiniband/uverbs* not in the pod         RDMA
  memlock-64k     RLIMIT_MEMLOCK 64 KiB, no IPC_LOCK             LIMITS
  no-ucx-plugin   NIXL's libplugin_UCX.so removed                NIXL
The issue 39 transformations done wrong, to show the suite sees them:
  unrelated-nic-taken  (IB) the NIC Active with no GID and
                  UCX_NET_DEVICES=all: UCX takes it              UCX
  rename-stale-env  devices renamed mlx5_N -> mlx5_{N+20}, the env
                  still naming the old ones                      ENV
  gid-index-stale  (RoCE) GIDs moved, UCX_IB_GID_INDEX left at the
                  routable GID's old slot, now empty             ENV

One test cluster per variant holds every healthy scenario, each in its
own namespace, and `check -n NS` runs per scenario (so deployment-wide
context never mixes scenarios).  The variant x verdict table is printed.
"""
import json
import os
import re
import shutil
import sys
import unittest

import yaml

from base import ROOT, E2ECase, check_json, running

CALIBRATION = os.path.join(ROOT, "tests", "calibration")
TRANSPORT = ("UCX_", "NIXL_", "NCCL_", "FI_", "OFI_NCCL_", "MOONCAKE_", "VLLM_NIXL_")


CLUSTER_SCENARIOS = os.path.join(ROOT, "tests", "cluster", "scenarios")


def healthy_scenarios():
    """Every scenario all of whose pods are expected READY: the
    calibration corpus, and the real-image scenarios (images_expected.yaml)
    that come out READY today (test_images.KNOWN_MISSES names the rest)."""
    from test_images import KNOWN_MISSES
    names = []
    for path in (os.path.join(CALIBRATION, "expected.yaml"),
                 os.path.join(os.path.dirname(os.path.abspath(__file__)), "images_expected.yaml")):
        with open(path) as f:
            doc = yaml.safe_load(f)
        names += [sc["name"] for sc in doc["scenarios"]
                  if all(p["verdict"] == "READY" for p in sc["pods"].values())
                  and sc["name"] not in KNOWN_MISSES]
    return names


def scenario_path(name):
    cal = os.path.join(CALIBRATION, "scenarios", name + ".yaml")
    return cal if os.path.exists(cal) else os.path.join(CLUSTER_SCENARIOS, name + ".yaml")


def load(name):
    path = scenario_path(name)
    with open(path) as f:
        sc = yaml.safe_load(f)
    base = os.path.dirname(path)
    for p in sc["pods"]:
        p["profile"] = os.path.normpath(os.path.join(base, p["profile"]))
        if isinstance(p.get("logs"), str):
            p["logs"] = os.path.normpath(os.path.join(base, p["logs"]))
        if isinstance(p.get("files"), dict):     # the pod's mounted files (test-cluster.md)
            p["files"] = {k: os.path.normpath(os.path.join(base, v)) for k, v in p["files"].items()}
    return sc


def read_env(profile):
    env = {}
    with open(os.path.join(profile, "env")) as f:
        for line in f:
            line = line.rstrip("\n")
            if "=" in line and not line.startswith("#"):
                k, v = line.split("=", 1)
                env[k] = v
    return env


def fabric(profile):
    """"ib", "roce" or "efa", from the pod's sysfs."""
    d = os.path.join(profile, "root", "sys", "class", "infiniband")
    devs = sorted(os.listdir(d)) if os.path.isdir(d) else []
    if any(x.startswith("efa") or x.startswith("rdmap") for x in devs):
        return "efa"
    layers = set()
    for dev in devs:
        ll = os.path.join(d, dev, "ports", "1", "link_layer")
        if os.path.exists(ll):
            with open(ll) as f:
                layers.add(f.read().strip())
    return "ib" if "InfiniBand" in layers else "roce"


def main_container(pod):
    spec = pod.setdefault("spec", {})
    cs = spec.setdefault("containers", [])
    for c in cs:
        if c.get("name") == "main":
            return c
    c = {"name": "main"}
    cs.append(c)
    return c


def process_env(pod):
    env = read_env(pod["profile"])
    env.update({str(k): str(v) for k, v in (pod.get("env") or {}).items()})
    return env


def transport_vars(pod):
    return {k: v for k, v in process_env(pod).items() if k.startswith(TRANSPORT)}


def set_spec_env(pod, entry):
    c = main_container(pod)
    c["env"] = [e for e in c.get("env") or [] if not e.get("name", "").startswith(TRANSPORT)]
    c["env"] += [entry(k, v) for k, v in sorted(transport_vars(pod).items())]


class Profiles:
    """Copies of profiles a variant changes, one per source profile."""

    def __init__(self, tmp):
        self.tmp, self.copies = tmp, {}

    def copy(self, pod, change, key=""):
        """pod's profile copied once per (source, key) and changed."""
        src = (pod["profile"], key)
        if src not in self.copies:
            dst = os.path.join(self.tmp, "p%d-%s" % (len(self.copies), os.path.basename(src[0])))
            shutil.copytree(src[0], dst, symlinks=True)
            change(dst)
            self.copies[src] = dst
        pod["profile"] = self.copies[src]


# ---- variants: (name, applies(fabric), change(pod, profiles)) ----------

def v_env_spec(pod, _):
    set_spec_env(pod, lambda k, v: {"name": k, "value": v})


def v_env_configmap(pod, _):
    set_spec_env(pod, lambda k, v: {"name": k, "valueFrom": {
        "configMapKeyRef": {"name": "dgd-transport-env", "key": k}}})


def v_env_secretkey(pod, _):
    set_spec_env(pod, lambda k, v: {"name": k, "valueFrom": {
        "secretKeyRef": {"name": "transport-env", "key": k}}})


def v_env_envfrom(pod, _):
    c = main_container(pod)
    c["env"] = [e for e in c.get("env") or [] if not e.get("name", "").startswith(TRANSPORT)]
    c["envFrom"] = [{"secretRef": {"name": "hf-token-secret"}}]


def v_sidecar(pod, _):
    conts = pod.get("containers") or ["main"]
    pod["containers"] = [{"name": "istio-proxy", "image": "docker.io/istio/proxyv2:1.22.0"}] + conts
    spec = pod.setdefault("spec", {})
    spec["containers"] = [{"name": "istio-proxy", "image": "docker.io/istio/proxyv2:1.22.0"}] + \
        list(spec.get("containers") or [])


def v_ucx_debug(pod, _):
    pod.setdefault("env", {})["UCX_LOG_LEVEL"] = "debug"


def v_netdev_order(pod, _):
    nd = process_env(pod).get("UCX_NET_DEVICES")
    if nd and "," in nd:
        pod.setdefault("env", {})["UCX_NET_DEVICES"] = ",".join(reversed(nd.split(",")))


def _drop(d, tools):
    """Removes the image's tools (bin/NAME) that exist."""
    for t in tools:
        p = os.path.join(d, "bin", t)
        if os.path.exists(p):
            os.remove(p)


def _drop_tools(d):
    _drop(d, ("ibstat", "ibstatus"))


def v_no_ibstat(pod, prof):
    prof.copy(pod, _drop_tools)


def _drop_ibv_devinfo(d):
    if os.path.exists(os.path.join(d, "bin", "ucx_info")):    # it still shows verbs (A5/E3)
        p = os.path.join(d, "bin", "ibv_devinfo")
        if os.path.exists(p):
            os.remove(p)


def v_no_ibv_devinfo(pod, prof):
    prof.copy(pod, _drop_ibv_devinfo)


def _mgmt_nic(d):
    port = os.path.join(d, "root", "sys", "class", "infiniband", "mlx5_mgmt", "ports", "1")
    os.makedirs(port)
    for name, value in (("state", "1: DOWN"), ("phys_state", "3: Disabled"),
                        ("rate", "25 Gb/sec (1X EDR)"), ("link_layer", "Ethernet")):
        with open(os.path.join(port, name), "w") as f:
            f.write(value + "\n")
    with open(os.path.join(port, "..", "..", "hca_type"), "w") as f:
        f.write("MT4125\n")


def v_mgmt_port_down(pod, prof):
    prof.copy(pod, _mgmt_nic)


def _no_binutils(d):
    _drop(d, ("readelf", "objdump"))


def v_no_binutils(pod, prof):
    prof.copy(pod, _no_binutils)


def v_mnnvl_off(pod, _):
    pod.setdefault("env", {})["UCX_CUDA_IPC_ENABLE_MNNVL"] = "n"


# ---- issue 39 point 8: a NIC, device names, GID order ------------------

SYSIB = ("root", "sys", "class", "infiniband")
NIC_RE = re.compile(r"\bmlx5_(\d+)\b")
ZERO_GID = "0000:0000:0000:0000:0000:0000:0000:0000"


def _write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text + "\n")


def _unrelated_nic(d, active, gids=True):
    """mlx5_99: a ConnectX-6 Dx management port (MT4125, 25 Gb/s Ethernet,
    netdev eno3np0, 192.168.50.21), Active or with no link."""
    dev = os.path.join(d, *SYSIB, "mlx5_99")
    port = os.path.join(dev, "ports", "1")
    _write(os.path.join(dev, "hca_type"), "MT4125")
    _write(os.path.join(dev, "node_type"), "1: CA")
    _write(os.path.join(dev, "device", "net", "eno3np0", "operstate"), "up" if active else "down")
    for name, value in (("state", "4: ACTIVE" if active else "1: DOWN"),
                        ("phys_state", "5: LinkUp" if active else "3: Disabled"),
                        ("rate", "25 Gb/sec (1X EDR)"), ("link_layer", "Ethernet")):
        _write(os.path.join(port, name), value)
    table = ["fe80:0000:0000:0000:0ec4:7aff:fe1d:2b31"] * 2 + \
        ["0000:0000:0000:0000:0000:ffff:c0a8:3215"] * 2 if gids else []
    for i in range(16):
        _write(os.path.join(port, "gids", str(i)), table[i] if i < len(table) else ZERO_GID)
    for i in range(len(table)):
        _write(os.path.join(port, "gid_attrs", "types", str(i)),
               "IB/RoCE v1" if i % 2 == 0 else "RoCE v2")
        _write(os.path.join(port, "gid_attrs", "ndevs", str(i)), "eno3np0")


def v_unrelated_nic(pod, prof):
    """A management NIC no KV path selects: Active where UCX_NET_DEVICES
    lists devices (so UCX does not take it), with no link otherwise."""
    listed = process_env(pod).get("UCX_NET_DEVICES", "all") != "all"
    prof.copy(pod, lambda d: _unrelated_nic(d, listed), key="listed" if listed else "all")


def _opened_nic(d):
    """_unrelated_nic Active with an empty GID table, opened by verbs: its
    uverbs node, and a memory domain in ucx_info -d's output."""
    _unrelated_nic(d, True, gids=False)
    open(os.path.join(d, "root", "dev", "infiniband", "uverbs99"), "w").close()
    out = os.path.join(d, "bin", "out")
    for n in os.listdir(out) if os.path.isdir(out) else []:
        if n.startswith("ucx_info-d"):
            with open(os.path.join(out, n), "a") as f:
                f.write("#\n# Memory domain: mlx5_99\n#     Component: ib\n#\n"
                        "#      Transport: rc_verbs\n#         Device: mlx5_99:1\n"
                        "#           Type: network\n#  System device: mlx5_99 (99)\n#\n")


def v_unrelated_nic_taken(pod, prof):
    """Broken on purpose: the same NIC Active, opened by verbs, with an
    empty GID table and UCX_NET_DEVICES=all, so UCX takes it and its iface
    does not open (smg-project/smg#2520)."""
    prof.copy(pod, _opened_nic)
    pod.setdefault("env", {})["UCX_NET_DEVICES"] = "all"


def _devices(d):
    ib = os.path.join(d, *SYSIB)
    names = os.listdir(ib) if os.path.isdir(ib) else []
    return sorted(int(n[5:]) for n in names if NIC_RE.fullmatch(n))


def _renamed(text, new):
    return NIC_RE.sub(lambda m: "mlx5_%d" % new.get(int(m.group(1)), int(m.group(1))), text)


def _rename_tree(d, new):
    """Every mlx5_N (file names and contents) under d renamed by new."""
    for top, dirs, files in os.walk(d, topdown=False):
        for n in files:
            path = os.path.join(top, n)
            try:
                with open(path) as f:
                    text = f.read()
            except (UnicodeDecodeError, OSError):
                continue
            if NIC_RE.search(text):
                with open(path, "w") as f:
                    f.write(_renamed(text, new))
        for n in dirs + files:
            if NIC_RE.fullmatch(n):
                os.rename(os.path.join(top, n), os.path.join(top, "tmp." + n))
    for top, dirs, files in os.walk(d, topdown=False):
        for n in dirs + files:
            if n.startswith("tmp.") and NIC_RE.fullmatch(n[4:]):
                os.rename(os.path.join(top, n), os.path.join(top, _renamed(n[4:], new)))


def _rename_pod(pod, prof, new_of, env=True):
    """pod's profile (and its logs) with devices renamed by new_of(profile
    dir); with env, its spec and pod env too."""
    src = pod["profile"]
    new = new_of(src)
    prof.copy(pod, lambda d: _rename_tree(d, new))
    if isinstance(pod.get("logs"), str):
        with open(pod["logs"]) as f:
            text = _renamed(f.read(), new)
        pod["logs"] = os.path.join(pod["profile"], "renamed-" + os.path.basename(pod["logs"]))
        with open(pod["logs"], "w") as f:
            f.write(text)
    if env:
        pod["env"] = {k: _renamed(str(v), new) for k, v in (pod.get("env") or {}).items()}
        for e in main_container(pod).get("env") or []:
            if isinstance(e.get("value"), str):
                e["value"] = _renamed(e["value"], new)
    return new


def _reversed_names(profile):
    nums = _devices(profile)
    return dict(zip(nums, reversed(nums)))


def v_rename_devices(pod, prof):
    """mlx5_0..mlx5_N renamed in reverse order (mlx5_0 -> mlx5_7 ...),
    consistently across sysfs, the tools' output, env and logs."""
    _rename_pod(pod, prof, _reversed_names)


def v_rename_stale_env(pod, prof):
    """Broken on purpose: devices renamed mlx5_N -> mlx5_{N+20}, the env
    left pinning the old names (UCX_NET_DEVICES of the pod, else every
    old device's port 1)."""
    old = process_env(pod).get("UCX_NET_DEVICES")
    new = _rename_pod(pod, prof, lambda d: {n: n + 20 for n in _devices(d)}, env=False)
    pod.setdefault("env", {})["UCX_NET_DEVICES"] = old if old and old != "all" else \
        ",".join("mlx5_%d:1" % n for n in sorted(new))


def _gid_table(port):
    out = {}
    for n in os.listdir(os.path.join(port, "gids")):
        with open(os.path.join(port, "gids", n)) as f:
            out[int(n)] = f.read().strip()
    return out


def _ports(d):
    ib = os.path.join(d, *SYSIB)
    for dev in sorted(os.listdir(ib)) if os.path.isdir(ib) else []:
        pd = os.path.join(ib, dev, "ports")
        for p in sorted(os.listdir(pd)) if os.path.isdir(pd) else []:
            if os.path.isdir(os.path.join(pd, p, "gids")):
                yield os.path.join(pd, p)


def gid_moves(d):
    """{old index: new index}: the GID slots in use on any port of profile d,
    placed in reverse order at the top of the 16 the probe reads."""
    used = set()
    for port in _ports(d):
        used |= {i for i, g in _gid_table(port).items() if i < 16 and g != ZERO_GID}
    return {i: 15 - k for k, i in enumerate(sorted(used))}


def _move_gids(d, moves):
    for port in _ports(d):
        table = _gid_table(port)
        for i in table:
            if i < 16:
                _write(os.path.join(port, "gids", str(i)), ZERO_GID)
        for i, j in moves.items():
            _write(os.path.join(port, "gids", str(j)), table.get(i, ZERO_GID))
        for attr in ("types", "ndevs"):
            base = os.path.join(port, "gid_attrs", attr)
            had = {}
            for n in os.listdir(base) if os.path.isdir(base) else []:
                with open(os.path.join(base, n)) as f:
                    had[int(n)] = f.read()
                os.remove(os.path.join(base, n))
            for i, text in had.items():
                with open(os.path.join(base, str(moves.get(i, i))), "w") as f:
                    f.write(text)


GID_VARS = ("UCX_IB_GID_INDEX", "NCCL_IB_GID_INDEX", "MC_GID_INDEX", "NVSHMEM_IB_GID_INDEX")


def _moved_env(env, moves):
    return {k: str(moves.get(int(v), v)) if k in GID_VARS and str(v).isdigit() else v
            for k, v in env.items()}


def _reorder(d, moves):
    _move_gids(d, moves)
    env = _moved_env(read_env(d), moves)
    with open(os.path.join(d, "env"), "w") as f:
        f.writelines("%s=%s\n" % kv for kv in env.items())


def v_reorder_gids(pod, prof):
    """Each port's GIDs moved to other slots in reverse order, every
    *_GID_INDEX in the image and the pod moved with them."""
    moves = gid_moves(pod["profile"])
    prof.copy(pod, lambda d: _reorder(d, moves))
    pod["env"] = _moved_env(pod.get("env") or {}, moves)
    for e in main_container(pod).get("env") or []:
        if e.get("name") in GID_VARS and str(e.get("value", "")).isdigit():
            e["value"] = str(moves.get(int(e["value"]), e["value"]))


def _routable_v2(d):
    """The first slot holding a RoCE v2 IPv4 GID on a port of d, or None."""
    for port in _ports(d):
        for i, g in sorted(_gid_table(port).items()):
            t = os.path.join(port, "gid_attrs", "types", str(i))
            if g.startswith("0000:0000:0000:0000:0000:ffff:") and os.path.exists(t):
                with open(t) as f:
                    if f.read().strip() == "RoCE v2":
                        return i
    return None


def v_gid_index_stale(pod, prof):
    """Broken on purpose: the GIDs moved as in reorder-gids, UCX_IB_GID_INDEX
    left at (or pinned to) the routable GID's old slot, now empty."""
    old = process_env(pod).get("UCX_IB_GID_INDEX") or str(_routable_v2(pod["profile"]))
    moves = gid_moves(pod["profile"])
    prof.copy(pod, lambda d: _move_gids(d, moves))
    pod.setdefault("env", {})["UCX_IB_GID_INDEX"] = old


def v_tls_tcp(pod, _):
    pod.setdefault("env", {})["UCX_TLS"] = "tcp,cuda_copy"


def _no_uverbs(d):
    ib = os.path.join(d, "root", "dev", "infiniband")
    for n in os.listdir(ib) if os.path.isdir(ib) else []:
        if n.startswith("uverbs"):
            os.remove(os.path.join(ib, n))


def v_no_uverbs(pod, prof):
    prof.copy(pod, _no_uverbs)


def _memlock(d):
    with open(os.path.join(d, "limits"), "w") as f:
        f.write("memlock=65536\n")


def v_memlock(pod, prof):
    """64 KiB and nothing that lifts it: CAP_IPC_LOCK (or privileged) lets
    ibv_reg_mr pin past RLIMIT_MEMLOCK (checks.md E5), so it goes too."""
    prof.copy(pod, _memlock)
    sc = main_container(pod).setdefault("securityContext", {})
    sc.pop("privileged", None)
    caps = sc.get("capabilities") or {}
    caps["add"] = [c for c in caps.get("add") or [] if c not in ("IPC_LOCK", "CAP_IPC_LOCK")]
    sc["capabilities"] = caps


def _no_ucx_plugin(d):
    for top, _, files in os.walk(os.path.join(d, "root")):
        for n in files:
            if n == "libplugin_UCX.so":
                os.remove(os.path.join(top, n))
    # the canned `python3 -c 'import nixl'` lists the plugins it saw too
    out = os.path.join(d, "bin", "out")
    for n in os.listdir(out) if os.path.isdir(out) else []:
        if n.startswith("python3"):
            path = os.path.join(out, n)
            with open(path) as f:
                lines = [l for l in f if l.strip() != "plugin=libplugin_UCX.so"]
            with open(path, "w") as f:
                f.writelines(lines)


def v_no_ucx_plugin(pod, prof):
    prof.copy(pod, _no_ucx_plugin)


ANY = ("ib", "roce", "efa")
RDMA = ("ib", "roce")
SAME = [("env-spec", ANY, v_env_spec), ("env-configmap", ANY, v_env_configmap),
        ("env-secretkey", ANY, v_env_secretkey), ("env-envfrom", ANY, v_env_envfrom),
        ("sidecar", ANY, v_sidecar), ("ucx-debug", ANY, v_ucx_debug),
        ("netdev-order", ANY, v_netdev_order), ("no-ibstat", RDMA, v_no_ibstat),
        ("no-ibv-devinfo", RDMA, v_no_ibv_devinfo),
        ("mgmt-port-down", RDMA, v_mgmt_port_down),
        ("no-binutils", ANY, v_no_binutils), ("mnnvl-off", ANY, v_mnnvl_off),
        ("unrelated-nic", RDMA, v_unrelated_nic), ("rename-devices", ANY, v_rename_devices),
        ("reorder-gids", ("roce",), v_reorder_gids)]
BREAK = [("tls-tcp", RDMA, v_tls_tcp, "ENV"), ("no-uverbs", RDMA, v_no_uverbs, "RDMA"),
         ("memlock-64k", RDMA, v_memlock, "LIMITS"),
         ("no-ucx-plugin", RDMA, v_no_ucx_plugin, "NIXL"),
         # each issue 39 transformation done wrong on purpose: the suite
         # can see what its must-not-matter twin would hide
         ("unrelated-nic-taken", ("ib",), v_unrelated_nic_taken, "UCX"),
         ("rename-stale-env", RDMA, v_rename_stale_env, "ENV"),
         ("gid-index-stale", ("roce",), v_gid_index_stale, "ENV")]


def build(variant, applies, change, names, tmp):
    """A scenario file with each named scenario's pods in namespace
    <scenario>, changed by the variant where it applies; the names it
    applied to."""
    prof = Profiles(os.path.join(tmp, variant))
    os.makedirs(prof.tmp)
    pods, used = [], []
    for name in names:
        sc = load(name)
        if variant != "base" and fabric(sc["pods"][0]["profile"]) not in applies:
            continue
        used.append(name)
        for p in sc["pods"]:
            p["namespace"] = name
            if change:
                change(p, prof)
            pods.append(p)
    path = os.path.join(tmp, variant + ".yaml")
    with open(path, "w") as f:
        yaml.safe_dump({"namespace": "default", "namespaces": used, "pods": pods}, f)
    return path, used


def verdicts(path, used):
    """{scenario: {pod: (verdict, failing families)}} of `check -n` on each."""
    out = {}
    with running(path) as c:
        for ns in used:
            rc, text, err = check_json(c, "-n", ns, timeout=300)
            try:
                doc = json.loads(text)
            except ValueError:
                out[ns] = {"?": ("error rc %d: %s" % (rc, err.strip()[-300:]), [])}
                continue
            out[ns] = {p["name"]: (p["verdict"], sorted(set(
                ch["family"] for ch in p["checks"] if ch["status"] == "fail")),
                [ch["name"] + ": " + ch["detail"] for ch in p["checks"]
                 if ch["status"] in ("fail", "warn")]) for p in doc["pods"]}
    return out


class TestMetamorphic(E2ECase):
    TMP = "di-meta-"

    @classmethod
    def fixture(cls):
        cls.names = healthy_scenarios()
        cls.got = {}
        for variant, applies, change in [("base", ANY, None)] + SAME + [b[:3] for b in BREAK]:
            path, used = build(variant, applies, change, cls.names, cls.tmp)
            cls.got[variant] = verdicts(path, used)
        cls.print_table()

    @classmethod
    def print_table(cls):
        short = {"READY": "R", "NOT READY": "N", "UNVERIFIED": "U"}
        variants = list(cls.got)
        lines = ["metamorphic verdicts (R READY, N NOT READY, U UNVERIFIED, . not applied; "
                 "one letter per pod):",
                 "  " + "scenario".ljust(34) + "".join(v[:14].rjust(15) for v in variants)]
        for name in cls.names:
            row = []
            for v in variants:
                pods = cls.got[v].get(name)
                row.append("." if pods is None else "".join(
                    short.get(x[0], "?") for _, x in sorted(pods.items())))
            lines.append("  " + name.ljust(34) + "".join(r.rjust(15) for r in row))
        print("\n" + "\n".join(lines))
        sys.stdout.flush()

    def test_base_is_ready(self):
        """The starting point: every healthy scenario READY (else the
        variants prove nothing)."""
        for name, pods in self.got["base"].items():
            for pod, (verdict, fams, why) in pods.items():
                self.assertEqual(verdict, "READY", (name, pod, why))

    def test_must_not_matter(self):
        for variant, _, _ in SAME:
            for name, pods in self.got[variant].items():
                for pod, (verdict, fams, why) in pods.items():
                    with self.subTest(variant=variant, scenario=name, pod=pod):
                        self.assertEqual(verdict, self.got["base"][name][pod][0],
                                         "%s moved %s %s: %s" % (variant, name, pod, why))

    def test_must_break(self):
        for variant, _, _, family in BREAK:
            self.assertTrue(self.got[variant], variant + " applied to no scenario")
            for name, pods in self.got[variant].items():
                for pod, (verdict, fams, why) in pods.items():
                    with self.subTest(variant=variant, scenario=name, pod=pod):
                        self.assertEqual(verdict, "NOT READY", (variant, name, pod, why))
                        self.assertIn(family, fams, (variant, name, pod, why))


if __name__ == "__main__":
    unittest.main()
