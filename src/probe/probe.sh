#!/bin/sh
# dynamo-interconnect probe, report format v1 (parsed by src/probe/report.c).
#
# Read-only: reads files and runs read-only tools, writes nothing, takes no
# input but check --observe's window (one integer: observe_counters).
# POSIX sh; works with only sh, cat, ls, grep, sed, awk, head, tr
# (each optional except sh), and without `timeout` (tools then run unbounded).
# The image cannot stall it: a file is opened only when it is a regular file
# (`-f`: no FIFO, no /dev/zero link), read through `head -c` (else `dd`) up to
# a byte bound, its lines cut to a length bound; a timed tool gets SIGTERM,
# then SIGKILL 2 s later (`timeout -k`), and whatever it left in its process
# group is killed when it returns; directory listings stop at a count.
#
# Output: "dynamo-interconnect-probe v1", then sections
#   @@@ NAME
#   ...output, lines starting "@@@" escaped as " @@@", capped per section...
#   @@@ end NAME rc=N        (127: absent, 124: timed out)
# and "@@@ done" last.  Environment variables are filtered here, in the pod,
# to transport names: no other variable ever leaves it, except the main
# process's LD_LIBRARY_PATH and LD_PRELOAD (library paths, in section
# nixl_stack: the loader's search order that checks.md F6 replays).

# Its own cost (issue 46, section probe_cost last): the node's uptime at the
# start, read by the shell itself (no process, no file left open).
_pc_t0=
{ read -r _pc_t0 _pc_x </proc/uptime; } 2>/dev/null
PATH=$PATH:/usr/sbin:/sbin:/usr/local/bin:/opt/amazon/efa/bin:/usr/local/ucx/bin:/opt/hpcx/ucx/bin
export PATH
LC_ALL=C
export LC_ALL

have() { command -v "$1" >/dev/null 2>&1; }

_nl='
'

# How to bound a tool: coreutils/new busybox `timeout 5 cmd` (with `-k 2`
# where it takes it: a tool that ignores SIGTERM would keep timeout waiting),
# old busybox `timeout -t 5 cmd` (exits 143 on expiry), or not at all.
TMODE=none
TKILL=
TBB=
if have timeout; then
	if timeout -k 2 5 sh -c : >/dev/null 2>&1; then
		TMODE=coreutils
		TKILL=1
	elif timeout 5 sh -c : >/dev/null 2>&1; then
		TMODE=coreutils
	elif timeout -t 5 sh -c : >/dev/null 2>&1; then
		TMODE=busybox
	fi
	# GNU's names itself; busybox's has no --version
	case $(timeout --version 2>&1 </dev/null) in
	*"GNU coreutils"*) ;;
	*) TBB=1 ;;
	esac
fi
# A tool that is not under coreutils' timeout (busybox's, or none) gets a
# session and process group of its own from setsid where the image has it.
TSID=
[ "$TMODE$TBB" != coreutils ] && have setsid && TSID=setsid

# bounded SECONDS CMD...: runs CMD under the time limit when possible.
# coreutils' timeout puts CMD in a process group of its own (timeout.c
# setpgid), whose id is timeout's pid; busybox's timeout execs CMD in its
# own pid, which setsid makes a group too.  Killing that group after CMD
# returns ends whatever it left running (a child holding our pipe would
# keep the command substitution reading, one ignoring SIGTERM would stay in
# the pod).  An asynchronous list reads /dev/null: stdin goes through fd 3.
bounded() {
	_s=$1
	shift
	case $TMODE$TKILL in
	coreutils1) set -- timeout -k 2 "$_s" $TSID "$@" ;;
	coreutils) set -- timeout "$_s" $TSID "$@" ;;
	busybox) set -- timeout -t "$_s" $TSID "$@" ;;
	*)
		if [ -z "$TSID" ]; then
			"$@"
			return
		fi
		set -- setsid "$@" ;;
	esac
	{ "$@" <&3 3<&- & } 3<&0
	_bp=$!
	wait "$_bp" 2>/dev/null
	_brc=$?
	kill -KILL -"$_bp" 2>/dev/null
	# the time limit's signals: 137 the -k SIGKILL (coreutils timeout.c),
	# 143 busybox's SIGTERM (its exit status is the tool's)
	if [ "$_brc" = 137 ] && [ -n "$TKILL" ]; then
		_brc=124
	elif [ "$_brc" = 143 ] && [ -n "$TBB" ]; then
		_brc=124
	fi
	return "$_brc"
}

# bread BYTES FILE: at most BYTES bytes of FILE (head -c, else dd); neither:
# nothing, status 2 (an unbounded read of the image's text could be endless).
bread() {
	if have head; then
		head -c "$1" <"$2"
	elif have dd; then
		dd if="$2" bs="$1" count=1 2>/dev/null
	else
		return 2
	fi
}

# lines MAXLINES MAXLEN: stdin's first MAXLINES lines, each cut to MAXLEN
# characters, control characters made blanks; status 3 when anything was cut
# (more lines, a longer line, or more than 64 KiB: bread's bound).  Without
# awk the lines are passed as they are (bread bounds them).
lines() {
	if have awk; then
		awk -v max="$1" -v len="$2" '{
			n += length($0) + 1
			if (NR > max) { cut = 1; exit }
			if (n > 65536) cut = 1
			gsub(/[\001-\037\177]/, " ")
			if (length($0) > len) { $0 = substr($0, 1, len); cut = 1 }
			print
			if (cut) exit
		}
		END { exit cut ? 3 : 0 }'
	else
		cat
	fi
}

# names KEY PATH...: "KEY=NAME" for each PATH that exists (its last
# component), at most 64 (a directory of the image may hold any number),
# with no fork but for a name with a newline, which goes through put (it
# could forge a marker line).  Status 0 when it listed one.
names() {
	_nk=$1
	shift
	_ni=0
	for _f do
		[ -e "$_f" ] || continue
		_ni=$((_ni + 1))
		[ "$_ni" -le 64 ] || break
		case $_f in
		*"$_nl"*) put "$_nk=${_f##*/}" ;;
		*) printf '%s=%s\n' "$_nk" "${_f##*/}" ;;
		esac
	done
	[ "$_ni" -gt 0 ]
}

# emit MAXBYTES: copies stdin, escaping marker lines and stopping at the cap.
emit() {
	if have awk; then
		awk -v max="$1" '{
			n += length($0) + 1
			if (n > max) { print "[probe: output truncated]"; exit }
			if (substr($0, 1, 3) == "@@@") $0 = " " $0
			print
		}'
	elif have sed && have head; then
		head -c "$1" | sed 's/^@@@/ @@@/'
		echo
	else
		while IFS= read -r _l; do
			case $_l in @@@*) _l=" $_l" ;; esac
			printf '%s\n' "$_l"
		done
	fi
}

# put TEXT: one value that comes from the pod (a file name, a variable) as
# a line of the section: a newline in it cannot start a marker line.
put() { printf '%s\n' "$1" | emit 4096; }

begin() { echo "@@@ $1"; }
end() { echo "@@@ end $1 rc=$2"; }

# tool NAME MAXBYTES SECONDS CMD...: one section with CMD's output and status.
tool() {
	_n=$1 _m=$2 _t=$3
	shift 3
	tool_keep "$_n" "$_t" "$_m" "$_m" '' "$@"
}

# tool_keep NAME SECONDS KEPT WHOLE ERE CMD...: tool's section, but of a
# long output only the lines matching ERE (what the section's parser reads)
# leave the pod, at most KEPT bytes; with ERE '' or without grep the whole
# output does, at most WHOLE bytes (issue 46: the bytes a pod sends).
tool_keep() {
	_n=$1 _t=$2 _k=$3 _w=$4 _e=$5
	shift 5
	begin "$_n"
	if ! have "$1"; then
		end "$_n" 127
		return
	fi
	_out=$(bounded "$_t" "$@" 2>&1 </dev/null)
	_rc=$?
	[ "$TMODE" = busybox ] && [ "$_rc" = 143 ] && _rc=124
	if [ -z "$_out" ]; then
		:
	elif [ -n "$_e" ] && have grep; then
		printf '%s\n' "$_out" | grep -E "$_e" | emit "$_k"
	else
		printf '%s\n' "$_out" | emit "$_w"
	fi
	end "$_n" "$_rc"
}

