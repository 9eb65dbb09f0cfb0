#!/usr/bin/python3
"""What `check` prints for people and scripts (product.md "Output"): one
token per table cell, `--no-headers` rows only, findings wrapped at the
terminal's width between words (and not when piped), colour on every status
cell with padding by visible width, unique `-o wide` headers, `--by-node`, pods not
probed grouped by reason, one RBAC hint for a 403, no doubled prefixes.

Scenario: tests/e2e/scenarios/output.yaml (the demo's seven workers, and
users without exec or log rights).
"""
import copy
import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import termios
import unittest

from base import ROOT, E2ECase
from plugin import PLUGIN, plugin_env, run

SCENARIO = os.path.join(ROOT, "tests", "e2e", "scenarios", "output.yaml")
TOKEN = {"READY": "Ready", "NOT READY": "NotReady", "UNVERIFIED": "Unverified"}
SGR = {"ok": "32", "warn": "33", "fail": "31", "skipped": "2",
       "Ready": "32", "NotReady": "31", "Unverified": "33"}
ESC = re.compile(r"\x1b\[[0-9;]*m")


def run_tty(argv, cols, env=None):
    """(exit code, stdout) of the plugin with stdout on a pseudo-terminal
    cols columns wide."""
    m, s = pty.openpty()
    fcntl.ioctl(s, termios.TIOCSWINSZ, struct.pack("HHHH", 40, cols, 0, 0))
    e = plugin_env()
    e.pop("NO_COLOR", None)
    e.pop("COLUMNS", None)
    e.update(env or {})
    p = subprocess.Popen([PLUGIN] + argv, stdout=s, stderr=subprocess.DEVNULL,
                         stdin=subprocess.DEVNULL, env=e)
    os.close(s)
    out = b""
    while True:
        try:
            d = os.read(m, 65536)
        except OSError:
            break
        if not d:
            break
        out += d
    os.close(m)
    rc = p.wait(timeout=120)
    return rc, out.decode().replace("\r\n", "\n")


def findings_part(out):
    """The lines below the table (after its first blank line)."""
    lines = out.splitlines()
    return lines[lines.index("") + 1:]


_DOC = {}


class OutputCase(E2ECase):
    """The classes share one cluster on SCENARIO and one `-o json` report
    of it (each class gets its own copy)."""
    SCENARIO = SCENARIO
    SHARED = True

    @classmethod
    def fixture(cls):
        if cls.c.url not in _DOC:
            rc, out, err = run(["check"] + cls.kc() + ["-o", "json"])
            _DOC[cls.c.url] = json.loads(out)
        cls.doc = copy.deepcopy(_DOC[cls.c.url])

    @classmethod
    def kc(cls, *more):
        return ["--kubeconfig", cls.c.kubeconfig, "-n", "demo"] + list(more)


