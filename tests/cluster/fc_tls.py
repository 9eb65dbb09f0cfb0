"""TLS facts of a request's connection for the --log line (issue 16):
whether its handshake resumed a session ("tls": "resumed") or was a full
one ("full"), so that a test can count full handshakes without timing
anything, and the server name the client sent ("sni", absent when none:
an IP address is never sent, RFC 6066 section 3).  Python's ssl module
reports reuse per connection (SSLSocket.session_reused) and hands the name
to SSLContext.sni_callback during the handshake."""
import ssl


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
    conn = getattr(h, "connection", None)
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
