#!/bin/sh
# Brings up a real single-node Kubernetes v1.20.2 on 127.0.0.1 from Debian
# bookworm packages: etcd, kube-apiserver, containerd + runc + bridge CNI,
# kubelet, and the test pods of manifests/.  Needs root.
#
#   sh tests/realcluster/up.sh        state in $DI_RC_STATE
#                                     (default /var/tmp/dynamo-interconnect-realcluster)
#
# Writes $DI_RC_STATE/kubeconfig (one context per user / auth form, see
# below).  down.sh stops exactly what this started (PID files in
# $DI_RC_STATE/pids) and removes what it created.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ST=${DI_RC_STATE:-/var/tmp/dynamo-interconnect-realcluster}
CACHE=${DI_K8S_CACHE:-/var/cache/dynamo-interconnect-k8s}
K8S_VERSION=v1.20.2
BIN=$CACHE/$K8S_VERSION
PY=/usr/bin/python3
ETCD_PORT=${DI_RC_ETCD_PORT:-23790}
API_PORT=${DI_RC_API_PORT:-16443}
KUBELET_PORT=${DI_RC_KUBELET_PORT:-20250}
BRIDGE=dicni0
SUBNET=10.250.77.0/24
# The apiserver reaches the kubelet by the node's name (Hostname address):
# "localhost" resolves to the loopback everywhere.
NODE=localhost
t0=$(date +%s)
log() { echo "up: [$(( $(date +%s) - t0 ))s] $*"; }

if [ "$(id -u)" != 0 ]; then
	echo "up: run as root" >&2
	exit 1
fi
if [ -d "$ST" ]; then
	log "stale state in $ST: running down.sh first"
	DI_RC_STATE=$ST sh "$HERE/down.sh" || true
fi

# --- packages (only when something is missing) ---
PKGS="etcd-server containerd runc containernetworking-plugins busybox-static
      iproute2 openssl gcc libc6-dev curl python3 python3-yaml"
missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	log "installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# --- kube-apiserver + kubelet (cached by version) ---
sh "$HERE/build_k8s.sh"
log "binaries ready"

mkdir -p "$ST/pids" "$ST/logs" "$ST/pki" "$ST/images"
# What exists before we start: down.sh removes only what we created.
for p in /var/log/pods /var/log/containers /var/lib/kubelet /run/containerd \
	/var/lib/cni /run/netns /var/run/netns; do
	[ -e "$p" ] && echo "$p"
done > "$ST/preexisting" || true
ls /run/netns 2>/dev/null > "$ST/netns.before" || true
echo "https://127.0.0.1:$API_PORT" > "$ST/server"

start() { # NAME CMD... : in the background, PID in pids/NAME, log in logs/NAME.log
	_n=$1
	shift
	"$@" >"$ST/logs/$_n.log" 2>&1 &
	echo $! > "$ST/pids/$_n"
}

# --- certificates and tokens ---
P=$ST/pki
cert() { # NAME SUBJECT [SAN]
	openssl req -new -newkey rsa:2048 -nodes -keyout "$P/$1.key" -out "$P/$1.csr" \
		-subj "$2" 2>/dev/null
	if [ -n "${3:-}" ]; then
		printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth,clientAuth\n' "$3" > "$P/$1.ext"
	else
		printf 'extendedKeyUsage=clientAuth\n' > "$P/$1.ext"
	fi
	openssl x509 -req -in "$P/$1.csr" -CA "$P/ca.crt" -CAkey "$P/ca.key" \
		-CAcreateserial -days 2 -out "$P/$1.crt" -extfile "$P/$1.ext" 2>/dev/null
}
openssl req -x509 -new -newkey rsa:2048 -nodes -keyout "$P/ca.key" -out "$P/ca.crt" \
	-days 2 -subj "/CN=dynamo-interconnect-realcluster-ca" 2>/dev/null
