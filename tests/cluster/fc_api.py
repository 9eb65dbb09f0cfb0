"""The read-only API resources: namespaces, pod lists (selectors, paging,
kubectl's Table) and single pods, and pod logs.  A mixin of the request
handler (fc_http.Handler); faults hook in through self.st.faults
(fc_faults)."""
import base64
import email.utils
import json
import time
import uuid

from fc_selectors import SelectorError, field_match, label_match, parse_field_selector, parse_label_selector
from fc_wire import rfc3339


class ApiMixin:
    # ---- namespaces
    def ns_obj(self, ns):
        return {"metadata": {"name": ns, "uid": str(uuid.uuid5(uuid.NAMESPACE_URL, "fakecluster/ns/" + ns)),
                             "resourceVersion": "100", "creationTimestamp": rfc3339(self.st.start - 7200),
                             "labels": {"kubernetes.io/metadata.name": ns}},
                "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}}

    def list_namespaces(self):
        if not self.user.can("list-namespaces"):
            return self.forbid("list", "namespaces", None)
        items = [self.ns_obj(n) for n in self.st.namespaces]
        self.send_json(200, {"kind": "NamespaceList", "apiVersion": "v1",
                             "metadata": {"resourceVersion": self.st.list_rv}, "items": items}, allow_gzip=True)

    def get_namespace(self, ns):
        if not self.user.can("list-namespaces"):
            return self.forbid("get", "namespaces", None, ns)
        if ns not in self.st.namespaces:
            return self.send_status(404, "NotFound", 'namespaces "%s" not found' % ns,
                                    {"name": ns, "kind": "namespaces"})
        o = self.ns_obj(ns)
        o = dict([("kind", "Namespace"), ("apiVersion", "v1")] + list(o.items()))
        self.send_json(200, o)

    # ---- pods
    def find_pod(self, ns, name):
        return self.st.pod_index.get((ns, name))

    def wants_table(self):
        acc = self.headers.get("Accept", "")
        first = acc.split(",")[0]
        return "as=Table" in first

    def list_pods(self, ns):
        if not self.user.can("list-pods"):
            return self.forbid("list", "pods", ns)
        if self.st.faults.run("list", self):
            return
        try:
            lreqs = parse_label_selector(self.q.get("labelSelector", [""])[0])
            freqs = parse_field_selector(self.q.get("fieldSelector", [""])[0])
        except SelectorError as e:
            return self.send_status(400, "BadRequest", str(e))
        pods = [p for p in self.st.pods if (ns is None or p.namespace == ns)
                and label_match(lreqs, p.labels) and field_match(freqs, p.obj)]
        limit = 0
        try:
            limit = int(self.q.get("limit", ["0"])[0] or 0)
        except ValueError:
            limit = 0
        cont = self.q.get("continue", [""])[0]
        start_after = None
        if cont:
            try:
                tok = json.loads(base64.urlsafe_b64decode(cont.encode() + b"=" * (-len(cont) % 4)).decode())
                start_after = tuple(tok["start"].split("/", 1)) if tok.get("start") else None
                if tok.get("rv") != self.st.list_rv:
                    raise ValueError("resource version mismatch")
            except Exception as e:  # noqa
                return self.send_status(400, "BadRequest", "continue key is not valid: %s" % e)
        if start_after is not None:
            pods = [p for p in pods if (p.namespace, p.name) > start_after]
        md = {"resourceVersion": self.st.list_rv}
        if self.st.faults.flag("page"):
            pods = self.st.faults.filter("page", self, pods, limit, md)
        elif limit > 0 and len(pods) > limit:
            rest = len(pods) - limit
            pods = pods[:limit]
            last = pods[-1]
            md["continue"] = base64.urlsafe_b64encode(json.dumps(
                {"v": "meta.k8s.io/v1", "rv": self.st.list_rv, "start": "%s/%s" % (last.namespace, last.name)}
            ).encode()).decode().rstrip("=")
            md["remainingItemCount"] = rest
        if self.wants_table():
            return self.send_json(200, self.table(pods, md), allow_gzip=True)
        obj = {"kind": "PodList", "apiVersion": "v1", "metadata": md, "items": [p.obj for p in pods]}
        if self.st.faults.run("body", self, obj):
            return
        self.send_json(200, obj, allow_gzip=True)

    def table(self, pods, md):
        cols = [("Name", "string", "name", "Name must be unique within a namespace.", 0),
                ("Ready", "string", "", "The aggregate readiness state of this pod for accepting traffic.", 0),
                ("Status", "string", "", "The aggregate status of the containers in this pod.", 0),
                ("Restarts", "string", "", "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.", 0),
                ("Age", "string", "", "CreationTimestamp is a timestamp representing the server time when this object was created.", 0),
                ("IP", "string", "", "IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.", 1),
                ("Node", "string", "", "NodeName is a request to schedule this pod onto a specific node.", 1),
                ("Nominated Node", "string", "", "nominatedNodeName is set when this pod preempts other pods on the node.", 1),
                ("Readiness Gates", "string", "", "If specified, all readiness gates will be evaluated for pod readiness.", 1)]
        rows = []
        for p in pods:
            cs = p.obj["status"].get("containerStatuses", [])
            ready = sum(1 for c in cs if c.get("ready"))
            restarts = sum(c.get("restartCount", 0) for c in cs)
            reason = p.phase
            for c in cs:
                w = c.get("state", {}).get("waiting")
                if w and w.get("reason"):
                    reason = w["reason"]
            age = int(time.time() - self.st.start + 3600 - p.index)
            agestr = "%dm" % (age // 60) if age < 7200 else "%dh" % (age // 3600)
            meta = {"name": p.name, "namespace": p.namespace, "uid": p.uid, "resourceVersion": p.rv,
                    "creationTimestamp": p.created}
            if p.labels:
                meta["labels"] = p.labels
            obj = {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": meta}
            if self.q.get("includeObject", [""])[0] == "Object":
                obj = dict([("kind", "Pod"), ("apiVersion", "v1")] + list(p.obj.items()))
            rows.append({"cells": [p.name, "%d/%d" % (ready, len(p.containers)), reason, restarts, agestr,
                                   p.ip or "<none>", p.node or "<none>", "<none>", "<none>"],
                         "object": obj})
        return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": md,
                "columnDefinitions": [{"name": c[0], "type": c[1], "format": c[2], "description": c[3],
                                       "priority": c[4]} for c in cols],
                "rows": rows}

    def pod_missing(self, ns, name):
        return self.send_status(404, "NotFound", 'pods "%s" not found' % name, {"name": name, "kind": "pods"})

    def lookup_pod(self, ns, name, for_exec=False):
        pod = self.find_pod(ns, name)
        if pod is None:
            return None
        if self.st.faults.run("lookup", self, name, pod=name):
            return None
        return pod

    def get_pod(self, ns, name):
        if not self.user.can("get-pods"):
            return self.forbid("get", "pods", ns, name)
        pod = self.lookup_pod(ns, name)
        if pod is None:
            return self.pod_missing(ns, name)
        if self.wants_table():
            return self.send_json(200, self.table([pod], {"resourceVersion": self.st.list_rv}))
        o = dict([("kind", "Pod"), ("apiVersion", "v1")] + list(pod.obj.items()))
        self.send_json(200, o)

    def container_choice(self, pod, cname):
        """Returns (container dict, None) or (None, error message)."""
        names = [c["name"] for c in pod.obj["spec"].get("containers", [])]
        if not cname:
            if len(names) == 1:
                cname = names[0]
            else:
                return None, "a container name must be specified for pod %s, choose one of: [%s]" % (
                    pod.name, " ".join(names))
        for c in pod.containers + pod.init_containers:
            if c["name"] == cname:
                return c, None
        return None, "container %s is not valid for pod %s" % (cname, pod.name)

    def pod_container(self, ns, name):
        """The pod and the container ?container= names, for a log read or an
        exec; (None, None) once the 404 or 400 is sent."""
        pod = self.lookup_pod(ns, name)
        if pod is None:
            self.pod_missing(ns, name)
            return None, None
        c, err = self.container_choice(pod, self.q.get("container", [""])[0])
        if err:
            self.send_status(400, "BadRequest", err)
            return None, None
        return pod, c

    def pod_log(self, ns, name):
        if not self.user.can("logs"):
            return self.forbid("get", "pods/log", ns, name)
        pod, c = self.pod_container(ns, name)
        if pod is None:
            return None
        if not c["running"] and pod.phase in ("Pending", "Running"):
            return self.send_status(400, "BadRequest", 'container "%s" in pod "%s" is waiting to start: %s' % (
                c["name"], pod.name, "ContainerCreating" if pod.phase == "Pending" else "CrashLoopBackOff"))
        path = pod.logs.get(c["name"]) or pod.logs.get("*")
        data = b""
        if path:
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError:
                data = b""
        tl = self.q.get("tailLines", [""])[0]
        if tl:
            try:
                k = int(tl)
                lines = data.splitlines(True)
                data = b"".join(lines[-k:]) if k > 0 else b""
            except ValueError:
                return self.send_status(400, "BadRequest", "invalid tailLines %s" % tl)
        lb = self.q.get("limitBytes", [""])[0]
        if lb.isdigit():
            data = data[:int(lb)]
        data = self.st.faults.filter("log", self, data)
        headers = [("Cache-Control", "no-cache, private"), ("Content-Type", "text/plain"),
                   ("Date", email.utils.formatdate(usegmt=True))]
        self.audit(200, len(data))
        if len(data) > 2048:
            self.write_response(200, headers, data, chunked=True)
        else:
            headers.append(("Content-Length", str(len(data))))
            self.write_response(200, headers, data)
