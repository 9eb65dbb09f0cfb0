#!/usr/bin/python3
"""Shell completion: the kubectl_complete-dynamo_interconnect helper through
the real kubectl (`kubectl __complete dynamo-interconnect ...`) against the
test cluster, and the scripts `completion bash|zsh|fish` print, sourced in
the shells that are installed.

Environment: DI_PLUGIN (the binary; default ./kubectl-dynamo_interconnect).
"""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from base import ROOT, E2ECase

PLUGIN = os.path.abspath(os.environ.get("DI_PLUGIN") or os.path.join(ROOT, "kubectl-dynamo_interconnect"))
KUBECTL = "/usr/bin/kubectl"
HELPER = "kubectl_complete-dynamo_interconnect"


def usage_subcommands():
    """The subcommands `-h` lists, in its order: completion offers the same."""
    out = subprocess.run([PLUGIN, "-h"], stdout=subprocess.PIPE).stdout.decode()
    return re.findall(r"(?m)^  (\S+)\s{2,}", out.split("Available Commands:")[1].split("Usage:")[0])


SUBCOMMANDS = usage_subcommands()


def plugin_dir(d=None):
    """A PATH directory (D, or a new one) holding the plugin and its
    completion helper, both links to the binary under test (the way `make
    install` lays them out)."""
    d = d or tempfile.mkdtemp(prefix="e2e-compl-")
    os.symlink(PLUGIN, os.path.join(d, "kubectl-dynamo_interconnect"))
    os.symlink(PLUGIN, os.path.join(d, HELPER))
    return d


def split(out):
    """Candidates (values only) and the directive of a completion answer."""
    lines = [l for l in out.splitlines() if l]
    directive = None
    if lines and lines[-1].startswith(":"):
        directive = int(lines.pop()[1:])
    return [l.split("\t")[0] for l in lines], directive


