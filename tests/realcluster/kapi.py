#!/usr/bin/python3
"""Tiny admin client for up.sh/down.sh (stdlib + python3-yaml).

  kapi.py STATE ready                 wait for /readyz
  kapi.py STATE apply FILE.yaml...    create every object (409 = already there)
  kapi.py STATE wait-node NAME SECS   wait for the node to be Ready
  kapi.py STATE wait-pods NS SECS     wait until every pod in NS that has a
                                      nodeName of a real node is Running
  kapi.py STATE delete-pods NS...     delete all pods now (grace 0), wait <= 30 s

STATE is up.sh's state directory (pki/ca.crt, pki/admin.crt, pki/admin.key,
server in STATE/server).
"""
import json
import ssl
import sys
import time
import urllib.error
import urllib.request

import yaml

ST = sys.argv[1]
SERVER = open(ST + "/server").read().strip()
CTX = ssl.create_default_context(cafile=ST + "/pki/ca.crt")
CTX.load_cert_chain(ST + "/pki/admin.crt", ST + "/pki/admin.key")

PLURAL = {"Namespace": "namespaces", "Pod": "pods", "ClusterRole": "clusterroles",
          "ClusterRoleBinding": "clusterrolebindings", "Role": "roles",
          "RoleBinding": "rolebindings", "ServiceAccount": "serviceaccounts", "Job": "jobs"}


def req(method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    r = urllib.request.Request(SERVER + path, data=data, method=method,
                               headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(r, context=CTX, timeout=10) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def path_for(obj):
    kind, api = obj["kind"], obj["apiVersion"]
    base = "/api/v1" if api == "v1" else "/apis/" + api
    ns = obj["metadata"].get("namespace")
    if ns and kind not in ("Namespace", "ClusterRole", "ClusterRoleBinding"):
        base += "/namespaces/" + ns
    return base + "/" + PLURAL[kind]


def post_retrying(obj, secs=30):
    """POST; while the ServiceAccount admission refuses a pod because the
    controller-manager has not made its namespace's service account yet
    (a namespace and its pods come in one file), again for up to secs."""
    end = time.time() + secs
    while True:
        code, body = req("POST", path_for(obj), obj)
        if code in (200, 201, 409) or b"service account" not in body or time.time() > end:
            return code, body
        time.sleep(0.5)


def apply(files):
    for fn in files:
        with open(fn) as f:
            for obj in yaml.safe_load_all(f):
                if not obj:
                    continue
                code, body = post_retrying(obj)
                if code not in (200, 201, 409):
                    sys.exit("kapi: %s %s: %d %s" % (obj["kind"],
                             obj["metadata"]["name"], code, body[:300]))


def ready(secs=60):
    end = time.time() + secs
    while time.time() < end:
        try:
            if req("GET", "/readyz")[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.5)
    sys.exit("kapi: apiserver not ready")


def wait_node(name, secs):
    end = time.time() + secs
    while time.time() < end:
        code, body = req("GET", "/api/v1/nodes/" + name)
        if code == 200:
            for c in json.loads(body).get("status", {}).get("conditions", []):
                if c["type"] == "Ready" and c["status"] == "True":
                    return
        time.sleep(1)
    sys.exit("kapi: node %s not Ready after %s s" % (name, secs))


def wait_pods(ns, secs):
    code, body = req("GET", "/api/v1/nodes")
    nodes = {n["metadata"]["name"] for n in json.loads(body)["items"]}
    end = time.time() + secs
    while True:
        code, body = req("GET", "/api/v1/namespaces/%s/pods" % ns)
        waiting = [p["metadata"]["name"] for p in json.loads(body)["items"]
                   if p["spec"].get("nodeName") in nodes
                   and p["status"].get("phase") != "Running"]
        if not waiting:
            return
        if time.time() > end:
            sys.exit("kapi: pods not Running after %s s: %s" % (secs, waiting))
        time.sleep(1)


def delete_pods(nss):
    """Pods on a real node: grace 1 s, so the kubelet stops them and tears
    their sandboxes down (CNI DEL, netns) before the object goes; others
    (the Pending pod): grace 0."""
    code, body = req("GET", "/api/v1/nodes")
    nodes = {n["metadata"]["name"] for n in json.loads(body)["items"]} if code == 200 else set()
    for ns in nss:
        code, body = req("GET", "/api/v1/namespaces/%s/pods" % ns)
        if code != 200:
            continue
        for p in json.loads(body)["items"]:
            grace = 1 if p["spec"].get("nodeName") in nodes else 0
            req("DELETE", "/api/v1/namespaces/%s/pods/%s?gracePeriodSeconds=%d"
                % (ns, p["metadata"]["name"], grace))
    end = time.time() + 40
    while time.time() < end:
        left = 0
        for ns in nss:
            code, body = req("GET", "/api/v1/namespaces/%s/pods" % ns)
            if code == 200:
                left += len(json.loads(body)["items"])
        if not left:
            return
        time.sleep(1)
    print("kapi: pods still present after 40 s", file=sys.stderr)


cmd = sys.argv[2]
if cmd == "ready":
    ready()
elif cmd == "apply":
    apply(sys.argv[3:])
elif cmd == "wait-node":
    wait_node(sys.argv[3], float(sys.argv[4]))
elif cmd == "wait-pods":
    wait_pods(sys.argv[3], float(sys.argv[4]))
elif cmd == "delete-pods":
    delete_pods(sys.argv[3:])
else:
    sys.exit("kapi: unknown command " + cmd)
