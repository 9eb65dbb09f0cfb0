"""fakecluster faults of a hostile or broken API server (issue 12).

Each fault is a `--fault NAME[=ARG]` of fakecluster, named in the one
fault table (fc_faults.TABLE) with the point where it acts (list, body,
log, output, load); the behaviours are here.  A list/body behaviour returns
True when it answered the request itself.

  hostile-strings         every server-provided string the plugin shows
                          (node name, images, host IP, container statuses'
                          images, namespaces' labels) carries terminal
                          escapes: OSC title, CSI clear/colour, CR, C1 CSI
                          (U+009B), U+202E and (where JSON allows it) a
                          lone invalid UTF-8 byte sent raw
  list-drip[=BPS]         the pod list's body at BPS bytes a second
                          (default 2), forever: only a deadline ends it
  list-alternating-continue
                          every page empty with continue token A, B, A, ...
  list-oversized-pages[=N]
                          every page N distinct pods (default 5000) and a
                          fresh continue token, without end
  list-redirect[=CODE]    the list answers CODE (default 302) with a
                          Location on another host
  logs-ignore-limit       the log read ignores limitBytes: 2 MiB of filler
                          lines, then scenarios/logs/nixl-ucx-rdma.txt
  exec-huge-message[=MiB] the exec stdout is one WebSocket message of MiB
                          (default 8: past a 4 MiB output cap, under the
                          16 MiB message cap) in 1 MiB continuation frames
"""
import base64
import copy
import email.utils
import json
import time

ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x1b[31m\r\u202e\u009b1m"
# One raw byte 0xFF where a JSON string allows it: Go would never send it,
# a broken proxy or server might.
RAW_BAD_BYTE = b"\xff"
BAD_MARK = "@@BADBYTE@@"


def _poison(s):
    return s + ESCAPES + BAD_MARK


def after_load(st, arg):
    """hostile-strings: rewrites the pod objects served from now on."""
    for p in st.pods:
        o = p.obj
        spec, status = o["spec"], o["status"]
        if "nodeName" in spec:
            spec["nodeName"] = _poison(spec["nodeName"])
        for c in spec.get("containers", []):
            c["image"] = _poison(c["image"])
        for cs in status.get("containerStatuses", []):
            cs["image"] = _poison(cs["image"])
        if "hostIP" in status:
            status["hostIP"] = _poison(status["hostIP"])


def raw_json(obj):
    """The JSON bytes, with the mark turned into the raw invalid byte."""
    return json.dumps(obj).encode().replace(BAD_MARK.encode(), RAW_BAD_BYTE) + b"\n"


def serve_json_bytes(h, code, body, log_extra=None):
    headers = [("Cache-Control", "no-cache, private"), ("Content-Type", "application/json"),
               ("Date", email.utils.formatdate(usegmt=True)), ("Content-Length", str(len(body)))]
    h.audit(code, len(body), **(log_extra or {}))
    h.write_response(code, headers, body)


def _token(st, n):
    return base64.urlsafe_b64encode(json.dumps(
        {"v": "meta.k8s.io/v1", "rv": st.list_rv, "start": "", "n": n}).encode()).decode().rstrip("=")


def list_redirect(h, arg):
    code = int(arg) if (arg or "").isdigit() else 302
    loc = "https://login.example.invalid/oauth?next=/api/v1/pods"
    headers = [("Location", loc), ("Content-Type", "text/html; charset=utf-8"),
               ("Date", email.utils.formatdate(usegmt=True)), ("Content-Length", "0")]
    h.audit(code, 0, fault="list-redirect")
    h.write_response(code, headers, b"")
    return True


def list_drip(h, arg):
    bps = int(arg) if (arg or "").isdigit() else 2
    h.audit(200, 0, fault="list-drip")
    h.wfile.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                   "Content-Length: 100000000\r\n\r\n").encode())
    h.wfile.write(b'{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[')
    h.wfile.flush()
    while not h.st.stopping.is_set():
        h.wfile.write(b" " * bps)
        h.wfile.flush()
        time.sleep(1.0)
    return True


def list_alternating_continue(h, arg):
    st = h.st
    n = st.faults.bump("alt")
    md = {"resourceVersion": st.list_rv, "continue": _token(st, n % 2)}
    h.send_json(200, {"kind": "PodList", "apiVersion": "v1", "metadata": md, "items": []},
                log_extra={"fault": "list-alternating-continue"})
    return True


def list_oversized_pages(h, arg):
    st = h.st
    per = int(arg) if (arg or "").isdigit() else 5000
    n = st.faults.bump("big")
    base = st.pods[0].obj
    items = []
    for i in range(per):
        o = copy.deepcopy(base)
        o["metadata"]["name"] = "big-%d-%d" % (n, i)
        items.append(o)
    md = {"resourceVersion": st.list_rv, "continue": _token(st, n), "remainingItemCount": per}
    body = json.dumps({"kind": "PodList", "apiVersion": "v1", "metadata": md,
                       "items": items}).encode()
    serve_json_bytes(h, 200, body, {"fault": "list-oversized-pages"})
    return True


def serve_pod_list(h, arg, obj):
    """hostile-strings: the list with the raw invalid byte; True if sent."""
    serve_json_bytes(h, 200, raw_json(obj), {"fault": "hostile-strings"})
    return True


import os

# Real transport lines (scenarios/logs/README.md says where they are from).
LOG_TAIL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scenarios", "logs",
                        "nixl-ucx-rdma.txt")


def log_body(h, arg, data):
    """logs-ignore-limit: what the log read answers instead of data."""
    filler = b"INFO 05-30 23:21:40 [__init__.py:239] filler line that no signature matches\n"
    with open(LOG_TAIL, "rb") as f:
        tail = f.read()
    return filler * ((2 << 20) // len(filler)) + tail


def exec_huge_message(h, ws, arg):
    """exec-huge-message: one message of stdout, then Success."""
    mib = int(arg) if arg and arg.isdigit() else 8
    chunk = b"y" * (1 << 20)
    ws.send_frame(2, b"\x01" + chunk, fin=False)
    for i in range(1, mib):
        ws.send_frame(0, chunk, fin=(i == mib - 1))
    return 0, None
