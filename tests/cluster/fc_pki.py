"""fakecluster TLS material and kubeconfig: a CA, the server certificate
and one client certificate per clientCert user (openssl CLI, in the
server's private temp dir), and the kubeconfig OUT with one user and
context per scenario user."""
import base64
import json
import os
import re
import subprocess

import yaml

import fc_front
from fc_wire import die


def openssl(args, cwd):
    r = subprocess.run(["openssl"] + args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        err = [l for l in r.stderr.decode(errors="replace").splitlines() if l.strip(".+*\n ")]
        die("openssl %s failed (exit %s): %s" % (" ".join(args[:2]), r.returncode, " / ".join(err[-3:])))


def make_pki(d, cert_users):
    openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt",
             "-days", "30", "-subj", "/CN=fakecluster-ca"], d)
    with open(os.path.join(d, "server.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n"
                "keyUsage=digitalSignature,keyEncipherment\nbasicConstraints=CA:FALSE\n")
    openssl(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
             "-subj", "/CN=kube-apiserver"], d)
    openssl(["x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
             "-out", "server.crt", "-days", "30", "-extfile", "server.ext"], d)
    with open(os.path.join(d, "client.ext"), "w") as f:
        f.write("extendedKeyUsage=clientAuth\nkeyUsage=digitalSignature,keyEncipherment\nbasicConstraints=CA:FALSE\n")
    out = {}
    for name in cert_users:
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
        openssl(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "u-%s.key" % safe, "-out",
                 "u-%s.csr" % safe, "-subj", "/CN=%s" % name], d)
        openssl(["x509", "-req", "-in", "u-%s.csr" % safe, "-CA", "ca.crt", "-CAkey", "ca.key",
                 "-CAcreateserial", "-out", "u-%s.crt" % safe, "-days", "30", "-extfile", "client.ext"], d)
        out[name] = (open(os.path.join(d, "u-%s.crt" % safe), "rb").read(),
                     open(os.path.join(d, "u-%s.key" % safe), "rb").read())
    return out


def b64(data):
    return base64.b64encode(data).decode()


def write_kubeconfig(path, url, ca_pem, users, cert_material, namespace, fresh_tokens=False):
    kdir = os.path.dirname(os.path.abspath(path))
    os.makedirs(kdir, exist_ok=True)
    kusers, contexts = [], []
    order = ["admin"] + [n for n in users if n != "admin"]
    for name in order:
        u = users[name]
        if u.kind == "token":
            entry = {"token": u.token}
        elif u.kind == "cert":
            crt, key = cert_material[name]
            entry = {"client-certificate-data": b64(crt), "client-key-data": b64(key)}
        else:
            plugin = os.path.join(kdir, "%s.exec-plugin-%s.sh" % (os.path.basename(path),
                                                                  re.sub(r"[^A-Za-z0-9_.-]", "_", name)))
            with open(plugin, "w") as f:
                f.write("#!/bin/sh\n# fakecluster exec credential plugin for user %s\n" % name)
                f.write(fc_front.plugin_login(u))
                if fresh_tokens:
                    # --fault token-expire: every run prints a new token "TOKEN.<suffix>"
                    f.write("printf '{\"apiVersion\":\"%%s\",\"kind\":\"ExecCredential\",\"status\":"
                            "{\"token\":\"%%s.%%s\"}}\\n' '%s' '%s' \"$(date +%%s%%N)-$$\"\n" % (u.api_version, u.token))
                else:
                    cred = {"apiVersion": u.api_version, "kind": "ExecCredential", "status": {"token": u.token}}
                    f.write("cat <<'EOF'\n%s\nEOF\n" % json.dumps(cred))
            os.chmod(plugin, 0o755)
            entry = {"exec": {"apiVersion": u.api_version, "command": plugin, "args": [],
                              "interactiveMode": "IfAvailable" if getattr(u, "login_seconds", 0) else "Never",
                              "provideClusterInfo": False}}
        kusers.append({"name": name, "user": entry})
        contexts.append({"name": "fakecluster" if name == "admin" else "fakecluster-%s" % name,
                         "context": {"cluster": "fakecluster", "user": name, "namespace": namespace}})
    cfg = {"apiVersion": "v1", "kind": "Config",
           "clusters": [{"name": "fakecluster", "cluster": {"server": url, "certificate-authority-data": b64(ca_pem)}}],
           "users": kusers, "contexts": contexts, "current-context": "fakecluster", "preferences": {}}
    tmp = path + ".tmp%d" % os.getpid()
    with open(tmp, "w") as f:
        yaml.safe_dump(cfg, f, default_flow_style=False, sort_keys=False)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)
