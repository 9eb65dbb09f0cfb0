"""fakecluster wire formats: Go-compatible JSON (encoding/json's escaping
and the API server's indentation), Status objects, timestamps, and the one
way the server gives up at start (die)."""
import json
import sys
import time


def die(msg):
    sys.stderr.write("fakecluster: error: %s\n" % msg)
    sys.stderr.flush()
    sys.exit(1)


def gojson(obj):
    s = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    return s.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") \
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def gopretty(obj, level=0):
    ind = "  "
    if isinstance(obj, dict):
        if not obj:
            return "{\n" + ind * (level + 1) + "\n" + ind * level + "}"
        parts = [ind * (level + 1) + gojson(k) + ": " + gopretty(v, level + 1) for k, v in obj.items()]
        return "{\n" + ",\n".join(parts) + "\n" + ind * level + "}"
    if isinstance(obj, list):
        if not obj:
            return "[]"
        parts = [ind * (level + 1) + gopretty(v, level + 1) for v in obj]
        return "[\n" + ",\n".join(parts) + "\n" + ind * level + "]"
    return gojson(obj)


def status_obj(code, reason, message, details=None, with_kind=True):
    o = {}
    if with_kind:
        o["kind"] = "Status"
        o["apiVersion"] = "v1"
    o["metadata"] = {}
    o["status"] = "Failure"
    o["message"] = message
    o["reason"] = reason
    if details is not None:
        o["details"] = details
    o["code"] = code
    return o


def rfc3339(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def now_iso():
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".%03dZ" % int((t % 1) * 1000)