class TestTable(OutputCase):
    def test_no_headers_prints_rows_only_with_one_token_verdicts(self):
        # -o wide: one token per cell (the default's NOT OK cell has words).
        rc, out, err = run(["check", "--no-headers", "-o", "wide"] + self.kc())
        self.assertEqual(rc, 2, err)
        want = {p["name"]: TOKEN[p["verdict"]] for p in self.doc["pods"]}
        lines = out.splitlines()
        self.assertEqual(len(lines), len(want), out)
        ncols = len(run(["check", "-o", "wide"] + self.kc())[1].splitlines()[0].split())
        got = {}
        for line in lines:
            cells = line.split()
            self.assertEqual(len(cells), ncols, line)
            got[cells[0]] = cells[-1]
        self.assertEqual(got, want)
        self.assertEqual(sorted(set(want.values())), ["NotReady", "Ready"])

    def test_wide_headers_are_unique(self):
        rc, out, _ = run(["check", "-o", "wide"] + self.kc())
        head = out.splitlines()[0].split()
        self.assertEqual(len(head), len(set(head)), head)
        self.assertIn("UCX-VERSION", head)
        self.assertIn("NIXL-VERSION", head)

    def test_colour_on_every_status_cell_and_padding_by_visible_width(self):
        # -o wide: a cell per family, each one token.
        _, plain, _ = run(["check", "-o", "wide"] + self.kc())
        _, col, _ = run(["check", "-o", "wide", "--color=always"] + self.kc())
        # Without its escapes the coloured output is the plain one: the
        # columns line up by what is visible, not by bytes.
        self.assertEqual(ESC.sub("", col), plain)
        n = len(self.doc["pods"])
        for line in col.splitlines()[1:1 + n]:
            cells = line.split()
            painted = [c for c in cells if c.startswith("\x1b[")]
            for c in painted:
                m = re.fullmatch(r"\x1b\[([0-9;]+)m(\w+)\x1b\[0m", c)
                self.assertTrue(m, repr(c))
                self.assertEqual(SGR[m.group(2)], m.group(1), repr(c))
            words = [ESC.sub("", c) for c in cells]
            self.assertEqual(len(painted), sum(w in SGR for w in words), line)
        for args, env in (([], {}), (["--color=never"], {}), ([], {"NO_COLOR": "1"})):
            if args or env:
                _, out = run_tty(["check"] + args + self.kc(), 200, env)
                self.assertNotIn("\x1b[", out, (args, env))
        _, out = run_tty(["check"] + self.kc(), 200)
        self.assertIn("\x1b[31mfail\x1b[0m", out)

    def test_findings_wrap_between_words_on_a_terminal_only(self):
        _, piped, _ = run(["check"] + self.kc())
        self.assertTrue(any(len(l) > 100 for l in findings_part(piped)), "piped: no wrap")
        rc, tty = run_tty(["check", "--color=never"] + self.kc(), 80)
        self.assertEqual(rc, 2)
        below = findings_part(tty)
        for line in below:
            # A line may pass the width only as one word longer than a line.
            self.assertTrue(len(line) <= 80 or " " not in line.strip(), line)
        # The same words in the same order: nothing cut mid-word.
        self.assertEqual(" ".join(below).split(), " ".join(findings_part(piped)).split())
        self.assertTrue(any(l.startswith("     ") and not l.startswith("     fix:") for l in below))

    def test_one_pod_is_singular(self):
        rc, out, err = run(["check", "-l", "case=single"] + self.kc())
        self.assertEqual(rc, 0, err)
        self.assertRegex(out, r"(?m)^Verdict: READY \(fabric: infiniband; 1 pod, 1 probed, 1 ready\)$")


