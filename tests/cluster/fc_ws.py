"""WebSocket framing (RFC 6455) for exec sessions: the server's frame
writer and the strict reader of client frames (masking required, reserved
bits and opcodes refused as x/net/websocket does), and the block reader
of --latency-ms mode."""
import base64
import hashlib
import os
import struct
import threading

WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class LineReader:
    """--latency-ms mode's rfile: reads the socket in blocks, not a byte at a
    time.  With rbufsize = 0, http.server's readline() does one SSL read per
    byte, and an exec URL carries the whole probe script (~20 KiB escaped):
    ~20000 reads per exec, which made this server, not the client, the
    bottleneck of a benchmark at hundreds of pods.  Bytes read past the
    headers (a client that pipelines frames before the 101) are handed to the
    WebSocket by take()."""

    def __init__(self, sock):
        self.sock = sock
        self.buf = b""
        self.closed = False

    def _fill(self):
        data = self.sock.recv(65536)
        self.buf += data
        return bool(data)

    def readline(self, limit=-1):
        while True:
            i = self.buf.find(b"\n")
            n = i + 1 if i >= 0 else len(self.buf)
            if limit is not None and 0 <= limit <= n:
                n = limit
            if i >= 0 or n == limit or not self._fill():
                line, self.buf = self.buf[:n], self.buf[n:]
                return line

    def read(self, n=-1):
        if not self.buf:
            if n is None or n < 0:
                while self._fill():
                    pass
            else:
                self._fill()
        if n is None or n < 0:
            n = len(self.buf)
        data, self.buf = self.buf[:n], self.buf[n:]
        return data

    def take(self):
        data, self.buf = self.buf, b""
        return data

    def close(self):
        self.closed = True


class WSClosed(Exception):
    pass


class WSProtocolError(Exception):
    def __init__(self, code, msg):
        Exception.__init__(self, msg)
        self.code = code


class WS:
    def __init__(self, sock, b64mode=False, mask_out=False):
        self.sock = sock
        self.b64 = b64mode
        self.mask_out = mask_out
        self.buf = b""
        self.frag = None     # (opcode, payload) of a fragmented message
        self.sent = 0
        self.lock = threading.Lock()

    def send_frame(self, opcode, payload, fin=True):
        b0 = (0x80 if fin else 0) | opcode
        n = len(payload)
        mbit = 0x80 if self.mask_out else 0
        if n < 126:
            hdr = struct.pack("!BB", b0, mbit | n)
        elif n < 65536:
            hdr = struct.pack("!BBH", b0, mbit | 126, n)
        else:
            hdr = struct.pack("!BBQ", b0, mbit | 127, n)
        if self.mask_out:
            key = os.urandom(4)
            payload = mask(payload, key)
            hdr += key
        with self.lock:
            self.sock.sendall(hdr + payload)
        self.sent += len(hdr) + n

    def send_data(self, ch, data):
        if self.b64:
            self.send_frame(1, bytes([0x30 + ch]) + base64.b64encode(data))
        else:
            self.send_frame(2, bytes([ch]) + data)

    def send_close(self, code=1000, reason=b""):
        self.send_frame(8, struct.pack("!H", code) + reason)

    def pending(self):
        try:
            return self.sock.pending()
        except AttributeError:
            return 0

    def feed(self):
        data = self.sock.recv(65536)
        if not data:
            raise WSClosed()
        self.buf += data

    def frames(self):
        """Parse complete frames from the buffer; yields (opcode, payload) of whole
        messages and control frames."""
        out = []
        while True:
            b = self.buf
            if len(b) < 2:
                return out
            b0, b1 = b[0], b[1]
            fin, rsv, op = b0 & 0x80, b0 & 0x70, b0 & 0x0F
            masked, n = b1 & 0x80, b1 & 0x7F
            pos = 2
            if n == 126:
                if len(b) < 4:
                    return out
                n = struct.unpack("!H", b[2:4])[0]
                pos = 4
            elif n == 127:
                if len(b) < 10:
                    return out
                n = struct.unpack("!Q", b[2:10])[0]
                pos = 10
                if n >> 63:
                    raise WSProtocolError(1002, "bad length")
            if rsv:
                raise WSProtocolError(1002, "reserved bits set")
            if not masked:
                raise WSProtocolError(1002, "client frame not masked")
            if n > 32 * 1024 * 1024:
                raise WSProtocolError(1009, "message too big")
            if len(b) < pos + 4 + n:
                return out
            key = b[pos:pos + 4]
            payload = mask(b[pos + 4:pos + 4 + n], key)
            self.buf = b[pos + 4 + n:]
            if op in (8, 9, 10):
                if not fin or n > 125:
                    raise WSProtocolError(1002, "bad control frame")
                out.append((op, payload))
            elif op in (1, 2):
                if self.frag is not None:
                    raise WSProtocolError(1002, "new message inside a fragmented one")
                if fin:
                    out.append((op, payload))
                else:
                    self.frag = (op, payload)
            elif op == 0:
                if self.frag is None:
                    raise WSProtocolError(1002, "continuation without start")
                self.frag = (self.frag[0], self.frag[1] + payload)
                if fin:
                    out.append(self.frag)
                    self.frag = None
            else:
                raise WSProtocolError(1002, "reserved opcode")


def mask(data, key):
    if not data:
        return data
    n = len(data)
    k = (key * ((n + 3) // 4))[:n]
    return (int.from_bytes(data, "big") ^ int.from_bytes(k, "big")).to_bytes(n, "big")


def ws_accept(key):
    return base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()
