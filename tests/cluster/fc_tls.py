"""TLS facts of a request's connection for the --log line (issue 16):
whether its handshake resumed a session ("tls": "resumed") or was a full
one ("full"), so that a test can count full handshakes without timing
anything, and the server name the client sent ("sni", absent when none:
an IP address is never sent, RFC 6066 section 3).  Python's ssl module
reports reuse per connection (SSLSocket.session_reused) and hands the name
to SSLContext.sni_callback during the handshake.  Also the fault tls-stall
(a handshake that never completes)."""
import os
import select
import ssl
import threading


def watch(ctx):
    """Records each connection's SNI on its socket (ctx: the server's)."""
    def on_sni(sock, name, _ctx):
        try:
            sock.fc_sni = name
        except AttributeError:
            pass
        return None
    ctx.sni_callback = on_sni


def audit_fields(h):
    """{"tls": "full"|"resumed", "sni": NAME} for the handler's connection;
    {} when it is not TLS or has not finished its handshake."""
    conn = getattr(h, "tls_conn", None) or getattr(h, "connection", None)   # tls_conn: an h2 stream's
    if not isinstance(conn, ssl.SSLSocket):
        return {}
    try:
        reused = conn.session_reused
    except (ValueError, OSError):
        return {}
    if reused is None:
        return {}
    out = {"tls": "resumed" if reused else "full"}
    sni = getattr(conn, "fc_sni", None)
    if sni:
        out["sni"] = sni
    return out


def stall(st, arg, sock):
    """--fault tls-stall[=N]: every TCP connection after the first N
    (default 1) gets no TLS handshake: its bytes are read and dropped until
    the client goes away (a server or middlebox that hangs mid-handshake).
    True when this connection is held."""
    n = st.faults.bump("tls-stall")
    if n <= (int(arg) if arg and arg.isdigit() else 1):
        return False

    def hold():
        try:
            while True:
                r, _, _ = select.select([sock], [], [], 600)
                if not r or not os.read(sock.fileno(), 65536):
                    break
        except OSError:
            pass
        finally:
            sock.close()
    threading.Thread(target=hold, daemon=True).start()
    return True