cert apiserver "/CN=kube-apiserver" "IP:127.0.0.1,DNS:localhost,DNS:kubernetes"
cert apiserver-kubelet "/O=system:masters/CN=kube-apiserver-kubelet-client"
cert kubelet "/CN=$NODE" "IP:127.0.0.1,DNS:localhost"
cert kubelet-client "/O=system:nodes/CN=system:node:$NODE"
cert admin "/O=system:masters/CN=di-admin"
openssl genrsa -out "$P/sa.key" 2048 2>/dev/null
openssl rsa -in "$P/sa.key" -pubout -out "$P/sa.pub" 2>/dev/null
tok() { od -An -N16 -tx1 /dev/urandom | tr -d ' \n'; }
T_ADMIN=$(tok) T_EXEC=$(tok) T_LIST=$(tok) T_CREATE=$(tok)
cat > "$ST/tokens.csv" <<EOT
$T_ADMIN,di-admin,uid-admin,"system:masters"
$T_EXEC,di-exec,uid-exec
$T_LIST,di-list,uid-list
$T_CREATE,di-create,uid-create
EOT
chmod 600 "$ST/tokens.csv"
log "certificates and tokens made"

# --- images: pause (gcc, static) and busybox-based pod images ---
gcc -static -O2 -o "$ST/images/pause" "$BIN/pause.c"
$PY "$HERE/mkimage.py" "$ST/images/pause.tar" docker.io/dynamo-interconnect/pause:3.4 \
	--file "/pause=$ST/images/pause" --cmd /pause
$PY "$HERE/mkimage.py" "$ST/images/busybox.tar" docker.io/dynamo-interconnect/busybox:1 --busybox
set -- 
for f in "$HERE"/image/tools/out/*.txt; do
	set -- "$@" --file "/usr/local/share/di-stub/${f##*/}=$f:644"
done
for t in ibstat ibv_devinfo nvidia-smi ucx_info; do
	set -- "$@" --file "/usr/local/bin/$t=$HERE/image/tools/$t:755"
done
$PY "$HERE/mkimage.py" "$ST/images/tools.tar" docker.io/dynamo-interconnect/tools:1 --busybox "$@"
log "images built"

# --- etcd ---
start etcd etcd --name di --data-dir "$ST/etcd" \
	--listen-client-urls "http://127.0.0.1:$ETCD_PORT" \
	--advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
	--listen-peer-urls "http://127.0.0.1:$((ETCD_PORT + 10))" \
	--initial-advertise-peer-urls "http://127.0.0.1:$((ETCD_PORT + 10))" \
	--initial-cluster "di=http://127.0.0.1:$((ETCD_PORT + 10))"
i=0
until curl -sf "http://127.0.0.1:$ETCD_PORT/health" >/dev/null; do
	i=$((i + 1)); [ $i -lt 60 ] || { echo "up: etcd not healthy" >&2; tail "$ST/logs/etcd.log" >&2; exit 1; }
	sleep 0.5
done
log "etcd healthy"

# --- kube-apiserver ---
start kube-apiserver "$BIN/kube-apiserver" \
	--etcd-servers="http://127.0.0.1:$ETCD_PORT" \
	--bind-address=127.0.0.1 --advertise-address=127.0.0.1 \
	--secure-port="$API_PORT" --insecure-port=0 --cert-dir="$ST/apiserver" \
	--tls-cert-file="$P/apiserver.crt" --tls-private-key-file="$P/apiserver.key" \
	--client-ca-file="$P/ca.crt" --token-auth-file="$ST/tokens.csv" \
	--authorization-mode=Node,RBAC \
	--kubelet-client-certificate="$P/apiserver-kubelet.crt" \
	--kubelet-client-key="$P/apiserver-kubelet.key" \
	--kubelet-preferred-address-types=Hostname \
	--service-cluster-ip-range=10.251.77.0/24 \
	--service-account-key-file="$P/sa.pub" \
	--service-account-signing-key-file="$P/sa.key" \
	--service-account-issuer=https://kubernetes.default.svc.cluster.local \
	--endpoint-reconciler-type=none --profiling=false
