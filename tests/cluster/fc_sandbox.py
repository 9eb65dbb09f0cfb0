"""Pod sandboxes: a long-lived first process per Running pod in its own
mount + PID (+ network, UTS) namespaces, started by a spawner thread
through `fakecluster --pod-init` (fc_podinit.py), the pod network of
veth pairs on a bridge in a private hub namespace, and the argv of an exec
entering a pod (nsenter + setpriv bounding set + ulimit -l)."""
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid

import fc_counters
from fc_podinit import CAP_NAMES, DEFAULT_CAPS, cap_last

HERE = os.path.dirname(os.path.abspath(__file__))
FAKECLUSTER = os.path.join(HERE, "fakecluster")

BASE_TOOLS = ["sh", "dash", "cat", "ls", "grep", "sed", "awk", "mawk", "timeout", "head",
              "tail", "tr", "cut", "wc", "sort", "uniq", "find", "readlink", "realpath",
              "basename", "dirname", "env", "id", "uname", "sleep", "echo", "printf", "test",
              "[", "stat", "true", "false", "kill", "xargs", "seq", "expr", "od", "date",
              "ps", "tee", "hostname", "nproc", "whoami"]


LAUNCH_SH = r'''__fc_ml=$1; shift
if [ "$__fc_ml" != - ]; then ulimit -l "$__fc_ml" 2>/dev/null; fi
exec "$@"
'''


DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def etc_hosts(pod, d, hostname):
    """The file shown as the pod's /etc/hosts, like the kubelet's: the
    scenario's `files:` entry for /etc/hosts when it has one (a hostNetwork
    pod sees its node's file, which the kubelet does not write:
    pkg/kubelet/kubelet_pods.go makeHostsMount), else the kubelet-managed
    file (managedHostsFileContent: localhost lines and "podIP hostname"),
    written into d."""
    for dst, src in getattr(pod, "files", []):
        if dst == "/etc/hosts":
            return src
    path = os.path.join(d, "hosts")
    with open(path, "w") as f:
        f.write("# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n"
                "::1\tlocalhost ip6-localhost ip6-loopback\nfe00::0\tip6-localnet\n"
                "fe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n")
        if pod.ip:
            f.write("%s\t%s\n" % (pod.ip, hostname))
    return path


def workload_container(pod):
    """The container whose process is the sandbox's pid 1.  A pod's
    containers share one sandbox here, but in a real pod each has its own
    PID namespace, so /proc/1 in the container one execs into is that
    container's entrypoint: the container kubectl execs into by default
    (kubectl.kubernetes.io/default-container, else the first), except that
    Dynamo's operator names its workload `main` and a sidecar injected
    before it (istio-proxy) must not lend it its capabilities or mounts."""
    names = [c["name"] for c in pod.containers]
    want = (pod.annotations or {}).get("kubectl.kubernetes.io/default-container")
    if want in names:
        return want
    return "main" if "main" in names else names[0]


def kubelet_expand(word, env):
    """word with $(VAR) references replaced as the kubelet does before it
    starts a container (k8s.io/kubernetes third_party/forked/golang/expansion
    expand.go, used by kubelet ExpandContainerCommandAndArgs): $(VAR) of a
    variable of the container's environment becomes its value, an unknown
    one stays as written, $$ is one $, any other $ stays."""
    out, i = [], 0
    while i < len(word):
        c = word[i]
        if c != "$" or i + 1 == len(word):
            out.append(c)
            i += 1
        elif word[i + 1] == "$":
            out.append("$")
            i += 2
        elif word[i + 1] == "(" and ")" in word[i + 2:]:
            j = word.index(")", i + 2)
            name = word[i + 2:j]
            out.append(env[name] if name in env else "$(%s)" % name)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def workload_argv(pod, env=None):
    """The workload container's command then args: the sandbox's first
    process carries them in its argv (after its own script), so
    /proc/1/cmdline names them as a container's entrypoint would, with
    $(VAR) expanded from env (the pod's process environment) as the
    kubelet expands them."""
    for c in pod.obj["spec"].get("containers") or []:
        if c.get("name") == workload_container(pod):
            return [kubelet_expand(str(a), env or {}) for a in (c.get("command") or []) + (c.get("args") or [])]
    return []


def shm_size(pod):
    """tmpfs size= for the sandbox's /dev/shm: the runtime's 64 MiB unless
    the workload container mounts a memory emptyDir there (kubelet sizes it by
    sizeLimit, else by node memory; tmpfs reserves nothing up front)."""
    spec = pod.obj["spec"]
    cs = [c for c in spec.get("containers") or [] if c.get("name") == workload_container(pod)] or [{}]
    vname = None
    for m in cs[0].get("volumeMounts") or []:
        if m.get("mountPath") == "/dev/shm":
            vname = m.get("name")
    for v in spec.get("volumes") or []:
        ed = v.get("emptyDir") if v.get("name") == vname else None
        if isinstance(ed, dict) and ed.get("medium") == "Memory":
            q = str(ed.get("sizeLimit") or "")
            units = {"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40,
                     "k": 10 ** 3, "M": 10 ** 6, "G": 10 ** 9, "T": 10 ** 12, "": 1}
            for u in sorted(units, key=len, reverse=True):
                if q.endswith(u) and q[:len(q) - len(u)].isdigit():
                    return str(int(q[:len(q) - len(u)]) * units[u])
            return "50%"
    return "64m"