# readfile NAME PATH: one section with a file's first 64 KiB, 127 when it is
# absent, 1 when it is no regular file or unreadable.  Without head and dd
# only the kernel's /proc files are read whole.
readfile() {
	begin "$1"
	if [ ! -e "$2" ]; then
		end "$1" 127
	elif [ ! -f "$2" ]; then
		echo "not a regular file: $2"
		end "$1" 1
	elif [ ! -r "$2" ]; then
		echo "permission denied: $2"
		end "$1" 1
	elif have head || have dd; then
		bread 65536 "$2" | emit 65536
		end "$1" 0
	else
		case $2 in
		/proc/*)
			emit 65536 <"$2"
			end "$1" 0 ;;
		*)
			echo "no head or dd to read $2"
			end "$1" 1 ;;
		esac
	fi
}

# rd PATH: the first line of a sysfs attribute into $v (no fork; sysfs files
# may lack a final newline, and unused GID slots fail to read).
rd() {
	v=
	IFS= read -r v <"$1" 2>/dev/null || [ -n "$v" ]
}

# Transport variable names (env-vars.md sections 1-6).
# Mooncake's MC_* transport variables (MC_GID_INDEX, MC_IB_PORT, ...) are
# kept, and the KV-transfer variables of SGLang (SGLANG_DISAGGREGATION_*,
# SGLANG_MOONCAKE_*, SGLANG_*_IB_*) and TensorRT-LLM (TRTLLM_UCX_*,
# TRTLLM_NIXL_*, TRTLLM_*KVCACHE*), but none of their credentials or
# metadata-server URLs (MC_REDIS_PASSWORD, MC_METADATA_SERVER): secrets
# never leave the pod (model/vocab.c keeps the same).  PYTORCH_CUDA_ALLOC_CONF
# (an allocator setting, never a secret) for the known-issues row
# kvcache-ai/Mooncake#2511 (expandable_segments).
# VLLM_KV_CACHE_FABRIC and SGLANG_NIXL_VMM_MEM_POOL (KV allocated with a
# CUDA fabric handle, a yes/no switch) for the MNNVL pair rule (D6).
# CUDA_VISIBLE_DEVICES (GPU indices or UUIDs) for the GPUs a Mooncake
# process uses (E8).
env_filter() {
	if have grep; then
		grep -E '^(UCX_|NIXL_|NCCL_|FI_|OFI_NCCL_|MOONCAKE_|VLLM_NIXL_|MC_|SGLANG_DISAGGREGATION_|SGLANG_MOONCAKE_|TRTLLM_UCX_|TRTLLM_NIXL_)[A-Za-z0-9_]*=|^SGLANG_[A-Za-z0-9_]*_IB_[A-Za-z0-9_]*=|^TRTLLM_[A-Za-z0-9_]*KVCACHE[A-Za-z0-9_]*=|^(GLOO_SOCKET_IFNAME|TP_SOCKET_IFNAME|OMPI_MCA_btl_tcp_if_include|VLLM_HOST_IP|MASTER_ADDR|PYTORCH_CUDA_ALLOC_CONF|VLLM_KV_CACHE_FABRIC|SGLANG_NIXL_VMM_MEM_POOL|CUDA_VISIBLE_DEVICES)=' |
			grep -Ev '^(MC|SGLANG|TRTLLM)_[A-Za-z0-9_]*(PASSWORD|PASSWD|SECRET|TOKEN|CREDENTIAL|USER|KEY|SERVER|URL)[A-Za-z0-9_]*='
	else
		while IFS= read -r _l; do
			case $_l in
			MC_*PASSWORD*=* | MC_*PASSWD*=* | MC_*SECRET*=* | MC_*TOKEN*=* | \
			MC_*CREDENTIAL*=* | MC_*USER*=* | MC_*KEY*=* | MC_*SERVER*=* | \
			MC_*URL*=*) ;;
			SGLANG_*PASSWORD*=* | SGLANG_*PASSWD*=* | SGLANG_*SECRET*=* | \
			SGLANG_*TOKEN*=* | SGLANG_*CREDENTIAL*=* | SGLANG_*USER*=* | \
			SGLANG_*KEY*=* | SGLANG_*SERVER*=* | SGLANG_*URL*=*) ;;
			TRTLLM_*PASSWORD*=* | TRTLLM_*PASSWD*=* | TRTLLM_*SECRET*=* | \
			TRTLLM_*TOKEN*=* | TRTLLM_*CREDENTIAL*=* | TRTLLM_*USER*=* | \
			TRTLLM_*KEY*=* | TRTLLM_*SERVER*=* | TRTLLM_*URL*=*) ;;
			UCX_?*=* | NIXL_?*=* | NCCL_?*=* | FI_?*=* | OFI_NCCL_?*=* | \
			MOONCAKE_?*=* | VLLM_NIXL_?*=* | MC_?*=* | GLOO_SOCKET_IFNAME=* | \
			TP_SOCKET_IFNAME=* | OMPI_MCA_btl_tcp_if_include=* | \
			VLLM_HOST_IP=* | MASTER_ADDR=* | PYTORCH_CUDA_ALLOC_CONF=* | \
			SGLANG_DISAGGREGATION_?*=* | SGLANG_MOONCAKE_?*=* | \
			SGLANG_*_IB_*=* | TRTLLM_UCX_?*=* | TRTLLM_NIXL_?*=* | \
			TRTLLM_*KVCACHE*=* | VLLM_KV_CACHE_FABRIC=* | \
			SGLANG_NIXL_VMM_MEM_POOL=* | CUDA_VISIBLE_DEVICES=*)
				printf '%s\n' "$_l" ;;
			esac
		done
	fi
}

echo "dynamo-interconnect-probe v1"

begin meta
echo "timeout=$TMODE"
echo "timeout_kill=${TKILL:-0}"
end meta 0

begin kernel
if rd /proc/sys/kernel/osrelease && [ -n "$v" ]; then
	echo "$v"
	end kernel 0
elif have uname; then
	uname -r
	end kernel $?
else
	end kernel 127
fi

readfile nvidia_driver /proc/driver/nvidia/version

# --- RDMA devices (checks.md A) ---
sysfs_port() {
	_p=$1 _pre=$2
	for _a in state phys_state rate link_layer lid sm_lid; do
		[ -e "$_p/$_a" ] && rd "$_p/$_a" && echo "$_pre/$_a=$v"
	done
	rd "$_p/link_layer"
	[ "$v" = Ethernet ] || return 0
	_i=0
	_z=
	while [ $_i -lt 16 ]; do
		if [ -e "$_p/gids/$_i" ] && rd "$_p/gids/$_i" && [ -n "$v" ]; then
			case $v in
			0000:0000:0000:0000:0000:0000:0000:0000)
				# The first empty slot only: enough to tell a table
				# listed but all zero (A6 FAIL) from none readable.
				[ -z "$_z" ] && echo "$_pre/gids/$_i=$v"
				_z=1 ;;
			*)
				echo "$_pre/gids/$_i=$v"
				rd "$_p/gid_attrs/types/$_i" && echo "$_pre/gid_attrs/types/$_i=$v"
				rd "$_p/gid_attrs/ndevs/$_i" && echo "$_pre/gid_attrs/ndevs/$_i=$v"
				;;
			esac
		fi
		_i=$((_i + 1))
	done
}

begin sysfs_ib
if [ -d /sys/class/infiniband ]; then
	_nd=0
	for _d in /sys/class/infiniband/*; do
		[ -d "$_d" ] || continue
		_nd=$((_nd + 1))
		[ $_nd -le 32 ] || break
		_dn=${_d##*/}
		for _a in hca_type fw_ver board_id node_type; do
			[ -e "$_d/$_a" ] && rd "$_d/$_a" && echo "$_dn/$_a=$v"
		done
		# E7 without topo -m: the device's place in the PCI tree
		# (the physical path of its device link; one subshell)
		if [ -e "$_d/device" ]; then
			_pp=$(cd -P "$_d/device" 2>/dev/null && pwd) && put "$_dn/pci=$_pp"
		fi
		for _n in "$_d"/device/net/*; do
			[ -e "$_n" ] && echo "$_dn/net=${_n##*/}"
			# E7: the bond this netdev is enslaved to (its
			# master's uevent names it; no fork)
			[ -r "$_n/master/uevent" ] || continue
			while IFS= read -r _l; do
				case $_l in INTERFACE=?*) put "$_dn/net_master=${_l#INTERFACE=}" ;; esac
			done <"$_n/master/uevent"
		done
		for _p in "$_d"/ports/*; do
			[ -d "$_p" ] && sysfs_port "$_p" "$_dn/ports/${_p##*/}"
		done
	done
	end sysfs_ib 0
else
	end sysfs_ib 127
fi

begin dev_infiniband
if [ -d /dev/infiniband ]; then
	for _f in /dev/infiniband/*; do
		[ -e "$_f" ] || continue
		if [ -c "$_f" ]; then echo "${_f##*/} c"; else echo "${_f##*/} -"; fi
	done
	end dev_infiniband 0
else
	end dev_infiniband 127
fi

# A5 without ibv_devinfo: the userspace verbs stack in the image, which
# UCX's libuct_ib loads (NIXL's wheels leave it to the image:
# contrib/build-wheel.sh --exclude libibverbs* libmlx5*), and its
# providers (rdma-core's libibverbs/lib<drv>-rdmav<N>.so, /etc/libibverbs.d).
begin verbs_libs
_n=127
for _d in /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/lib64 /usr/lib /usr/local/lib; do
	[ -e "$_d/libibverbs.so.1" ] && { echo "lib=$_d/libibverbs.so.1"; _n=0; }
	names provider "$_d"/libibverbs/lib*-rdmav*.so && _n=0
done
names driver /etc/libibverbs.d/*.driver && _n=0
end verbs_libs $_n

tool ibstat 65536 5 ibstat
tool ibstatus 65536 5 ibstatus
tool ibv_devinfo 65536 5 ibv_devinfo
tool ibdev2netdev 16384 5 ibdev2netdev
# A10: the IPv4 address, prefix and routes of the RoCE netdevs, as the pod's
# network namespace shows them (only where the netdev is in it: an SR-IOV
# VF or host networking); read-only listings, absent without iproute2.
tool ip_addr 16384 5 ip -o -4 addr show
tool ip_route 16384 5 ip -4 route show
# Images without iproute2: the kernel's IPv4 routing table of the namespace.
readfile proc_net_route /proc/net/route

# --- Kernel modules, GPUDirect, GDRCopy (B, C) ---
begin proc_modules
if [ -r /proc/modules ]; then
	while IFS= read -r _l; do
		case $_l in
		"nvidia "* | nvidia_* | "nv_peer_mem "* | "gdrdrv "* | "efa "* | \
		"ib_core "* | "ib_uverbs "* | "mlx5_ib "* | "mlx5_core "*)
			printf '%s\n' "$_l" ;;
		esac
	done </proc/modules
	end proc_modules 0
else
	end proc_modules 127
fi

begin sys_module
if [ -d /sys/module ]; then
	for _m in nvidia nvidia_peermem nv_peer_mem gdrdrv efa ib_core ib_uverbs \
		mlx5_ib mlx5_core nvidia_uvm nvidia_fs; do
		[ -d "/sys/module/$_m" ] || continue
		if [ -e "/sys/module/$_m/version" ] && rd "/sys/module/$_m/version"; then
			echo "$_m version=$v"
		else
			echo "$_m"
		fi
	done
	end sys_module 0
else
	end sys_module 127
fi

begin memory_peers
if [ -d /sys/kernel/mm/memory_peers ]; then
	for _m in /sys/kernel/mm/memory_peers/*; do
		[ -e "$_m" ] || continue
		if rd "$_m/version"; then echo "${_m##*/} version=$v"; else echo "${_m##*/}"; fi
	done
	end memory_peers 0
else
	end memory_peers 127
fi

begin gdrdrv
_pd=no
if [ -r /proc/devices ]; then
	while IFS= read -r _l; do
		case $_l in *" gdrdrv") _pd=yes ;; esac
	done </proc/devices
