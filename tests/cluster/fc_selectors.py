"""Label and field selectors of pod lists, parsed and worded as
k8s.io/apimachinery/pkg/labels/selector.go and the pod field label
conversion do (errors are the API server's 400 messages)."""
import re

from fc_wire import gojson


class SelectorError(Exception):
    pass


_SPECIAL = "=!(),<>"


def _lex(s):
    toks = []
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c.isspace():
            i += 1
            continue
        if c in _SPECIAL:
            two = s[i:i + 2]
            if two in ("==", "!="):
                toks.append((two, two))
                i += 2
                continue
            toks.append((c, c))
            i += 1
            continue
        j = i
        while j < n and not s[j].isspace() and s[j] not in _SPECIAL:
            j += 1
        w = s[i:j]
        i = j
        if w == "in":
            toks.append(("in", w))
        elif w == "notin":
            toks.append(("notin", w))
        else:
            toks.append(("id", w))
    toks.append(("eos", ""))
    return toks


_LABEL_KEY_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_DNS1123_SUB = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


def _validate_key(k):
    name = k
    if "/" in k:
        prefix, name = k.split("/", 1)
        if not prefix or len(prefix) > 253 or not _DNS1123_SUB.match(prefix):
            raise SelectorError("invalid label key %s: prefix part must be a valid DNS subdomain" % gojson(k))
    if not name or len(name) > 63 or not _LABEL_KEY_NAME.match(name):
        raise SelectorError("invalid label key %s: name part must consist of alphanumeric characters, "
                            "'-', '_' or '.', and must start and end with an alphanumeric character" % gojson(k))


def _validate_value(v):
    if len(v) > 63 or not _LABEL_VALUE.match(v):
        raise SelectorError("invalid label value: %s: at key: must be no more than 63 characters and "
                            "consist of alphanumeric characters, '-', '_' or '.'" % gojson(v))


def parse_label_selector(s):
    """Returns a list of (key, op, values).  Raises SelectorError."""
    toks = _lex(s)
    pos = [0]

    def peek():
        return toks[pos[0]]

    def take():
        t = toks[pos[0]]
        pos[0] += 1
        return t

    reqs = []
    if peek()[0] == "eos":
        return reqs
    while True:
        t, lit = peek()
        if t not in ("id", "!"):
            raise SelectorError("found '%s', expected: !, identifier, or 'end of string'" % lit)
        try:
            reqs.append(_parse_req(take, peek))
        except SelectorError as e:
            raise SelectorError("unable to parse requirement: %s" % e)
        t, lit = take()
        if t == "eos":
            return reqs
        if t == ",":
            t2, l2 = peek()
            if t2 not in ("id", "!"):
                raise SelectorError("found '%s', expected: identifier after ','" % l2)
            continue
        raise SelectorError("found '%s', expected: ',' or 'end of string'" % lit)


def _parse_req(take, peek):
    op = None
    t, lit = take()
    if t == "!":
        op = "!"
        t, lit = take()
    if t != "id":
        raise SelectorError("found '%s', expected: identifier" % lit)
    key = lit
    _validate_key(key)
    if peek()[0] in ("eos", ","):
        return (key, "!" if op == "!" else "exists", [])
    if op == "!":
        raise SelectorError("found '%s', expected: ',' or 'end of string'" % peek()[1])
    t, lit = take()
    if t not in ("in", "notin", "=", "==", "!="):
        raise SelectorError("found '%s', expected: in, notin, =, ==, !=, gt, lt" % lit)
    op = {"==": "="}.get(t, t)
    if op in ("in", "notin"):
        t2, l2 = take()
        if t2 != "(":
            raise SelectorError("found '%s', expected: '('" % l2)
        vals = []
        while True:
            t3, l3 = take()
            if t3 == ")":
                if not vals:
                    vals.append("")
                break
            if t3 == "id" or t3 in ("in", "notin"):
                vals.append(l3)
                t4, l4 = take()
                if t4 == ")":
                    break
                if t4 != ",":
                    raise SelectorError("found '%s', expected: ',' or ')'" % l4)
                continue
            if t3 == ",":
                vals.append("")
                continue
            raise SelectorError("found '%s', expected: ',', ')' or identifier" % l3)
        for v in vals:
            _validate_value(v)
        return (key, op, vals)
    t3, l3 = peek()
    if t3 in ("eos", ","):
        val = ""
    elif t3 in ("id", "in", "notin"):
        take()
        val = l3
    else:
        raise SelectorError("found '%s', expected: identifier" % l3)
    _validate_value(val)
    return (key, op, [val])


def label_match(reqs, labels):
    for key, op, vals in reqs:
        has = key in labels
        if op == "exists":
            if not has:
                return False
        elif op == "!":
            if has:
                return False
        elif op == "=":
            if not has or labels[key] != vals[0]:
                return False
        elif op == "!=":
            if has and labels[key] == vals[0]:
                return False
        elif op == "in":
            if not has or labels[key] not in vals:
                return False
        elif op == "notin":
            if has and labels[key] in vals:
                return False
    return True


POD_FIELDS = {
    "metadata.name": lambda p: p["metadata"]["name"],
    "metadata.namespace": lambda p: p["metadata"]["namespace"],
    "spec.nodeName": lambda p: p["spec"].get("nodeName", ""),
    "spec.restartPolicy": lambda p: p["spec"].get("restartPolicy", ""),
    "spec.schedulerName": lambda p: p["spec"].get("schedulerName", ""),
    "spec.serviceAccountName": lambda p: p["spec"].get("serviceAccountName", ""),
    "status.phase": lambda p: p["status"].get("phase", ""),
    "status.podIP": lambda p: p["status"].get("podIP", ""),
    "status.nominatedNodeName": lambda p: p["status"].get("nominatedNodeName", ""),
}


def parse_field_selector(s):
    reqs = []
    if not s.strip():
        return reqs
    for part in s.split(","):
        part = part.strip()
        m = re.match(r"^([^=!]+)(==|=|!=)(.*)$", part)
        if not m:
            raise SelectorError("invalid selector: '%s'; can't understand '%s'" % (s, part))
        field, op, val = m.group(1).strip(), m.group(2), m.group(3).strip()
        if field not in POD_FIELDS:
            raise SelectorError('field label not supported: %s' % field)
        reqs.append((field, "!=" if op == "!=" else "=", val))
    return reqs


def field_match(reqs, pod):
    for field, op, val in reqs:
        v = POD_FIELDS[field](pod)
        if (op == "=") != (v == val):
            return False
    return True
