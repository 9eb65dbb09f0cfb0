#!/usr/bin/python3
"""bench/stages.py: where `check`'s instructions go, per pod, by stage (issue 46).

Reads callgrind.out files kept by `bench/instr.py --keep` and prints, for
each, the inclusive instructions of the function that starts each stage
(callgrind_annotate --inclusive=yes), divided by the number of pods.
Inclusive costs nest (the exec TLS handshake is inside the exec), so the
rows are indented under their parent; "rest" is the total less the
top-level rows.  "log read" is the workers' run_logs_pod plus the HTTP
client's mux thread (mux_main, src/kube/http/mux.c), where every GET's
transfer runs since issue 46: the log reads' TLS, HTTP/2 and bodies, and
the pod list pages' bytes (their parse stays under main).  Parse rows: one per section handler (facts.c h_*), the
ones over --min instructions per pod.

  python3 bench/stages.py --pods 40 build/bench/instr-n40/callgrind.logs-true.out [...]
  python3 bench/instr.py --pods 40 --keep --stages     (the same, after the run)
"""
import argparse
import re
import subprocess
import sys

# (label, function, depth): the first function of each stage, as
# callgrind names it (file:function); depth indents the nested ones.
STAGES = [
    ("exec (per pod)", "exec_run", 0),
    ("TLS handshake (ours)", "tlsconn_handshake", 1),
    ("stream (stdin + stdout)", "exec_run_stream", 1),
    ("stdin frames (probe sent)", "exec_send_frame", 2),
    ("log read (curl GET)", ("run_logs_pod", "mux_main"), 0),
    ("in the workers", "run_logs_pod", 1),
    ("mux thread (every GET's curl)", "mux_main", 1),
    ("parse + judge", "judge_report", 0),
    ("parse", "probe_parse_report", 1),
    ("facts new/free", "probe_facts_new", 1),
    ("judge (checks)", "check_pod", 1),
    ("main thread", "main", 0),
    ("pod list", "stage_list", 1),
    ("verdict", "stage_judge", 1),
    ("print", "cmd_print_session", 1),
]
# mux_main: the HTTP client's one thread that performs every GET (src/kube/
# http/mux.c): TLS, HTTP/2 and the bodies of the log reads, and of the pod
# list's pages too (its share is small: the list is parsed under main).
TOP = ("exec_run", "run_logs_pod", "mux_main", "judge_report", "main")


def inclusive(path):
    """{function name: inclusive Ir} from callgrind_annotate (our binary's
    functions and the libraries', names without the file)."""
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    cost, total = {}, 0
    for line in out.splitlines():
        m = re.match(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*?)\s+\[", line)
        if m:
            name = m.group(2).rsplit(":", 1)[-1]
            cost[name] = max(cost.get(name, 0), int(m.group(1).replace(",", "")))
            continue
        m = re.match(r"^\s*([\d,]+)\s+\(100.0%\)\s+PROGRAM TOTALS", line)
        if m:
            total = int(m.group(1).replace(",", ""))
    return cost, total


def show(path, pods, min_m):
    cost, total = inclusive(path)
    print("%s (%d pods): %.2f M instructions/pod" % (path, pods, total / pods / 1e6))
    print("  %-34s %8s" % ("stage", "M/pod"))
    for label, fn, depth in STAGES:
        fns = fn if isinstance(fn, tuple) else (fn,)
        print("  %-34s %8.2f" % ("  " * depth + label, sum(cost.get(f, 0) for f in fns) / pods / 1e6))
        if fn == "probe_parse_report":
            secs = sorted(((v, k) for k, v in cost.items() if k.startswith("h_")), reverse=True)
            for v, k in secs:
                if v / pods / 1e6 >= min_m:
                    print("  %-34s %8.2f" % ("    section " + k[2:], v / pods / 1e6))
    rest = total - sum(cost.get(f, 0) for f in TOP)
    print("  %-34s %8.2f" % ("rest (threads, start-up)", rest / pods / 1e6))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pods", type=int, required=True)
    ap.add_argument("--min", type=float, default=0.02, help="smallest section row, M/pod")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    for f in a.files:
        show(f, a.pods, a.min)
    return 0


if __name__ == "__main__":
    sys.exit(main())