else
	_pd=unknown
fi
echo "proc_devices=$_pd"
if [ -c /dev/gdrdrv ]; then
	echo "dev=char"
	end gdrdrv 0
elif [ -e /dev/gdrdrv ]; then
	echo "dev=other"
	end gdrdrv 0
else
	end gdrdrv 127
fi

# The driver's device nodes (H6): one more source for "is a driver there"
# when /proc/driver/nvidia is hidden. Read-only: tests on /dev entries.
begin dev_nvidia
if [ -e /dev/nvidiactl ]; then
	if [ -c /dev/nvidiactl ]; then echo "nvidiactl=char"; else echo "nvidiactl=other"; fi
	_n=0
	for _d in /dev/nvidia[0-9] /dev/nvidia[0-9][0-9]; do
		[ -c "$_d" ] && _n=$((_n + 1))
	done
	echo "gpus=$_n"
	end dev_nvidia 0
else
	end dev_nvidia 127
fi

# --- GPUs, topology, NVLink, fabric (D, B4) ---
# nvidia-smi -q: the top-level lines and the indent-4 block headers keep the
# structure (a header ends the Fabric block before it); of the indent-4
# values only Product Name and GPU UUID are read (src/probe/nvsmi.c), of the
# deeper lines only the fabric keys (the whole -q is ~10 KiB per GPU;
# issue 46: 48 KB a pod).
tool_keep nvsmi_q 10 131072 524288 \
	'^[^ ]|^    [^ :][^:]*$|^    (Product Name|GPU UUID) |^ +(State|Status|CliqueId|ClusterUUID|Health|Summary|Bandwidth) ' \
	nvidia-smi -q
tool nvsmi_topo 65536 5 nvidia-smi topo -m
tool nvsmi_nvlink 65536 5 nvidia-smi nvlink --status

# --- UCX (E) ---
tool ucx_info_v 16384 5 ucx_info -v
# ucx_info -d: of its "# Key: value" lines only the keys src/probe/ucx.c
# reads (Memory domain, Component, register, memory types, Transport,
# Device, Type) leave the pod, and every other line (an error): the whole
# -d is ~16 KiB a node, most of it bandwidths and capabilities (issue 46).
tool_keep ucx_info_d 5 262144 262144 \
	'^[^#]|^#[[:space:]]*(Memory domain|Component|register|memory types|Transport|Device|Type):' \
	ucx_info -d

# --- libfabric / EFA (G); warn level shows a failed CUDA registration ---
begin fi_info
if have fi_info; then
	_out=$(FI_LOG_LEVEL=warn bounded 5 fi_info -p efa 2>&1 </dev/null)
	_rc=$?
	[ "$TMODE" = busybox ] && [ "$_rc" = 143 ] && _rc=124
	printf '%s\n' "$_out" | emit 65536
	end fi_info "$_rc"
else
	end fi_info 127
fi
tool fi_info_hmem 65536 5 fi_info -p efa -c FI_HMEM

# --- Limits and capabilities (E5, H) ---
readfile limits_self /proc/self/limits
begin status_self
if [ -r /proc/self/status ]; then
	while IFS= read -r _l; do
		case $_l in Cap*) printf '%s\n' "$_l" ;; esac
	done </proc/self/status
	end status_self 0
else
	end status_self 127
fi
readfile limits_pid1 /proc/1/limits
begin status_pid1
if [ -r /proc/1/status ]; then
	while IFS= read -r _l; do
		case $_l in Cap*) printf '%s\n' "$_l" ;; esac
	done </proc/1/status
	end status_pid1 0
else
	end status_pid1 127
fi

# --- Host PCI inventory (A8): only the vendors that matter, bounded ---
begin pci
if [ -d /sys/bus/pci/devices ]; then
	_nd=0
	for _d in /sys/bus/pci/devices/*; do
		[ -e "$_d/vendor" ] || continue
		if [ $_nd -ge 256 ]; then
			echo "truncated=1"
			break
		fi
		_nd=$((_nd + 1))
		rd "$_d/vendor"
		_ven=$v
		case $_ven in 0x15b3 | 0x10de | 0x1d0f) ;; *) continue ;; esac
		rd "$_d/device"
		_dev=$v
		rd "$_d/class"
		echo "${_d##*/} $_ven $_dev $v"
		# E7 without topo -m: a GPU's physical path in the PCI tree
		case $_ven:$v in
		0x10de:0x0300* | 0x10de:0x0302*)
			_pp=$(cd -P "$_d" 2>/dev/null && pwd) && put "gpu_path=$_pp" ;;
		esac
	done
	echo "devices=$_nd"
	end pci 0
else
	end pci 127
fi

# --- Hypervisor (B7): DMI identity and the cpuinfo hypervisor flag, both
# world-readable; the flag from the first "flags" line only (x86). ---
begin vm
_vr=127
if rd /sys/class/dmi/id/sys_vendor; then
	put "sys_vendor=$v"
	_vr=0
fi
if rd /sys/class/dmi/id/product_name; then
	put "product_name=$v"
	_vr=0
fi
if [ -r /proc/cpuinfo ]; then
	while IFS= read -r _l; do
		case $_l in
		flags*:*)
			case " ${_l#*:} " in
			*" hypervisor "*) echo "cpu_hypervisor=1" ;;
			*) echo "cpu_hypervisor=0" ;;
			esac
			break ;;
		Features*:*)
			# arm64 lists "Features", never "flags" (no hypervisor bit)
			echo "cpu_arm64=1"
			break ;;
		esac
	done </proc/cpuinfo
fi
end vm $_vr

# --- /dev/shm size and hugepages (H3, H4) ---
# df when the image has it; the mount's size= option always (distroless
# images have no df, and a tmpfs without size= is half of memory).
begin shm
_rc=127
if have df; then
	_out=$(bounded 5 df -Pk /dev/shm 2>&1 </dev/null)
	_rc=$?
	[ "$TMODE" = busybox ] && [ "$_rc" = 143 ] && _rc=124
	[ -n "$_out" ] && printf '%s\n' "$_out" | emit 4096
fi
if [ -r /proc/self/mounts ]; then
	while read -r _dv _mp _fs _op _rest; do
		[ "$_mp" = /dev/shm ] && echo "mount=$_fs $_op"
	done </proc/self/mounts
	[ "$_rc" = 127 ] && _rc=0
fi
end shm "$_rc"
begin meminfo
if [ -r /proc/meminfo ]; then
	while IFS= read -r _l; do
		case $_l in MemTotal:* | HugePages_* | Hugepagesize:*) printf '%s\n' "$_l" ;; esac
	done </proc/meminfo
	end meminfo 0
else
	end meminfo 127
fi

# --- Transport environment of the main process (I) ---
begin env_pid1
if [ ! -e /proc/1/environ ] || ! have tr; then
	end env_pid1 127
elif ! (: </proc/1/environ) 2>/dev/null; then
	echo "permission denied: /proc/1/environ"
	end env_pid1 1
else
	_env=$( (tr '\0' '\n' </proc/1/environ) 2>/dev/null | env_filter)
	[ -n "$_env" ] && printf '%s\n' "$_env" | emit 65536
	end env_pid1 0
fi

# --- NIXL (F) ---
# NIXL_PREFIX / NIXL_PLUGIN_DIR from the main process, else our own.
_nixl_var() {
	_val=
	if have tr && (: </proc/1/environ) 2>/dev/null; then
		_val=$( (tr '\0' '\n' </proc/1/environ) 2>/dev/null | while IFS= read -r _l; do
			case $_l in "$1"=*) printf '%s' "${_l#*=}" ;; esac
		done)
	fi
	[ -n "$_val" ] || eval "_val=\${$1:-}"
}

begin nixl_plugins
_nixl_var NIXL_PREFIX
_prefix=$_val
_nixl_var NIXL_PLUGIN_DIR
_pdir=$_val
[ -n "$_prefix" ] && put "prefix=$_prefix"
_found=127
_ucxp=
for _d in "$_pdir" "${_prefix:+$_prefix/lib/x86_64-linux-gnu/plugins}" \
	"${_prefix:+$_prefix/lib64/plugins}" "${_prefix:+$_prefix/lib/plugins}" \
	/opt/nvidia/nvda_nixl/lib/x86_64-linux-gnu/plugins \
	/opt/nvidia/nvda_nixl/lib/aarch64-linux-gnu/plugins \
	/opt/nvidia/nvda_nixl/lib64/plugins /usr/local/nixl/lib/x86_64-linux-gnu/plugins; do
	[ -n "$_d" ] && [ -d "$_d" ] || continue
	put "dir=$_d"
	_found=0
	names plugin "$_d"/libplugin_*.so
	[ -z "$_ucxp" ] && [ -e "$_d/libplugin_UCX.so" ] && _ucxp=$_d/libplugin_UCX.so
done
# The pip wheels (nixl, nixl-cu12, nixl-cu13) under the usual site
# directories: meson-python's .NAME.mesonpy.libs/plugins, or auditwheel's
# NAME.libs/nixl with the bundled UCX's modules in NAME.libs/ucx (NIXL's
# contrib/wheel_add_ucx_plugins.py).  Fixed globs: no pod text is a path.
_wucx=
for _s in /usr/local/lib/python3*/dist-packages /usr/local/lib/python3*/site-packages \
	/usr/lib/python3/dist-packages /opt/dynamo/venv/lib/python3*/site-packages \
	/opt/venv/lib/python3*/site-packages /workspace/.venv/lib/python3*/site-packages; do
	for _d in "$_s"/.nixl*.mesonpy.libs/plugins "$_s"/nixl*.libs/nixl; do
		[ -d "$_d" ] || continue
		put "wheel_dir=$_d"
		_found=0
		names plugin "$_d"/libplugin_*.so
		[ -z "$_ucxp" ] && [ -e "$_d/libplugin_UCX.so" ] && _ucxp=$_d/libplugin_UCX.so
	done
	# TensorRT-LLM's wheel bundles NIXL for its C++ cache transceiver
	# (tensorrt_llm/libs/nixl: libnixl.so and plugins/), with no nixl
	# Python package (Dynamo trtllm_runtime.Dockerfile tests for both).
	_d=$_s/tensorrt_llm/libs/nixl/plugins
	if [ -d "$_d" ] && [ -e "$_s/tensorrt_llm/libs/nixl/libnixl.so" ]; then
		put "cpp_dir=$_d"
		_found=0
		names plugin "$_d"/libplugin_*.so
	fi
	# the bundled UCX's modules, also where the plugins are missing
	for _d in "$_s"/nixl*.libs/ucx "$_s"/.nixl*.mesonpy.libs/ucx; do
		[ -z "$_wucx" ] && [ -d "$_d" ] && _wucx=$_d
	done
