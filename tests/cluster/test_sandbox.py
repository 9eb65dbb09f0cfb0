"""Pods are real sandboxes: profile env, files, devices, tools, caps, limits;
nothing is left behind when the server stops (or dies)."""
import os
import signal
import subprocess
import time
import unittest

import fc

PROFILE = os.path.join(fc.HERE, "profiles", "minimal")


def descendants(pid):
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    st = f.read()
                ppid = int(st.rsplit(")", 1)[1].split()[1])
                kids.setdefault(ppid, []).append(int(d))
            except (OSError, IndexError, ValueError):
                pass
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for k in kids.get(p, []):
            out.append(k)
            todo.append(k)
    return out


def start_time(pid):
    """Field 22 of /proc/PID/stat, so a recycled pid is not taken for ours."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def alive(pids, started=None, wait=5.0):
    """The pids still running (not zombies), waiting up to `wait` seconds
    for them to go: a loaded machine may take a moment to reap them."""
    started = started or {}
    end = time.time() + wait
    while True:
        res = []
        for p in pids:
            try:
                with open("/proc/%d/stat" % p) as f:
                    st = f.read().rsplit(")", 1)[1].split()
                if st[0] != "Z" and started.get(p, st[19]) == st[19]:
                    res.append(p)
            except (OSError, IndexError):
                pass
        if not res or time.time() >= end:
            return res
        time.sleep(0.1)


def host_links():
    try:
        return sorted(os.listdir("/sys/class/net"))
    except OSError:
        return []


HAVE_IP = any(os.path.exists(p) for p in ("/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip"))


def sh(c, pod, script, ns="demo"):
    res = fc.ws_exec(c, fc.exec_path(ns, pod, ["sh", "-c", script]))
    ch = fc.decode_exec(res)
    return ch[1].decode(), ch[2].decode(), ch[3].decode()


@unittest.skipUnless(os.geteuid() == 0, "sandboxes need root")
class TestSandbox(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.mounts_before = fc.mountinfo()
        cls.links_before = host_links()
        cls.c = fc.Cluster("basic.yaml", mode="v5")

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()

    def test_environ_is_exactly_profile_env(self):
        out, err, st = sh(self.c, "qwen-prefill-0", "cat /proc/1/environ")
        got = [x for x in out.split("\0") if x]
        with open(os.path.join(PROFILE, "env")) as f:
            want = [l.rstrip("\n") for l in f if l.strip()]
        self.assertEqual(got, want)

    def test_exec_env_is_profile_env(self):
        out, _, _ = sh(self.c, "qwen-prefill-0", "env | sort")
        self.assertIn("UCX_TLS=rc,cuda_copy,cuda_ipc", out)
        self.assertIn("FAKECLUSTER_PROFILE=minimal", out)

    def test_profile_files_visible(self):
        out, _, _ = sh(self.c, "qwen-prefill-0", "cat /opt/fakecluster/marker.txt; "
                       "cat /sys/class/infiniband/mlx5_0/ports/1/state; echo; cat /proc/modules")
        with open(os.path.join(PROFILE, "root/sys/class/infiniband/mlx5_0/ports/1/state")) as f:
            state = f.read()
        with open(os.path.join(PROFILE, "root/proc/modules")) as f:
            mods = f.read()
        self.assertEqual(out, "profile minimal\n" + state + "\n" + mods)
        # sibling sysfs classes of the host are still there
        out, _, _ = sh(self.c, "qwen-prefill-0", "ls /sys/class | wc -l")
        self.assertGreater(int(out), 1)

    def test_dev_char_devices(self):
        out, _, _ = sh(self.c, "qwen-prefill-0", "test -c /dev/infiniband/uverbs0 && echo c1; "
                       "test -c /dev/gdrdrv && echo c2; test -c /dev/null && echo c3")
        self.assertEqual(out, "c1\nc2\nc3\n")

    def test_tools(self):
        out, _, _ = sh(self.c, "qwen-prefill-0", "command -v python3; echo py=$?; command -v ibstat; "
                       "command -v nsenter; echo ns=$?; ibstat | head -1; echo a b | awk '{print $2}'")
        self.assertEqual(out, "py=127\n/usr/local/bin/ibstat\nns=127\nCA 'mlx5_0'\nb\n")
        out, _, _ = sh(self.c, "qwen-frontend-0", "command -v ibstat; echo $?")
        self.assertEqual(out, "127\n")

    def test_capabilities(self):
        def capeff(pod, ns="demo"):
            out, _, _ = sh(self.c, pod, "grep CapEff /proc/self/status", ns)
            return int(out.split()[1], 16)
        IPC_LOCK, SYS_ADMIN, SYS_RESOURCE = 14, 21, 24
        docker = 0xa80425fb
        self.assertEqual(capeff("qwen-prefill-0"), docker)
        self.assertFalse(capeff("qwen-prefill-0") & (1 << IPC_LOCK))
        self.assertEqual(capeff("qwen-decode-0"), docker | (1 << IPC_LOCK))
        priv = capeff("privileged-0", "other")
        self.assertTrue(priv & (1 << IPC_LOCK) and priv & (1 << SYS_ADMIN))
        out, _, _ = sh(self.c, "qwen-prefill-0", "grep CapEff /proc/1/status")
        self.assertEqual(int(out.split()[1], 16), docker)

    def test_limits_memlock(self):
        out, _, _ = sh(self.c, "qwen-prefill-0", "ulimit -l; grep 'locked memory' /proc/self/limits")
        lines = out.splitlines()
        self.assertEqual(lines[0], "64")
        self.assertEqual(lines[1].split()[3:5], ["65536", "65536"])

    def test_pid_namespace(self):
        out, _, _ = sh(self.c, "qwen-prefill-0", "echo $$; ls /proc/1/ >/dev/null && echo one")
        self.assertLess(int(out.splitlines()[0]), 100)
        self.assertEqual(out.splitlines()[1], "one")

    def test_host_not_writable(self):
        out, _, _ = sh(self.c, "qwen-prefill-0", "echo x > /etc/fakecluster-probe 2>/dev/null; echo $?; "
                       "echo y > /tmp/ok && cat /tmp/ok")
        self.assertEqual(out, "2\ny\n")
        self.assertFalse(os.path.exists("/etc/fakecluster-probe"))

    @unittest.skipUnless(HAVE_IP, "pod network needs ip (iproute2)")
    def test_pod_network(self):
        # own network namespace: lo and eth0 only, eth0 holds status.podIP
        ips = {}
        for pod in ("qwen-prefill-0", "qwen-decode-0"):
            st, obj = self.c.get_json("/api/v1/namespaces/demo/pods/" + pod)
            self.assertEqual(st, 200)
            ips[pod] = obj["status"]["podIP"]
            out, _, _ = sh(self.c, pod, "cut -d: -f1 /proc/net/dev | tail -n +3 | tr -d ' ' | sort")
            self.assertEqual(out.split(), ["eth0", "lo"])
            out, _, _ = sh(self.c, pod, "cat /proc/net/fib_trie")
            self.assertIn("|-- %s\n" % ips[pod], out)
            out, _, _ = sh(self.c, pod, "hostname")
            self.assertEqual(out.strip(), pod)
            # the kubelet's /etc/hosts: the hostname is the pod's IP
            out, _, _ = sh(self.c, pod, "cat /etc/hosts")
            self.assertIn("%s\t%s\n" % (ips[pod], pod), out)
            self.assertIn("127.0.0.1\tlocalhost\n", out)
        self.assertNotEqual(ips["qwen-prefill-0"], ips["qwen-decode-0"])
        # one boot_id per node: pods on two nodes look like two machines
        a, _, _ = sh(self.c, "qwen-prefill-0", "cat /proc/sys/kernel/random/boot_id")
        b, _, _ = sh(self.c, "qwen-decode-0", "cat /proc/sys/kernel/random/boot_id")
        self.assertNotEqual(a, b)
        # nothing added to the host's links (the bridge lives in a hub netns)
        self.assertEqual(host_links(), self.links_before)

    def test_pods_are_separate(self):
        sh(self.c, "qwen-prefill-0", "echo mine > /tmp/sep")
        out, _, _ = sh(self.c, "qwen-decode-0", "cat /tmp/sep 2>/dev/null; echo rc=$?")
        self.assertEqual(out, "rc=1\n")


@unittest.skipUnless(os.geteuid() == 0, "sandboxes need root")
class TestSandboxCleanup(unittest.TestCase):
    def test_stop_leaves_nothing(self):
        before = fc.mountinfo()
        c = fc.Cluster("basic.yaml", mode="v5")
        try:
            # a long-running exec in flight while the server stops
            res = fc.ws_exec(c, fc.exec_path("demo", "qwen-prefill-0", ["sleep", "300"]), read_frames=False)
            # Wait for the exec's process to exist rather than for a fixed
            # time (a loaded machine may take longer than any guess).
            deadline = time.time() + 60
            procs = descendants(c.proc.pid)
            while len(procs) < 3 and time.time() < deadline:
                time.sleep(0.1)
                procs = descendants(c.proc.pid)
            started = {p: start_time(p) for p in procs}
            self.assertGreaterEqual(len(procs), 3)
            self.assertEqual(fc.mountinfo(), before, "the server must not mount anything in the host namespace")
            # 0, not -9: the server stopped on SIGTERM by itself (stop()
            # kills it only after its own 30 s grace).
            self.assertEqual(c.stop(), 0)
            self.assertEqual(alive(procs, started), [])
            self.assertEqual(fc.mountinfo(), before)
            res.sock.close()
        finally:
            c.cleanup()
        left = [d for d in os.listdir("/tmp") if d.startswith("fakecluster-")]
        self.assertFalse(any(str(c.proc.pid) in d for d in left))

    def test_without_ip_pods_share_the_host_network(self):
        c = fc.Cluster("basic.yaml", mode="v5", env={"FAKECLUSTER_IP": ""})
        try:
            out, _, _ = sh(c, "qwen-prefill-0", "echo ok")
            self.assertEqual(out, "ok\n")
            out, _, _ = sh(c, "qwen-prefill-0", "cut -d: -f1 /proc/net/dev | tail -n +3 | tr -d ' ' | sort")
            self.assertEqual(sorted(out.split()), host_links())
            c.stop()
            warns = [ln for ln in c.stderr_text().splitlines() if "ip (iproute2) not found" in ln]
            self.assertEqual(len(warns), 1)
        finally:
            c.cleanup()

    def test_sigkill_server_kills_pods(self):
        c = fc.Cluster("basic.yaml", mode="v5")
        try:
            procs = descendants(c.proc.pid)
            self.assertTrue(procs)
            c.stop(sig=signal.SIGKILL)
            deadline = time.time() + 60   # a poll, not a time assertion
            while alive(procs) and time.time() < deadline:
                time.sleep(0.1)
            self.assertEqual(alive(procs), [])
        finally:
            c.cleanup()

    def test_not_root_fails_clearly(self):
        d = fc.Cluster.__new__(fc.Cluster)
        r = subprocess.run(["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", "--",
                            fc.FAKECLUSTER, "--scenario", os.path.join(fc.SCENARIOS, "basic.yaml"),
                            "--kubeconfig", "/tmp/fakecluster-notroot-kc"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
        self.assertNotEqual(r.returncode, 0)
        self.assertEqual(r.stdout, b"")
        lines = r.stderr.decode().strip().splitlines()
        self.assertEqual(len(lines), 1, lines)
        self.assertIn("root", lines[0])


if __name__ == "__main__":
    unittest.main()