class TestGrouped(OutputCase):
    def test_exec_forbidden_is_one_line_and_one_hint(self):
        rc, out, err = run(["check", "--user", "noexec"] + self.kc())
        self.assertEqual(rc, 3, err)
        below = findings_part(out)
        skipped = [l for l in below if "not probed" in l and l.startswith("skipped")]
        self.assertEqual(len(skipped), 1, out)
        self.assertTrue(skipped[0].startswith(
            "skipped all 8 pods not probed (qwen-decode-0, qwen-decode-1, qwen-decode-2 and 5 more): "),
            skipped[0])
        self.assertIn('"pods/exec"', skipped[0])
        hints = [l for l in below if l.startswith("hint: ")]
        self.assertEqual(len(hints), 1, out)
        self.assertIn("deploy/rbac.yaml", hints[0])
        self.assertIn("cannot get pods/exec", hints[0])
        self.assertIn("kubectl auth can-i get pods --subresource=exec -n demo", hints[0])
        self.assertNotRegex(out.lower(), r"not confirmed: not confirmed|not probed: not probed")
        self.assertIn("Not confirmed: 8 pods not probed", out)
        # header, 8 rows, blank, the grouped line, the hint, blank, 2 verdict lines
        self.assertEqual(len(out.splitlines()), 1 + 8 + 1 + 2 + 1 + 2, out)

    def test_interrupted_run_is_one_line(self):
        # Every exec hangs (fault exec-hang): --timeout ends the run with all
        # eight pods unfinished, one reason, one line.
        c = self.new_cluster(SCENARIO, faults=["exec-hang"])
        rc, out, err = run(["check", "--kubeconfig", c.kubeconfig, "-n", "demo",
                            "--timeout", "3s", "--logs=false"])
        self.assertEqual(rc, 3, err)
        lines = [l for l in findings_part(out) if l.startswith("skipped") and "not probed" in l]
        self.assertEqual(len(lines), 1, out)
        self.assertRegex(lines[0], r"^skipped all 8 pods not probed \(qwen-decode-0, qwen-decode-1, "
                                   r"qwen-decode-2 and 5 more\): not finished: ")

    def test_pending_pod_says_not_probed_once(self):
        c = self.new_cluster("basic.yaml")
        kc = ["--kubeconfig", c.kubeconfig, "-n", "demo", "-l", "app=pending"]
        rc, out, err = run(["check"] + kc)
        rc2, js, _ = run(["check", "-o", "json"] + kc)
        self.assertEqual(rc, 3, err)
        self.assertIn("skipped 1 of 1 pod not probed (pending-0): pod is Pending", out)
        self.assertRegex(out, r"(?m)^Verdict: UNVERIFIED \(fabric: unknown; 1 pod, 0 probed, 0 ready\)$")
        self.assertIn("Not confirmed: 1 pod not probed", out)
        probe = [x for x in json.loads(js)["pods"][0]["checks"] if x["name"] == "pod-probe"]
        self.assertEqual(probe[0]["detail"], "not probed: pod is Pending")
        for text in (out.lower(), js.lower()):
            self.assertNotIn("not probed: not probed", text)
            self.assertNotIn("not confirmed: not confirmed", text)
            self.assertNotRegex(text, r"\b1 (pods|files)\b")

    def test_log_forbidden_gives_the_log_hint(self):
        rc, out, err = run(["check", "--user", "nologs"] + self.kc())
        hints = [l for l in findings_part(out) if l.startswith("hint: ")]
        self.assertEqual(len(hints), 1, out)
        self.assertIn("cannot get pods/log", hints[0])
        self.assertIn("kubectl auth can-i get pods --subresource=log -n demo", hints[0])

    def test_no_hint_with_full_rights(self):
        _, out, _ = run(["check"] + self.kc())
        self.assertNotIn("hint:", out)


if __name__ == "__main__":
    unittest.main()


class TestByNode(OutputCase):
    def test_one_row_per_node_with_the_worst_status(self):
        rc, out, err = run(["check", "--by-node", "-o", "wide"] + self.kc())
        self.assertEqual(rc, 2, err)
        lines = out.splitlines()
        head = lines[0].split()
        self.assertEqual(head[:2], ["NODE", "PODS"])
        self.assertEqual(head[-1], "VERDICT")
        pods = self.doc["pods"]
        nodes = sorted({p["node"] for p in pods})
        rows = [l.split() for l in lines[1:1 + len(nodes)]]
        self.assertEqual([r[0] for r in rows], nodes)
        self.assertEqual(lines[1 + len(nodes)], "")
        by = {r[0]: r for r in rows}
        # gpu-h100-03: the healthy qwen-decode-0 and qwen-decode-4 with UCX_TLS=tcp.
        self.assertEqual(by["gpu-h100-03"][1], "2")
        self.assertEqual(by["gpu-h100-03"][head.index("ENV")], "fail")
        self.assertEqual(by["gpu-h100-03"][-1], "NotReady")
        self.assertEqual(by["gpu-h100-01"][-1], "Ready")
        # Same judgement as the JSON's nodes summary, family by family.
        sumy = {n["name"]: n for n in self.doc["nodes"]}
        self.assertEqual(sorted(sumy), nodes)
        for node, r in by.items():
            n = sumy[node]
            self.assertEqual(int(r[1]), n["pods"])
            self.assertEqual(sorted(n["podNames"]), sorted(p["name"] for p in pods if p["node"] == node))
            self.assertEqual(TOKEN[n["verdict"]], r[-1])
            for fam, st in n["families"].items():
                self.assertEqual(r[head.index("SPEC" if fam == "POD" else fam)], st, (node, fam))
        self.assertEqual(sumy["gpu-h100-03"]["families"]["ENV"], "fail")
        # The default table gains nothing.
        _, table, _ = run(["check"] + self.kc())
        self.assertNotIn("PODS", table.splitlines()[0])
        self.assertEqual(table.splitlines()[0].split()[0], "POD")
        rc, rows_only, _ = run(["check", "--by-node", "--no-headers", "-o", "wide"] + self.kc())
        self.assertEqual([l.split() for l in rows_only.splitlines()], rows)

    def test_nodes_in_the_schema(self):
        with open(os.path.join(ROOT, "schema", "interconnect-report.schema.json")) as f:
            schema = json.load(f)
        self.assertIn("nodes", schema["required"])
        node = schema["$defs"]["node"]
        self.assertEqual(sorted(node["required"]), sorted(self.doc["nodes"][0]))