done
end nixl_plugins $_found

# E1: the UCX libraries NIXL's UCX plugin resolves to (127: no plugin or
# no ldd).  The path is an argument, never shell text.
_ucsdir=
begin nixl_ucx_ldd
if [ -n "$_ucxp" ]; then
	put "plugin=$_ucxp"
fi
if [ -n "$_ucxp" ] && have ldd; then
	_out=$(bounded 5 ldd "$_ucxp" 2>&1 </dev/null)
	_rc=$?
	[ "$TMODE" = busybox ] && [ "$_rc" = 143 ] && _rc=124
	printf '%s\n' "$_out" | while IFS= read -r _l; do
		case $_l in *libuc[pstm]*) printf '%s\n' "$_l" ;; esac
	done | emit 8192
	end nixl_ucx_ldd "$_rc"
	# "libucs.so.0 => /usr/local/ucx/lib/libucs.so.0 (0x...)": its directory.
	_ucsdir=$(printf '%s\n' "$_out" | while IFS= read -r _l; do
		case $_l in *libucs*'=> /'*)
			_l=${_l#*=> }
			_l=${_l%% (*}
			printf '%s' "${_l%/*}"
			break ;;
		esac
	done)
else
	end nixl_ucx_ldd 127
fi

# E3's second source, for images without ucx_info (a pip wheel bundles UCX
# without its tools): the transport modules UCX's loader will find
# (openucx/ucx src/ucs/sys/module.c: dirname(libucs)/ucx, then
# UCX_MODULE_DIR).  Directories as arguments, never shell text.
begin ucx_modules
_nixl_var UCX_MODULE_DIR
_found=127
for _d in "${_ucsdir:+$_ucsdir/ucx}" "$_wucx" "$_val"; do
	[ -n "$_d" ] && [ -d "$_d" ] || continue
	case $_d in
	"$_wucx") put "wheel_dir=$_d" ;;
	"$_val") put "env_dir=$_d" ;;
	*) put "libucs_dir=$_d" ;;
	esac
	_found=0
	names module "$_d"/libuct_*.so*
done
end ucx_modules $_found

begin nixl_tools
_any=127
for _t in nixlbench nixl_example kvbench ucx_perftest; do
	if have "$_t"; then
		echo "$_t=$(command -v "$_t")"
		_any=0
	else
		echo "$_t="
	fi
done
end nixl_tools $_any

# The installed distributions first: both nixl-cu12 and nixl-cu13 (nixl
# >= 1.1.0 installs both) and a failing import are what checks.md F5 judges.
tool nixl_python 16384 15 python3 -c 'import glob, os
try:
    import importlib.metadata as m
    for d in ("nixl", "nixl-cu12", "nixl-cu13"):
        try:
            print("version=" + d + " " + m.version(d))
        except Exception:
            pass
except Exception:
    pass
import nixl
print("module=" + str(getattr(nixl, "__file__", "")))
site = os.path.dirname(os.path.dirname(os.path.abspath(nixl.__file__)))
for d in sorted(glob.glob(os.path.join(site, ".nixl*.mesonpy.libs", "plugins")) +
               glob.glob(os.path.join(site, "nixl*.libs", "nixl"))):
    print("plugin_dir=" + d)
    for f in sorted(glob.glob(os.path.join(d, "libplugin_*.so"))):
        print("plugin=" + os.path.basename(f))'

readfile nixl_versions /opt/dynamo/nixl-versions.txt

