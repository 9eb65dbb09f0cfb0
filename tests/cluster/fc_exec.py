"""Exec over WebSocket: the checks before the upgrade (RBAC, pod,
container, handshake, subprotocol choice between the v5 stream translator
and the legacy kubelet path), the session (channels, stdin, Close), and the
command run in the pod's sandbox or, with --latency-ms, canned or on the
host.  A mixin of the request handler; exec faults come from fc_faults."""
import base64
import os
import select
import shutil
import signal
import socket
import ssl
import struct
import subprocess
import time

import fc_front
from fc_sandbox import SandboxError
from fc_wire import gojson
from fc_ws import WS, LineReader, WSClosed, WSProtocolError, ws_accept

LEGACY_PROTOCOLS = ["", "channel.k8s.io", "base64.channel.k8s.io", "v4.channel.k8s.io",
                    "v4.base64.channel.k8s.io"]


CANNED = {}


def canned_output(prof):
    """(stdout, stderr, exit code) of a profile's exec-* files, or None; read
    once per profile (the files do not change while the server runs)."""
    if prof not in CANNED:
        if not any(os.path.exists(os.path.join(prof, f)) for f in ("exec-stdout", "exec-stderr", "exec-exit")):
            CANNED[prof] = None
        else:
            out = err = b""
            rc = 0
            if os.path.exists(os.path.join(prof, "exec-stdout")):
                out = open(os.path.join(prof, "exec-stdout"), "rb").read()
            if os.path.exists(os.path.join(prof, "exec-stderr")):
                err = open(os.path.join(prof, "exec-stderr"), "rb").read()
            if os.path.exists(os.path.join(prof, "exec-exit")):
                rc = int(open(os.path.join(prof, "exec-exit")).read().strip() or 0)
            CANNED[prof] = (out, err, rc)
    return CANNED[prof]


def kill_proc(proc):
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
    for f in (proc.stdin, proc.stdout, proc.stderr):
        if f is not None:
            try:
                f.close()
            except OSError:
                pass


def exit_status(kind, argv, rc):
    if rc == 0:
        return {"metadata": {}, "status": "Success"}
    if kind == "v5":
        msg = "command terminated with non-zero exit code: command terminated with exit code %d" % rc
    else:
        msg = "command terminated with non-zero exit code: error executing command [%s], exit code %d" % (
            " ".join(argv), rc)
    return {"metadata": {}, "status": "Failure", "message": msg, "reason": "NonZeroExitCode",
            "details": {"causes": [{"reason": "ExitCode", "message": str(rc)}]}}


def internal_status(cause, wrap=False):
    if wrap:
        cause = "Internal error occurred: " + cause
    return {"metadata": {}, "status": "Failure", "message": "Internal error occurred: " + cause,
            "reason": "InternalError", "details": {"causes": [{"message": cause}]}, "code": 500}


def exec_fail_status(kind, rep, argv):
    cmd = argv[0] if argv else ""
    detail = {
        "empty": "args must not be empty",
        "stat": 'unable to start container process: exec: "%s": stat %s: no such file or directory' % (cmd, cmd),
        "perm": 'unable to start container process: exec: "%s": permission denied' % cmd,
        "path": 'unable to start container process: exec: "%s": executable file not found in $PATH' % cmd,
    }.get(rep, "unable to start container process: %s" % rep)
    cause = ('error executing command in container: failed to exec in container: failed to start exec "%s": '
             "OCI runtime exec failed: exec failed: %s: unknown" % (os.urandom(32).hex(), detail))
    return internal_status(cause, kind == "v5")


def send_status(ws, kind, status):
    """The status message on channel 3: JSON (v4, v5), or plain text of a
    failure only (channel.k8s.io and no subprotocol)."""
    if kind == "v1":
        if status["status"] != "Success":
            ws.send_data(3, status["message"].encode())
    else:
        ws.send_data(3, gojson(status).encode())


def qbool(q, name):
    v = q.get(name)
    if v is None:
        return False
    v = v[0]
    return v.lower() not in ("0", "false")