# What Jenkins' JUnit schema (junit-10.xsd of jenkinsci/xunit-plugin, the one
# CI servers validate against) allows: attributes per element, required ones,
# and children.  No Debian package ships a JUnit XSD, so the rules are here.
JUNIT_ATTRS = {
    "testsuites": ({"name", "time", "tests", "failures", "errors"}, set()),
    "testsuite": ({"name", "tests", "failures", "errors", "group", "time", "skipped", "timestamp",
                   "hostname", "id", "package", "file", "log", "url"},
                  {"name", "tests", "failures", "errors"}),
    "properties": (set(), set()),
    "property": ({"name", "value"}, {"name", "value"}),
    "testcase": ({"name", "time", "classname", "group"}, {"name"}),
    "failure": ({"type", "message"}, set()),
    "skipped": ({"type", "message"}, set()),
}
JUNIT_CHILDREN = {
    "testsuites": {"testsuite"}, "testsuite": {"testsuite", "properties", "testcase"},
    "properties": {"property"}, "property": set(),
    "testcase": {"skipped", "error", "failure", "system-out", "system-err"},
    "failure": set(), "skipped": set(),
}


def junit_valid(tc, el):
    allowed, required = JUNIT_ATTRS[el.tag]
    tc.assertLessEqual(set(el.attrib), allowed, el.tag)
    tc.assertLessEqual(required, set(el.attrib), el.tag)
    for ch in el:
        tc.assertIn(ch.tag, JUNIT_CHILDREN[el.tag], el.tag)
        junit_valid(tc, ch)


class TestJUnit(OutputCase):
    def junit(self, *args):
        import xml.etree.ElementTree as ET
        rc, out, err = run(["check", "-o", "junit"] + self.kc(*args))
        root = ET.fromstring(out.encode())
        self.assertEqual(root.tag, "testsuites")
        junit_valid(self, root)
        return rc, root

    def test_one_suite_per_pod_one_case_per_check(self):
        rc, root = self.junit()
        self.assertEqual(rc, 2)
        suites = {s.get("name"): s for s in root.findall("testsuite")}
        pods = {"demo/" + p["name"]: p for p in self.doc["pods"]}
        self.assertEqual(set(suites) - {"cross-pod"}, set(pods))
        total = fails = 0
        for name, p in pods.items():
            s = suites[name]
            cases = s.findall("testcase")
            self.assertEqual([c.get("name") for c in cases], [c["name"] for c in p["checks"]])
            self.assertEqual(int(s.get("tests")), len(cases))
            for c, want in zip(cases, p["checks"]):
                kids = [k.tag for k in c]
                if want["status"] == "ok":
                    self.assertEqual(kids, [])
                elif want["status"] == "skipped":
                    self.assertEqual(kids, ["skipped"])
                    self.assertEqual(c.find("skipped").get("message"), want["detail"])
                else:
                    self.assertEqual(kids, ["failure"])
                    f = c.find("failure")
                    self.assertEqual(f.get("type"), want["status"])
                    self.assertEqual(f.get("message"), want["detail"])
                    if want["remedy"]:
                        self.assertIn("fix: " + want["remedy"], f.text)
            nf = sum(c["status"] in ("fail", "warn") for c in p["checks"])
            self.assertEqual(int(s.get("failures")), nf)
            self.assertEqual(int(s.get("skipped")), sum(c["status"] == "skipped" for c in p["checks"]))
            total += len(cases)
            fails += nf
        # cross-pod findings folded under a pod's root cause have no case
        cross = suites["cross-pod"].findall("testcase") if "cross-pod" in suites else []
        self.assertEqual(sorted(c.get("name") for c in cross),
                         sorted(f["name"] for f in self.doc["verdict"]["findings"]
                                if f["name"] in ("pair-consistency", "node-consistency")))
        self.assertEqual(int(root.get("tests")), total + len(cross))
        self.assertEqual(int(root.get("failures")), fails + len(cross))
        self.assertEqual(suites["demo/qwen-decode-2"].find(
            "testcase[@name='gpudirect-peermem']/failure").get("type"), "fail")

    def test_unprobed_pod_is_a_skipped_case_with_the_escaped_reason(self):
        rc, root = self.junit("--user", "noexec")
        self.assertEqual(rc, 3)
        for s in root.findall("testsuite"):
            cases = s.findall("testcase")
            self.assertEqual([c.get("name") for c in cases], ["pod-probe"])
            msg = cases[0].find("skipped").get("message")
            # The server's quotes survive escaping: 'pods "NAME" is forbidden'.
            self.assertIn('pods "%s" is forbidden' % s.get("name").split("/")[1], msg)


