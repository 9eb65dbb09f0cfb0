"""Scenario and profile loading: the scenario YAML (users, pods,
namespaces) into User and Pod objects, each pod's profile files (env,
limits, host-bin), and the Pod object the API serves (build_pod_obj, in the
shape of a v1.20 kubelet's status)."""
import copy
import hashlib
import os
import time
import uuid

import yaml

import fc_counters
import fc_metrics
import fc_dra
import fc_front
from fc_rbac import PERMS, User
from fc_wire import die, rfc3339


def deep_merge(base, over):
    if isinstance(base, dict) and isinstance(over, dict):
        out = dict(base)
        for k, v in over.items():
            out[k] = deep_merge(base[k], v) if k in base else copy.deepcopy(v)
        return out
    if isinstance(base, list) and isinstance(over, list) and \
            all(isinstance(x, dict) and "name" in x for x in base + over):
        out = [copy.deepcopy(x) for x in base]
        idx = {x["name"]: i for i, x in enumerate(out)}
        for x in over:
            if x["name"] in idx:
                out[idx[x["name"]]] = deep_merge(out[idx[x["name"]]], x)
            else:
                out.append(copy.deepcopy(x))
        return out
    return copy.deepcopy(over)


class Pod:
    pass


def read_env_file(path):
    env = {}
    if not path or not os.path.isfile(path):
        return None
    # surrogateescape: a byte that is not UTF-8 reaches the process as is
    # (a hostile image's environment, issue 12)
    with open(path, errors="surrogateescape") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if "=" not in line:
                continue
            k, v = line.split("=", 1)
            env[k] = v
    return env