# F6-F8: every libnixl/libucp/libuct/libucs/libcudart copy the worker's
# loader can reach, and for NIXL's own objects (the UCX plugins,
# TensorRT-LLM's NIXL wrapper, the Python bindings, nixl_ep) their dynamic
# section (readelf -d, else objdump -p) and `ldd -r` under the main
# process's LD_LIBRARY_PATH.  The checks replay ld.so(8)'s order from
# these lines; every path is an argument or a glob prefix, never shell text.
begin nixl_stack
_nixl_var LD_LIBRARY_PATH
_lp=$_val
_nixl_var LD_PRELOAD
put "lpath=$_lp"
put "preload=$_val"
_nixl_var NIXL_PREFIX
_prefix=$_val
_nixl_var NIXL_PLUGIN_DIR
_pdir=$_val
_et=none
if have readelf; then _et=readelf; elif have objdump; then _et=objdump; fi
echo "elf_tool=$_et"
_nc=0
_ls_copies() {
	[ -n "$1" ] && [ -d "$1" ] || return 0
	for _f in "$1"/libnixl*.so* "$1"/libucp.so* "$1"/libucp-*.so* "$1"/libuct.so* \
		"$1"/libuct-*.so* "$1"/libucs.so* "$1"/libucs-*.so* "$1"/libcudart.so.*; do
		[ -e "$_f" ] || continue
		_nc=$((_nc + 1))
		[ "$_nc" -le 96 ] && put "copy=$_f"
	done
}
_ne=0
_elf() {
	[ -f "$1" ] || return 0
	_ne=$((_ne + 1))
	[ "$_ne" -le 8 ] || return 0
	put "elf=$1"
	_dir=${1%/*}
	case $_et in
	readelf) _o=$(bounded 5 readelf -d "$1" 2>&1 </dev/null); _r=$? ;;
	objdump) _o=$(bounded 5 objdump -p "$1" 2>&1 </dev/null); _r=$? ;;
	*) _o= _r=127 ;;
	esac
	echo "elf_rc=$_r"
	_rp=$(printf '%s\n' "$_o" | while IFS= read -r _l; do
		case $_l in
		*NEEDED* | *RPATH* | *RUNPATH*) printf '%s\n' "dyn=$_l" ;;
		esac
	done | emit 4096)
	[ -n "$_rp" ] && printf '%s\n' "$_rp"
	# the RPATH/RUNPATH directories, $ORIGIN expanded, are listed too
	printf '%s\n' "$_rp" | while IFS= read -r _l; do
		case $_l in *RPATH* | *RUNPATH*) ;; *) continue ;; esac
		case $_l in *'['*) _v=${_l#*\[}; _v=${_v%\]*} ;; *) _v=${_l##* } ;; esac
		_oifs=$IFS
		IFS=:
		for _d in $_v; do
			IFS=$_oifs
			case $_d in
			'$ORIGIN'*) _d=$_dir${_d#'$ORIGIN'} ;;
			'${ORIGIN}'*) _d=$_dir${_d#'${ORIGIN}'} ;;
			esac
			_ls_copies "$_d"
		done
		IFS=$_oifs
	done
	if have ldd; then
		_o=$(bounded 5 env LD_LIBRARY_PATH="$_lp" ldd -r "$1" 2>&1 </dev/null)
		_r=$?
		[ "$TMODE" = busybox ] && [ "$_r" = 143 ] && _r=124
		echo "ldd_rc=$_r"
		printf '%s\n' "$_o" | while IFS= read -r _l; do
			case $_l in
			*"undefined symbol"* | *"not found"* | *libnixl* | *libuc[pst]* | *libcudart*)
				printf '%s\n' "ldd=$_l" ;;
			esac
		done | emit 6144
	else
		echo "ldd_rc=127"
	fi
}
_oifs=$IFS
IFS=:
for _d in $_lp; do
	IFS=$_oifs
	_ls_copies "$_d"
done
IFS=$_oifs
# ld.so.cache's directories: /etc/ld.so.conf and every file its include
# lines name (glibc elf/ldconfig.c parse_conf: '#' ends a line, "include
# PATTERN..." relative to the file's directory, else one directory a
# line).  Each file goes out as ldconf_file= with its lines as ldconf=
# (16 files, 64 lines each); src/probe/ldconf.c rebuilds ldconfig's order
# from them.  Here the lines only pick what to list: the first word of a
# directory line, the glob of an include; nothing is run.
_ldq=/etc/ld.so.conf
_ldseen=:
_ldn=0
_ldnq=1
_ldcap=
_ldline() {
	set -f
	# shellcheck disable=SC2086
	set -- ${1%%#*}
	set +f
	[ $# -gt 0 ] || return 0
	if [ "$1" = include ]; then
		shift
		for _p in "$@"; do
			case $_p in /*) ;; *) _p=${_ldf%/*}/$_p ;; esac
			# one directory listed, never a walk ("/*/*/..."): a
			# wildcard only in the last component
			case ${_p%/*} in *[*?[]*) continue ;; esac
			# 32 queued at most: 16 are read, and the queue
			# is one string (58,000 matches grew it for 7 s)
			for _g in $_p; do
				[ -f "$_g" ] || continue
				if [ "$_ldnq" -ge 32 ]; then
					_ldcap=1
					break
				fi
				_ldq="$_ldq$_nl$_g"
				_ldnq=$((_ldnq + 1))
			done
		done
	else
		_ls_copies "${1%%=*}"
	fi
}
while [ -n "$_ldq" ]; do
	_ldf=${_ldq%%"$_nl"*}
	case $_ldq in *"$_nl"*) _ldq=${_ldq#*"$_nl"} ;; *) _ldq= ;; esac
	case $_ldseen in *":$_ldf:"*) continue ;; esac
	_ldseen="$_ldseen$_ldf:"
	[ -f "$_ldf" ] && [ -r "$_ldf" ] || continue
	_ldn=$((_ldn + 1))
	if [ "$_ldn" -gt 16 ]; then
		_ldcap=1
		break
	fi
	put "ldconf_file=$_ldf"
	# 64 KiB, 64 lines of 1024 characters (a 1 GiB line was read byte by
	# byte); the lines are split here, where _ldline can grow the queue
	_ls=$(bread 65537 "$_ldf" | lines 64 1024)
	_lcut=$?
	_o=
	_oifs=$IFS
	IFS=$_nl
	set -f
	for _l in $_ls; do
		IFS=$_oifs
		_o="${_o}ldconf=$_l$_nl"
		_ldline "$_l"
	done
	set +f
	IFS=$_oifs
	[ -n "$_o" ] && printf '%s' "$_o" | emit 8192
	[ "$_lcut" = 3 ] && put "ldconf_cut=$_ldf"
done
[ -n "$_ldcap" ] && echo "ldconf_files_capped=1"
for _d in "${_prefix:+$_prefix/lib/x86_64-linux-gnu}" "${_prefix:+$_prefix/lib64}" \
	"${_prefix:+$_prefix/lib}" "$_prefix" /opt/nvidia/nvda_nixl/lib/x86_64-linux-gnu \
	/opt/nvidia/nvda_nixl/lib/aarch64-linux-gnu /opt/nvidia/nvda_nixl/lib64 \
	/usr/local/nixl/lib/x86_64-linux-gnu /usr/local/nixl/lib/aarch64-linux-gnu \
	/usr/local/ucx/lib /opt/hpcx/ucx/lib /usr/local/cuda/lib64 /usr/local/lib \
	/usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/lib64 /usr/lib; do
	_ls_copies "$_d"
done
for _s in /usr/local/lib/python3*/dist-packages /usr/local/lib/python3*/site-packages \
	/usr/lib/python3/dist-packages /opt/dynamo/venv/lib/python3*/site-packages \
	/opt/venv/lib/python3*/site-packages /workspace/.venv/lib/python3*/site-packages; do
	[ -d "$_s" ] || continue
	for _d in "$_s"/.nixl*.mesonpy.libs "$_s"/nixl*.libs "$_s"/tensorrt_llm/libs \
		"$_s"/tensorrt_llm/libs/nixl "$_s"/nvidia/cuda_runtime/lib "$_s"/nvidia/cu13/lib; do
		_ls_copies "$_d"
	done
done
[ -n "$_pdir" ] && _elf "$_pdir/libplugin_UCX.so"
for _s in /usr/local/lib/python3*/dist-packages /usr/local/lib/python3*/site-packages \
	/usr/lib/python3/dist-packages /opt/dynamo/venv/lib/python3*/site-packages \
	/opt/venv/lib/python3*/site-packages /workspace/.venv/lib/python3*/site-packages; do
	[ -d "$_s" ] || continue
	for _f in "$_s"/tensorrt_llm/libs/libtensorrt_llm_nixl_wrapper.so \
		"$_s"/.nixl*.mesonpy.libs/plugins/libplugin_UCX.so "$_s"/nixl*.libs/nixl/libplugin_UCX.so \
		"$_s"/nixl*/_bindings*.so "$_s"/nixl_ep/nixl_ep_cpp*.so; do
		[ "$_f" = "$_pdir/libplugin_UCX.so" ] || _elf "$_f"
	done
done
[ "$_nc" -gt 96 ] && echo "copies_dropped=$((_nc - 96))"
[ "$_ne" -gt 8 ] && echo "elfs_dropped=$((_ne - 8))"
end nixl_stack 0

# --- TensorRT-LLM engine config of the main process (J9) ---
# The file PID 1's own argv names after --extra-engine-args (Dynamo's
# worker) or --extra_llm_api_options (trtllm-serve), also inside a
# `sh -c "..."` string.  It is read bounded (256 KiB) and only the keys the
# rules need leave the pod, each value checked to be a plain number or
# name: never the rest of the file (it may hold anything).  No text of the
# pod is ever evaluated: the path is only opened.
_eng_keys() {
	bounded 5 awk -v max=262144 '
	function put(k, v) {
		if (k != "max_input_len" && k != "tensor_parallel_size" &&
		    k != "cache_transceiver_config.max_tokens_in_buffer" &&
		    k != "cache_transceiver_config.backend" &&
		    k != "kv_cache_config.use_kv_cache_manager_v2")
			return
		if (k ~ /backend$/) plain = v ~ /^[A-Za-z_]+$/ && length(v) <= 16
		else if (k ~ /_v2$/) plain = v ~ /^(true|false|True|False|TRUE|FALSE)$/
		else plain = v ~ /^[0-9]+$/ && length(v) <= 12
		if (plain)
			out[++no] = k "=" v
		else
			out[++no] = "bad=" k
	}
	function frag(f,   k, v) {
		gsub(/^[ \t]+|[ \t]+$/, "", f)
		if (f !~ /^[A-Za-z_][A-Za-z0-9_]*[ \t]*:/) { last = ""; return }
		k = f; sub(/[ \t]*:.*/, "", k)
		v = f; sub(/^[^:]*:[ \t]*/, "", v)
		if (v == "") { last = k; return }
		last = ""
		put((depth ? bp[depth] : sp[ns]) k, v)
	}
	{
		n += length($0) + 1
		if (n > max) { big = 1; exit }
		line = $0
		sub(/\r$/, "", line)
		sub(/(^|[ \t])#.*/, "", line)
		gsub(/["\047]/, "", line)
		if (line ~ /^[ \t]*$/) next
		ind = match(line, /[^ ]/) - 1
		if (!depth)
			while (ns && ind <= si[ns]) ns--
		f = ""; last = ""
		for (i = 1; i <= length(line); i++) {
			c = substr(line, i, 1)
			if (c == "{" || c == "}" || c == "," || c == "[" || c == "]") {
				frag(f); f = ""
				if (c == "{" || c == "[") {
					depth++
					bp[depth] = (depth > 1 ? bp[depth - 1] : sp[ns]) (last != "" ? last "." : "")
					last = ""
				} else if (c != "," && depth)
					depth--
			} else
				f = f c
		}
		frag(f)
		if (!depth && last != "") { ns++; si[ns] = ind; sp[ns] = sp[ns - 1] last "." }
	}
	END {
		if (big) { print "state=too_large"; exit }
		print "state=ok"
		for (i = 1; i <= no && i <= 16; i++) print out[i]
	}'
}

# _eng_var WORD: WORD (a path with one $NAME or ${NAME} in it, as Dynamo's
# recipes pass --extra-engine-args "${ENGINE_ARGS}") with NAME's value in
# PID 1's own environment, else nothing.  NAME and the value are data to
# awk (string compare on /proc/1/environ): nothing is evaluated, and a
# value that is no plain path is not taken (it could be anything, even a
# secret).  The result only names the file read here: it never leaves the
# pod (the section sends the word as argv has it).
_eng_var() {
	case $1 in *\\* | *'`'*) return 0 ;; esac
	[ -r /proc/1/environ ] && have awk || return 0
	(tr '\0' '\n' </proc/1/environ) 2>/dev/null | bounded 5 awk -v w="$1" '
	BEGIN {
		i = index(w, "$"); pre = substr(w, 1, i - 1); r = substr(w, i + 1)
		if (substr(r, 1, 1) == "{") {
			j = index(r, "}")
			if (j) { name = substr(r, 2, j - 2); suf = substr(r, j + 1) }
		} else if (match(r, /^[A-Za-z_][A-Za-z0-9_]*/)) {
			name = substr(r, 1, RLENGTH); suf = substr(r, RLENGTH + 1)
		}
		if (name !~ /^[A-Za-z_][A-Za-z0-9_]*$/ || index(pre suf, "$")) { bad = 1; exit }
		nl = length(name) + 1
	}
	!got && substr($0, 1, nl) == name "=" { v = substr($0, nl + 1); got = 1 }
	END {
		p = pre v suf
		if (!bad && got && v != "" && p ~ /^[A-Za-z0-9_.\/+@:,=-]+$/ && p ~ /\/|\.(ya?ml|json)$/ && length(p) < 256)
			print p
	}'
}

# _eng_hides WORD: "1" when WORD holds the value (4 bytes or more) of a
# variable of PID 1's environment, or when that cannot be told.  The
# kubelet expands $(VAR) of the spec's args into argv (k8s.io/kubernetes
# third_party/forked/golang/expansion), so such a word may be a Secret's
# value: it stays in the pod, and the plugin names the spec's word instead.
_eng_hides() {
	[ -r /proc/1/environ ] && have awk && have tr || { echo 1; return 0; }
	(tr '\0' '\n' </proc/1/environ) 2>/dev/null | bounded 5 awk -v w="$1" '
	{
		i = index($0, "="); v = i ? substr($0, i + 1) : $0
		if (length(v) >= 4 && index(w, v)) { print 1; exit }
	}'
}

# _pid1_each FN: FN WORD for each word of PID 1's argv (split at blanks,
# no globbing), a leading quote and a trailing quote or ';' dropped, until
# FN returns non-zero; nothing when /proc/1/cmdline cannot be read.  The
# argv scan of trtllm_engine and sglang_config.
_pid1_each() {
	[ -r /proc/1/cmdline ] && have tr || return 0
	set -f
	for _w in $( (tr '\0' ' ' </proc/1/cmdline) 2>/dev/null); do
		_w=${_w#[\"\']}
		_w=${_w%[\"\'\;]}
		"$1" "$_w" || break
	done
	set +f
}

# _eng_word WORD: the engine file's flag (_fl) and the word after it (_ef).
_eng_word() {
	if [ -n "$_nx" ]; then
		_ef=$1
		return 1
	fi
	case $1 in
	--extra-engine-args | --extra_llm_api_options) _fl=$1 _nx=1 ;;
	--extra-engine-args=* | --extra_llm_api_options=*)
		_fl=${1%%=*} _ef=${1#*=}
		return 1 ;;
	esac
	return 0
}

begin trtllm_engine
_ef='' _fl='' _nx=''
_pid1_each _eng_word
if [ -z "$_fl" ]; then
	end trtllm_engine 127
else
	echo "flag=$_fl"
	# Only the word as argv has it leaves the pod: with a $NAME in it, the
	# name (its value, resolved here to read the file, never); without,
	# the word unless it holds a value of the environment (_eng_hides).
	_rv=$_ef
	case $_ef in
	*'$'*)
		put "path=$_ef"
		_rv=$(_eng_var "$_ef")
		[ -n "$_rv" ] || _rv=$_ef ;;
	*)
		if [ "$(_eng_hides "$_ef")" = 1 ]; then
			echo "path_hidden=1"
		else
			put "path=$_ef"
		fi ;;
	esac
	case $_rv in
	/*) _ep=$_rv ;;
	*) _ep=/proc/1/cwd/$_rv ;;
	esac
	case $_rv in
	'' | *'$'* | *'`'*) echo "state=unresolved"; _erc=1 ;;
	*)
		if [ ! -e "$_ep" ]; then
			echo "state=absent"; _erc=1
		elif [ ! -f "$_ep" ]; then
			echo "state=not_a_file"; _erc=1
		elif ! (: <"$_ep") 2>/dev/null; then
			echo "state=denied"; _erc=1
		elif ! have awk; then
			echo "state=no_awk"; _erc=1
		else
			# head first: one endless line must not fill awk's memory
			if have head; then
				head -c 262145 <"$_ep" | _eng_keys
			else
				_eng_keys <"$_ep"
			fi
			_erc=0
		fi ;;
	esac
	end trtllm_engine "$_erc"
fi

# sglang_config (issue 38): SGLang takes more flags from its --config YAML
# (sgl-project/sglang python/sglang/srt/server_args_config_parser.py
# ConfigArgumentMerger: the word after a lone `--config`, a .yaml/.yml
# file; each top-level key K becomes --K, the command line wins).  Only two
# keys leave the pod, each a plain word: the KV backend and the mode.
# _sgl_word WORD: an SGLang worker (_sg) and the word after a lone
# --config (_sc, the last one).
_sgl_word() {
	case $1 in *sglang*) _sg=1 ;; esac
	if [ -n "$_nx" ]; then
		_sc=$1 _nx=''
	elif [ "$1" = --config ]; then
		_nx=1
	fi
	return 0
}

begin sglang_config
_sg='' _sc='' _nx=''
_pid1_each _sgl_word
if [ -z "$_sg" ] || [ -z "$_sc" ]; then
	end sglang_config 127
else
	case $_sc in
	/*) _sp=$_sc ;;
	*) _sp=/proc/1/cwd/$_sc ;;
	esac
	_src=1
	case $_sc in
	*'$'* | *'`'*) echo "state=unresolved" ;;
	*)
		if [ ! -e "$_sp" ]; then
			echo "state=absent"
		elif [ ! -f "$_sp" ]; then
			echo "state=not_a_file"
		elif ! (: <"$_sp") 2>/dev/null; then
			echo "state=denied"
		elif ! have awk || ! have head; then
			echo "state=no_awk"
		else
			echo "state=ok"
			# head first: one endless line must not fill awk's memory
			head -c 65536 <"$_sp" | bounded 5 awk '
			/^disaggregation-(transfer-backend|mode)[ \t]*:/ {
				q = "[\042\047]"
				k = $0; sub(/[ \t]*:.*/, "", k)
				v = $0; sub(/^[^:]*:[ \t]*/, "", v); sub(/[ \t]+#.*/, "", v)
				sub(/[ \t\r]+$/, "", v); gsub("^" q "|" q "$", "", v)
				if (v ~ /^[A-Za-z0-9_-]+$/ && length(v) <= 32) print k "=" v
				else print "bad=" k
			}'
			_src=0
		fi ;;
	esac
	end sglang_config "$_src"
fi

# A9: the installed Mooncake transfer engine (pip wheels mooncake-transfer-
# engine, -cuda13, -non-cuda, ...: the GID choice changed in 0.3.12) from
# its dist-info directory under the same site directories as NIXL's wheels:
# "dist=DIR" and its METADATA Version: line.  Issue 41 (checks.md J5e): the
# engines' and Dynamo's own wheels the same way (vllm, sglang,
# tensorrt_llm, ai_dynamo, ai_dynamo_runtime, nixl): package names and
# versions only; at most 16 directories in all, Mooncake's first.
begin mooncake_dist
_n=0
for _s in /usr/local/lib/python3*/dist-packages /usr/local/lib/python3*/site-packages \
	/usr/lib/python3/dist-packages /opt/dynamo/venv/lib/python3*/site-packages \
	/opt/venv/lib/python3*/site-packages /workspace/.venv/lib/python3*/site-packages; do
	for _d in "$_s"/mooncake_transfer_engine*.dist-info "$_s"/vllm-*.dist-info \
		"$_s"/sglang-*.dist-info "$_s"/tensorrt_llm-*.dist-info "$_s"/ai_dynamo-*.dist-info \
		"$_s"/ai_dynamo_runtime-*.dist-info "$_s"/nixl-*.dist-info; do
		[ -d "$_d" ] && [ "$_n" -lt 16 ] || continue
		_n=$((_n + 1))
		put "dist=${_d##*/}"
		# METADATA's headers end at the first blank line; 16 KiB
		# of them, read only from a regular file
		_v=
		if [ -f "$_d/METADATA" ] && [ -r "$_d/METADATA" ]; then
			_v=$(bread 16384 "$_d/METADATA" | lines 64 256 | while IFS= read -r _l; do
				case $_l in Version:*) printf '%s' "${_l#Version:}"; break ;; "") break ;; esac
			done)
		elif [ -e "$_d/METADATA" ]; then
			echo "metadata=not_a_file"
		fi
		put "version=$_v"
	done
done
_rc=127
[ "$_n" -gt 0 ] && _rc=0
end mooncake_dist $_rc

# model_config (issue 41): the served model's config.json, as far as KV
# exchange needs it.  The model is the word PID 1's argv names: vLLM's
# `--model` or `vllm serve MODEL` (vllm/engine/arg_utils.py EngineArgs
# add_cli_args; vllm/entrypoints/cli/serve.py model_tag), SGLang's
# `--model-path`/`--model` (python/sglang/srt/server_args.py add_cli_args;
# dynamo.sglang passes them on), Dynamo TRT-LLM's `--model` (obsolete
# `--model-path`; components/src/dynamo/trtllm/backend_args.py) and
# `trtllm-serve [serve] MODEL`; argparse's last one wins (Dynamo TRT-LLM
# without it: DYN_TRTLLM_MODEL, then its DEFAULT_MODEL).  A directory
# (absolute, or under PID 1's cwd as transformers' os.path.isdir sees it)
# holds config.json; a hub id is looked up in the Hugging Face cache as
# huggingface_hub does (constants.py: HF_HUB_CACHE, else
# HUGGINGFACE_HUB_CACHE, else HF_HOME/hub, else
# XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub, from PID 1's
# environment; file_download.py repo_folder_name "models--ORG--NAME",
# refs/main a 40-hex commit, snapshots/COMMIT/config.json, a link to
# ../../blobs/).  Nothing else is followed; the file is read through
# head -c (256 KiB) by one awk pass.  Only fixed keys leave the pod, as
# 0/1 markers, counts, or plain words; the model's path or id never does
# (source=path|hub says which it was).  docs/product.md lists them.

# _mc_keys: config.json on stdin -> "state=ok" and the fixed keys, or
# "state=too_large" (over 256 KiB, or nested over 64 deep).  A small JSON tokenizer: a value's path is the keys
# above it ("text_config.num_hidden_layers", "layer_types[]"); only the
# top level and a nested text_config (multimodal configs, transformers
# e.g. Gemma3Config/Llama4Config) are looked at.  Markers, from the
# transformers config classes: sliding_window > 0 unless
# use_sliding_window is false (Qwen2Config), or a "sliding_attention" in
# layer_types (GptOssConfig, Gemma3TextConfig); hybrid: "linear_attention"
# or "mamba" in layer_types (Qwen3NextConfig, GraniteMoeHybridConfig) or
# layers_block_type (Zamba), an "M" in hybrid_override_pattern
# (NemotronHConfig), attn_layer_period (JambaConfig), full_attention_interval
# (Qwen3NextConfig), or a Mamba model_type (also falcon_h1, and lfm2 with
# its "conv" layer type: SGLang keeps their state in the Mamba pool,
# python/sglang/srt/models/lfm2.py); MLA: kv_lora_rank > 0
# (DeepseekV3Config).
_mc_keys() {
	bounded 10 awk '
	function vpath() {
		if (d == 0) return ""
		return T[d] == "o" ? P[d] K[d] : P[d] "[]"
	}
	function val(p, v, str,   pre) {
		pre = ""
		if (substr(p, 1, 12) == "text_config.") { pre = "t"; p = substr(p, 13) }
		if (p ~ /^(model_type|sliding_window|use_sliding_window|kv_lora_rank|num_key_value_heads|num_hidden_layers|hybrid_override_pattern|attn_layer_period|full_attention_interval)$/) {
			V[pre p] = v; S[pre p] = str
		} else if (p == "architectures[]" && I[d] == 0) {
			V[pre "arch"] = v; S[pre "arch"] = str
		} else if ((p == "layer_types[]" || p == "layers_block_type[]") && str) {
			if (v == "sliding_attention") SWL[pre] = 1
			if (v ~ /^(linear_attention|mamba|mamba2|conv)$/) HYL[pre] = 1
		}
	}
	function scan(s,   L, i, j, c) {
		L = length(s); i = 1
		while (i <= L) {
			c = substr(s, i, 1)
			if (c == " " || c == "\t" || c == "\r") { i++; continue }
			if (c == "{" || c == "[") {
				vp = vpath()
				if (c == "{" && d == 1 && vp == "text_config") TC = 1
				# no config nests 64 deep: past that it is no
				# model config, and each level costs time
				if (++d > 64) { big = 1; exit }
				T[d] = c == "{" ? "o" : "a"; K[d] = ""; I[d] = 0
				P[d] = d > 8 ? "~" : c == "{" ? (d == 1 ? "" : vp ".") : vp
				expkey = c == "{"; i++; continue
			}
			if (c == "}" || c == "]") { if (d > 0) d--; expkey = 0; i++; continue }
			if (c == ",") { if (d > 0 && T[d] == "a") I[d]++; expkey = d > 0 && T[d] == "o"; i++; continue }
			if (c == ":") { expkey = 0; i++; continue }
			if (c == "\"") {
				for (j = i + 1; j <= L; j++) {
					c = substr(s, j, 1)
					if (c == "\\") j++
					else if (c == "\"") break
				}
				if (expkey && d > 0 && T[d] == "o") K[d] = substr(s, i + 1, j - i - 1)
				else if (d > 0) val(vpath(), substr(s, i + 1, j - i - 1), 1)
				i = j + 1; continue
			}
			for (j = i; j <= L && index(" \t\r,]}:[{\"", substr(s, j, 1)) == 0; j++) ;
			if (d > 0) val(vpath(), substr(s, i, j - i), 0)
			i = j
		}
	}
	function has(k) { return (k in V) && V[k] != "null" }
	function pick(k) { return has(k) ? k : has("t" k) ? "t" k : "" }
	function num(k) { return has(k) && !S[k] && V[k] ~ /^[0-9]+$/ && V[k] + 0 > 0 }
	function sliding(pre) {
		if (SWL[pre]) return 1
		return num(pre "sliding_window") && V[pre "use_sliding_window"] != "false"
	}
	function hybrid(pre) {
		if (HYL[pre] || num(pre "attn_layer_period") || num(pre "full_attention_interval")) return 1
		if (has(pre "hybrid_override_pattern") && S[pre "hybrid_override_pattern"] && index(V[pre "hybrid_override_pattern"], "M")) return 1
		return V[pre "model_type"] ~ /(mamba|jamba|bamba|zamba|falcon_h1|lfm2)/
	}
	# a word shaped like a token (Hugging Face, OpenAI, GitHub, Slack,
	# AWS, a JWT) is refused even when short and plain
	function word(name, k, re, max) {
		if (k == "") return
		if (S[k] && V[k] ~ re && length(V[k]) <= max && V[k] !~ /^(hf_|sk-|sk_|ghp_|gho_|github_pat_|xox|AKIA|eyJ)/) print name "=" V[k]
		else print "bad=" name
	}
	function count(name, k) {
		if (k == "") return
		if (!S[k] && V[k] ~ /^[0-9]+$/ && length(V[k]) <= 6) print name "=" V[k]
		else print "bad=" name
	}
	{
		n += length($0) + 1
		if (n > 262144) { big = 1; exit }
		scan($0)
	}
	END {
		if (big) { print "state=too_large"; exit }
		print "state=ok"
		word("model_type", has("model_type") ? "model_type" : "", "^[A-Za-z0-9_.-]+$", 31)
		word("architecture", has("arch") ? "arch" : "", "^[A-Z][A-Za-z0-9_]*(For[A-Za-z0-9_]+|Model)$", 63)
		print "sliding_window=" (sliding("") || sliding("t") ? 1 : 0)
		print "hybrid_linear=" (hybrid("") || hybrid("t") ? 1 : 0)
		print "mla=" (num("kv_lora_rank") || num("tkv_lora_rank") ? 1 : 0)
		count("num_key_value_heads", pick("num_key_value_heads"))
		count("num_hidden_layers", pick("num_hidden_layers"))
		if (TC) print "text_config=1"
	}'
}

# _mc_cache: the hub cache directory PID 1's huggingface_hub uses, when it
# is a plain absolute path; nothing else.
_mc_cache() {
	[ -r /proc/1/environ ] && have awk && have tr || return 0
	(tr '\0' '\n' </proc/1/environ) 2>/dev/null | bounded 5 awk '
	{ i = index($0, "="); k = substr($0, 1, i - 1); if (i && !(k in E)) E[k] = substr($0, i + 1) }
	END {
		if ("HF_HUB_CACHE" in E) c = E["HF_HUB_CACHE"]
		else if ("HUGGINGFACE_HUB_CACHE" in E) c = E["HUGGINGFACE_HUB_CACHE"]
		else {
			if ("HF_HOME" in E) h = E["HF_HOME"]
			else h = ("XDG_CACHE_HOME" in E ? E["XDG_CACHE_HOME"] : "~/.cache") "/huggingface"
			c = h "/hub"
		}
		if (c == "~" || substr(c, 1, 2) == "~/") c = ("HOME" in E ? E["HOME"] : "/root") substr(c, 2)
		if (c ~ /^\/[A-Za-z0-9_.\/+@:-]*$/ && c !~ /\.\./ && length(c) < 512) print c
	}'
}

# _mc_env NAME: the value of NAME in PID 1's environment (a string
# compare; never printed by the section).
_mc_env() {
	[ -r /proc/1/environ ] && have awk && have tr || return 0
	(tr '\0' '\n' </proc/1/environ) 2>/dev/null | bounded 5 awk -v n="$1=" '
	substr($0, 1, length(n)) == n { print substr($0, length(n) + 1); exit }'
}

# _mc_file WORD: where model word WORD's config.json is (never printed):
# sets _mcsrc (path|hub, or empty), _mcf (the file, or empty) and _mcst
# (the state when there is no file to read).
_mc_file() {
	_mcsrc='' _mcf='' _mcst=unresolved
	case $1 in
	'' | *'$'* | *'`'* | *\\*) return ;;
	/*) _mcsrc=path _mcf=$1/config.json; return ;;
	./* | ../* | . | ..) _mcsrc=path _mcf=/proc/1/cwd/$1/config.json; return ;;
	esac
	if [ -d "/proc/1/cwd/$1" ]; then
		_mcsrc=path _mcf=/proc/1/cwd/$1/config.json
		return
	fi
	case $1 in
	*..* | */*/* | */ | *[!A-Za-z0-9_./-]*) return ;;
	esac
	_mcsrc=hub
	_c=$(_mc_cache)
	[ -n "$_c" ] || return 0
	case $1 in
	*/*) _rd=$_c/models--${1%%/*}--${1#*/} ;;
	*) _rd=$_c/models--$1 ;;
	esac
	_mcst=absent _rv=
	if [ -f "$_rd/refs/main" ] && [ -r "$_rd/refs/main" ]; then
		_rv=$(bread 64 "$_rd/refs/main")
	fi
	case $_rv in
	*[!0-9a-f]* | '') return ;;
	esac
	[ "${#_rv}" -eq 40 ] || return 0
	_mcf=$_rd/snapshots/$_rv/config.json
	# the cache's own link into its blobs, never one out of the repo
	if [ -L "$_mcf" ] && have readlink; then
		case $(readlink "$_mcf" 2>/dev/null) in
		../../blobs/* | "$_rd"/blobs/*) ;;
		*) _mcf='' _mcst=denied ;;
		esac
	fi
}

model_config_section() {
	begin model_config
	_me='' _mw='' _mp='' _nx='' _pv='' _pp='' _mt=''
	if [ -r /proc/1/cmdline ] && have tr; then
		set -f
		for _a in $( (tr '\0' ' ' </proc/1/cmdline) 2>/dev/null); do
			_a=${_a#[\"\']}
			_a=${_a%[\"\'\;]}
			case $_a in *vllm* | *sglang* | *dynamo* | *trtllm* | *tensorrt_llm*) _me=1 ;; esac
			[ "$_a" = dynamo.trtllm ] && _mt=1
			if [ -n "$_nx" ]; then
				_mw=$_a _nx=''
			else
				case $_a in
				--model | --model-path) _nx=1 _mw= ;;
				--model=* | --model-path=*) _mw=${_a#*=} ;;
				-*) ;;
				*)
					# the positional MODEL of `vllm serve` and trtllm-serve
					if [ -z "$_mp" ]; then
						case $_pp/$_pv in
						*vllm/serve | *trtllm-serve/serve) _mp=$_a ;;
						*/*trtllm-serve) [ "$_a" = serve ] || _mp=$_a ;;
						esac
					fi ;;
				esac
			fi
			_pp=$_pv _pv=$_a
		done
		set +f
	fi
	[ -n "$_mw" ] || _mw=$_mp
	# Dynamo TRT-LLM's --model falls back to DYN_TRTLLM_MODEL, then to its
	# DEFAULT_MODEL (components/src/dynamo/trtllm/backend_args.py)
	if [ -z "$_mw" ] && [ -n "$_mt" ]; then
		_mw=$(_mc_env DYN_TRTLLM_MODEL)
		[ -n "$_mw" ] || _mw=TinyLlama/TinyLlama-1.1B-Chat-v1.0
	fi
	if [ -z "$_me" ] && [ -z "$_mw" ]; then
		end model_config 127
		return
	fi
	_mc_file "$_mw"
	[ -n "$_mcsrc" ] && echo "source=$_mcsrc"
	_rc=1
	if [ -z "$_mcf" ]; then
		echo "state=$_mcst"
	elif [ ! -e "$_mcf" ]; then
		echo "state=absent"
	elif [ ! -f "$_mcf" ] || ! (: <"$_mcf") 2>/dev/null; then
		echo "state=denied"
	elif ! have awk || ! have head; then
		echo "state=no_awk"
	else
		# head first: one endless line must not fill awk's memory
		# its status is the section's: 124 when the time bound ended a
		# pass over a hostile file (nothing printed, nothing judged)
		head -c 262145 <"$_mcf" | _mc_keys
		_rc=$?
	fi
	end model_config "$_rc"
}
model_config_section
# versions (issue 43): what the known-issues rows key on that no other
# section reads, each one word: libfabric's own version (fi_info --version's
# "libfabric: X" line; fi_info -p's "version:" is the provider's, 122.0 for
# EFA), the AWS EFA installer's (aws-efa-installer efa_installer.sh
# write_package_file: first line "# EFA installer version: X" of
# /opt/amazon/efa_installed_packages; /opt/amazon/efa/installed_packages in
# older installers), the machine (uname -m) and whether the installer's
# efa_nv_peermem module is loaded.  Nothing else of those files leaves the pod.
_ver_line() {
	lines 8 128 | while IFS= read -r _l; do
		case $_l in "$1"*) put "$2=${_l#"$1"}"; break ;; esac
	done
}
begin versions
if have fi_info; then
	# piped, not captured: lines stops reading after 8 lines
	bounded 5 fi_info --version 2>/dev/null </dev/null | _ver_line "libfabric: " libfabric
