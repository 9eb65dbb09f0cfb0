"""The plugin under test, run the way every end-to-end test runs it: the
binary of DI_PLUGIN (the ASan pass sets it) or the repository's, with no
KUBECONFIG and a HOME without ~/.kube/config, so only the kubeconfig a test
passes can apply."""
import os
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLUGIN = os.environ.get("DI_PLUGIN") or os.path.join(ROOT, "kubectl-dynamo_interconnect")


def plugin_env(extra=None):
    # SOURCE_DATE_EPOCH: the report's source.generated is fixed, so two runs
    # (JSON and YAML, table and JSON) stay comparable.
    e = dict(os.environ, HOME="/nonexistent", SOURCE_DATE_EPOCH="1796601600")
    e.pop("KUBECONFIG", None)
    e.update(extra or {})
    return e


def run_timed(argv, timeout=120, env=None, cwd=None):
    """(exit code, stdout, stderr, seconds it took)."""
    t0 = time.monotonic()
    p = subprocess.run([PLUGIN] + list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=timeout, env=plugin_env(env), cwd=cwd)
    return (p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"),
            time.monotonic() - t0)


def run(argv, timeout=120, env=None, cwd=None):
    """(exit code, stdout, stderr)."""
    return run_timed(argv, timeout=timeout, env=env, cwd=cwd)[:3]


def invoke_stdin(script_bytes):
    """What the plugin sends on an exec's stdin for one of its fixed scripts
    (src/probe/invoke.h): the script parsed whole, reading /dev/null, then
    `exit` (v4 cannot close stdin)."""
    return b"{\n" + script_bytes + b"\n} </dev/null\nexit\n"


def script_bytes(name):
    """src/probe/NAME as the plugin embeds it: the probe without its comment
    and blank lines (tests/tools/embed.sh -p, the Makefile's -s), the
    transfer scripts byte for byte."""
    path = os.path.join(ROOT, "src", "probe", name)
    if name == "probe.sh":
        return subprocess.run(["sh", os.path.join(ROOT, "tests", "tools", "embed.sh"), "-p", path],
                              stdout=subprocess.PIPE, check=True).stdout
    with open(path, "rb") as f:
        return f.read()


def script_sha256(name):
    """sha256 of the stdin bytes for src/probe/NAME, as the test cluster logs
    them (stdin_sha256)."""
    import hashlib
    return hashlib.sha256(invoke_stdin(script_bytes(name))).hexdigest()


def untimed(doc):
    """doc (a decoded JSON/YAML report) without each pod's probe.durationMs
    and probe.cpuMs: measured in the pod on each run (issue 46), so two runs
    compare on the rest.  The pods' probe.bytes stays (a fixed profile
    gives a fixed report)."""
    if isinstance(doc, dict):
        return {k: (untimed_probe(v) if k == "probe" else untimed(v)) for k, v in doc.items()}
    if isinstance(doc, list):
        return [untimed(v) for v in doc]
    return doc


def untimed_probe(p):
    if not isinstance(p, dict):
        return p
    return {k: v for k, v in p.items() if k not in ("durationMs", "cpuMs")}
