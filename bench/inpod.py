#!/usr/bin/python3
"""bench/inpod.py: what the probe costs inside a pod (issue 46 point 2).

For each scenario it starts tests/cluster/fakecluster (its pods are
sandboxes that run the real probe script), execs the probe exactly as
`check` sends it (`sh -s`, stdin = `probe-script`) in the scenario's first
pod with build/tools/di_exec, and prints the report's size in bytes (what
leaves the pod; the plugin counts it, not the probe), the probe's own
figures from its last section (`probe_cost`: wall ms, CPU ms), the
largest sections, and the budget (<= 48 KB sent, <= 500 ms
wall, <= 250 ms CPU).  The sandbox's wall and CPU move with this machine's
load; the bytes do not (a fixed profile gives a fixed report), which is
what tests/e2e/test_cost.py asserts.

  python3 bench/inpod.py [--save DIR] [SCENARIO ...]   (default: the stock Dynamo images)
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FAKE = os.path.join(ROOT, "tests", "cluster", "fakecluster")
SCEN = os.path.join(ROOT, "tests", "cluster", "scenarios")
PROG = os.environ.get("BENCH_PLUGIN") or os.path.join(ROOT, "build", "kubectl-dynamo_interconnect")
DI_EXEC = os.environ.get("DI_EXEC") or os.path.join(ROOT, "build", "tools", "di_exec")
# The profiles of Dynamo's own runtime images (docs/test-cluster.md).
STOCK = ["img-dynamo-vllm-ib", "img-dynamo-vllm-roce", "img-dynamo-sglang-ib", "img-dynamo-trtllm-ib"]
BUDGET = {"bytes": 48 * 1024, "wallMs": 500, "cpuMs": 250}


def first_pod(path):
    import yaml
    with open(path) as f:
        s = yaml.safe_load(f)
    return s.get("namespace", "default"), s["pods"][0]["name"]


def probe_once(scenario, d):
    """The probe's report (bytes) in the first pod of scenario."""
    kc = os.path.join(d, "kubeconfig")
    p = subprocess.Popen([FAKE, "--scenario", scenario, "--kubeconfig", kc],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        if not p.stdout.readline().startswith("READY"):
            sys.exit("inpod: fakecluster did not start on " + scenario)
        stdin = os.path.join(d, "stdin")
        with open(stdin, "wb") as f:
            f.write(subprocess.run([PROG, "probe-script"], stdout=subprocess.PIPE, check=True).stdout)
        ns, pod = first_pod(scenario)
        out = subprocess.run([DI_EXEC, "--kubeconfig", kc, "-n", ns, "--timeout-ms", "120000",
                              "--max-output", "1048576", "--stdin-file", stdin, pod, "--", "sh", "-s"],
                             stdout=subprocess.PIPE, check=True).stdout
        r = json.loads(out)
        if r["outcome"] not in ("success", "exit-code"):
            sys.exit("inpod: exec %s: %s" % (r["outcome"], r.get("message")))
        return r["stdout"].encode(), r["stdoutBytes"]
    finally:
        p.terminate()
        p.wait()


def sections(report):
    """[(bytes, name)] per section, largest first."""
    sizes, name, start = [], None, 0
    for m in re.finditer(rb"^@@@ (end )?([A-Za-z0-9_]+)[^\n]*\n", report, re.M):
        if m.group(1):
            if name == m.group(2):
                sizes.append((m.start() - start, name.decode()))
            name = None
        else:
            name, start = m.group(2), m.end()
    return sorted(sizes, reverse=True)


def cost_of(report):
    """{wallMs, cpuMs} from the probe_cost section, as probe/cost.c reads
    it: the uptime difference, and the sum of `times`' four figures."""
    m = re.search(rb"^@@@ probe_cost\n(.*?)^@@@ end probe_cost", report, re.M | re.S)
    out, up, cpu = {}, {}, 0.0
    for line in (m.group(1).decode().splitlines() if m else []):
        k, eq, v = line.partition("=")
        if eq:
            try:
                up[k] = float(v)
            except ValueError:
                pass
            continue
        for mins, secs in re.findall(r"(\d+)m\s*([\d.]+)s", line):
            cpu += int(mins) * 60 + float(secs)
    if "uptime0" in up and "uptime1" in up:
        out["wallMs"] = int(round((up["uptime1"] - up["uptime0"]) * 1000))
    if m:
        out["cpuMs"] = int(round(cpu * 1000))
    return out


def measure(name):
    """(bytes, cost dict, sections) for one scenario name or path."""
    path = name if os.path.exists(name) else os.path.join(SCEN, name + ".yaml")
    with tempfile.TemporaryDirectory() as d:
        report, nbytes = probe_once(path, d)
    return report, nbytes, cost_of(report), sections(report)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--save", help="write each report to DIR/NAME.txt")
    ap.add_argument("--top", type=int, default=5, help="largest sections shown")
    ap.add_argument("scenarios", nargs="*", default=STOCK)
    a = ap.parse_args()
    print("%-24s %8s %7s %7s  %s" % ("profile", "bytes", "wallMs", "cpuMs", "largest sections (bytes)"))
    over = 0
    for s in a.scenarios:
        report, nbytes, c, secs = measure(s)
        if a.save:
            os.makedirs(a.save, exist_ok=True)
            with open(os.path.join(a.save, os.path.basename(s).replace(".yaml", "") + ".txt"), "wb") as f:
                f.write(report)
        big = ", ".join("%s %d" % (n, b) for b, n in secs[:a.top])
        print("%-24s %8d %7s %7s  %s" % (os.path.basename(s), nbytes, c.get("wallMs", "-"),
                                        c.get("cpuMs", "-"), big))
        over += nbytes > BUDGET["bytes"]
    print("budget: <= %d bytes sent, <= %d ms wall, <= %d ms CPU per pod" % (
        BUDGET["bytes"], BUDGET["wallMs"], BUDGET["cpuMs"]))
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
