"""fakecluster: resource.k8s.io ResourceClaims (DRA), GET only.

Scenario keys (additions to the contract, documented in README.md):

    resourceApi: [v1, v1beta1]      # versions served; default both; [] = group absent
    resourceClaims:                 # ResourceClaim objects, in a neutral form
      - name: decode-0-nic
        namespace: demo             # optional: the scenario namespace
        requests: [{name: nic, deviceClassName: dranet}]
        results: [{request: nic, driver: dra.net, pool: gpu-a2, device: pci-0000-8a-00-0}]

A pod's `spec.resourceClaims` entry with `resourceClaimTemplateName` gets the
claim the controller would make for it in `status.resourceClaimStatuses`:
`<pod>-<entry name>` (the real controller adds a random suffix; nothing
relies on the name's form).  Permissions `get-resourceclaims` and
`list-resourceclaims` (users listing `allow` need them; the default admin
has them).  The list is paged by `limit` and `continue` (an offset).

Shapes follow k8s.io/api resource/v1 and v1beta1: v1 puts the device class
under `requests[].exactly`, v1beta1 directly in the request; both put the
allocation in `status.allocation.devices.results[]`.  Errors are worded as
the API server words them.
"""
import copy

PERMS = ["get-resourceclaims", "list-resourceclaims"]
VERSIONS = ("v1", "v1beta1")
GROUP = "resource.k8s.io"


class Dra:
    def __init__(self, sc, default_ns):
        served = sc.get("resourceApi", list(VERSIONS))
        self.versions = [str(v) for v in (served or [])]
        for v in self.versions:
            if v not in VERSIONS:
                raise ValueError("resourceApi: unknown version %r (known: %s)" % (v, ", ".join(VERSIONS)))
        self.claims = {}
        for c in sc.get("resourceClaims") or []:
            ns = str(c.get("namespace", default_ns))
            self.claims[(ns, str(c["name"]))] = c

    def _obj(self, version, ns, c):
        reqs = []
        for r in c.get("requests") or []:
            body = {"deviceClassName": str(r.get("deviceClassName", "")), "allocationMode": "ExactCount",
                    "count": int(r.get("count", 1))}
            if version == "v1":
                reqs.append({"name": str(r.get("name", "req")), "exactly": body})
            else:
                reqs.append(dict([("name", str(r.get("name", "req")))] + list(body.items())))
        obj = {"kind": "ResourceClaim", "apiVersion": "%s/%s" % (GROUP, version),
               "metadata": {"name": str(c["name"]), "namespace": ns, "uid": "claim-" + str(c["name"]),
                            "resourceVersion": "500"},
               "spec": {"devices": {"requests": reqs}}, "status": {}}
        results = c.get("results")
        if results:
            obj["status"]["allocation"] = {"devices": {"results": copy.deepcopy(list(results))}}
        return obj

    def route(self, h, parts):
        """Answers /apis/resource.k8s.io/...; False for any other path."""
        if len(parts) < 4 or parts[0] != "apis" or parts[1] != GROUP:
            return False  # discovery stays fakecluster's
        if parts[2] not in self.versions:
            h.not_found_generic()
            return True
        if len(parts) == 6 and parts[3] == "namespaces" and parts[5] == "resourceclaims":
            self._list(h, parts[2], parts[4])
            return True
        if len(parts) != 7 or parts[3] != "namespaces" or parts[5] != "resourceclaims":
            h.not_found_generic()
            return True
        ns, name = parts[4], parts[6]
        if not h.user.can("get-resourceclaims"):
            msg = ('resourceclaims.%s "%s" is forbidden: User "%s" cannot get resource "resourceclaims" '
                   'in API group "%s" in the namespace "%s"' % (GROUP, name, h.user.name, GROUP, ns))
            h.send_status(403, "Forbidden", msg, {"name": name, "group": GROUP, "kind": "resourceclaims"})
            return True
        c = self.claims.get((ns, name))
        if c is None:
            h.send_status(404, "NotFound", 'resourceclaims.%s "%s" not found' % (GROUP, name),
                          {"name": name, "group": GROUP, "kind": "resourceclaims"})
            return True
        h.send_json(200, self._obj(parts[2], ns, c))
        return True

    def _list(self, h, version, ns):
        """ResourceClaimList, paged by limit/continue (the token: an offset)."""
        if not h.user.can("list-resourceclaims"):
            msg = ('resourceclaims.%s is forbidden: User "%s" cannot list resource "resourceclaims" '
                   'in API group "%s" in the namespace "%s"' % (GROUP, h.user.name, GROUP, ns))
            h.send_status(403, "Forbidden", msg, {"group": GROUP, "kind": "resourceclaims"})
            return
        names = sorted(n for (cns, n) in self.claims if cns == ns)
        try:
            start = int((h.q.get("continue") or ["0"])[0] or 0)
            limit = int((h.q.get("limit") or ["0"])[0] or 0)
        except ValueError:
            h.send_status(400, "BadRequest", "invalid continue or limit", {})
            return
        end = start + limit if limit > 0 else len(names)
        items = []
        for n in names[start:end]:
            o = self._obj(version, ns, self.claims[(ns, n)])
            del o["kind"], o["apiVersion"]
            items.append(o)
        md = {"resourceVersion": "600"}
        if end < len(names):
            md["continue"] = str(end)
        h.send_json(200, {"kind": "ResourceClaimList", "apiVersion": "%s/%s" % (GROUP, version),
                          "metadata": md, "items": items})

    @staticmethod
    def pod_status(pod_name, spec, status):
        """status.resourceClaimStatuses for the template-made claims."""
        out = []
        for rc in spec.get("resourceClaims") or []:
            if isinstance(rc, dict) and rc.get("resourceClaimTemplateName") and rc.get("name"):
                out.append({"name": rc["name"], "resourceClaimName": "%s-%s" % (pod_name, rc["name"])})
        if out:
            status["resourceClaimStatuses"] = out


def load(path, default_ns):
    """The scenario file's DRA part."""
    import yaml  # not at import time: the pod init imports this module too
    with open(path) as f:
        sc = yaml.safe_load(f) or {}
    return Dra(sc if isinstance(sc, dict) else {}, default_ns)
