"""fakecluster: nvidia.com DynamoGraphDeployments (the Dynamo operator's CR), GET and LIST.

Scenario key (an addition to the contract, documented in README.md):

    dynamoGraphDeployments:         # CR objects as the operator's CRD has them
      - apiVersion: nvidia.com/v1beta1    # or nvidia.com/v1alpha1: the version serving it
        metadata: {name: qwen, namespace: demo, annotations: {...}}
        spec: {...}
        status: {...}

    dynamoGraphDeploymentsBulk:     # optional: many generated v1beta1 objects, for a
      namespace: bulk               # list of tens of MiB (issue 37 item 5) without a
      count: 990                    # scenario file of that size: objects bulk-0..N-1,
      components: 3                 # each component with envEntries entries
      envEntries: 900               # {name: E<i>, value: <valueBytes x "v">}; served
      valueBytes: 2                 # in LIST answers only (no pod is of them)

The versions served are those the objects name; a scenario with none serves
no nvidia.com group (the generic 404, as when the CRD is not installed, but
403 first for a user without the rights, as RBAC runs before routing).
Permissions `get-dynamographdeployments` and `list-dynamographdeployments`
(a user whose `allow` lacks them gets the API server's 403).
"""
import copy
import email.utils
import json

PERMS = ["get-dynamographdeployments", "list-dynamographdeployments"]
GROUP = "nvidia.com"
RES = "dynamographdeployments"


class Dgd:
    def __init__(self, sc, default_ns):
        self.objs = []
        for o in sc.get("dynamoGraphDeployments") or []:
            o = copy.deepcopy(o)
            o.setdefault("kind", "DynamoGraphDeployment")
            o.setdefault("metadata", {}).setdefault("namespace", default_ns)
            self.objs.append(o)
        self.bulk = sc.get("dynamoGraphDeploymentsBulk")
        self.versions = sorted({str(o.get("apiVersion", "")).split("/")[-1] for o in self.objs}
                               | ({"v1beta1"} if self.bulk else set()))
        self._bulk_body = None

    def _bulk_items(self):
        """The generated objects as JSON text (joined items), made once."""
        if self._bulk_body is None:
            b = self.bulk
            val = "v" * int(b.get("valueBytes", 1))
            env = ",".join('{"name":"E%d","value":"%s"}' % (i, val)
                           for i in range(int(b.get("envEntries", 1))))
            comps = ",".join(
                '{"name":"c%d","type":"decode","replicas":1,"podTemplate":{"spec":'
                '{"containers":[{"name":"main","env":[%s]}]}}}' % (k, env)
                for k in range(int(b.get("components", 1))))
            self._bulk_body = ",".join(
                '{"apiVersion":"nvidia.com/v1beta1","kind":"DynamoGraphDeployment",'
                '"metadata":{"name":"bulk-%d","namespace":%s},"spec":{"components":[%s]}}'
                % (i, json.dumps(b.get("namespace", "bulk")), comps)
                for i in range(int(b.get("count", 1))))
        return self._bulk_body

    def _send_list(self, h, v, mine, ns):
        head = {"kind": "DynamoGraphDeploymentList", "apiVersion": "%s/%s" % (GROUP, v),
                "metadata": {"resourceVersion": "700"}, "items": mine}
        if not self.bulk or v != "v1beta1" or ns not in (None, self.bulk.get("namespace", "bulk")):
            h.send_json(200, head)
            return
        items = ",".join(json.dumps(o, separators=(",", ":")) for o in mine)
        head["items"] = []
        text = json.dumps(head, separators=(",", ":"))
        body = (text[:-2] + items + ("," if items else "") + self._bulk_items() + "]}\n").encode()
        headers = [("Cache-Control", "no-cache, private"), ("Content-Type", "application/json"),
                   ("Date", email.utils.formatdate(usegmt=True)), ("Content-Length", str(len(body)))]
        h.audit(200, len(body))
        h.write_response(200, headers, body)

    def _forbid(self, h, verb, ns, name=None):
        where = ' in the namespace "%s"' % ns if ns else " at the cluster scope"
        top = '%s.%s "%s"' % (RES, GROUP, name) if name else "%s.%s" % (RES, GROUP)
        msg = '%s is forbidden: User "%s" cannot %s resource "%s" in API group "%s"%s' % (
            top, h.user.name, verb, RES, GROUP, where)
        h.send_status(403, "Forbidden", msg, {"group": GROUP, "kind": RES})

    def route(self, h, parts):
        """Answers /apis/nvidia.com/...; False for any other path."""
        if len(parts) < 4 or parts[0] != "apis" or parts[1] != GROUP:
            return False
        v = parts[2]
        ns = name = None
        rest = parts[3:]
        if len(rest) >= 3 and rest[0] == "namespaces" and rest[2] == RES:
            ns, rest = rest[1], rest[3:]
        elif rest and rest[0] == RES:
            rest = rest[1:]
        else:
            h.not_found_generic()
            return True
        if len(rest) > 1:
            h.not_found_generic()
            return True
        name = rest[0] if rest else None
        # Authorization before routing, as a real API server: its filter
        # chain (k8s.io/apiserver pkg/server/config.go DefaultBuildHandlerChain)
        # wraps the API handler in WithAuthorization, which judges the
        # request's group/resource from the path alone.  So a user without
        # the rights gets 403 even where the CRD is not installed.
        perm = "get-" + RES if name else "list-" + RES
        if not h.user.can(perm):
            self._forbid(h, "get" if name else "list", ns, name)
            return True
        if v not in self.versions:
            h.not_found_generic()
            return True
        mine = [o for o in self.objs if str(o.get("apiVersion", "")).endswith("/" + v)
                and (ns is None or o["metadata"]["namespace"] == ns)]
        if name is not None:
            hit = [o for o in mine if o["metadata"].get("name") == name]
            if not hit:
                h.send_status(404, "NotFound", '%s.%s "%s" not found' % (RES, GROUP, name),
                              {"name": name, "group": GROUP, "kind": RES})
            else:
                h.send_json(200, hit[0])
            return True
        self._send_list(h, v, mine, ns)
        return True


def load(path, default_ns):
    """The scenario file's DGD part."""
    import yaml
    with open(path) as f:
        sc = yaml.safe_load(f) or {}
    return Dgd(sc if isinstance(sc, dict) else {}, default_ns)