def container_caps(pod, cname):
    """Capability names for container cname, or None for 'all' (privileged)."""
    spec = pod.obj["spec"]
    for c in spec.get("containers", []):
        if c.get("name") == cname:
            sc = c.get("securityContext") or {}
            if sc.get("privileged"):
                return None
            caps = list(DEFAULT_CAPS)
            capsd = sc.get("capabilities") or {}
            for a in capsd.get("add") or []:
                a = str(a).lower()
                a = a[4:] if a.startswith("cap_") else a
                if a == "all":
                    return None
                if a in CAP_NAMES and a not in caps:
                    caps.append(a)
            for d in capsd.get("drop") or []:
                d = str(d).lower()
                d = d[4:] if d.startswith("cap_") else d
                if d == "all":
                    caps = [x for x in caps if x in [str(a).lower().replace("cap_", "") for a in capsd.get("add") or []]]
                elif d in caps:
                    caps.remove(d)
            return caps
    return list(DEFAULT_CAPS)


class SandboxError(Exception):
    pass


class PodNet:
    """Pod networking: every sandbox gets its own network namespace with lo
    up and an eth0 holding its status.podIP, one end of a veth pair whose other
    end sits on a bridge.  The bridge lives in a private 'hub' network
    namespace held by a sleeper with pdeathsig, not in the host's: nothing is
    ever added to the host's `ip link`, several servers never clash (same
    names, same addresses, separate hubs), and everything goes away with the
    server, even on SIGKILL (the pods' namespaces die with their processes)."""

    @classmethod
    def create(cls, setpriv, unshare, nsenter):
        # FAKECLUSTER_IP: another ip binary, or "" to test the fallback
        ip = os.environ.get("FAKECLUSTER_IP", shutil.which("ip", path="/usr/sbin:/sbin:/usr/bin:/bin"))
        if not ip:
            sys.stderr.write("fakecluster: warning: ip (iproute2) not found: pods share the host "
                             "network, no pod-to-pod network on status.podIP\n")
            return None
        try:
            return cls(ip, setpriv, unshare, nsenter)
        except (OSError, subprocess.CalledProcessError, SandboxError) as e:
            sys.stderr.write("fakecluster: warning: pod network unavailable (%s): pods share the "
                             "host network\n" % e)
            return None

    def __init__(self, ip, setpriv, unshare, nsenter):
        self.ip = ip
        self.nsenter = nsenter
        self.lock = threading.Lock()
        self.n = 0
        # the sleeper is a child of the main thread (pdeathsig fires when the
        # creating thread exits, and the main thread lives as long as we do)
        self.hub = subprocess.Popen([setpriv, "--pdeathsig", "KILL", "--", unshare, "--net", "--",
                                     "sleep", "infinity"], stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            try:
                if os.readlink("/proc/%d/ns/net" % self.hub.pid) != os.readlink("/proc/self/ns/net"):
                    break
            except OSError:
                pass
            time.sleep(0.01)
        else:
            self.stop()
            raise SandboxError("hub network namespace did not appear")
        try:
            self.run(self.hub.pid, "link", "add", "fcbr0", "type", "bridge")
            self.run(self.hub.pid, "link", "set", "fcbr0", "up")
        except subprocess.CalledProcessError:
            self.stop()
            raise

    def run(self, pid, *args):
        subprocess.run([self.nsenter, "-t", str(pid), "-n", "--", self.ip] + list(args),
                       check=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, timeout=20)

    def attach(self, pod, initpid):
        with self.lock:
            self.n += 1
            veth = "fcv%d" % self.n
        try:
            self.run(self.hub.pid, "link", "add", veth, "type", "veth", "peer", "name", "eth0",
                     "netns", str(initpid))
            self.run(self.hub.pid, "link", "set", veth, "master", "fcbr0", "up")
            self.run(initpid, "link", "set", "lo", "up")
            if pod.ip:
                self.run(initpid, "addr", "add", pod.ip + "/16", "dev", "eth0")
            self.run(initpid, "link", "set", "eth0", "up")
        except (OSError, subprocess.SubprocessError) as e:
            err = getattr(e, "stderr", b"") or b""
            raise SandboxError("pod %s/%s: network: %s %s" % (pod.namespace, pod.name, e,
                                                             err.decode(errors="replace").strip()))

    def stop(self):
        if self.hub.poll() is None:
            self.hub.kill()
        self.hub.wait()


class Sandboxes:
    EAGER = 32

    def __init__(self, tmpdir):
        self.tmpdir = tmpdir
        self.lock = threading.Lock()
        self.boxes = {}      # (ns, name) -> dict
        self.events = {}     # (ns, name) -> threading.Event
        self.queue = []
        self.qcond = threading.Condition()
        self.stopping = False
        self.execs = set()   # live exec Popen objects
        self.basebin = os.path.join(tmpdir, "basebin")
        os.makedirs(self.basebin)
        for t in BASE_TOOLS:
            src = shutil.which(t, path="/usr/bin:/bin")
            if not src:
                continue
            shutil.copy2(os.path.realpath(src), os.path.join(self.basebin, t))
        self.setpriv = shutil.which("setpriv", path="/usr/bin:/bin:/usr/sbin:/sbin")
        self.nsenter = shutil.which("nsenter", path="/usr/bin:/bin:/usr/sbin:/sbin")
        self.unshare = shutil.which("unshare", path="/usr/bin:/bin:/usr/sbin:/sbin")
        self.net = PodNet.create(self.setpriv, self.unshare, self.nsenter)
        self.ticker = fc_counters.Ticker()
        self.thread = threading.Thread(target=self._spawner, name="spawner", daemon=True)
        self.thread.start()

    def _spawner(self):
        # All unshare processes are children of this long-lived thread, so that
        # their PR_SET_PDEATHSIG (setpriv --pdeathsig) fires only when the
        # server itself dies.
        while True:
            with self.qcond:
                while not self.queue and not self.stopping:
                    self.qcond.wait()
                if self.stopping:
                    return
                pod = self.queue.pop(0)
            try:
                self._start(pod)
            except Exception as e:  # noqa
                with self.lock:
                    self.boxes[(pod.namespace, pod.name)] = {"error": str(e)}
            self.events[(pod.namespace, pod.name)].set()

    def request(self, pod):
        key = (pod.namespace, pod.name)
        with self.lock:
            if key in self.events:
                return self.events[key]
            ev = threading.Event()
            self.events[key] = ev
        with self.qcond:
            self.queue.append(pod)
            self.qcond.notify()
        return ev

    def _start(self, pod):
        key = (pod.namespace, pod.name)
        d = tempfile.mkdtemp(prefix="pod-", dir=self.tmpdir)
        root = os.path.join(d, "root")
        os.mkdir(root)
        env = pod.env
        if env is None:
            env = {"PATH": DEFAULT_PATH, "HOSTNAME": pod.name}
        caps = container_caps(pod, workload_container(pod))
        last = cap_last()
        capnums = None if caps is None else [CAP_NAMES.index(c) for c in caps if CAP_NAMES.index(c) <= last]
        prof = pod.profile
        spec = {"root": root, "basebin": self.basebin,
                "bin": os.path.join(prof, "bin") if prof else None,
                "profile_root": os.path.join(prof, "root") if prof else None,
                "env": env, "argv": workload_argv(pod, env),
                "files": [fe for fe in getattr(pod, "files", []) if fe[0] != "/etc/hosts"],
                "etc_hosts": etc_hosts(pod, d, pod.name if self.net else socket.gethostname()),
                "make": getattr(pod, "make", []) + fc_counters.make_entries(getattr(pod, "counters", [])),
                "caps": capnums, "shm": shm_size(pod), "memlock": pod.limits.get("memlock"),
                "setpriv": self.setpriv, "launch": LAUNCH_SH, "host_bin": pod.host_bin,
                "hostname": pod.name if self.net else None,
                "boot_id": str(uuid.uuid5(uuid.NAMESPACE_URL, "fakecluster/node/%s" % pod.node)) if self.net else None}
        r, w = os.pipe()
        spec["status_fd"] = w
        specf = os.path.join(d, "spec.json")
        with open(specf, "w") as f:
            json.dump(spec, f)
        errf = open(os.path.join(d, "init.err"), "wb")
        cmd = [self.setpriv, "--pdeathsig", "KILL", "--", self.unshare, "--mount", "--pid", "--fork",
               "--kill-child", "--propagation", "private"] + (["--net", "--uts"] if self.net else []) + ["--",
               "/usr/bin/python3", "-S", FAKECLUSTER, "--pod-init", specf]
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=errf, stderr=errf, pass_fds=(w,),
                             env={"PATH": DEFAULT_PATH})
        os.close(w)
        errf.close()
        out = b""
        # unshare keeps its copy of the write end open: read lines until the
        # final "ok"/"error" line instead of waiting for EOF.
        while True:
            rr, _, _ = select.select([r], [], [], 120)
            if not rr:
                break
            chunk = os.read(r, 4096)
            if not chunk:
                break
            out += chunk
            tail = out.decode(errors="replace").splitlines()
            if out.endswith(b"\n") and tail and (tail[-1] == "ok" or tail[-1].startswith("error ")):
                break
        os.close(r)
        lines = out.decode(errors="replace").splitlines()
        warns = [ln[5:] for ln in lines if ln.startswith("warn ")]
        for wmsg in warns:
            sys.stderr.write("fakecluster: warning: pod %s/%s: %s\n" % (pod.namespace, pod.name, wmsg))
        if "ok" not in lines:
            err = [ln for ln in lines if ln.startswith("error ")]
            try:
                p.kill()
            except OSError:
                pass
            p.wait()
            try:
                detail = open(os.path.join(d, "init.err")).read().strip()
            except OSError:
                detail = ""
            raise SandboxError("pod %s/%s: sandbox failed: %s" % (
                pod.namespace, pod.name, (err[0][6:] if err else detail or "no status from pod init")))
        initpid = None
        for _ in range(200):
            try:
                with open("/proc/%d/task/%d/children" % (p.pid, p.pid)) as f:
                    kids = f.read().split()
                if kids:
                    initpid = int(kids[0])
                    break
            except OSError:
                pass
            time.sleep(0.01)
        if initpid is None:
            raise SandboxError("pod %s/%s: cannot find the pod's first process" % (pod.namespace, pod.name))
        if self.net:
            self.net.attach(pod, initpid)
        with self.lock:
            self.boxes[key] = {"proc": p, "initpid": initpid, "dir": d, "env": env}
        self.ticker.add(key, initpid, getattr(pod, "counters", []))

    def get(self, pod, timeout=60):
        ev = self.request(pod)
        if not ev.wait(timeout):
            raise SandboxError("pod %s/%s: sandbox start timed out" % (pod.namespace, pod.name))
        box = self.boxes.get((pod.namespace, pod.name))
        if box is None or "error" in box:
            raise SandboxError(box["error"] if box else "no sandbox")
        return box

    def lookup(self, box, env, argv):
        """Resolve argv[0] inside the pod (through /proc/PID/root) the way runc
        does; returns None when found, else 'empty'|'stat'|'perm'|'path'."""
        if not argv:
            return "empty"
        root = "/proc/%d/root" % box["initpid"]
        cmd = argv[0]
        if "/" in cmd:
            p = root + (cmd if cmd.startswith("/") else "/" + cmd)
            if not os.path.exists(p):
                return "stat"
            if os.path.isdir(p) or not os.access(p, os.X_OK):
                return "perm"
            return None
        for d in env.get("PATH", DEFAULT_PATH).split(":"):
            d = d or "."
            p = root + (d if d.startswith("/") else "/" + d) + "/" + cmd
            if os.path.isfile(p) and os.access(p, os.X_OK):
                return None
        return "path"

    def exec_argv(self, pod, box, cname, argv):
        caps = container_caps(pod, cname)
        ml = pod.limits.get("memlock")
        if ml is None:
            mlarg = "-"
        elif ml == "unlimited":
            mlarg = "unlimited"
        else:
            mlarg = str(max(int(ml) // 1024, 0))
        cmd = [self.nsenter, "-t", str(box["initpid"]), "-m", "-p", "-r", "-w"] + (["-n", "-u"] if self.net else []) + ["--"]
        if caps is not None:
            last = cap_last()
            bset = "-all" + "".join(",+" + c for c in caps if CAP_NAMES.index(c) <= last)
            cmd += ["/.fakecluster/setpriv", "--bounding-set", bset, "--"]
        cmd += ["/bin/sh", "/.fakecluster/launch", mlarg] + list(argv)
        env = dict(box["env"])
        env.setdefault("PATH", DEFAULT_PATH)
        return cmd, env

    def stop_all(self):
        self.ticker.stop()
        with self.qcond:
            self.stopping = True
            self.qcond.notify_all()
        with self.lock:
            execs = list(self.execs)
            boxes = list(self.boxes.values())
        for p in execs:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
        for b in boxes:
            # only while unshare is alive and still the parent of the pod's first
            # process (never signal a recycled pid)
            if "initpid" in b and b["proc"].poll() is None:
                try:
                    with open("/proc/%d/stat" % b["initpid"]) as f:
                        ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                    if ppid == b["proc"].pid:
                        os.kill(b["initpid"], signal.SIGKILL)
                except (OSError, ValueError, IndexError):
                    pass
        if self.net:
            self.net.stop()
        for b in boxes:
            if "proc" in b:
                try:
                    b["proc"].wait(timeout=10)
                except subprocess.TimeoutExpired:
                    b["proc"].kill()
                    b["proc"].wait()
        for p in execs:
            try:
                p.wait(timeout=5)
            except Exception:  # noqa
                pass