fi
for _f in /opt/amazon/efa_installed_packages /opt/amazon/efa/installed_packages; do
	[ -f "$_f" ] && [ -r "$_f" ] || continue
	bread 4096 "$_f" | _ver_line "# EFA installer version:" efa_installer
	break
done
have uname && _m=$(uname -m 2>/dev/null) && put "arch=$_m"
if [ -d /sys/module/efa_nv_peermem ]; then
	echo "efa_nv_peermem=loaded"
elif [ -r /proc/modules ]; then
	_ld=absent
	while IFS= read -r _l; do
		case $_l in "efa_nv_peermem "*) _ld=loaded; break ;; esac
	done </proc/modules
	echo "efa_nv_peermem=$_ld"
fi
# J5f (issue 41): the side-channel host Dynamo's vLLM worker picks when
# VLLM_NIXL_SIDE_CHANNEL_HOST is unset starts from the pod's own hostname
# (ai-dynamo/dynamo components/src/dynamo/vllm/args.py get_host_ip).
# "host_self=" the first IPv4 address the resolver gives for it (getent
# ahostsv4, bounded 3 s; without getent /etc/hosts' first line naming it,
# as glibc's files backend) or "unresolved"; no line when it could not
# look (timed out, no getent and no awk).  "dyn_hostip=detect|fallback": whether the installed
# dynamo/vllm/args.py has PR #6539's detection (_try_udp_connect) or not.
# The hostname and the file never leave the pod: one word each.
_hn=
rd /proc/sys/kernel/hostname && _hn=$v
case $_hn in "" | -* | *[!A-Za-z0-9.-]*) _hn= ;; esac
if [ -n "$_hn" ]; then
	if have getent; then
		# one name's few lines; the status is bounded's (2: getent's
		# "not found", 124: timed out)
		_a=$(bounded 3 getent ahostsv4 "$_hn" 2>/dev/null </dev/null)
		_rc=$?
		_a=${_a%%[!0-9.]*}
	elif [ -f /etc/hosts ] && [ -r /etc/hosts ] && have awk && { have head || have dd; }; then
		_a=$(bread 65536 /etc/hosts | lines 4096 512 | awk -v h="$_hn" '
			BEGIN { h = tolower(h) }
			{ sub(/#.*/, "") }
			$1 ~ /^[0-9]+[.][0-9]+[.][0-9]+[.][0-9]+$/ {
				for (i = 2; i <= NF; i++) if (tolower($i) == h) { print $1; exit }
			}')
		_rc=2
	else
		_a= _rc=0
	fi
	# only a clear "not found" is unresolved: no line on a timeout, an
	# error, or output that is no address
	if [ -n "$_a" ]; then
		put "host_self=$_a"
	elif [ "$_rc" = 2 ]; then
		put "host_self=unresolved"
	fi
fi
for _s in /usr/local/lib/python3*/dist-packages /usr/local/lib/python3*/site-packages \
	/usr/lib/python3/dist-packages /opt/dynamo/venv/lib/python3*/site-packages \
	/opt/venv/lib/python3*/site-packages /workspace/.venv/lib/python3*/site-packages; do
	_f=$_s/dynamo/vllm/args.py
	[ -f "$_f" ] && [ -r "$_f" ] && have grep || continue
	if bread 262144 "$_f" | grep -q _try_udp_connect; then
		echo "dyn_hostip=detect"
	else
		echo "dyn_hostip=fallback"
	fi
	break
done
end versions 0
# check --observe (issue 45, docs/checks.md O): every RDMA port's traffic
# and error counters sampled twice, the window apart, in this one exec.
# The window reaches the script only as the line "_di_obs=N" the plugin
# writes before it on stdin (src/run/observe.c: digits it formatted from a
# validated integer); anything but 1..600 digits and the section is not
# written at all, so without --observe it costs nothing.  Counter names:
# the kernel's IB port counters (drivers/infiniband/core/sysfs.c
# pma_counter attributes), mlx5 hw_counters (drivers/infiniband/hw/mlx5/
# counters.c) and EFA's port stats (drivers/infiniband/hw/efa/efa_verbs.c
# efa_port_stats_descs).  Lines: "window=N", "port DEV PORT LINK_LAYER
# RATE", then "s0|s1 DEV PORT DIR/NAME VALUE" for each sample.
_obs_names='counters/port_xmit_data counters/port_rcv_data counters/symbol_error
counters/link_downed counters/link_error_recovery counters/port_rcv_errors
counters/local_link_integrity_errors counters/excessive_buffer_overrun_errors
counters/port_xmit_discards hw_counters/rnr_nak_retry_err
hw_counters/local_ack_timeout_err hw_counters/tx_bytes hw_counters/rx_bytes
hw_counters/rdma_read_bytes hw_counters/rdma_read_resp_bytes
hw_counters/rdma_write_bytes hw_counters/rdma_write_recv_bytes'

_obs_sample() {
	_on=0
	for _op in /sys/class/infiniband/*/ports/*; do
		[ -d "$_op" ] || continue
		_on=$((_on + 1))
		[ $_on -le 64 ] || break
		_opn=${_op##*/}
		_od=${_op%/ports/*}
		_od=${_od##*/}
		case $_od$_opn in *[!A-Za-z0-9_.-]*) continue ;; esac
		if [ "$1" = s0 ]; then
			rd "$_op/link_layer" || v=
			_oll=${v%% *}
			rd "$_op/rate" || v=
			_ort=${v%% *}
			case $_oll$_ort in *[!A-Za-z0-9.]*) _oll=unknown _ort=0 ;; esac
			echo "port $_od $_opn ${_oll:-unknown} ${_ort:-0}"
		fi
		for _oc in $_obs_names; do
			[ -f "$_op/$_oc" ] && rd "$_op/$_oc" || continue
			case $v in '' | *[!0-9]*) continue ;; esac
			echo "$1 $_od $_opn $_oc $v"
		done
	done
}

