#!/usr/bin/python3
"""bench/instr.py: instructions per pod of `check` (valgrind callgrind).

For each N in --pods it starts tests/cluster/fakecluster (0 ms latency; --h2
unless --h2 off: ALPN h2 and http/1.1, as a real API server) on the
bench scenario (N pods, canned real probe report, bench.py), then runs
`check --parallel P` under `valgrind --tool=callgrind` with log reads on and
off, and prints the instructions (Ir, all threads) in total and per pod.
Instructions do not depend on the machine's load, so these figures are
comparable from run to run; wall times are not.  Callgrind serialises the
threads, so a run is slow (about 1 s per pod): keep N small.

  python3 bench/instr.py --pods 16,128 [--out build/bench] [--keep [--stages]] [--h2 off]
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (scenario, profile and server of the wall-time bench)


def callgrind(argv, out):
    """Runs argv under callgrind; returns (total Ir, exit code).  Its
    stdout goes to OUT.stdout (a verdict other than READY says why)."""
    with open(out + ".stdout", "w") as so:
        p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out] + argv,
                           stdout=so, stderr=subprocess.PIPE, text=True)
    m = re.search(r"Collected : (\d+)", p.stderr)
    if not m:
        sys.exit("bench: callgrind gave no total:\n" + p.stderr[-2000:])
    return int(m.group(1)), p.returncode


def measure(args, n, profile):
    """{"true": (Ir, exit), "false": (Ir, exit)}: logs on and off at n pods."""
    d = os.path.join(args.out, "instr-n%d" % n)
    os.makedirs(d, exist_ok=True)
    bench.write_scenario(os.path.join(d, "scenario.yaml"), n, profile)
    srv = bench.Server(d, os.path.join(d, "scenario.yaml"), 0, "v5",
                       ["--h2"] if args.h2 == "on" else [])
    res = {}
    try:
        for logs in ("true", "false"):
            out = os.path.join(d, "callgrind.logs-%s.out" % logs)
            ir, rc = callgrind([bench.PROG, "check", "--kubeconfig", srv.kc, "-n", "bench",
                                "--parallel", str(args.parallel), "--color", "never",
                                # callgrind runs one thread at a time, ~50x slower
                                "--probe-timeout", "600s", "--request-timeout", "600s",
                                "--logs=" + logs], out)
            res[logs] = (ir, rc)
            if not getattr(args, "keep", False):
                os.unlink(out)
    finally:
        srv.stop()
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pods", default="16,128")
    ap.add_argument("--parallel", type=int, default=64)
    ap.add_argument("--out", default=os.path.join(bench.ROOT, "build", "bench"))
    ap.add_argument("--keep", action="store_true", help="keep the callgrind.out files (callgrind_annotate)")
    ap.add_argument("--stages", action="store_true", help="with --keep: the per-stage table (bench/stages.py)")
    ap.add_argument("--h2", choices=("on", "off"), default="on",
                    help="the test cluster offers HTTP/2 by ALPN, as kube-apiserver does (default on; "
                         "off: HTTP/1.1 only, the figures before issue 46)")
    args = ap.parse_args()
    profile = os.path.join(args.out, "profile")
    bench.write_profile(profile)
    print("%6s %14s %10s %14s %10s %s" % ("pods", "Ir_logs_on", "M/pod_on", "Ir_logs_off", "M/pod_off", "exit"))
    rows = []
    for n in [int(x) for x in args.pods.split(",")]:
        r = measure(args, n, profile)
        rows.append((n, r))
        print("%6d %14d %10.2f %14d %10.2f %d/%d" % (n, r["true"][0], r["true"][0] / n / 1e6,
                                                     r["false"][0], r["false"][0] / n / 1e6,
                                                     r["true"][1], r["false"][1]))
        sys.stdout.flush()
        if args.stages and args.keep:
            import stages
            stages.show(os.path.join(args.out, "instr-n%d" % n, "callgrind.logs-true.out"), n, 0.02)
    if len(rows) >= 2:
        (n0, a), (n1, b) = rows[0], rows[-1]
        print("slope %d->%d pods: %.2f M/pod logs on, %.2f M/pod logs off (start-up cost removed)" % (
            n0, n1, (b["true"][0] - a["true"][0]) / (n1 - n0) / 1e6,
            (b["false"][0] - a["false"][0]) / (n1 - n0) / 1e6))


if __name__ == "__main__":
    main()
