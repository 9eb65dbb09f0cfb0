"""fakecluster pod init: runs as PID 1 of a fresh mount+PID namespace
(unshare --fork), started as `fakecluster --pod-init SPEC.json` by
fc_sandbox.  Builds the pod root on a tmpfs, chroots into it, limits the
capability bounding set and rlimits, then execs the long-lived init shell
with exactly the profile environment.  Imports nothing heavy (it runs under
`python3 -S`), and nothing of the server."""
import json
import os

# Capabilities
# Capabilities
CAP_NAMES = [
    "chown", "dac_override", "dac_read_search", "fowner", "fsetid", "kill",
    "setgid", "setuid", "setpcap", "linux_immutable", "net_bind_service",
    "net_broadcast", "net_admin", "net_raw", "ipc_lock", "ipc_owner",
    "sys_module", "sys_rawio", "sys_chroot", "sys_ptrace", "sys_pacct",
    "sys_admin", "sys_boot", "sys_nice", "sys_resource", "sys_time",
    "sys_tty_config", "mknod", "lease", "audit_write", "audit_control",
    "setfcap", "mac_override", "mac_admin", "syslog", "wake_alarm",
    "block_suspend", "audit_read", "perfmon", "bpf", "checkpoint_restore",
]


# Docker / containerd default set (no IPC_LOCK, no SYS_RESOURCE)
DEFAULT_CAPS = ["chown", "dac_override", "fsetid", "fowner", "mknod", "net_raw",
                "setgid", "setuid", "setfcap", "setpcap", "net_bind_service",
                "sys_chroot", "kill", "audit_write"]


def cap_last():
    try:
        with open("/proc/sys/kernel/cap_last_cap") as f:
            return int(f.read().strip())
    except OSError:
        return len(CAP_NAMES) - 1


def make_node(dst, what):
    """One `make:` entry at host path dst (tests/cluster/README.md): a FIFO
    no one writes, a symlink, a text file (sparse up to `size` bytes of NULs
    after the text, `exec` for a tool) or a directory of `many` empty files
    whose names are `name_len` characters long."""
    if "fifo" in what:
        os.mkfifo(dst, 0o644)
    elif "symlink" in what:
        os.symlink(what["symlink"], dst)
    elif "many" in what:
        os.makedirs(dst, exist_ok=True)
        n = int(what.get("name_len", 16))
        for i in range(int(what["many"])):
            name = ("%06d" % i).ljust(n - 5, "x") + ".conf"
            open(os.path.join(dst, name), "w").close()
    else:
        with open(dst, "w") as f:
            f.write(what["text"])
            if int(what.get("size", 0)) > f.tell():
                f.truncate(int(what["size"]))
        os.chmod(dst, 0o755 if what.get("exec") else 0o444)


