#!/usr/bin/python3
"""Runs every tests/e2e/test_*.py with unittest and prints one closing line,
"e2e: N passed, N failed", that tests/run.sh adds up.

Each test file runs in a process of its own, E2E_JOBS of them at a time
(default 4: most e2e tests wait on a server, a deadline, a retry or a
login, not on the CPU; E2E_JOBS=1 runs them one after another).  Every test
is written for that: ports are the kernel's (0), files are in mkdtemp
directories, a test counts only its own server's requests (the one look
at every process on the host, test_transfer's, is for transfers, which
only it runs), and no assertion needs the machine to itself (the deadline
margins are ASan's on a busy 2-core CI machine).  A file's output is shown whole when
any of its tests failed, was skipped (a skip counts as a failure) or the
file did not report at all (an import error, a crash).  Before the closing
line come each file's wall time and the CPU time (user+sys) of it and all
the processes it waited for, the slowest first, the totals, and the
slowest tests.

    runner.py DIR [-j N] [test_X ...]   only the named files when given
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

# Files that take longest start first, so they do not finish last alone
# (measured; only the order depends on this list).
SLOW_FIRST = ("test_exec_plugin", "test_fault_hostile", "test_dist", "test_fault_matrix", "test_transfer",
              "test_keepalive", "test_retry", "test_valgrind", "test_check", "test_output", "test_calibration", "test_metamorphic")
# Files whose work is CPU-bound with no deadline near it (compilers,
# valgrind): they run at a lower priority, so the tests that wait on a
# deadline beside them get the CPU first.
NICE = {"test_dist": 10, "test_valgrind": 10}


class _Timed(unittest.TextTestResult):
    """A TextTestResult that notes how long each test took."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.durations_s = []
        self._t0 = {}

    def startTest(self, test):
        self._t0[test.id()] = time.monotonic()
        super().startTest(test)

    def stopTest(self, test):
        super().stopTest(test)
        t0 = self._t0.pop(test.id(), None)
        if t0 is not None:
            self.durations_s.append((test.id(), time.monotonic() - t0))


def run_one(here, name, result_path):
    """The child: runs module NAME of HERE, writes the counts as JSON to
    RESULT_PATH (a file the tests do not write, so no output can forge it)."""
    sys.path.insert(0, here)
    os.chdir(here)
    suite = unittest.defaultTestLoader.loadTestsFromName(name)
    runner = unittest.TextTestRunner(verbosity=2, stream=sys.stdout, resultclass=_Timed)
    res = runner.run(suite)
    doc = {
        "run": res.testsRun,
        "failed": len(res.failures) + len(res.errors) + len(res.unexpectedSuccesses),
        "skipped": ["%s: %s" % (t, why) for t, why in res.skipped],
        "durations": res.durations_s,
    }
    with open(result_path, "w") as f:
        json.dump(doc, f)
    return 0


class Job:
    """One test file running in its own process."""

    def __init__(self, here, name, tmp):
        self.name = name
        self.out_path = os.path.join(tmp, name + ".out")
        self.result_path = os.path.join(tmp, name + ".json")
        self.out = open(self.out_path, "wb")
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--one", here, name,
                                      self.result_path],
                                     stdout=self.out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     preexec_fn=(lambda n=NICE[name]: os.nice(n)) if name in NICE else None)
        self.rc = None
        self.wall = self.cpu = 0.0

    def reap(self, status, rusage):
        self.rc = os.waitstatus_to_exitcode(status)
        self.proc.returncode = self.rc
        self.wall = time.monotonic() - self.t0
        self.cpu = rusage.ru_utime + rusage.ru_stime
        self.out.close()

    def result(self):
        """(passed, failed, skipped lines, durations); a file that wrote no
        counts is one failure."""
        try:
            with open(self.result_path) as f:
                doc = json.load(f)
        except (OSError, ValueError):
            return 0, 1, [], []
        failed = doc["failed"] + len(doc["skipped"])
        passed = doc["run"] - doc["failed"] - len(doc["skipped"])
        if self.rc != 0 and failed == 0:
            failed = 1
        return passed, failed, doc["skipped"], doc["durations"]

    def output(self):
        with open(self.out_path, "rb") as f:
            return f.read().decode(errors="replace")


def file_names(here, only):
    names = sorted(f[:-3] for f in os.listdir(here) if f.startswith("test_") and f.endswith(".py"))
    if only:
        want = [o[:-3] if o.endswith(".py") else o for o in only]
        missing = [w for w in want if w not in names]
        if missing:
            sys.exit("runner: no such test file: %s" % ", ".join(missing))
        names = want
    first = [n for n in SLOW_FIRST if n in names]
    return first + [n for n in names if n not in first]


def run_all(here, names, jobs):
    """Runs NAMES at most JOBS at a time; returns the finished Jobs in the
    order they ended, each shown as it ends."""
    pending = list(names)
    running = {}
    done = []
    with tempfile.TemporaryDirectory(prefix="e2e-runner-") as tmp:
        while pending or running:
            while pending and len(running) < jobs:
                j = Job(here, pending.pop(0), tmp)
                running[j.proc.pid] = j
            pid, status, rusage = os.wait4(-1, 0)
            j = running.pop(pid, None)
            if j is None:
                continue
            j.reap(status, rusage)
            j.counts = j.result()
            passed, failed, skipped, _ = j.counts
            if failed:
                sys.stdout.write("==== %s (exit %s)\n%s\n" % (j.name, j.rc, j.output()))
                for s in skipped:
                    print("SKIPPED (counted as failed): %s" % s)
            print("%s: %d ok, %d not ok (%.1f s)" % (j.name, passed, failed, j.wall))
            sys.stdout.flush()
            done.append(j)
    return done


def print_times(done, wall, slowest_tests=15):
    print("e2e time per file (wall s, cpu s = user+sys of it and its children):")
    for j in sorted(done, key=lambda j: -j.wall):
        print("  %-22s %7.1f %7.1f" % (j.name, j.wall, j.cpu))
    print("  %-22s %7.1f %7.1f  (wall of the run; cpu summed)" % ("total", wall, sum(j.cpu for j in done)))
    tests = sorted((d for j in done for d in j.counts[3]), key=lambda d: -d[1])[:slowest_tests]
    print("slowest tests (wall s):")
    for tid, s in tests:
        print("  %7.1f  %s" % (s, tid))


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--one":
        return run_one(*sys.argv[2:])
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("-j", "--jobs", type=int, default=int(os.environ.get("E2E_JOBS", "4")))
    ap.add_argument("files", nargs="*")
    a = ap.parse_intermixed_args()
    here = os.path.abspath(a.dir)
    t0 = time.monotonic()
    done = run_all(here, file_names(here, a.files), max(a.jobs, 1))
    wall = time.monotonic() - t0
    passed = sum(j.counts[0] for j in done)
    failed = sum(j.counts[1] for j in done)
    print_times(done, wall)
    print(f"e2e: {passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
