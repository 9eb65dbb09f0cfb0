"""A worker's metrics endpoint behind the pod proxy (issue 45): GET
/api/v1/namespaces/NS/pods/NAME:PORT/proxy/metrics, the pods/proxy
subresource as the API server serves it (kubernetes pkg/registry/core/pod/
rest/subresources.go ProxyREST, strategy.go ResourceLocation "podname:port"; RBAC: get on pods/proxy).  A pod's
`metrics:` key names, per port, a file of real Prometheus text (NIXL's
exporter, vLLM through Dynamo's system port) and how much each series
advances per read:

    metrics:
      "19090": {text: metrics/nixl-rdma.prom, per_read: {agent_tx_bytes_total: 2147483648}}

A series advances by per_read times the reads of that port before this
one, so a reader that reads twice sees exactly per_read between its two
reads, however long it waited (no timing in a test).  A key of per_read
is a series' name, or its name with labels exactly as the file spells
them (vllm:prompt_tokens_by_source_total{...,source="local_compute"}).
A port the pod does not serve answers 503, as the API server does when
nothing listens there; a pod without an IP (not Running) 503 too.

A port whose worker accepts but never answers (a hung exporter, a proxy
path that stalls) is `{hang: true}`: each GET is held, unanswered, until the
client gives up (its connection closes) or HOLD_MAX_S pass, and its log line
has status 0 and `hung_at_once`, how many such GETs whose clients still
wait were held when it came in, itself included: the most over a run's
lines is how many reads the client had in flight at once (no timing in a
test)."""
import os
import select
import threading
import time

LOCK = threading.Lock()
HOLD_MAX_S = 60
HELD = set()               # the connections of GETs held on `hang` ports (under LOCK)


def read_metrics(doc, base, die_msg):
    """{port: (text lines, {series: per_read})} of a pod's `metrics:`; a
    `hang` port: (None, {})."""
    out = {}
    for port, spec in (doc or {}).items():
        if str(port).isdigit() and spec == {"hang": True}:
            out[int(port)] = (None, {})
            continue
        ok = str(port).isdigit() and isinstance(spec, dict) and set(spec) <= {"text", "per_read"} \
            and "text" in spec
        path = os.path.join(base, str(spec.get("text"))) if ok else ""
        per = spec.get("per_read") or {} if ok else {}
        if not ok or not os.path.isfile(path) or not all(
                isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in per.values()):
            die_msg("metrics: %s: {text: FILE, per_read: {SERIES: N}} (non-negative integers) "
                    "or {hang: true}" % port)
            continue
        with open(path, encoding="utf-8") as f:
            out[int(port)] = (f.read().splitlines(), {str(k): v for k, v in per.items()})
    return out


def render(lines, per_read, reads):
    """The text of the read after `reads` earlier ones."""
    out = []
    for line in lines:
        s = line.strip()
        if s and not s.startswith("#") and " " in s:
            series, value = s.rsplit(" ", 1)
            name = series.split("{", 1)[0]
            step = per_read.get(series, per_read.get(name))
            if step is not None:
                v = float(value) + step * reads
                line = "%s %s" % (series, repr(v) if v != int(v) else "%d.0" % v)
        out.append(line)
    return ("\n".join(out) + "\n").encode()


def gone(sock):
    """The client closed sock (readable while we owe it an answer: its
    close, or its TLS alert)."""
    return bool(select.select([sock], [], [], 0)[0])


def hold(h):
    """A `hang` port's GET: no answer; held until the client gives up or
    HOLD_MAX_S pass.  hung_at_once counts the held GETs whose clients still
    wait when this one comes in: a client that reads one after another
    closed the last before it sent this one (a timed-out transfer's
    connection is closed), so it is never counted with it."""
    with LOCK:
        at_once = 1 + sum(not gone(c) for c in HELD)
        HELD.add(h.connection)
    try:
        end = time.monotonic() + HOLD_MAX_S
        while time.monotonic() < end and not select.select([h.connection], [], [], 0.2)[0]:
            pass
    finally:
        with LOCK:
            HELD.discard(h.connection)
    h.close_connection = True
    h.audit(0, 0, hung_at_once=at_once)


def proxy(h, ns, target, rest):
    """The pods/proxy route of handler h for pod NAME:PORT and the path
    after proxy/ (rest, a list)."""
    name, _, port = target.partition(":")
    if not h.user.can("proxy"):
        return h.forbid("get", "pods/proxy", ns, name)
    pod = h.lookup_pod(ns, name)
    if pod is None:
        return h.pod_missing(ns, name)
    served = getattr(pod, "metrics", {}).get(int(port)) if port.isdigit() else None
    if pod.phase != "Running" or served is None:
        return h.send_status(503, "ServiceUnavailable",
                             "error trying to reach service: dial tcp 10.0.0.%d:%s: connect: connection refused"
                             % (pod.index + 10, port or "80"))
    if served[0] is None:
        return hold(h)
    if rest != ["metrics"]:
        body = b"404 page not found\n"
    else:
        key = (ns, name, int(port))
        with LOCK:
            reads = h.st.metric_reads.get(key, 0)
            h.st.metric_reads[key] = reads + 1
        body = render(served[0], served[1], reads)
    headers = [("Content-Type", "text/plain; version=0.0.4; charset=utf-8"),
               ("Content-Length", str(len(body)))]
    h.audit(200 if rest == ["metrics"] else 404, len(body))
    h.write_response(200 if rest == ["metrics"] else 404, headers, body)
    return None
