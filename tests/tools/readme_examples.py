#!/usr/bin/python3
"""README examples from a real run: starts the test cluster with the demo
scenario, runs each example command with the plugin, and writes its output
between the README's `<!-- example: ARGS -->` and `<!-- end example -->`
markers, as an indented block that starts with the command.

    readme_examples.py [--print] [PLUGIN]

`make readme-examples` rewrites README.md; --print writes the would-be
README to stdout instead (tests/e2e/test_readme.py compares the two, so the
examples stay what the tool prints today)."""
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "cluster"))
from fc import Cluster  # noqa: E402

README = os.path.join(ROOT, "README.md")
BLOCK = re.compile(r"(<!-- example: (.*?) -->\n)(.*?)(<!-- end example -->)", re.S)


def render(text, plugin, kubeconfig):
    def one(m):
        args = shlex.split(m.group(2))
        p = subprocess.run([plugin] + args + ["--kubeconfig", kubeconfig, "--color=never"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300,
                           env=dict(os.environ, HOME="/nonexistent", NO_COLOR="1"))
        lines = ["$ kubectl dynamo-interconnect " + m.group(2)] + p.stdout.decode().rstrip("\n").split("\n")
        body = "".join(("    " + ln).rstrip() + "\n" for ln in lines)
        return m.group(1) + "\n" + body + "\n" + m.group(4)
    return BLOCK.sub(one, text)


def main():
    argv = sys.argv[1:]
    show = "--print" in argv
    argv = [a for a in argv if a != "--print"]
    plugin = os.path.abspath(argv[0] if argv else os.path.join(ROOT, "kubectl-dynamo_interconnect"))
    with open(README) as f:
        text = f.read()
    if not BLOCK.search(text):
        sys.exit("error: README.md has no <!-- example: ... --> block")
    c = Cluster("demo.yaml")
    try:
        out = render(text, plugin, c.kubeconfig)
    finally:
        c.stop()
        c.cleanup()
    if show:
        sys.stdout.write(out)
    else:
        with open(README, "w") as f:
            f.write(out)


if __name__ == "__main__":
    main()
