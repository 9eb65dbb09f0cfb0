"""Every fault of `fakecluster --fault NAME[=ARG]`, in ONE table: its name,
how its ARG reads, and its behaviour at the points where the server asks
(README.md "Faults" describes each one).  Behaviours of the front doors
and of a hostile server live in fc_front.py and fc_faults_hostile.py; this
table names them.

How ARG reads (`arg=`):
  "pod"    a pod name: only that pod misbehaves; no ARG: every pod
  "count"  N: the first N times only (`count=` is the default N; None: always)
  "value"  handed to the behaviour, which reads it (a code, a rate, a size)
  "pod-or-count"  a pod name (always for that pod) or N (the first N; default 1)

Points (the keyword a behaviour is given under), in the order a request
meets them:
  load(st, arg)                 once, after the scenario is loaded
  connection(st, arg, sock) -> bool   each TCP connection, before TLS; True
                                when the fault took it (fc_tls.py)
  door(h, arg) -> bool          any non-exec request, before its handler;
                                True when the fault answered it
  auth(h, arg, tok, user) -> user   a bearer token was presented
  list(h, arg) -> bool          a pod list, before selectors; True = answered
  page(h, arg, pods, limit, md) -> pods    the pod list page to serve
  body(h, arg, obj) -> bool     the PodList about to be sent; True = sent
  gzip=True                     lists are gzipped whatever their size
  log(h, arg, data) -> data     the body of a log read
  lookup(h, arg, name) -> bool  True: the pod is gone (404)
  admit(h, arg, pod)            an exec, before the upgrade: answers it
  exec-session faults, one per exec (the first in table order that targets
  the pod):
    accept(key) -> str          the Sec-WebSocket-Accept sent
    subprotocol=STR             the Sec-WebSocket-Protocol sent
    mask=True                   the server's frames are masked
    session(h, ws, result)      replaces the whole session after the
                                initial frame
    prelude(ws)                 frames sent before the command's output
    output(h, ws, arg) -> (rc, status) or None   replaces the command; None
                                ends the session at once
    status(ws, kind, status)    replaces sending the channel-3 status
    close=False                 no Close frame at the end
"""
import os
import select
import struct
import sys
import threading

import fc_faults_hostile as hostile
import fc_front
import fc_tls
from fc_wire import die, gojson, status_obj
from fc_ws import WSClosed, WSProtocolError, ws_accept


class Fault:
    def __init__(self, name, arg="value", count=None, **hooks):
        self.name = name
        self.arg = arg
        self.count = count
        self.hooks = hooks

    def get(self, hook, default=None):
        return self.hooks.get(hook, default)


# ---- behaviours of the core faults (front doors and hostile ones: their modules)

def _status_answer(code, reason, message, details, retry):
    def answer(h, arg):
        h.send_json(code, status_obj(code, reason, message, details),
                    extra_headers=[("Retry-After", "1")] if retry else [],
                    log_extra={"fault": "list-%d" % code})
        return True
    return answer


def _endless_page(h, arg, pods, limit, md):
    """Every page carries a new continue token, forever."""
    import base64
    import json
    n = h.st.faults.bump("list-endless-continue")
    md["continue"] = base64.urlsafe_b64encode(json.dumps(
        {"v": "meta.k8s.io/v1", "rv": h.st.list_rv, "start": "", "n": n}).encode()).decode().rstrip("=")
    md["remainingItemCount"] = 1
    return pods[:limit] if limit > 0 else pods