def kubectl_json(text):
    """text as kubectl would print the same document (Go's MarshalIndent
    with two spaces is what json.dumps(indent=2) writes)."""
    return json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"


class TestDocuments(OutputCase):
    def test_json_is_indented_with_two_spaces(self):
        for argv in (["check", "-o", "json"] + self.kc(), ["pods", "-o", "json"] + self.kc(),
                     ["version", "-o", "json"]):
            rc, out, err = run(argv)
            self.assertNotIn("\t", out, argv)
            self.assertEqual(out, kubectl_json(out), argv)
            self.assertIn('\n  "', out, argv)

    def test_pods_json_and_yaml(self):
        import yaml
        rc, js, err = run(["pods", "-o", "json"] + self.kc())
        self.assertEqual(rc, 0, err)
        doc = json.loads(js)
        self.assertEqual(doc["kind"], "WorkerPodList")
        _, table, _ = run(["pods", "--no-headers"] + self.kc())
        self.assertEqual([p["name"] for p in doc["items"]], [l.split()[0] for l in table.splitlines()])
        self.assertEqual({p["name"]: p["role"] for p in doc["items"]},
                         {p["name"]: p["role"] for p in self.doc["pods"]})
        rc, ys, err = run(["pods", "-o", "yaml"] + self.kc())
        self.assertEqual(rc, 0, err)
        self.assertEqual(yaml.safe_load(ys), doc)

    def test_version_json_and_yaml_like_kubectl(self):
        import yaml
        rc, js, _ = run(["version", "-o", "json"])
        self.assertEqual(rc, 0)
        doc = json.loads(js)
        self.assertEqual(list(doc), ["clientVersion"])
        _, text, _ = run(["version"])
        self.assertIn(doc["clientVersion"]["gitVersion"], text)
        self.assertRegex(doc["clientVersion"]["platform"], r"^linux/(amd64|arm64)$")
        rc, ys, _ = run(["version", "-o", "yaml"])
        self.assertEqual(yaml.safe_load(ys), doc)
        rc, _, err = run(["version", "-o", "wide"])
        self.assertEqual(rc, 1)
        self.assertIn("allowed formats are: table,json,yaml", err)


CHROMIUM = "/usr/bin/chromium"