class ExecMixin:
    # ---- exec
    def raw_reply(self, text):
        self.close_connection = True
        data = text.encode()
        self.audit(int(text.split()[1]), 0)
        self.wfile.write(data)

    def exec_entry(self, ns, name):
        post = self.command == "POST"
        if not self.user.can("exec-create" if post else "exec-get"):
            return self.forbid("create" if post else "get", "pods/exec", ns, name)
        pod, c = self.pod_container(ns, name)
        if pod is None:
            return None
        if not pod.node:
            return self.send_status(400, "BadRequest", "pod %s does not have a host assigned" % name)
        if post:
            return self.send_status(405, "MethodNotAllowed",
                                    "fakecluster does not implement SPDY exec (POST); use a WebSocket GET", {})
        if self.st.faults.run("admit", self, pod, pod=pod.name):
            return None
        argv = self.q.get("command", [])
        opts = {k: qbool(self.q, k) for k in ("stdin", "stdout", "stderr", "tty")}
        if opts["tty"]:
            opts["stderr"] = False
        hdr = self.headers.get("Sec-WebSocket-Protocol")
        offered = [p.strip() for p in hdr.split(",")] if hdr is not None and hdr.strip() else []
        is_ws = self.headers.get("Upgrade", "").lower() == "websocket" and \
            "upgrade" in self.headers.get("Connection", "").lower()
        translator = self.st.mode == "v5" and "v5.channel.k8s.io" in offered and is_ws
        if not translator and not c["running"]:
            return self.send_text(500, 'container not found ("%s")' % c["name"])
        if not (opts["stdin"] or opts["stdout"] or opts["stderr"]):
            return self.send_text(400, "you must specify at least 1 of stdin, stdout, stderr")
        if not is_ws:
            return self.send_text(400, "Upgrade request required")
        key = self.headers.get("Sec-WebSocket-Key", "")
        if not key:
            return self.raw_reply("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\nmismatch challenge/response")
        if self.headers.get("Sec-WebSocket-Version", "") != "13":
            return self.raw_reply("HTTP/1.1 400 Bad Request\r\nSec-WebSocket-Version: 13\r\nConnection: close\r\n\r\n"
                                  "missing or bad WebSocket Version")
        if translator:
            proto = "v5.channel.k8s.io"
        else:
            proto = None
            for p in (offered or [""]):
                if p in LEGACY_PROTOCOLS:
                    proto = p
                    break
            if proto is None:
                return self.raw_reply("HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n")
        fault = self.st.faults.for_exec(pod.name)
        if self.st.latency:
            time.sleep(self.st.latency / 1000.0)
        accept = fault.get("accept", ws_accept)(key)
        rproto = fault.get("subprotocol", proto)
        self.close_connection = True
        self.wfile.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          "Sec-WebSocket-Accept: %s\r\nSec-WebSocket-Protocol: %s\r\n\r\n" % (accept, rproto)).encode())
        ws = WS(self.connection, b64mode="base64" in proto, mask_out=bool(fault.get("mask")))
        if isinstance(self.rfile, LineReader):
            ws.buf = self.rfile.take()
        result = {"subprotocol": proto, "container": c["name"], "command": argv}
        if fault.name:
            result["fault"] = fault.name
        try:
            self.exec_session(ws, pod, c, argv, opts, proto, fault, result)
        except (WSClosed, BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError) as e:
            result.setdefault("end", "client-gone: %s" % e.__class__.__name__)
        finally:
            self.exec_audit(ws, result)
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def exec_audit(self, ws, result):
        if not result.get("_logged"):
            result["_logged"] = True
            result.update(fc_front.stdin_audit(self))
            self.audit(101, ws.sent, **{k: v for k, v in result.items() if k != "_logged"})

    def exec_session(self, ws, pod, c, argv, opts, proto, fault, result):
        kind = "v5" if proto == "v5.channel.k8s.io" else ("v4" if proto.startswith("v4") else "v1")
        first = 1 if opts["stdout"] else (2 if opts["stderr"] else 3)
        ws.send_data(first, b"")
        if fault.get("session"):
            fault.get("session")(self, ws, result)
            return
        if fault.get("prelude"):
            fault.get("prelude")(ws)
        if fault.get("output"):
            out = fault.get("output")(self, ws, self.st.faults.get(fault.name))
            if out is None:
                return
            rc, status = out
        else:
            rc, status = self.run_command(ws, pod, c, argv, opts, kind, result)
        result["exit_code"] = rc
        if status is None:
            status = exit_status(kind, argv, rc)
        fault.get("status", send_status)(ws, kind, status)
        result["end"] = "ok"
        self.exec_audit(ws, result)
        if fault.get("close", True):
            ws.send_close(1000)

    def run_command(self, ws, pod, c, argv, opts, kind, result):
        """Runs argv; returns (exit code, status or None)."""
        if not c["running"]:
            return None, internal_status('unable to upgrade connection: container not found ("%s")' % c["name"])
        if self.st.latency is not None:
            prof = pod.profile
            canned = canned_output(prof) if prof else None
            if canned:
                out, err, rc = canned
                for i in range(0, len(out), 32768):
                    if opts["stdout"]:
                        ws.send_data(1, out[i:i + 32768])
                for i in range(0, len(err), 32768):
                    if opts["stderr"]:
                        ws.send_data(2, err[i:i + 32768])
                return rc, None
            env = dict(pod.env or {"HOSTNAME": pod.name})
            path = ((os.path.join(prof, "bin") + ":") if prof else "") + "/usr/local/bin:/usr/bin:/bin"
            env["PATH"] = path
            if not argv:
                return None, exec_fail_status(kind, "empty", argv)
            if "/" in argv[0]:
                if not os.path.exists(argv[0]):
                    return None, exec_fail_status(kind, "stat", argv)
            elif not shutil.which(argv[0], path=path):
                return None, exec_fail_status(kind, "path", argv)
            cmd = list(argv)
            pass_fds = ()
        else:
            try:
                box = self.st.sandboxes.get(pod)
            except SandboxError as e:
                return None, internal_status("error executing command in container: %s" % e, kind == "v5")
            cmd, env = self.st.sandboxes.exec_argv(pod, box, c["name"], argv)
            rep = self.st.sandboxes.lookup(box, env, argv)
            if rep:
                return None, exec_fail_status(kind, rep, argv)
            pass_fds = ()
        master = None
        if opts["tty"]:
            master, slave = os.openpty()
            stdin_arg = stdout_arg = stderr_arg = slave
        else:
            stdin_arg = subprocess.PIPE if opts["stdin"] else subprocess.DEVNULL
            stdout_arg = subprocess.PIPE
            stderr_arg = subprocess.PIPE
        try:
            proc = subprocess.Popen(cmd, stdin=stdin_arg, stdout=stdout_arg, stderr=stderr_arg, env=env,
                                    pass_fds=pass_fds, start_new_session=True, close_fds=True)
        except OSError as e:
            return None, internal_status("error executing command in container: %s" % e, kind == "v5")
        finally:
            if master is not None:
                os.close(slave)
        with self.st.sandboxes_lock:
            self.st.live_execs.add(proc)
        try:
            return self.pump(ws, proc, opts, kind, master), None
        finally:
            kill_proc(proc)
            with self.st.sandboxes_lock:
                self.st.live_execs.discard(proc)
            if master is not None:
                try:
                    os.close(master)
                except OSError:
                    pass

    def pump(self, ws, proc, opts, kind, master):
        sock = self.connection
        outs = {}
        if master is not None:
            outs[master] = 1
            stdin_fd = master if opts["stdin"] else None
        else:
            outs[proc.stdout.fileno()] = 1
            outs[proc.stderr.fileno()] = 2
            stdin_fd = proc.stdin.fileno() if proc.stdin else None
        open_outs = dict(outs)
        sock_open = True
        pend = {1: b"", 2: b""}

        def flush(ch=None):
            for c in ([ch] if ch else [1, 2]):
                data = pend[c]
                pend[c] = b""
                if (c == 1 and opts["stdout"]) or (c == 2 and opts["stderr"]):
                    for i in range(0, len(data), 32768):
                        ws.send_data(c, data[i:i + 32768])
        # Output is coalesced until the pipes are quiet for 15 ms (or 32 KiB is
        # buffered), like the kubelet's io.Copy reads that see whole bursts.
        while open_outs or pend[1] or pend[2]:
            if self.st.stopping.is_set():
                raise WSClosed()
            rl = list(open_outs) + ([sock] if sock_open else [])
            waiting = bool(pend[1] or pend[2])
            if sock_open and ws.pending():
                r = [sock]
            else:
                r, _, _ = select.select(rl, [], [], 0.015 if waiting else 1.0)
            if not r and waiting:
                flush()
                continue
            for fd in sorted((x for x in r if x is not sock), key=lambda f: outs[f]):
                try:
                    data = os.read(fd, 32768)
                except OSError:
                    data = b""
                ch = outs[fd]
                if not data:
                    del open_outs[fd]
                    continue
                pend[ch] += data
                if len(pend[ch]) >= 32768:
                    full = len(pend[ch]) - len(pend[ch]) % 32768
                    chunk, pend[ch] = pend[ch][:full], pend[ch][full:]
                    if (ch == 1 and opts["stdout"]) or (ch == 2 and opts["stderr"]):
                        for i in range(0, len(chunk), 32768):
                            ws.send_data(ch, chunk[i:i + 32768])
            if not open_outs:
                flush()
            if sock in r:
                try:
                    ws.feed()
                    frames = ws.frames()
                except WSProtocolError as e:
                    try:
                        ws.send_close(e.code)
                    except OSError:
                        pass
                    raise WSClosed()
                for op, payload in frames:
                    if op == 9:
                        fc_front.note_ping(self)
                        ws.send_frame(10, payload)
                    elif op == 10:
                        raise WSClosed()   # x/net: a Pong is ErrNotImplemented; session ends
                    elif op == 8:
                        code = payload[:2] if len(payload) >= 2 else struct.pack("!H", 1000)
                        try:
                            ws.send_frame(8, code)
                        except OSError:
                            pass
                        raise WSClosed()
                    else:
                        if not payload:
                            continue
                        if ws.b64:
                            if op != 1:
                                continue
                            ch = payload[0] - 0x30
                            try:
                                data = base64.b64decode(payload[1:])
                            except ValueError:
                                continue
                        else:
                            ch, data = payload[0], payload[1:]
                        if ch == 255 and kind == "v5":
                            if len(data) != 1 or data[0] > 4:
                                ws.send_close(1002)
                                raise WSClosed()
                            if data[0] == 0 and stdin_fd is not None:
                                if master is None:
                                    try:
                                        proc.stdin.close()
                                    except OSError:
                                        pass
                                else:
                                    try:
                                        os.write(master, b"\x04")
                                    except OSError:
                                        pass
                                stdin_fd = None
                        elif ch == 0 and stdin_fd is not None and data:
                            fc_front.note_stdin(self, data)
                            try:
                                os.write(stdin_fd, data)
                            except OSError:
                                pass
        rc = proc.wait()
        return 128 - rc if rc < 0 else rc