def _truncated(h, arg, obj):
    """200 whose JSON is cut in the middle; Content-Length = the cut."""
    body = gojson(obj) + "\n"
    body = body[:max(len(body) // 2, 1)].encode()
    hostile.serve_json_bytes(h, 200, body, {"fault": "list-truncated"})
    return True


def _token_expire(h, arg, tok, user):
    """Each bearer token works for its first N uses; an exec plugin's fresh
    TOKEN.<suffix> is accepted as TOKEN (write_kubeconfig's fresh_tokens)."""
    st = h.st
    if user is None and "." in tok:
        u2 = st.tokens.get(tok.rsplit(".", 1)[0])
        if u2 is not None and u2.kind == "exec":
            user = u2
    if user is not None:
        n = st.faults.bump(("token", tok))
        if n > (int(arg) if (arg or "").isdigit() else 1):
            user = None
    return user


def _token_rotate(h, arg, tok, user):
    """A kubelet rotating a bound token: TOKEN.N is TOKEN's generation N
    (the file ARG starts with TOKEN.1).  The first use of the newest
    generation writes the next one into ARG; only the newest two are
    accepted (the older is still valid, as a real old token is until it
    expires).  The generation used goes to the request log."""
    base, _, gen = tok.rpartition(".")
    user = h.st.tokens.get(base)
    if user is None or not gen.isdigit():
        return None
    n = int(gen)
    faults = h.st.faults
    with faults.lock:
        newest = faults.counts.setdefault(("rotate", base), 1)
        if n < newest - 1 or n > newest:
            return None
        if n == newest:
            tmp = arg + ".tmp"
            with open(tmp, "w") as f:
                f.write("%s.%d\n" % (base, n + 1))
            os.replace(tmp, arg)
            faults.counts[("rotate", base)] = n + 1
    h.fault_audit = {"token_gen": n}
    return user


def _exec_429(h, arg, pod):
    h.send_json(429, status_obj(429, "TooManyRequests", "maximum number of in-flight requests exceeded",
                                {"retryAfterSeconds": 1}),
                extra_headers=[("Retry-After", "1")], log_extra={"fault": "exec-429"})
    return True


def _hang(h, ws, result):
    """Reads and drops client data until the client or the server goes."""
    sock = h.connection
    while not h.st.stopping.is_set():
        if not ws.pending():
            r, _, _ = select.select([sock], [], [], 0.5)
            if not r:
                continue
        ws.feed()
        ws.buf = b""


def _drop_mid_frame(h, ws, result):
    h.connection.sendall(struct.pack("!BB", 0x82, 100) + b"\x01" + b"y" * 49)
    result["end"] = "dropped mid-frame"


def _huge_length(h, ws, result):
    h.connection.sendall(struct.pack("!BBQ", 0x82, 127, 0x8000000000000010) + b"\x01abc")
    result["end"] = "huge length sent"


def _oversized(h, ws, arg):
    """st.oversize bytes of x on stdout in 32 KiB frames; stops as soon as
    the client goes away (a Close or a protocol error read every 4 MiB)."""
    sock = h.connection
    chunk = b"x" * 32768
    total = h.st.oversize
    sent = 0
    while sent < total:
        if h.st.stopping.is_set():
            return None
        n = min(32768, total - sent)
        ws.send_data(1, chunk[:n])
        sent += n
        if sent % (1 << 22) == 0 and (ws.pending() or select.select([sock], [], [], 0)[0]):
            try:
                ws.feed()
                for op, _ in ws.frames():
                    if op == 8:
                        raise WSClosed()
            except WSProtocolError:
                raise WSClosed()
    return 0, None


def _no_status(ws, kind, status):
    pass


def _garbage_status(ws, kind, status):
    ws.send_data(3, b"this is {not json")


# ---- THE table (order matters where several faults meet at one point)

TABLE = [
    Fault("tls-stall", "value", connection=fc_tls.stall),
    Fault("conn-reset", "count", 1, door=fc_front.conn_reset),
    Fault("apf-429", "count", 1, door=fc_front.apf_429),
    Fault("token-expire", "value", auth=_token_expire),
    Fault("token-rotate", "value", auth=_token_rotate),
    Fault("list-429", "count", 2, list=_status_answer(429, "TooManyRequests", "Too many requests, please try again later.",
                                                    {"retryAfterSeconds": 1}, True)),
    Fault("list-500", "count", None, list=_status_answer(500, "InternalError",
                                                       "Internal error occurred: injected fault list-500",
                                                       {"causes": [{"message": "injected fault list-500"}]}, False)),
    Fault("list-503", "count", None, list=_status_answer(503, "ServiceUnavailable",
                                                       "the server is currently unable to handle the request", {}, True)),
    Fault("list-redirect", "value", list=hostile.list_redirect),
    Fault("list-drip", "value", list=hostile.list_drip),
    Fault("list-alternating-continue", "value", list=hostile.list_alternating_continue),
    Fault("list-oversized-pages", "value", list=hostile.list_oversized_pages),
    Fault("list-endless-continue", "value", page=_endless_page),
    Fault("list-truncated", "value", body=_truncated),
    Fault("hostile-strings", "value", load=hostile.after_load, body=hostile.serve_pod_list),
    Fault("list-gzip-always", "value", gzip=True),
    Fault("logs-ignore-limit", "value", log=hostile.log_body),
    Fault("pod-deleted", "pod", lookup=lambda h, arg, name: True),
    Fault("exec-429", "pod-or-count", 1, admit=_exec_429),
    Fault("exec-hang", "pod", session=_hang),
    Fault("exec-drop-mid-frame", "pod", session=_drop_mid_frame),
    Fault("exec-no-close", "pod", close=False),
    Fault("exec-unoffered-protocol", "pod", subprotocol="v9.channel.k8s.io"),
    Fault("exec-bad-accept", "pod", accept=lambda key: ws_accept(key + "x")),
    Fault("exec-masked-frame", "pod", mask=True),
    Fault("exec-reserved-opcode", "pod", prelude=lambda ws: ws.send_frame(0x3, b"\x01reserved")),
    Fault("exec-huge-length", "pod", session=_huge_length),
    Fault("exec-orphan-continuation", "pod", prelude=lambda ws: ws.send_frame(0x0, b"\x01orphan")),
    Fault("exec-garbage-status", "pod", status=_garbage_status),
    Fault("exec-no-status", "pod", status=_no_status),
    Fault("exec-oversized-output", "pod", output=_oversized),
    Fault("exec-huge-message", "pod", output=hostile.exec_huge_message),
]
FAULTS = {f.name: f for f in TABLE}
SESSION_HOOKS = {"accept", "subprotocol", "mask", "session", "prelude", "output", "status", "close"}
NONE = Fault("")    # an exec without a fault: every hook at its default


class Faults(dict):
    """The faults of one server run: name -> ARG (None without one), and
    their counters.  Thread-safe: requests run on threads of their own."""

    def __init__(self, specs):
        dict.__init__(self)
        for s in specs or []:
            name, _, arg = s.partition("=")
            if name not in FAULTS:
                die("unknown fault %r (known: %s)" % (name, ", ".join(sorted(FAULTS))))
            self[name] = arg or None
        self.active = [f for f in TABLE if f.name in self]
        self.counts = {}
        self.lock = threading.Lock()

    def bump(self, key):
        """Counts one more occurrence of key; returns the new count."""
        with self.lock:
            self.counts[key] = self.counts.get(key, 0) + 1
            return self.counts[key]

    def applies(self, f, pod=None):
        """Whether fault f acts now (a pod-targeted one: on pod; a counted
        one: counts this time)."""
        arg = self[f.name]
        if f.arg == "pod":
            return not arg or arg == pod
        if f.arg == "pod-or-count" and arg and not arg.isdigit():
            return arg == pod
        if f.arg in ("count", "pod-or-count"):
            limit = int(arg) if arg and arg.isdigit() else f.count
            n = self.bump(f.name)
            return limit is None or n <= limit
        return True

    def run(self, hook, h, *args, pod=None):
        """Calls the behaviours at point hook in table order; returns the
        first true answer (the fault answered), else False."""
        for f in self.active:
            fn = f.get(hook)
            if fn is not None and self.applies(f, pod) and fn(h, self[f.name], *args):
                return True
        return False

    def load(self, st):
        for f in self.active:
            if f.get("load"):
                f.get("load")(st, self[f.name])

    def flag(self, hook):
        return any(f.get(hook) for f in self.active)

    def auth(self, h, tok, user):
        for f in self.active:
            if f.get("auth"):
                user = f.get("auth")(h, self[f.name], tok, user)
        return user

    def filter(self, hook, h, value, *args):
        """Passes value through the behaviours at point hook (page, log)."""
        for f in self.active:
            if f.get(hook):
                value = f.get(hook)(h, self[f.name], value, *args)
        return value

    def for_exec(self, pod):
        """The exec-session fault for this pod (NONE when there is none)."""
        for f in self.active:
            if SESSION_HOOKS & set(f.hooks) and self.applies(f, pod):
                return f
        return NONE


def _selfcheck():
    unknown = [f.name for f in TABLE for k in f.hooks if k not in SESSION_HOOKS |
               {"load", "connection", "door", "auth", "list", "page", "body", "gzip", "log", "lookup", "admit"}]
    if unknown:
        sys.exit("fc_faults: unknown hook in %s" % unknown)


_selfcheck()