$PY "$HERE/kapi.py" "$ST" ready || { tail -20 "$ST/logs/kube-apiserver.log" >&2; exit 1; }
log "kube-apiserver ready"

# --- kube-controller-manager: service accounts, their token secrets (with
# the CA: the in-cluster Job reads both) and the Job controller.  The
# apiserver's ServiceAccount admission needs the first two. ---
certkc() { # FILE CERT: a kubeconfig for the client certificate pki/CERT.crt
	cat > "$1" <<EOT
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:$API_PORT", certificate-authority: "$P/ca.crt"}}]
users: [{name: u, user: {client-certificate: "$P/$2.crt", client-key: "$P/$2.key"}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
EOT
}
certkc "$ST/kcm.kubeconfig" admin
start kube-controller-manager "$BIN/kube-controller-manager" \
	--kubeconfig="$ST/kcm.kubeconfig" --leader-elect=false \
	--controllers=serviceaccount,serviceaccount-token,job \
	--service-account-private-key-file="$P/sa.key" --root-ca-file="$P/ca.crt" \
	--port=0 --secure-port=0 --profiling=false
log "kube-controller-manager started"

# --- containerd ---
C=$ST/containerd
mkdir -p "$C" "$ST/cni/net.d" "$ST/kubelet" "$ST/kubelet-plugins"
cat > "$ST/cni/net.d/10-di.conflist" <<EOT
{"cniVersion": "0.4.0", "name": "di-realcluster",
 "plugins": [{"type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": false,
              "ipam": {"type": "host-local", "ranges": [[{"subnet": "$SUBNET"}]],
                       "dataDir": "$ST/cni/ipam"}},
             {"type": "loopback"}]}
EOT
cat > "$C/config.toml" <<EOT
version = 2
root = "$C/root"
state = "$C/state"
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs",
                    "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.aufs"]
[grpc]
  address = "$C/containerd.sock"
[ttrpc]
  address = "$C/containerd.sock.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$C/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "docker.io/dynamo-interconnect/pause:3.4"
  # root here lacks CAP_SYS_RESOURCE: runc could not lower oom_score_adj
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  # pods' network namespaces in our state dir, not /run/netns
  netns_mounts_under_state_dir = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$ST/cni/net.d"
    max_conf_num = 1
EOT
start containerd containerd --config "$C/config.toml"
i=0
until ctr -a "$C/containerd.sock" version >/dev/null 2>&1; do
	i=$((i + 1)); [ $i -lt 60 ] || { echo "up: containerd not up" >&2; tail "$ST/logs/containerd.log" >&2; exit 1; }
	sleep 0.5
done
for im in pause busybox tools; do
	ctr -a "$C/containerd.sock" -n k8s.io images import "$ST/images/$im.tar" >/dev/null
done
# the plugin's own image (make image), for the in-cluster Job of test_real
if [ -n "${DI_RC_IMAGE:-}" ] && [ -f "$DI_RC_IMAGE" ]; then
	ctr -a "$C/containerd.sock" -n k8s.io images import "$DI_RC_IMAGE" >/dev/null
	echo "$DI_RC_IMAGE" > "$ST/plugin-image"
fi
log "containerd up, images imported"

# --- kubelet ---
certkc "$ST/kubelet.kubeconfig" kubelet-client
start kubelet "$BIN/kubelet" --kubeconfig="$ST/kubelet.kubeconfig" \
	--hostname-override="$NODE" --address=127.0.0.1 --port="$KUBELET_PORT" \
	--read-only-port=0 --healthz-port=0 \
	--root-dir="$ST/kubelet" --cert-dir="$ST/kubelet/pki" \
	--tls-cert-file="$P/kubelet.crt" --tls-private-key-file="$P/kubelet.key" \
	--client-ca-file="$P/ca.crt" --anonymous-auth=false --authorization-mode=AlwaysAllow \
	--container-runtime=remote \
	--container-runtime-endpoint="unix://$C/containerd.sock" \
	--containerd="$C/containerd.sock" \
	--pod-infra-container-image=docker.io/dynamo-interconnect/pause:3.4 \
	--fail-swap-on=false --cgroup-driver=cgroupfs \
	--cgroups-per-qos=false --enforce-node-allocatable= \
	--volume-plugin-dir="$ST/kubelet-plugins" --make-iptables-util-chains=false \
	--eviction-hard='memory.available<1Mi,nodefs.available<1%,imagefs.available<1%' \
	--image-gc-high-threshold=100 --image-gc-low-threshold=99 \
	--v=2
$PY "$HERE/kapi.py" "$ST" wait-node "$NODE" 120 || { tail -30 "$ST/logs/kubelet.log" >&2; exit 1; }
log "node $NODE Ready"

# --- users' rights and the test pods ---
sed "s/@NODE@/$NODE/" "$HERE/manifests/pods.yaml.in" > "$ST/pods.yaml"
$PY "$HERE/kapi.py" "$ST" apply "$HERE/manifests/rbac.yaml" "$ST/pods.yaml"
$PY "$HERE/kapi.py" "$ST" wait-pods dynamo-e2e 180 || { tail -30 "$ST/logs/kubelet.log" >&2; exit 1; }
log "pods Running"

# --- the kubeconfig: one context per user and auth form ---
b64() { base64 -w0 "$1"; }
echo "$T_EXEC" > "$ST/exec.token"
cat > "$ST/exec-plugin.sh" <<EOT
#!/bin/sh
# exec credential plugin: prints the di-exec user's token
printf '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"%s"}}\n' "$T_EXEC"
EOT
chmod 700 "$ST/exec-plugin.sh"
cat > "$ST/kubeconfig" <<EOT
apiVersion: v1
kind: Config
current-context: admin-cert
clusters:
- name: real
  cluster: {server: "https://127.0.0.1:$API_PORT", certificate-authority: "$P/ca.crt"}
- name: real-data
  cluster: {server: "https://127.0.0.1:$API_PORT", certificate-authority-data: "$(b64 "$P/ca.crt")"}
users:
- name: admin-cert
  user: {client-certificate: "$P/admin.crt", client-key: "$P/admin.key"}
- name: admin-certdata
  user: {client-certificate-data: "$(b64 "$P/admin.crt")", client-key-data: "$(b64 "$P/admin.key")"}
- name: exec-token
  user: {token: "$T_EXEC"}
- name: exec-tokenfile
  user: {tokenFile: "$ST/exec.token"}
- name: exec-plugin
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: "$ST/exec-plugin.sh", interactiveMode: Never}
- name: list-only
  user: {token: "$T_LIST"}
- name: create-only
  user: {token: "$T_CREATE"}
- name: bad-token
  user: {token: "not-a-valid-token-0000"}
contexts:
- {name: admin-cert, context: {cluster: real, user: admin-cert, namespace: dynamo-e2e}}
- {name: admin-certdata, context: {cluster: real-data, user: admin-certdata, namespace: dynamo-e2e}}
- {name: exec-token, context: {cluster: real, user: exec-token, namespace: dynamo-e2e}}
- {name: exec-tokenfile, context: {cluster: real, user: exec-tokenfile, namespace: dynamo-e2e}}
- {name: exec-plugin, context: {cluster: real, user: exec-plugin, namespace: dynamo-e2e}}
- {name: list-only, context: {cluster: real, user: list-only, namespace: dynamo-e2e}}
- {name: create-only, context: {cluster: real, user: create-only, namespace: dynamo-e2e}}
- {name: bad-token, context: {cluster: real, user: bad-token, namespace: dynamo-e2e}}
EOT
chmod 600 "$ST/kubeconfig"
log "cluster up: KUBECONFIG=$ST/kubeconfig"
