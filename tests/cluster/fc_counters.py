"""Counters that move (issue 45): a pod's `counters:` entries are files
made at start with their first value and then advanced with time by one
thread of the server, as the kernel's sysfs counters of a busy port are
(drivers/infiniband/core/sysfs.c: a read shows the counter's value now).

    counters:
      /sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data: {start: 1000, per_s: 2500000}
      /sys/class/infiniband/mlx5_1/ports/1/counters/link_downed: 0      # a fixed value

A value is start + per_s * seconds since the pod's sandbox started, an
integer, rewritten every TICK_S through /proc/PID/root (a new file renamed
over the old one, so a reader never sees half a number)."""
import os
import threading
import time

TICK_S = 0.1


def read_counters(doc, die_msg):
    """[(ABSOLUTE_PATH, start, per_s)] of a pod's `counters:` mapping;
    die_msg(text) for a bad entry (the server stops at start, not later)."""
    out = []
    for dst, spec in (doc or {}).items():
        dst = str(dst)
        if isinstance(spec, int) and not isinstance(spec, bool):
            spec = {"start": spec}
        ok = dst.startswith("/") and ".." not in dst.split("/") and isinstance(spec, dict) and \
            set(spec) <= {"start", "per_s"}
        vals = [spec.get("start", 0), spec.get("per_s", 0)] if ok else []
        if not ok or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in vals):
            die_msg("counters: %s: {start: N, per_s: N} (non-negative integers) at an absolute path" % dst)
            continue
        out.append((dst, vals[0], vals[1]))
    return out


def make_entries(counters):
    """The `make:` entries (fc_podinit.make_node) that create them at start."""
    return [[dst, {"text": "%d\n" % start}] for dst, start, _ in counters]


class Ticker:
    """One thread advancing every started pod's moving counters."""

    def __init__(self):
        self.lock = threading.Lock()
        self.pods = {}       # key -> (initpid, t0, [(path, start, per_s)])
        self.stopping = threading.Event()
        self.thread = None

    def add(self, key, initpid, counters):
        moving = [c for c in counters if c[2]]
        if not moving:
            return
        with self.lock:
            self.pods[key] = (initpid, time.monotonic(), moving)
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name="counters", daemon=True)
                self.thread.start()

    def stop(self):
        self.stopping.set()

    def _run(self):
        while not self.stopping.wait(TICK_S):
            with self.lock:
                pods = list(self.pods.items())
            now = time.monotonic()
            for key, (pid, t0, counters) in pods:
                for path, start, per_s in counters:
                    if not self._write(pid, path, start + int(per_s * (now - t0))):
                        with self.lock:
                            self.pods.pop(key, None)
                        break

    @staticmethod
    def _write(pid, path, value):
        target = "/proc/%d/root%s" % (pid, path)
        tmp = os.path.join(os.path.dirname(target), ".fc-counter-%s" % os.path.basename(target))
        try:
            with open(tmp, "w") as f:
                f.write("%d\n" % value)
            os.chmod(tmp, 0o444)
            os.rename(tmp, target)
            return True
        except OSError:
            return False      # the pod is gone
