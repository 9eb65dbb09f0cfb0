"""Front doors for fakecluster (issue 13), hooked into fakecluster in a few
lines: what real clusters put in front of the API server, and what the API
server itself does at its door.

  --path-prefix P         serve under P only (Rancher /k8s/clusters/ID,
                          `kubectl proxy --api-prefix`); other paths 404
  --max-request-line N    answer 414 to a request line longer than N bytes
                          (nginx large_client_header_buffers 8k: 8192)
  Impersonate-* headers   honoured as the API server's impersonation filter
                          does (k8s.io/apiserver endpoints/filters/impersonation.go):
                          the authenticated user needs the `impersonate`
                          permission; the request then runs as the named user
                          (a scenario user's rights, or none), logged as
                          "user", with "impersonator" and what was asked
  --fault apf-429[=N]     the first N (default 1) non-exec requests get API
                          Priority and Fairness's plain-text 429 with
                          Retry-After: 1 (apiserver flowcontrol filter)
  --fault conn-reset[=N]  the first N (default 1) non-exec requests get no
                          answer: the connection is reset (TCP RST), as a
                          restarting API server or a load balancer does
  exec stdin              the bytes a command got on stdin are logged as
                          "stdin_bytes" and "stdin_sha256"
  spec.initContainers     (a scenario pod's `spec:`) get initContainerStatuses:
                          native sidecars (restartPolicy: Always) running,
                          the others terminated (Completed); exec reaches
                          both by name, as the API server's container
                          lookup does (podutil.VisitContainers)
  users[].exec.loginSeconds: N
                          the user's exec plugin is an interactive login that
                          takes N seconds (device-code, browser, SSO): it
                          sleeps N s before printing the credential, and the
                          kubeconfig says interactiveMode: IfAvailable
  request_line_bytes      every log line: the length of the request line
  pings_received          exec log lines: WebSocket Pings the client sent
"""
import hashlib
import posixpath
import socket
import struct
import urllib.parse



class Config:
    prefix = ""
    max_line = None


CFG = Config()


def add_args(ap):
    ap.add_argument("--path-prefix", default="")
    ap.add_argument("--max-request-line", type=int, default=None)


def configure(args):
    p = args.path_prefix or ""
    if p:
        p = posixpath.normpath("/" + p.strip("/"))
        if p == "/":
            p = ""
    CFG.prefix = p
    CFG.max_line = args.max_request_line


def server_url(url):
    """The URL the kubeconfig should name: the server plus the prefix."""
    return url + CFG.prefix


def _raw(h, status_line, body, ctype="text/html"):
    h.close_connection = True
    data = body.encode()
    h.wfile.write(("HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
                   % (status_line, ctype, len(data))).encode() + data)


def at_door(h):
    """Before dispatch: True when the request was answered here.  Strips the
    prefix from h.path otherwise."""
    if CFG.max_line is not None and len(h.requestline) > CFG.max_line:
        h.req_path, h.req_query_log, h.req_raw_query = "", {}, ""
        h.user_name = None
        h.audit(414, 0, request_line_bytes=len(h.requestline))
        _raw(h, "414 Request-URI Too Large",
             "<html>\r\n<head><title>414 Request-URI Too Large</title></head>\r\n"
             "<body>\r\n<center><h1>414 Request-URI Too Large</h1></center>\r\n</body>\r\n</html>\r\n")
        return True
    if CFG.prefix:
        path = urllib.parse.urlsplit(h.path).path
        if path != CFG.prefix and not path.startswith(CFG.prefix + "/"):
            h.req_path, h.req_query_log, h.req_raw_query = path, {}, ""
            h.user_name = None
            h.audit(404, 19, outside_prefix=True)
            _raw(h, "404 Not Found", "404 page not found\n", "text/plain; charset=utf-8")
            return True
        h.path = h.path[len(CFG.prefix):] or "/"
    return False


def conn_reset(h, arg):
    """--fault conn-reset (counted by fc_faults): no answer, a TCP RST."""
    h.audit(0, 0, fault="conn-reset")
    h.close_connection = True
    try:
        h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        h.connection.close()
    except OSError:
        pass
    return True


