#!/usr/bin/python3
"""bench/bench.py: `check` at cluster scale against a loop of `kubectl exec`.

For each N (default 1 16 128 1024) it starts tests/cluster/fakecluster in
--latency-ms mode with N Dynamo worker pods whose canned exec output is a real
probe report (bench/report-h100-ib-ok.txt, so `check` does its full parse and
judge work), then measures, against that one server:

  ours     kubectl-dynamo_interconnect check --parallel P: wall, CPU (user+sys),
           peak RSS (wait4 rusage), requests per pod from the server's --log
  seq      for each pod: kubectl exec POD -- sh -c "$PROBE"   (N <= --seq-max)
  xargs    the same under xargs -P P                         (N <= --xargs-max)

and the server's own CPU use during our run (is the Python server the
bottleneck?).  One line per configuration, then bench.csv and bench.png (gnuplot)
in --out, and the start time of `version` and `--help` (hyperfine if
installed, else a fork/exec loop).  See bench/README.md.
"""
import argparse
import csv
import json
import math
import os
import shutil
import subprocess
import sys
import time

import instr  # callgrind instructions per pod (bench/instr.py)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PROG = os.environ.get("BENCH_PLUGIN") or os.path.join(ROOT, "kubectl-dynamo_interconnect")  # BENCH_PLUGIN: another build to compare
FAKE = os.path.join(ROOT, "tests", "cluster", "fakecluster")
PROBE = os.path.join(ROOT, "src", "probe", "probe.sh")
REPORT = os.path.join(HERE, "report-h100-ib-ok.txt")
HZ = os.sysconf("SC_CLK_TCK")

# The pod spec of tests/cluster/scenarios/healthy-ib.yaml: 8 GPUs, 8 IB rails,
# IPC_LOCK, /dev/shm, so that a healthy report judges READY.
SPEC = {"containers": [{"name": "main",
                        "resources": {"limits": {"nvidia.com/gpu": 8, "rdma/ib": 8, "memory": "1600Gi"},
                                      "requests": {"nvidia.com/gpu": 8, "rdma/ib": 8, "cpu": "96",
                                                   "memory": "1600Gi"}},
                        "securityContext": {"capabilities": {"add": ["IPC_LOCK"]}},
                        "volumeMounts": [{"name": "shared-memory", "mountPath": "/dev/shm"}]}],
        "volumes": [{"name": "shared-memory", "emptyDir": {"medium": "Memory", "sizeLimit": "80Gi"}}]}


def log(msg):
    sys.stderr.write("bench: %s\n" % msg)
    sys.stderr.flush()


def write_profile(d):
    """A canned profile: exec-stdout = the real report, exit 0, the node's env."""
    os.makedirs(d, exist_ok=True)
    shutil.copyfile(REPORT, os.path.join(d, "exec-stdout"))
    with open(os.path.join(d, "exec-exit"), "w") as f:
        f.write("0\n")
    shutil.copyfile(os.path.join(ROOT, "tests", "cluster", "profiles", "h100-ib-ok", "env"),
                    os.path.join(d, "env"))


def report_env():
    """The main process's transport env of the canned report (its env_pid1
    section), as the operator would have set it from the DGD."""
    env, on = [], False
    with open(REPORT) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("@@@ "):
                on = line == "@@@ env_pid1"
            elif on and "=" in line:
                k, v = line.split("=", 1)
                env.append({"name": k, "value": v})
    return env


def bench_dgd(n):
    """The DynamoGraphDeployment the pods belong to (v1beta1, as
    tests/e2e/scenarios/dgd.yaml), healthy: its env is the pods' process
    env, so P3 finds nothing.  With one, `check` reads it and keeps each
    pod's process env for P3, the usual case on a Dynamo cluster."""
    comps = [{"name": r, "type": r, "replicas": (n + (r == "prefill")) // 2,
              "podTemplate": {"spec": {"containers": [{"name": "main", "env": report_env()}]}}}
             for r in ("prefill", "decode")]
    return {"apiVersion": "nvidia.com/v1beta1",
            "metadata": {"name": "bench", "namespace": "bench"},
            "spec": {"components": comps},
            "status": {"state": "successful", "conditions": [{"type": "Ready", "status": "True"}]}}