observe_counters() {
	case ${_di_obs-} in '' | *[!0-9]*) return 0 ;; esac
	# The plugin's line assigns it unexported; one exported came from the
	# container's environment (exec inherits it), not from the plugin:
	# no window then, so a pod cannot make its own probe sleep.
	case $(export -p 2>/dev/null) in *[\ \	]_di_obs=*) return 0 ;; esac
	[ ${#_di_obs} -le 3 ] && [ "$_di_obs" -ge 1 ] && [ "$_di_obs" -le 600 ] || return 0
	begin rail_counters
	echo "window=$_di_obs"
	if ! have sleep; then
		end rail_counters 127
		return 0
	fi
	_obs_sample s0 | emit 262144
	sleep "$_di_obs" </dev/null
	_obs_sample s1 | emit 262144
	end rail_counters 0
}
observe_counters

# Link health without a window (issue 45 point 3, docs/checks.md O4):
# the PCIe links on the way from each RDMA device and each GPU bound to
# the nvidia driver up to its root port, as the kernel shows them
# (drivers/pci/pci-sysfs.c current_link_speed/width, max_link_speed/
# width; speeds "32.0 GT/s PCIe", first word kept).  Node-wide like the
# port counters: sysfs shows the node's devices.  Lines: "link KIND NAME
# BDF CUR_SPEED CUR_WIDTH MAX_SPEED MAX_WIDTH", endpoint first, "-" for an
# attribute not read; at most 32 NICs, 16 GPUs, 8 hops each.
_pcie_walk() {
	_pq=$3 _pk=0
	while [ $_pk -lt 8 ]; do
		_pb=${_pq##*/}
		case $_pb in *[!0-9a-f:.]* | '') break ;; *:[0-9a-f][0-9a-f]:[0-9a-f][0-9a-f].[0-7]) ;; *) break ;; esac
		[ ${#_pb} -le 15 ] || break
		set -- "$1" "$2" "$3"
		for _pa in current_link_speed current_link_width max_link_speed max_link_width; do
			rd "$_pq/$_pa" || v=
			v=${v%% *}
			case $v in '' | *[!0-9.]*) v=- ;; esac
			set -- "$@" "$v"
		done
		echo "link $1 $2 $_pb $4 $5 $6 $7"
		_pq=${_pq%/*}
		_pk=$((_pk + 1))
	done
}

pcie_links() {
	begin pcie_links
	_pcie_all | emit 65536
	end pcie_links 0
}

_pcie_all() {
	_pn=0
	for _d in /sys/class/infiniband/*; do
		[ -e "$_d/device" ] || continue
		_pn=$((_pn + 1))
		[ $_pn -le 32 ] || break
		_dn=${_d##*/}
		case $_dn in *[!A-Za-z0-9_.-]*) continue ;; esac
		_pp=$(cd -P "$_d/device" 2>/dev/null && pwd) && _pcie_walk nic "$_dn" "$_pp"
	done
	_pn=0
	for _d in /sys/bus/pci/drivers/nvidia/*:*; do
		[ -e "$_d" ] || continue
		_pn=$((_pn + 1))
		[ $_pn -le 16 ] || break
		_pp=$(cd -P "$_d" 2>/dev/null && pwd) && _pcie_walk gpu "${_pp##*/}" "$_pp"
	done
}
pcie_links

# Ports that flapped, without a window (issue 45 point 3, docs/checks.md
# O6): one sample of every RDMA port's counters (the lines of
# rail_counters' first sample, same names and caps) and the node's uptime
# (/proc/uptime, whole seconds), in every check.
port_counters() {
	begin port_counters
	rd /proc/uptime && echo "uptime=${v%%.*}"
	_obs_sample s0 | emit 262144
	end port_counters 0
}
port_counters

# The probe's own cost (issue 46), last: the node's uptime at its start and
# now (/proc/uptime, 10 ms steps; wall ms = the difference) and `times`
# (user and system CPU of this shell, then of its children).  The bytes it
# sent are counted by the plugin, not here.
probe_cost() {
	begin probe_cost
	_pc_t1=
	{ read -r _pc_t1 _pc_x </proc/uptime; } 2>/dev/null
	echo "uptime0=$_pc_t0"
	echo "uptime1=$_pc_t1"
	times
	end probe_cost 0
}
probe_cost

echo "@@@ done"