class Helper(E2ECase):
    """The helper run directly: no cluster needed for static answers."""
    TMP = "e2e-compl-"

    @classmethod
    def fixture(cls):
        cls.dir = plugin_dir(cls.tmp)

    def complete(self, *words, env=None):
        e = dict(os.environ, HOME=self.dir)
        e.pop("KUBECONFIG", None)
        e.update(env or {})
        p = subprocess.run([os.path.join(self.dir, HELPER)] + list(words), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=e, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        return split(p.stdout.decode())

    def test_subcommands(self):
        self.assertEqual(self.complete(""), (SUBCOMMANDS, 4))
        self.assertEqual(self.complete("n"), (["nixl", "node"], 4))

    def test_usage_lists_completion(self):
        for sub in ("check", "completion", "node", "pods", "version"):
            self.assertIn(sub, SUBCOMMANDS)

    def test_flags_match_help(self):
        # Every flag each -h lists is offered, and no other.
        for sub in SUBCOMMANDS:
            with self.subTest(sub=sub):
                h = subprocess.run([PLUGIN, sub, "-h"], stdout=subprocess.PIPE).stdout.decode()
                want = sorted(set(re.findall(r"(?m)^\s+(?:-\w, )?(--[\w-]+)", h)))
                got, directive = self.complete(sub, "--")
                self.assertEqual(sorted(got), want)
                self.assertEqual(directive, 4)

    def test_flag_prefix_and_shorthand(self):
        got, _ = self.complete("check", "--no")
        self.assertEqual(got, ["--no-headers"])
        got, _ = self.complete("check", "-")
        self.assertIn("-n", got)
        self.assertIn("--namespace", got)

    def test_flag_values(self):
        self.assertEqual(self.complete("check", "-o", ""), (["table", "wide", "json", "yaml", "junit", "html", "prometheus"], 4))
        self.assertEqual(self.complete("node", "--output", "j"), (["json"], 4))
        self.assertEqual(self.complete("check", "--color", ""), (["auto", "always", "never"], 4))
        # cobra answers "--flag=" with the bare values (completions.go
        # checkIfFlagCompletion); its scripts put "--flag=" back.
        self.assertEqual(self.complete("check", "--color=a"), (["auto", "always"], 4))
        self.assertEqual(self.complete("completion", ""), (["bash", "zsh", "fish"], 4))

    def test_output_values_are_what_each_command_accepts(self):
        for sub in SUBCOMMANDS:
            h = subprocess.run([PLUGIN, sub, "-h"], stdout=subprocess.PIPE).stdout.decode()
            if "--output" not in h:
                continue
            with self.subTest(sub=sub):
                args = {"env": ["/nonexistent"]}.get(sub, [])
                p = subprocess.run([PLUGIN, sub, "-o", "bogus"] + args, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, env=dict(os.environ, HOME=self.dir))
                allowed = re.search(r"allowed formats are: (\S+)", p.stderr.decode())
                # A command that prints no document (nixl, completion) gets no values.
                want = allowed.group(1).split(",") if allowed else []
                self.assertEqual(self.complete(sub, "-o", ""), (want, 4))
                if sub in ("check", "pods", "env", "node", "version"):
                    self.assertTrue(allowed, p.stderr.decode())

    def test_paths_complete_as_files(self):
        # cobra's ShellCompDirectiveDefault (0): the shell completes files and
        # directories (a recipe is either).
        self.assertEqual(self.complete("env", ""), ([], 0))
        self.assertEqual(self.complete("env", "recipes/"), ([], 0))
        self.assertEqual(self.complete("check", "--recipe", ""), ([], 0))
        self.assertEqual(self.complete("check", "--recipe=rec"), ([], 0))
        self.assertEqual(self.complete("env", "-o", ""), (["table", "json", "yaml"], 4))

    def test_files_only_where_they_make_sense(self):
        self.assertEqual(self.complete("check", "--kubeconfig", ""), ([], 0))
        self.assertEqual(self.complete("check", "-l", ""), ([], 4))
        self.assertEqual(self.complete("check", "--", ""), ([], 4))

    def test_contexts_from_kubeconfig(self):
        kc = os.path.join(self.dir, "kc.yaml")
        with open(kc, "w") as f:
            f.write("apiVersion: v1\nkind: Config\ncurrent-context: prod\n"
                    "clusters: [{name: c1, cluster: {server: 'https://127.0.0.1:1'}}]\n"
                    "users: [{name: u1, user: {token: t}}]\n"
                    "contexts: [{name: prod, context: {cluster: c1, user: u1}},"
                    " {name: staging, context: {cluster: c1, user: u1}}]\n")
        self.assertEqual(self.complete("check", "--context", "", env={"KUBECONFIG": kc}),
                         (["prod", "staging"], 4))
        self.assertEqual(self.complete("check", "--kubeconfig", kc, "--context=s"),
                         (["staging"], 4))
        self.assertEqual(self.complete("pods", "--cluster", "", env={"KUBECONFIG": kc}), (["c1"], 4))

    def test_unreachable_cluster_is_quiet_and_quick(self):
        kc = os.path.join(self.dir, "dead.yaml")
        with open(kc, "w") as f:
            # 192.0.2.0/24 (TEST-NET-1) answers nothing: the lookup must give up.
            f.write("apiVersion: v1\nkind: Config\ncurrent-context: x\n"
                    "clusters: [{name: c, cluster: {server: 'https://192.0.2.1:6443'}}]\n"
                    "users: [{name: u, user: {token: t}}]\n"
                    "contexts: [{name: x, context: {cluster: c, user: u}}]\n")
        import time
        t0 = time.time()
        self.assertEqual(self.complete("check", "-n", "", env={"KUBECONFIG": kc}), ([], 4))
        self.assertLess(time.time() - t0, 10)


class ThroughKubectl(E2ECase):
    """kubectl finds the helper on PATH and asks it (kubectl >= 1.26)."""
    SCENARIO = "basic.yaml"
    TMP = "e2e-compl-"

    @classmethod
    def fixture(cls):
        cls.dir = plugin_dir(cls.tmp)

    def kubectl_complete(self, *words):
        env = {"PATH": self.dir + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin")}
        rc, out, err = self.c.kubectl("__complete", "dynamo-interconnect", *words, env=env)
        self.assertEqual(rc, 0, err)
        return split(out)

    def test_namespaces(self):
        got, directive = self.kubectl_complete("check", "-n", "")
        self.assertEqual(directive, 4)
        for ns in ("default", "demo", "kube-system"):
            self.assertIn(ns, got)
        got, _ = self.kubectl_complete("check", "--namespace=de")
        self.assertEqual(sorted(got), ["default", "demo"])

    def test_pods_workers_first(self):
        got, directive = self.kubectl_complete("node", "-n", "demo", "--pod", "")
        self.assertEqual(directive, 4 | 32)
        self.assertEqual(sorted(got[:2]), ["qwen-decode-0", "qwen-prefill-0"])
        self.assertIn("two-containers", got[2:])
        self.assertIn("qwen-frontend-0", got[2:])

    def test_peer_pods_and_containers_of_the_pod(self):
        got, directive = self.kubectl_complete("nixl", "-n", "demo", "--pod", "qwen-decode-0", "--peer", "")
        self.assertEqual(directive, 4 | 32)
        self.assertEqual(sorted(got[:2]), ["qwen-decode-0", "qwen-prefill-0"])
        got, directive = self.kubectl_complete("node", "-n", "demo", "--pod", "two-containers", "-c", "")
        self.assertEqual((got, directive), (["main", "sidecar"], 4))
        got, _ = self.kubectl_complete("node", "-n", "demo", "--pod=two-containers", "--container=s")
        self.assertEqual(got, ["sidecar"])
        # No --pod: the containers of the worker pods, each once.
        got, _ = self.kubectl_complete("check", "-n", "demo", "-c", "")
        self.assertEqual(got, ["main"])

    def test_files_and_outputs_through_kubectl(self):
        self.assertEqual(self.kubectl_complete("env", ""), ([], 0))
        self.assertEqual(self.kubectl_complete("check", "--recipe", ""), ([], 0))
        self.assertEqual(self.kubectl_complete("check", "-o", ""),
                         (["table", "wide", "json", "yaml", "junit", "html", "prometheus"], 4))

    def test_flag_equals_answers_bare_values_as_cobra(self):
        # kubectl's own (cobra) script adds the "--output=" back: a prefix
        # in the answer made "--output=--output=json" (issue 44 point 7).
        outputs = ["table", "wide", "json", "yaml", "junit", "html", "prometheus"]
        self.assertEqual(self.kubectl_complete("check", "--output="), (outputs, 4))
        self.assertEqual(self.kubectl_complete("check", "--output=j"), (["json", "junit"], 4))
        self.assertEqual(self.kubectl_complete("check", "-o=y"), (["yaml"], 4))
        self.assertEqual(self.kubectl_complete("check", "--color="), (["auto", "always", "never"], 4))

    def test_subcommands_and_contexts(self):
        got, _ = self.kubectl_complete("")
        self.assertEqual(got, SUBCOMMANDS)
        got, _ = self.kubectl_complete("pods", "--context", "")
        self.assertEqual(got, [c["name"] for c in self.c.kc["contexts"]])


class Scripts(unittest.TestCase):
    """`completion SHELL` prints a script that completes the binary run directly."""

    def script(self, shell):
        p = subprocess.run([PLUGIN, "completion", shell], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        return p.stdout.decode()

    def test_bad_shell(self):
        p = subprocess.run([PLUGIN, "completion", "tcsh"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(p.returncode, 1)
        self.assertIn('unsupported shell "tcsh"', p.stderr.decode())

    def bash(self, line, wordbreaks=None):
        """COMPREPLY after sourcing the script and pressing TAB at the end of line."""
        d = plugin_dir()
        try:
            path = os.path.join(d, "compl.bash")
            with open(path, "w") as f:
                f.write(self.script("bash"))
            prog = (('COMP_WORDBREAKS=$3; ' if wordbreaks else '') +
                    'source "$1"; COMP_LINE=$2; COMP_POINT=${#COMP_LINE}; '
                    'read -ra COMP_WORDS <<<"$COMP_LINE"; COMP_CWORD=${#COMP_WORDS[@]}; '
                    'complete -p kubectl-dynamo_interconnect >/dev/null || exit 9; '
                    '_kubectl_dynamo_interconnect; printf "%s\\n" "${COMPREPLY[@]}"')
            env = dict(os.environ, PATH=d + os.pathsep + os.environ.get("PATH", ""), HOME=d)
            argv = ["bash", "-c", prog, "bash", path, line] + ([wordbreaks] if wordbreaks else [])
            p = subprocess.run(argv, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=env, timeout=30)
            self.assertEqual(p.returncode, 0, p.stderr.decode())
            return [l for l in p.stdout.decode().splitlines() if l]
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def test_bash(self):
        self.assertEqual(self.bash("kubectl-dynamo_interconnect "), SUBCOMMANDS)
        self.assertEqual(self.bash("kubectl-dynamo_interconnect ch"), ["check"])
        self.assertEqual(self.bash("kubectl-dynamo_interconnect check -o "), ["table", "wide", "json", "yaml", "junit", "html", "prometheus"])
        # bash breaks words at '=': only the part after it is offered.
        self.assertEqual(self.bash("kubectl-dynamo_interconnect check --color=n"), ["never"])
        # Without '=' in COMP_WORDBREAKS the word is "--color=n" whole.
        self.assertEqual(self.bash("kubectl-dynamo_interconnect check --color=n", wordbreaks=" \t\n"),
                         ["--color=never"])

    def test_installed_scripts_are_the_printed_ones(self):
        for shell in ("bash", "zsh", "fish"):
            with open(os.path.join(ROOT, "completions", "kubectl-dynamo_interconnect." + shell)) as f:
                self.assertEqual(self.script(shell), f.read(), shell)

    def test_other_shells_parse(self):
        # zsh and fish where installed (a skip would count as a failure).
        for shell in ("zsh", "fish"):
            if shutil.which(shell):
                p = subprocess.run([shell, "-n"], input=self.script(shell).encode())
                self.assertEqual(p.returncode, 0, shell)
            else:
                self.assertIn("_kubectl_dynamo_interconnect", self.script(shell))


class InTmux(unittest.TestCase):
    """The installed scripts in real interactive shells under tmux: TAB
    completes a directory for `env` and an -o value (bash, zsh, fish)."""

    def setUp(self):
        self.dir = plugin_dir()
        os.mkdir(os.path.join(self.dir, "recipes-dir"))
        self.n = 0
        self.sock = None

    def tearDown(self):
        self.kill()
        shutil.rmtree(self.dir, ignore_errors=True)

    def kill(self):
        if self.sock:
            subprocess.run(["tmux", "-S", self.sock, "kill-server"], stderr=subprocess.DEVNULL)
            self.sock = None

    def tmux(self, *args):
        return subprocess.run(["tmux", "-S", self.sock] + list(args), stdout=subprocess.PIPE,
                              check=True).stdout.decode()

    def wait_for(self, text, timeout=15):
        """The pane once it shows text (polled: a loaded machine is slow)."""
        import time
        deadline = time.monotonic() + timeout
        while True:
            pane = self.tmux("capture-pane", "-p", "-t", "t")
            if text in pane or time.monotonic() > deadline:
                return pane
            time.sleep(0.2)

    def tab(self, shell, line, want):
        script = os.path.join(ROOT, "completions", "kubectl-dynamo_interconnect." + shell)
        cmd = {"bash": "bash --norc --noprofile", "zsh": "zsh -f", "fish": "fish --no-config"}[shell]
        env = dict(os.environ, PATH=self.dir + ":/usr/bin:/bin", HOME=self.dir, TERM="xterm")
        self.kill()
        self.n += 1
        self.sock = os.path.join(self.dir, "tmux%d.sock" % self.n)   # one server per shell
        subprocess.run(["tmux", "-S", self.sock, "-f", "/dev/null", "new-session", "-d", "-s", "t",
                        "-x", "160", "-y", "40", "-c", self.dir, cmd], env=env, check=True)
        load = ("autoload -U compinit && compinit -u && " if shell == "zsh" else "") + "source " + script
        self.tmux("send-keys", "-t", "t", load + "; echo LOADED", "Enter")
        self.wait_for("\nLOADED")
        self.tmux("send-keys", "-t", "t", line, "Tab")
        pane = self.wait_for(want)
        self.assertIn(want, pane, (shell, pane))
        self.kill()
        return pane

    def test_shells(self):
        for shell in ("bash", "zsh", "fish"):
            self.assertTrue(shutil.which(shell), shell + " (tests/tools/deps.sh installs it)")
            with self.subTest(shell=shell):
                self.tab(shell, "kubectl-dynamo_interconnect env rec", "env recipes-dir/")
                self.tab(shell, "kubectl-dynamo_interconnect check --recipe rec", "--recipe recipes-dir/")
                self.tab(shell, "kubectl-dynamo_interconnect check -o ju", "check -o junit")
                # The answer to "--flag=" is bare (cobra's protocol); the
                # script puts the prefix back exactly once.
                pane = self.tab(shell, "kubectl-dynamo_interconnect check --output=ju", "check --output=junit")
                self.assertNotIn("--output=--output=", pane)


if __name__ == "__main__":
    unittest.main()