def apf_429(h, arg):
    """--fault apf-429 (counted by fc_faults): APF rejects before any
    handler: plain text, Retry-After: 1.  Exec is long-running and exempt,
    as in the real filter (fc_faults asks only for non-exec requests)."""
    body = b"Too many requests, please try again later.\n"
    h.audit(429, len(body), fault="apf-429")
    h.write_response(429, [("Content-Type", "text/plain; charset=utf-8"),
                           ("Retry-After", "1"), ("X-Content-Type-Options", "nosniff"),
                           ("Content-Length", str(len(body)))], body)
    return True


def _imp_headers(h):
    user = h.headers.get("Impersonate-User")
    uid = h.headers.get("Impersonate-Uid")
    groups = h.headers.get_all("Impersonate-Group") or []
    extra = {}
    for k, v in h.headers.items():
        if k.lower().startswith("impersonate-extra-"):
            key = urllib.parse.unquote(k[len("impersonate-extra-"):]).lower()
            extra.setdefault(key, []).append(v)
    return user, uid, groups, extra


def impersonate(h, user, users, user_cls):
    """After authentication: the user the request runs as, or None when it
    was answered here (403 / 500)."""
    name, uid, groups, extra = _imp_headers(h)
    if name is None and uid is None and not groups and not extra:
        return user
    if not name:
        # impersonation.go: groups, extra or uid without a user
        h.send_status(500, "InternalError", "Internal error occurred: requested %s without impersonating a user"
                      % ("groups" if groups else "extra" if extra else "uid"), {})
        return None
    if not user.can("impersonate"):
        kind, what = ("users", name)
        msg = '%s "%s" is forbidden: User "%s" cannot impersonate resource "%s" in API group "" at the cluster scope' \
            % (kind, what, user.name, kind)
        h.send_status(403, "Forbidden", msg, {"name": what, "kind": kind})
        return None
    target = users.get(name)
    if target is None:
        target = user_cls(name, "impersonated", allow=[])
    h.impersonation = {"impersonator": user.name, "impersonated_groups": groups}
    if uid is not None:
        h.impersonation["impersonated_uid"] = uid
    if extra:
        h.impersonation["impersonated_extra"] = extra
    return target


def audit_extra(h):
    """Fields added to every log line: the request line's length in bytes
    (what a proxy's limit measures) and, when impersonated, who asked for
    what."""
    out = {"request_line_bytes": len(getattr(h, "requestline", "") or "")}
    out.update(getattr(h, "impersonation", None) or {})
    return out


def note_stdin(h, data):
    st = getattr(h, "stdin_hash", None)
    if st is None:
        st = h.stdin_hash = [hashlib.sha256(), 0]
    st[0].update(data)
    st[1] += len(data)


def note_ping(h):
    h.pings = getattr(h, "pings", 0) + 1


def stdin_audit(h):
    """Exec log fields: what stdin carried, and how many Pings came in."""
    out = {"pings_received": getattr(h, "pings", 0)}
    st = getattr(h, "stdin_hash", None)
    if st is not None:
        out.update({"stdin_bytes": st[1], "stdin_sha256": st[0].hexdigest()})
    return out


def init_containers(pod):
    """Status and exec targets for spec.initContainers (see the header)."""
    pod.init_containers = []
    inits = pod.obj["spec"].get("initContainers") or []
    if not inits:
        return
    statuses = []
    for c in inits:
        name = str(c.get("name", ""))
        image = str(c.get("image", "registry.local/fake/%s:latest" % name))
        sidecar = c.get("restartPolicy") == "Always"
        running = sidecar and pod.phase == "Running"
        c.setdefault("image", image)
        pod.init_containers.append({"name": name, "image": image, "running": running, "ready": None})
        if running:
            state = {"running": {"startedAt": pod.started}}
        else:
            state = {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": pod.started,
                                    "finishedAt": pod.started}}
        statuses.append({"name": name, "state": state, "lastState": {}, "ready": running,
                         "restartCount": 0, "image": image, "imageID": "", "started": running})
    if pod.node:
        pod.obj["status"]["initContainerStatuses"] = statuses


def plugin_login(user):
    """Shell lines for a slow interactive login (users[].exec.loginSeconds)."""
    n = getattr(user, "login_seconds", 0)
    if not n:
        return ""
    return "# an interactive login that takes %d s\necho 'open https://login.example/device and enter ABCD-EFGH' >&2\nsleep %d\n" % (n, n)