def pod_init(spec_path):
    import ctypes
    import resource
    import shutil
    import stat
    with open(spec_path) as f:
        spec = json.load(f)
    status_fd = spec["status_fd"]
    libc = ctypes.CDLL(None, use_errno=True)
    MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
    MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18

    def mount(src, tgt, fstype, flags, data=None):
        r = libc.mount(src.encode() if src else None, tgt.encode(),
                       fstype.encode() if fstype else None, ctypes.c_ulong(flags),
                       data.encode() if data else None)
        if r != 0:
            e = ctypes.get_errno()
            raise OSError(e, "mount %s on %s: %s" % (src, tgt, os.strerror(e)))

    def bind(src, tgt, ro=True):
        mount(src, tgt, None, MS_BIND)
        if ro:
            try:
                mount(None, tgt, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID)
            except OSError:
                mount(None, tgt, None, MS_REMOUNT | MS_BIND | MS_RDONLY)

    def report(msg):
        os.write(status_fd, (msg + "\n").encode())

    try:
        mount(None, "/", None, MS_REC | MS_PRIVATE)
        R = spec["root"]
        mount("tmpfs", R, "tmpfs", MS_NOSUID, "mode=755,size=256m")
        owned = set([R])
        binds = {}  # pod path -> host source

        def mk(p, mode=0o755):
            os.makedirs(p, mode=mode, exist_ok=True)

        for d in ["usr", "usr/local", "usr/sbin", "var", "var/tmp", "run", "root",
                  "home", "opt", "mnt", ".fakecluster"]:
            mk(os.path.join(R, d))
            owned.add(os.path.join(R, d))
        mk(os.path.join(R, "tmp"), 0o1777)
        os.chmod(os.path.join(R, "tmp"), 0o1777)
        owned.add(os.path.join(R, "tmp"))
        for name, target in [("bin", "usr/bin"), ("sbin", "usr/sbin"), ("lib", "usr/lib")]:
            os.symlink(target, os.path.join(R, name))
        for sub, host in [("usr/bin", spec["basebin"]), ("usr/lib", "/usr/lib"),
                          ("usr/lib64", "/usr/lib64"), ("usr/lib32", "/usr/lib32"),
                          ("usr/share", "/usr/share"), ("etc", "/etc"), ("sys", "/sys"),
                          ("usr/local/bin", spec.get("bin"))]:
            if not host or not os.path.isdir(host):
                if sub == "usr/local/bin":
                    mk(os.path.join(R, sub))
                    owned.add(os.path.join(R, sub))
                continue
            p = os.path.join(R, sub)
            mk(p)
            bind(host, p, ro=True)
            binds[p] = host
        if os.path.isdir("/usr/lib64"):
            os.symlink("usr/lib64", os.path.join(R, "lib64"))
        # /proc: fresh proc of the new PID namespace.  When the profile has a
        # /proc file the kernel does not have (e.g. /proc/modules on a kernel
        # without modules), /proc becomes a tmpfs of symlinks into a hidden
        # real proc mount (/.fakecluster/proc), with the profile files in it.
        mk(os.path.join(R, "proc"))
        realproc = os.path.join(R, ".fakecluster", "proc")
        mk(realproc)
        mount("proc", realproc, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        proot0 = spec.get("profile_root")
        synthetic = False
        if proot0 and os.path.isdir(os.path.join(proot0, "proc")):
            for top, dirs, files in os.walk(os.path.join(proot0, "proc")):
                for name in files:
                    rel = os.path.relpath(os.path.join(top, name), os.path.join(proot0, "proc"))
                    if not os.path.isfile(os.path.join(realproc, rel)):
                        synthetic = True
        if synthetic:
            P = os.path.join(R, "proc")
            mount("tmpfs", P, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=555")
            for e in os.listdir(realproc):
                if not e.isdigit():
                    os.symlink("/.fakecluster/proc/" + e, os.path.join(P, e))
            for i in range(1, 4097):
                os.symlink("/.fakecluster/proc/%d" % i, os.path.join(P, str(i)))
        else:
            mount("proc", os.path.join(R, "proc"), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        # /dev: minimal tmpfs
        dev = os.path.join(R, "dev")
        mk(dev)
        mount("tmpfs", dev, "tmpfs", MS_NOSUID, "mode=755,size=1m")
        for name, (ma, mi) in {"null": (1, 3), "zero": (1, 5), "full": (1, 7),
                               "random": (1, 8), "urandom": (1, 9), "tty": (5, 0)}.items():
            os.mknod(os.path.join(dev, name), 0o666 | stat.S_IFCHR, os.makedev(ma, mi))
            os.chmod(os.path.join(dev, name), 0o666)
        for name, target in [("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                             ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")]:
            os.symlink(target, os.path.join(dev, name))
        mk(os.path.join(dev, "pts"))
        mk(os.path.join(dev, "shm"), 0o1777)
        # like a container runtime's /dev/shm (Docker: 64 MiB) or the pod's
        # memory emptyDir there: UCX's shared memory transports need one
        # even for a TCP transfer
        mount("tmpfs", os.path.join(dev, "shm"), "tmpfs", MS_NOSUID | MS_NODEV,
              "mode=1777,size=%s" % spec.get("shm", "64m"))
        # helpers (hidden, not on PATH)
        shutil.copy2(spec["setpriv"], os.path.join(R, ".fakecluster", "setpriv"))
        with open(os.path.join(R, ".fakecluster", "launch"), "w") as f:
            f.write(spec["launch"])

        def host_src(p):
            best = None
            for b in binds:
                if (p == b or p.startswith(b + "/")) and (best is None or len(b) > len(best)):
                    best = b
            if best is None:
                return None
            return binds[best] + p[len(best):]

        def make_writable(d):
            if d in owned:
                return
            hs = host_src(d)
            entries = []
            if hs is not None and os.path.isdir(hs):
                entries = os.listdir(hs)
            mount("tmpfs", d, "tmpfs", MS_NOSUID, "mode=755")
            owned.add(d)
            for e in entries:
                src = os.path.join(hs, e)
                dst = os.path.join(d, e)
                try:
                    st = os.lstat(src)
                    if stat.S_ISLNK(st.st_mode):
                        os.symlink(os.readlink(src), dst)
                    elif stat.S_ISDIR(st.st_mode):
                        os.mkdir(dst)
                        bind(src, dst)
                        binds[dst] = src
                    else:
                        open(dst, "w").close()
                        bind(src, dst)
                        binds[dst] = src
                except OSError:
                    pass

        def ensure_dir(d):
            if d in owned:
                return
            if os.path.isdir(d) and not os.path.islink(d):
                return
            parent = os.path.dirname(d)
            ensure_dir(parent)
            make_writable(parent)
            if os.path.lexists(d):
                os.unlink(d)
            os.mkdir(d)
            owned.add(d)

        warnings = []
        proot = spec.get("profile_root")
        if proot and os.path.isdir(proot):
            for top, dirs, files in os.walk(proot):
                dirs.sort()
                rel = os.path.relpath(top, proot)
                rel = "" if rel == "." else rel
                for name in sorted(files) + [d for d in dirs if os.path.islink(os.path.join(top, d))]:
                    src = os.path.join(top, name)
                    relp = os.path.join(rel, name)
                    dst = os.path.join(R, relp)
                    if relp.startswith("proc/"):
                        if synthetic:
                            comps = relp.split("/")[1:]
                            cur = os.path.join(R, "proc")
                            realcur = "/.fakecluster/proc"
                            for comp in comps[:-1]:
                                nxt = os.path.join(cur, comp)
                                realcur = realcur + "/" + comp
                                if os.path.islink(nxt):
                                    os.unlink(nxt)
                                    os.mkdir(nxt)
                                    hostreal = os.path.join(R, realcur.lstrip("/"))
                                    if os.path.isdir(hostreal):
                                        for e in os.listdir(hostreal):
                                            os.symlink(realcur + "/" + e, os.path.join(nxt, e))
                                elif not os.path.isdir(nxt):
                                    os.mkdir(nxt)
                                cur = nxt
                            if os.path.lexists(dst):
                                os.unlink(dst)
                            shutil.copyfile(src, dst)
                            os.chmod(dst, 0o444)
                        elif os.path.isfile(dst) and not os.path.islink(src):
                            bind(src, dst)
                        else:
                            warnings.append("profile file /%s: no such file in /proc, ignored" % relp)
                        continue
                    if relp.startswith("dev/"):
                        mk(os.path.dirname(dst))
                        if os.path.islink(src):
                            os.symlink(os.readlink(src), dst)
                        else:
                            os.mknod(dst, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
                            os.chmod(dst, 0o666)
                        continue
                    parent = os.path.dirname(dst)
                    ensure_dir(parent)
                    if os.path.islink(src):
                        make_writable(parent)
                        if os.path.lexists(dst):
                            if os.path.isdir(dst) and not os.path.islink(dst):
                                continue
                            os.unlink(dst)
                        os.symlink(os.readlink(src), dst)
                    elif os.path.isfile(dst) and not os.path.islink(dst) and \
                            (parent not in owned or dst in binds):
                        # a host file (bound, also inside a directory made
                        # writable for a sibling): the profile's over it
                        bind(src, dst)
                    else:
                        make_writable(parent)
                        if os.path.lexists(dst) and (os.path.islink(dst) or not os.path.isdir(dst)):
                            try:
                                os.unlink(dst)
                            except OSError:
                                pass
                        shutil.copy2(src, dst)
                for d in dirs:
                    if os.path.islink(os.path.join(top, d)):
                        continue
                    relp = os.path.join(rel, d)
                    dst = os.path.join(R, relp)
                    if relp == "proc" or relp.startswith("proc/"):
                        continue
                    if relp == "dev" or relp.startswith("dev/"):
                        mk(dst)
                        continue
                    ensure_dir(dst)
        # The scenario's files (a ConfigMap's keys at its mount path).
        for dst_abs, src in spec.get("files") or []:
            dst = os.path.join(R, dst_abs.lstrip("/"))
            ensure_dir(os.path.dirname(dst))
            make_writable(os.path.dirname(dst))
            if os.path.lexists(dst):
                os.unlink(dst)
            shutil.copyfile(src, dst)
            os.chmod(dst, 0o444)
        # The scenario's `make:` entries: what no repository can hold (a
        # FIFO, a huge file, a directory of many files), made at start.
        for dst_abs, what in spec.get("make") or []:
            dst = os.path.join(R, dst_abs.lstrip("/"))
            ensure_dir(os.path.dirname(dst))
            make_writable(os.path.dirname(dst))
            if "many" in what:
                ensure_dir(dst)
                make_writable(dst)
            elif os.path.lexists(dst) and not os.path.isdir(dst):
                if dst in binds:    # a host file bound in (/etc/ld.so.conf)
                    libc.umount2(dst.encode(), 2)     # MNT_DETACH
                    del binds[dst]
                os.unlink(dst)
            make_node(dst, what)
        # The machine's identity (DMI) is the profile's, never the host's:
        # a profile without /sys/class/dmi shows none (the host running the
        # tests may be a VM, which would otherwise leak into every pod).
        dmi = os.path.join(R, "sys/class/dmi")
        if not (proot and os.path.isdir(os.path.join(proot, "sys/class/dmi"))) and \
                os.path.isdir(dmi) and not os.path.islink(dmi):
            mount("tmpfs", dmi, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=555,size=4k")
        # host-bin: real host executables shown in /usr/local/bin (e.g. the
        # real ucx_perftest for transfer tests); their libraries come from the
        # host's /usr/lib bound above.
        for hp in spec.get("host_bin") or []:
            lb = os.path.join(R, "usr/local/bin")
            make_writable(lb)
            dst = os.path.join(lb, os.path.basename(hp))
            if os.path.lexists(dst):
                os.unlink(dst)
            open(dst, "w").close()
            bind(os.path.realpath(hp), dst)
        if spec.get("boot_id"):
            # one boot_id per node, like separate machines: UCX compares it
            # to decide that a peer shares its memory (sysv/cma lanes)
            bid = os.path.join(os.path.dirname(R), "boot_id")
            with open(bid, "w") as f:
                f.write(spec["boot_id"] + "\n")
            for pp in (os.path.join(R, "proc"), realproc):
                tgt = os.path.join(pp, "sys/kernel/random/boot_id")
                if os.path.isfile(tgt) and not os.path.islink(tgt):
                    bind(bid, tgt)
        hosts = os.path.join(R, "etc/hosts")
        if spec.get("etc_hosts") and os.path.isfile(hosts) and not os.path.islink(hosts):
            # the pod's /etc/hosts (fc_sandbox.etc_hosts), bound over the
            # host's file like the kubelet's mount
            bind(spec["etc_hosts"], hosts)
        if spec.get("hostname"):
            # own UTS namespace, hostname = pod name, as on a real node (UCX
            # tells machines apart by it: same name = shared-memory lanes)
            hn = spec["hostname"].encode()
            libc.sethostname(hn, len(hn))
        os.chroot(R)
        os.chdir("/")
        keep = set(spec["caps"]) if spec["caps"] is not None else None
        if keep is not None:
            PR_CAPBSET_DROP = 24
            for i in range(cap_last() + 1):
                if i not in keep:
                    libc.prctl(PR_CAPBSET_DROP, i, 0, 0, 0)
        ml = spec.get("memlock")
        if ml is not None:
            lim = resource.RLIM_INFINITY if ml == "unlimited" else int(ml)
            try:
                resource.setrlimit(resource.RLIMIT_MEMLOCK, (lim, lim))
            except (ValueError, OSError):
                hard = resource.getrlimit(resource.RLIMIT_MEMLOCK)[1]
                warnings.append("memlock=%s above the hard limit %s (no CAP_SYS_RESOURCE)" % (ml, hard))
                resource.setrlimit(resource.RLIMIT_MEMLOCK, (hard, hard))
        for w in warnings:
            report("warn " + w)
        report("ok")
        os.close(status_fd)
        env = dict(spec["env"])
        # the workload's command and args follow as $0 $1 ...: /proc/1/cmdline
        # names them, as a container's entrypoint would
        os.execve("/bin/sh", ["sh", "-c", "trap 'exit 0' TERM; while :; do sleep 3600 & wait; done"] +
                  list(spec.get("argv") or []), env)
    except Exception as e:  # noqa
        try:
            report("error %s" % e)
        except OSError:
            pass
        os._exit(1)