def read_host_bin(path):
    """Profile file host-bin: absolute host paths of executables to show in
    the pod's /usr/local/bin; a missing one is left out (the tool then does
    not exist in the pod, as on an image without it)."""
    out = []
    if path and os.path.isfile(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("/") and os.path.isfile(line) and os.access(line, os.X_OK):
                    out.append(line)
    return out


MAKE_KINDS = ("fifo", "symlink", "text", "many")


def read_make(doc, path, name):
    """The pod's `make:` entries (tests/cluster/README.md): [(ABSOLUTE_PATH,
    {kind: ...})], each checked here so that a bad one stops the server at
    start, not a sandbox later."""
    out = []
    for dst, spec in (doc or {}).items():
        dst = str(dst)
        ok = dst.startswith("/") and isinstance(spec, dict) and \
            sum(1 for k in MAKE_KINDS if k in spec) == 1
        if ok and "many" in spec:
            ok = isinstance(spec["many"], int) and 0 < spec["many"] <= 100000 and \
                0 < int(spec.get("name_len", 16)) < 250
        if ok and "text" in spec:
            ok = isinstance(spec["text"], str) and int(spec.get("size", 0)) <= (1 << 40)
        if not ok:
            die("scenario %s: pod %s: make: %s: one of %s at an absolute path" % (
                path, name, dst, ", ".join(MAKE_KINDS)))
        out.append((dst, dict(spec)))
    return out


def read_limits(path):
    out = {}
    if path and os.path.isfile(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line or line.startswith("#") or "=" not in line:
                    continue
                k, v = line.split("=", 1)
                out[k.strip()] = v.strip()
    return out


def load_scenario(path, mode):
    with open(path) as f:
        sc = yaml.safe_load(f) or {}
    if not isinstance(sc, dict):
        die("scenario %s: not a mapping" % path)
    base = os.path.dirname(os.path.abspath(path))
    default_ns = str(sc.get("namespace", "default"))
    users = {}
    admin = User("admin", "token", token="fakecluster-admin-token", allow=None)
    users["admin"] = admin
    for u in sc.get("users") or []:
        name = str(u["name"])
        allow = u.get("allow")
        if allow is not None:
            allow = [str(a) for a in allow]
            for a in allow:
                if a not in PERMS:
                    die("scenario %s: user %s: unknown permission %r (known: %s)" % (path, name, a, ", ".join(PERMS)))
        if "exec" in u and isinstance(u["exec"], dict):
            ex = u["exec"]
            usr = User(name, "exec", token=str(ex.get("token", name + "-exec-token")), allow=allow,
                       api_version=str(ex.get("apiVersion", "client.authentication.k8s.io/v1")))
            usr.login_seconds = int(ex.get("loginSeconds", 0))   # fc_front.plugin_login
        elif u.get("clientCert"):
            usr = User(name, "cert", allow=allow)
        else:
            usr = User(name, "token", token=str(u.get("token", name + "-token")), allow=allow)
        if name == "admin" and allow is None:
            usr.allow = set(PERMS)
        users[name] = usr
    start = time.time()
    pods = []
    nodes = {}
    for i, p in enumerate(sc.get("pods") or []):
        pod = Pod()
        pod.name = str(p["name"])
        pod.namespace = str(p.get("namespace", default_ns))
        pod.node = p.get("node")
        pod.phase = str(p.get("phase", "Running"))
        pod.labels = {str(k): str(v) for k, v in (p.get("labels") or {}).items()}
        pod.annotations = {str(k): str(v) for k, v in (p.get("annotations") or {}).items()}
        conts = []
        for c in p.get("containers") or ["main"]:
            if isinstance(c, str):
                c = {"name": c}
            conts.append({"name": str(c["name"]), "image": str(c.get("image", "registry.local/fake/%s:latest" % c["name"])),
                          "running": bool(c.get("running", pod.phase == "Running")),
                          "ready": c.get("ready")})
        pod.containers = conts
        pod.spec_extra = p.get("spec") or {}
        logs = p.get("logs")
        if isinstance(logs, dict):
            pod.logs = {str(k): os.path.join(base, str(v)) for k, v in logs.items()}
        elif logs:
            pod.logs = {"*": os.path.join(base, str(logs))}
        else:
            pod.logs = {}
        prof = p.get("profile")
        pod.profile = os.path.join(base, str(prof)) if prof else None
        if pod.profile and not os.path.isdir(pod.profile):
            die("scenario %s: pod %s: profile directory %s does not exist" % (path, pod.name, pod.profile))
        pod.env = None
        pod.limits = {}
        if pod.profile:
            pod.env = read_env_file(os.path.join(pod.profile, "env"))
            pod.limits = read_limits(os.path.join(pod.profile, "limits"))
        if isinstance(p.get("env"), dict):  # extension: variables over the profile's env
            pod.env = dict(pod.env or {}, **{str(k): str(v) for k, v in p["env"].items()})
        # extension: files at absolute paths of the pod (a ConfigMap's keys
        # at its mount path), each from a file beside the scenario
        pod.files = [(str(k), os.path.join(base, str(v))) for k, v in (p.get("files") or {}).items()]
        for dst, src in pod.files:
            if not dst.startswith("/") or not os.path.isfile(src):
                die("scenario %s: pod %s: files: %s -> %s is no absolute path and file" % (path, pod.name, dst, src))
        pod.make = read_make(p.get("make"), path, pod.name)
        # extension (fc_counters.py): files whose numbers advance with time
        pod.counters = fc_counters.read_counters(p.get("counters"), lambda m: die(
            "scenario %s: pod %s: %s" % (path, pod.name, m)))
        # extension (fc_metrics.py): the worker's metrics behind the pod proxy
        pod.metrics = fc_metrics.read_metrics(p.get("metrics"), base, lambda m: die(
            "scenario %s: pod %s: %s" % (path, pod.name, m)))
        pod.host_bin = read_host_bin(os.path.join(pod.profile, "host-bin")) if pod.profile else []
        pod.index = i
        if pod.node is None and pod.phase != "Pending":
            pod.node = "node-1"
        if pod.node is not None:
            pod.node = str(pod.node)
            nodes.setdefault(pod.node, len(nodes) + 1)
        pod.uid = str(uuid.uuid5(uuid.NAMESPACE_URL, "fakecluster/%s/%s" % (pod.namespace, pod.name)))
        pod.rv = str(1000 + i)
        pod.created = rfc3339(start - 3600 + i)
        pod.started = rfc3339(start - 3500 + i)
        pod.ip = "10.88.%d.%d" % ((i + 2) // 250, (i + 2) % 250 + 1) if pod.phase in ("Running", "Succeeded", "Failed") and pod.node else None
        pod.host_ip = "192.0.2.%d" % (nodes[pod.node] + 1) if pod.node else None
        pod.obj = build_pod_obj(pod)
        fc_front.init_containers(pod)
        pods.append(pod)
    seen = set()
    for pod in pods:
        k = (pod.namespace, pod.name)
        if k in seen:
            die("scenario %s: duplicate pod %s/%s" % (path, pod.namespace, pod.name))
        seen.add(k)
    pods.sort(key=lambda p: (p.namespace, p.name))
    namespaces = sorted(set([default_ns, "default", "kube-system", "kube-public", "kube-node-lease"] +
                            [p.namespace for p in pods] + [str(n) for n in (sc.get("namespaces") or [])]))
    return default_ns, users, pods, namespaces, start


def build_pod_obj(pod):
    containers = []
    for c in pod.containers:
        containers.append({"name": c["name"], "image": c["image"], "resources": {},
                           "terminationMessagePath": "/dev/termination-log",
                           "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent"})
    spec = {"containers": containers, "restartPolicy": "Always", "terminationGracePeriodSeconds": 30,
            "dnsPolicy": "ClusterFirst", "serviceAccountName": "default", "serviceAccount": "default"}
    if pod.node:
        spec["nodeName"] = pod.node
    spec.update({"securityContext": {}, "schedulerName": "default-scheduler",
                 "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                                  "effect": "NoExecute", "tolerationSeconds": 300},
                                 {"key": "node.kubernetes.io/unreachable", "operator": "Exists",
                                  "effect": "NoExecute", "tolerationSeconds": 300}],
                 "priority": 0, "enableServiceLinks": True, "preemptionPolicy": "PreemptLowerPriority"})
    spec = deep_merge(spec, pod.spec_extra)
    md = {"name": pod.name, "namespace": pod.namespace, "uid": pod.uid, "resourceVersion": pod.rv,
          "creationTimestamp": pod.created}
    if pod.labels:
        md["labels"] = pod.labels
    if pod.annotations:
        md["annotations"] = pod.annotations
    allready = all(c["running"] and c["ready"] is not False for c in pod.containers)
    cstat = []
    for c in pod.containers:
        ready = c["running"] and c["ready"] is not False
        if c["running"]:
            state = {"running": {"startedAt": pod.started}}
        elif pod.phase == "Pending":
            state = {"waiting": {"reason": "ContainerCreating"}}
        elif pod.phase == "Succeeded":
            state = {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": pod.started,
                                    "finishedAt": pod.started}}
        elif pod.phase == "Failed":
            state = {"terminated": {"exitCode": 1, "reason": "Error", "startedAt": pod.started,
                                    "finishedAt": pod.started}}
        else:
            state = {"waiting": {"reason": "CrashLoopBackOff",
                                 "message": "back-off 5m0s restarting failed container=%s pod=%s" % (c["name"], pod.name)}}
        cs = {"name": c["name"], "state": state, "lastState": {}, "ready": ready,
              "restartCount": 0 if c["running"] or pod.phase != "Running" else 7, "image": c["image"],
              "imageID": "", "started": c["running"]}
        if c["running"] or pod.phase in ("Succeeded", "Failed"):
            cs["imageID"] = c["image"] + "@sha256:" + hashlib.sha256(c["image"].encode()).hexdigest()
            cs["containerID"] = "containerd://" + hashlib.sha256((pod.uid + c["name"]).encode()).hexdigest()
        cstat.append(cs)
    cond_t = pod.created
    if pod.phase == "Pending" and not pod.node:
        conds = [{"type": "PodScheduled", "status": "False", "lastProbeTime": None, "lastTransitionTime": cond_t,
                  "reason": "Unschedulable", "message": "0/1 nodes are available: 1 Insufficient nvidia.com/gpu."}]
    else:
        rs = "True" if allready and pod.phase == "Running" else "False"
        conds = [{"type": "Initialized", "status": "True", "lastProbeTime": None, "lastTransitionTime": cond_t},
                 {"type": "Ready", "status": rs, "lastProbeTime": None, "lastTransitionTime": cond_t},
                 {"type": "ContainersReady", "status": rs, "lastProbeTime": None, "lastTransitionTime": cond_t},
                 {"type": "PodScheduled", "status": "True", "lastProbeTime": None, "lastTransitionTime": cond_t}]
    status = {"phase": pod.phase, "conditions": conds}
    if pod.host_ip:
        status["hostIP"] = pod.host_ip
    if pod.ip:
        status["podIP"] = pod.ip
        status["podIPs"] = [{"ip": pod.ip}]
    if pod.node:
        status["startTime"] = pod.created
    if pod.node:
        status["containerStatuses"] = cstat
    status["qosClass"] = "BestEffort"
    fc_dra.Dra.pod_status(pod.name, spec, status)
    return {"metadata": md, "spec": spec, "status": status}