class TestHTML(OutputCase):
    """check -o html: one self-contained page that a real browser (Debian's
    headless Chromium) renders without console errors."""

    TMP = "e2e-html-"

    @classmethod
    def fixture(cls):
        super().fixture()
        cls.rc, cls.html, _ = run(["check", "-o", "html"] + cls.kc())
        cls.path = os.path.join(cls.tmp, "report.html")
        with open(cls.path, "w") as f:
            f.write(cls.html)

    def parse(self):
        from html.parser import HTMLParser

        class P(HTMLParser):
            def __init__(self):
                super().__init__()
                self.stack, self.code, self.rows, self.lines, self.bad = [], [], [], [], []
                self.in_code = self.in_heat = False

            def handle_starttag(self, tag, attrs):
                a = dict(attrs)
                if tag not in ("meta", "br", "line", "rect"):
                    self.stack.append(tag)
                if tag == "table" and a.get("id") == "heat":
                    self.in_heat = True
                if tag == "tr" and self.in_heat:
                    self.rows.append([])
                if tag == "code":
                    self.in_code = True
                    self.code.append("")
                if tag == "line":
                    self.lines.append(a)

            def handle_endtag(self, tag):
                if tag in ("line", "rect"):
                    return
                if not self.stack or self.stack.pop() != tag:
                    self.bad.append(tag)
                if tag == "code":
                    self.in_code = False
                if tag == "table":
                    self.in_heat = False

            def handle_data(self, data):
                if self.in_code:
                    self.code[-1] += data
                if self.in_heat and self.rows and data.strip():
                    self.rows[-1].append(data.strip())

        p = P()
        p.feed(self.html)
        p.close()
        return p

    def test_self_contained_and_well_formed(self):
        self.assertEqual(self.rc, 2)
        low = self.html.lower()
        for ref in ("<script", "src=", "href=", "url(", "@import", "<link"):
            self.assertNotIn(ref, low, ref)
        p = self.parse()
        self.assertEqual((p.bad, p.stack), ([], []))

    def test_verdict_heat_table_graph_and_findings(self):
        p = self.parse()
        self.assertIn("NOT READY", self.html.split("</h1>")[0])
        nodes = self.doc["nodes"]
        body = p.rows[1:]
        self.assertEqual([r[0] for r in body], [n["name"] for n in nodes])
        self.assertEqual([r[-1] for r in body], [TOKEN[n["verdict"]] for n in nodes])
        # One edge per (prefill node, decode node) of graph qwen; those from
        # gpu-h100-06 (qwen-prefill-2 has no RDMA) are TCP (red).
        pods = self.doc["pods"]
        pre = sorted({q["node"] for q in pods if q["role"] == "prefill"})
        dec = sorted({q["node"] for q in pods if q["role"] == "decode"})
        self.assertEqual(len(p.lines), len(pre) * len(dec))
        y = {n: i * 40 + 25 for i, n in enumerate(pre)}
        for ln in p.lines:
            if int(ln["y1"]) == y["gpu-h100-06"]:
                self.assertEqual(ln["stroke"], "#c62828")
        self.assertIn("#2e7d32", {ln["stroke"] for ln in p.lines})
        # Every finding is there with what is folded under it, and the log
        # lines they quote are log blocks.
        import html as H
        text = H.unescape(re.sub(r"<[^>]+>", "", self.html))
        quoted, folded = [], []
        for f in self.doc["verdict"]["findings"]:
            m = re.search(r'"(.*)"', f["detail"])
            if m:
                quoted.append(m.group(1))
            self.assertIn(f["detail"].split('"')[0].strip(), text)
            if f.get("folded"):
                folded.append("also caused by it: " + ", ".join(f["folded"]))
        self.assertTrue(folded)
        for x in folded:
            self.assertIn(x, text)
        for q in quoted:
            self.assertIn(q, p.code)

    def test_renders_in_headless_chromium(self):
        self.assertTrue(os.access(CHROMIUM, os.X_OK), "chromium (tests/tools/deps.sh installs it)")
        shot = os.path.join(os.environ.get("DI_ARTIFACTS") or self.tmp, "check-html.png")
        prof = os.path.join(self.tmp, "profile")
        p = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                            "--user-data-dir=" + prof, "--window-size=1300,1800",
                            "--enable-logging=stderr", "--v=0", "--screenshot=" + shot,
                            "file://" + self.path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=180, env=dict(os.environ, HOME=self.tmp))
        err = p.stderr.decode(errors="replace")
        self.assertEqual(p.returncode, 0, err[-2000:])
        self.assertEqual([l for l in err.splitlines() if ":CONSOLE" in l], [])
        with open(shot, "rb") as f:
            png = f.read()
        self.assertEqual(png[:8], b"\x89PNG\r\n\x1a\n")
        self.assertGreater(len(png), 20000)   # a page, not a blank
