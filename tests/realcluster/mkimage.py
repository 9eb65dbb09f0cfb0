#!/usr/bin/python3
"""Writes a single-layer OCI image archive for `ctr -n k8s.io images import`.

  mkimage.py OUT.tar NAME [--busybox] [--file DEST=SRC[:MODE]]... [--cmd ARG]...

--busybox puts Debian's static /bin/busybox in /bin with one symlink per
applet.  NAME is the full reference, e.g. docker.io/dynamo-interconnect/pod:1.
Stdlib only; the layer is an uncompressed, deterministic tar.
"""
import hashlib
import io
import json
import subprocess
import sys
import tarfile

BUSYBOX = "/bin/busybox"


def add(tar, name, data=None, mode=0o755, kind=tarfile.REGTYPE, link=""):
    ti = tarfile.TarInfo(name)
    ti.mode = mode
    ti.type = kind
    ti.mtime = 0
    ti.linkname = link
    if data is not None:
        ti.size = len(data)
        tar.addfile(ti, io.BytesIO(data))
    else:
        tar.addfile(ti)


def main(argv):
    out, ref = argv[0], argv[1]
    files, cmd, busybox = [], [], False
    i = 2
    while i < len(argv):
        a = argv[i]
        if a == "--busybox":
            busybox = True
        elif a == "--file":
            i += 1
            dest, src = argv[i].split("=", 1)
            mode = 0o755
            if ":" in src:
                src, m = src.rsplit(":", 1)
                mode = int(m, 8)
            files.append((dest.lstrip("/"), src, mode))
        elif a == "--cmd":
            i += 1
            cmd.append(argv[i])
        else:
            sys.exit("mkimage: unknown argument " + a)
        i += 1

    layer = io.BytesIO()
    with tarfile.open(fileobj=layer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        dirs = set()

        def mkdirs(path):
            parts = path.split("/")[:-1]
            for n in range(1, len(parts) + 1):
                d = "/".join(parts[:n])
                if d not in dirs:
                    dirs.add(d)
                    add(tar, d, mode=0o755, kind=tarfile.DIRTYPE)

        for d in ("tmp/", "etc/", "proc/", "sys/", "dev/", "bin/"):
            mkdirs(d)
        if busybox:
            with open(BUSYBOX, "rb") as f:
                add(tar, "bin/busybox", f.read())
            applets = subprocess.run([BUSYBOX, "--list"], check=True,
                                     capture_output=True, text=True).stdout.split()
            for ap in sorted(set(applets)):
                if ap != "busybox":
                    add(tar, "bin/" + ap, kind=tarfile.SYMTYPE, link="busybox")
            add(tar, "etc/passwd", b"root:x:0:0:root:/root:/bin/sh\n", 0o644)
            add(tar, "etc/group", b"root:x:0:\n", 0o644)
        for dest, src, mode in files:
            mkdirs(dest)
            with open(src, "rb") as f:
                add(tar, dest, f.read(), mode)
    layer_bytes = layer.getvalue()

    blobs = {}

    def blob(data):
        d = hashlib.sha256(data).hexdigest()
        blobs[d] = data
        return "sha256:" + d, len(data)

    ldig, lsize = blob(layer_bytes)
    config = {
        "architecture": "amd64", "os": "linux",
        "config": {"Env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],
                   "Cmd": cmd or ["/bin/sh"], "WorkingDir": "/"},
        "rootfs": {"type": "layers", "diff_ids": [ldig]},
        "history": [{"created_by": "tests/realcluster/mkimage.py"}],
    }
    cdig, csize = blob(json.dumps(config, sort_keys=True).encode())
    manifest = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json",
                   "digest": cdig, "size": csize},
        "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar",
                    "digest": ldig, "size": lsize}],
    }
    mdig, msize = blob(json.dumps(manifest, sort_keys=True).encode())
    index = {
        "schemaVersion": 2,
        "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json",
                       "digest": mdig, "size": msize,
                       "annotations": {"io.containerd.image.name": ref,
                                       "org.opencontainers.image.ref.name": ref.rsplit(":", 1)[1]}}],
    }
    with tarfile.open(out, "w", format=tarfile.PAX_FORMAT) as tar:
        add(tar, "oci-layout", json.dumps({"imageLayoutVersion": "1.0.0"}).encode(), 0o644)
        add(tar, "index.json", json.dumps(index).encode(), 0o644)
        add(tar, "blobs/", mode=0o755, kind=tarfile.DIRTYPE)
        add(tar, "blobs/sha256/", mode=0o755, kind=tarfile.DIRTYPE)
        for d, data in sorted(blobs.items()):
            add(tar, "blobs/sha256/" + d, data, 0o644)


if __name__ == "__main__":
    main(sys.argv[1:])
