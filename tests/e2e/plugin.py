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
    e = dict(os.environ, HOME="/nonexistent")
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