def write_scenario(path, n, profile, dgd=False):
    """N pods, prefill/decode alternating, two pods per node (JSON is YAML);
    with dgd, the DynamoGraphDeployment "bench" of them (bench_dgd)."""
    pods = []
    for i in range(n):
        role = "prefill" if i % 2 == 0 else "decode"
        pods.append({
            "name": "bench-%s-%04d" % (role, i),
            "node": "gpu-%04d" % (i // 2),
            "labels": {"nvidia.com/dynamo-component-type": "worker",
                       "nvidia.com/dynamo-sub-component-type": role,
                       "nvidia.com/dynamo-graph-deployment-name": "bench",
                       "nvidia.com/dynamo-component": role,
                       "nvidia.com/dynamo-namespace": "bench"},
            "containers": [{"name": "main", "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1"}],
            "profile": profile,
            "spec": SPEC,
        })
    with open(path, "w") as f:
        sc = {"namespace": "bench", "pods": pods}
        if dgd:
            sc["dynamoGraphDeployments"] = [bench_dgd(n)]
        json.dump(sc, f)
    return [p["name"] for p in pods]


class Server:
    def __init__(self, d, scenario, latency, mode, extra=()):
        """extra: more fakecluster arguments (instr.py's --h2)."""
        self.kc = os.path.join(d, "kubeconfig")
        self.logf = os.path.join(d, "requests.jsonl")
        if os.path.exists(self.logf):
            os.unlink(self.logf)
        self.err = open(os.path.join(d, "server.stderr"), "w")
        self.p = subprocess.Popen([FAKE, "--scenario", scenario, "--kubeconfig", self.kc,
                                   "--latency-ms", str(latency), "--mode", mode, "--log", self.logf]
                                  + list(extra),
                                  stdout=subprocess.PIPE, stderr=self.err, text=True)
        line = self.p.stdout.readline()
        if not line.startswith("READY"):
            self.stop()
            sys.exit("bench: fakecluster did not start (see %s/server.stderr)" % d)

    def cpu(self):
        with open("/proc/%d/stat" % self.p.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / HZ

    def log_pos(self):
        return os.path.getsize(self.logf) if os.path.exists(self.logf) else 0

    def records(self, start):
        time.sleep(0.2)   # the last exec records are written after the Close
        with open(self.logf) as f:
            f.seek(start)
            return [json.loads(l) for l in f if l.strip()]

    def stop(self):
        if self.p.poll() is None:
            self.p.terminate()   # our own server, by PID
            try:
                self.p.wait(30)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self.err.close()


def run(argv, **kw):
    """Runs argv; returns (wall s, cpu s, peak RSS KiB, exit code)."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, p.returncode


def start_time(args, what):
    """Mean start time in ms of PROG WHAT (hyperfine if installed)."""
    hf = shutil.which("hyperfine")
    argv = [PROG] + what.split()
    if hf:
        out = os.path.join(args.out, "hyperfine-%s.json" % what.strip("-"))
        subprocess.run([hf, "-N", "--warmup", "20", "--runs", "300", "--export-json", out,
                        " ".join(argv)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        r = json.load(open(out))["results"][0]
        return r["mean"] * 1000, r["min"] * 1000, "hyperfine"
    times = []
    for _ in range(300):
        t0 = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
    return sum(times) / len(times) * 1000, min(times) * 1000, "fork/exec loop (includes Python's spawn cost)"


def start_cpu(what, runs=200):
    """Mean user+sys CPU in ms of PROG WHAT (wait4 rusage: the load on the
    machine moves it less than wall time)."""
    tot = 0.0
    for _ in range(runs):
        tot += run([PROG] + what.split())[1]
    return tot / runs * 1000


def plot(args, rows):
    gp = shutil.which("gnuplot")
    if not gp:
        log("gnuplot not installed: no PNG (run `make bench`, which installs it, or apt-get install gnuplot-nox)")
        return None
    dat = os.path.join(args.out, "bench.dat")
    with open(dat, "w") as f:
        for r in rows:
            f.write("%d %s %s %s %s\n" % (r["pods"], r["ours_wall_s"], r["seq_wall_s"] or "NaN",
                                          r["xargs_wall_s"] or "NaN", r["ideal_s"]))
    png = os.path.join(args.out, "bench.png")
    script = """
set terminal pngcairo size 900,600 noenhanced
set output '%s'
set title 'check vs kubectl exec: %d ms exec latency, parallel %d (fakecluster, %d cores)'
set logscale xy
set xlabel 'pods'
set ylabel 'wall time (s)'
set key top left
set grid
set xtics (1, 16, 128, 1024)
plot '%s' u 1:2 w lp lw 2 pt 7 t 'kubectl-dynamo_interconnect check', \\
     '' u 1:4 w lp lw 2 pt 5 t 'xargs -P %d kubectl exec', \\
     '' u 1:3 w lp lw 2 pt 9 t 'sequential kubectl exec loop', \\
     '' u 1:5 w l dt 2 t 'ideal ceil(N/P) x latency'
""" % (png, args.latency, args.parallel, os.cpu_count(), dat, args.parallel)
    subprocess.run([gp], input=script, text=True, check=True)
    return png


def slope(args, profile):
    """`check` alone at 1,000 and --slope pods, canned output, 0 ms latency:
    CPU per pod at both sizes (linear: the same), wall and peak RSS."""
    out = []
    for n in (1000, args.slope):
        d = os.path.join(args.out, "slope%d" % n)
        os.makedirs(d, exist_ok=True)
        write_scenario(os.path.join(d, "scenario.yaml"), n, profile, dgd=not args.no_dgd)
        srv = Server(d, os.path.join(d, "scenario.yaml"), 0, args.mode)
        try:
            c0 = srv.cpu()
            wall, cpu, rss, rc = run([PROG, "check", "--kubeconfig", srv.kc, "-n", "bench", "--parallel",
                                      str(args.parallel), "--color", "never", "--logs=false"])
            out.append((n, wall, cpu, rss / 1024.0, srv.cpu() - c0, rc))
        finally:
            srv.stop()
    for n, wall, cpu, rss, srv_cpu, rc in out:
        print("slope %6d pods, 0 ms: wall %.2f s, cpu %.2f s (%.3f ms/pod), rss %.1f MiB, server cpu %.2f s, exit %d"
              % (n, wall, cpu, cpu / n * 1000, rss, srv_cpu, rc))
    print("slope: cpu per pod at %d / at 1000 = %.2f (1.00 is linear; CPU time, not instructions: "
          "callgrind at this size takes too long)" % (args.slope, (out[1][2] / out[1][0]) / (out[0][2] / out[0][0])))


MEMORY_RUNS = (("table", []), ("json", ["-o", "json"]), ("yaml", ["-o", "yaml"]),
               ("html", ["-o", "html"]), ("by-node", ["--by-node"]),
               ("prometheus", ["-o", "prometheus"]))


def memory(args, profile):
    """Peak RSS per output format (issue 27): `check` at each of --memory's
    pod counts, 0 ms latency, canned output; BENCH_BASELINE (another build,
    e.g. main's) adds its -o json for comparison.  Prints one line per run:
    pods, format, peak RSS (wait4 ru_maxrss), wall, exit code."""
    progs = [("", PROG)]
    if os.environ.get("BENCH_BASELINE"):
        progs.append(("baseline ", os.environ["BENCH_BASELINE"]))
    for n in [int(x) for x in args.memory.split(",")]:
        d = os.path.join(args.out, "mem%d" % n)
        os.makedirs(d, exist_ok=True)
        write_scenario(os.path.join(d, "scenario.yaml"), n, profile, dgd=not args.no_dgd)
        srv = Server(d, os.path.join(d, "scenario.yaml"), 0, args.mode)
        try:
            for tag, prog in progs:
                for name, extra in MEMORY_RUNS:
                    if tag and name != "json":
                        continue
                    if n > 1000 and name in ("html", "by-node"):
                        continue     # measured at 1,000 pods (issue 27)
                    wall, _, rss, rc = run([prog, "check", "--kubeconfig", srv.kc, "-n", "bench",
                                            "--parallel", str(args.parallel), "--color", "never",
                                            "--logs=false"] + extra)
                    print("memory %6d pods  %s%-10s peak RSS %6.1f MiB  wall %6.2f s  exit %d"
                          % (n, tag, name, rss / 1024.0, wall, rc), flush=True)
        finally:
            srv.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pods", default="1,16,128,1024")
    ap.add_argument("--latency", type=int, default=100, help="ms per exec (fakecluster --latency-ms)")
    ap.add_argument("--parallel", type=int, default=64)
    ap.add_argument("--seq-max", type=int, default=128, help="largest N for the sequential kubectl loop")
    ap.add_argument("--xargs-max", type=int, default=128, help="largest N for xargs -P kubectl exec")
    ap.add_argument("--mode", default="v5", choices=["v5", "v4"])
    ap.add_argument("--logs", default="false", choices=["false", "true"],
                    help="our run's --logs (the wall/CPU/RSS row; callgrind always measures both)")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench"))
    ap.add_argument("--no-start", action="store_true", help="skip the version/--help start times")
    ap.add_argument("--instr-max", type=int, default=1024,
                    help="largest N measured with callgrind (instructions per pod, logs on and off; ~1 s per pod)")
    ap.add_argument("--slope", type=int, default=10000,
                    help="pods of the 0 ms slope run against 1000 (0: skip)")
    ap.add_argument("--no-dgd", action="store_true",
                    help="--memory without the DynamoGraphDeployment (then check keeps no env)")
    ap.add_argument("--memory", default="",
                    help="only the peak-RSS runs per output format at these pod counts (e.g. 256,1000,10000)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    kubectl = shutil.which("kubectl") or "/usr/bin/kubectl"
    probe = open(PROBE).read()
    profile = os.path.join(args.out, "profile")
    write_profile(profile)
    if args.memory:
        return memory(args, profile)
    rows = []
    print("%6s %9s %8s %8s %8s %8s %8s %9s %9s %8s %8s %6s %5s %7s %7s %s" % (
        "pods", "ours_s", "ideal_s", "x_ideal", "cpu_s", "rss_MiB", "srv_cpu", "seq_s", "xargs_s",
        "seq/ours", "xar/ours", "exec/p", "lists", "Mi_on", "Mi_off", "verdict"))
    for n in [int(x) for x in args.pods.split(",")]:
        d = os.path.join(args.out, "n%d" % n)
        os.makedirs(d, exist_ok=True)
        names = write_scenario(os.path.join(d, "scenario.yaml"), n, profile)
        srv = Server(d, os.path.join(d, "scenario.yaml"), args.latency, args.mode)
        try:
            pos, c0 = srv.log_pos(), srv.cpu()
            # --logs=false by default: the kubectl loops it is compared with
            # only exec; log reads add one GET per pod (bench/README.md).
            cmd = [PROG, "check", "--kubeconfig", srv.kc, "-n", "bench", "--parallel", str(args.parallel),
                   "--color", "never", "--logs=" + args.logs]
            wall, cpu, rss, rc = run(cmd)
            srv_cpu = srv.cpu() - c0
            recs = srv.records(pos)
            execs = sum(1 for r in recs if r.get("path", "").endswith("/exec"))
            lists = sum(1 for r in recs if r.get("path", "").endswith("/pods") and r.get("method") == "GET")
            other = len(recs) - execs - lists
            verdict = {0: "READY", 2: "NOT-READY", 3: "UNVERIFIED"}.get(rc, "exit%d" % rc)
            kargs = [kubectl, "--kubeconfig", srv.kc, "-n", "bench", "exec"]
            seq = xar = None
            env = dict(os.environ, PROBE=probe)
            if n <= args.seq_max:
                loop = 'for p in "$@"; do "$0" --kubeconfig "$K" -n bench exec "$p" -c main -- sh -c "$PROBE" ' \
                       '>/dev/null 2>&1; done'
                seq = run(["sh", "-c", loop, kubectl] + names, env=dict(env, K=srv.kc))[0]
            if n <= args.xargs_max:
                xr = subprocess.Popen(["xargs", "-P", str(args.parallel), "-I{}"] + kargs +
                                      ["{}", "-c", "main", "--", "sh", "-c", probe],
                                      stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL, text=True)
                t0 = time.monotonic()
                xr.communicate("\n".join(names) + "\n")
                xar = time.monotonic() - t0
        finally:
            srv.stop()
        mi = instr.measure(args, n, profile) if n <= args.instr_max else None
        ideal = math.ceil(n / args.parallel) * args.latency / 1000.0
        row = {"pods": n, "parallel": args.parallel, "latency_ms": args.latency, "logs": args.logs,
               "ours_wall_s": "%.3f" % wall, "ideal_s": "%.3f" % ideal, "ours_vs_ideal": "%.2f" % (wall / ideal),
               "ours_cpu_s": "%.3f" % cpu, "ours_peak_rss_mib": "%.1f" % (rss / 1024.0),
               "server_cpu_s": "%.2f" % srv_cpu, "exec_per_pod": "%.2f" % (execs / n),
               "list_requests": lists, "other_requests": other, "exit_code": rc,
               "seq_wall_s": "%.3f" % seq if seq else "", "xargs_wall_s": "%.3f" % xar if xar else "",
               "seq_over_ours": "%.1f" % (seq / wall) if seq else "",
               "xargs_over_ours": "%.1f" % (xar / wall) if xar else "",
               "minstr_per_pod_logs_on": "%.2f" % (mi["true"][0] / n / 1e6) if mi else "",
               "minstr_per_pod_logs_off": "%.2f" % (mi["false"][0] / n / 1e6) if mi else ""}
        rows.append(row)
        print("%6d %9s %8s %8s %8s %8s %8s %9s %9s %8s %8s %6s %5d %7s %7s %s" % (
            n, row["ours_wall_s"], row["ideal_s"], row["ours_vs_ideal"], row["ours_cpu_s"],
            row["ours_peak_rss_mib"], row["server_cpu_s"], row["seq_wall_s"] or "-", row["xargs_wall_s"] or "-",
            row["seq_over_ours"] or "-", row["xargs_over_ours"] or "-", row["exec_per_pod"], lists,
            row["minstr_per_pod_logs_on"] or "-", row["minstr_per_pod_logs_off"] or "-", verdict))
        sys.stdout.flush()
    with open(os.path.join(args.out, "bench.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    if args.slope:
        slope(args, profile)
    png = plot(args, rows)
    print("csv: %s" % os.path.join(args.out, "bench.csv"))
    if png:
        print("png: %s" % png)
    if not args.no_start:
        for what in ("version", "--help"):
            mean, mn, how = start_time(args, what)
            print("start %-8s mean %.2f ms  min %.2f ms  (%s); CPU %.2f ms" % (what, mean, mn, how,
                                                                           start_cpu(what)))


if __name__ == "__main__":
    main()
