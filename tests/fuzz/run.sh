#!/bin/sh
# tests/fuzz/run.sh SECONDS [OUT]: builds every target (build.sh), seeds a
# working corpus per target under OUT/corpus/NAME (from tests/fuzz/corpus*,
# the test captures and tests/fixtures), runs each for SECONDS and
# prints one line per target with its executions and coverage, then
# "fuzz: N passed, N failed".  A crash leaves OUT/crash/NAME/crash-*;
# replay it with OUT/bin/NAME FILE and turn it into a unit test.
set -u
secs=${1:-20}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=${2:-build/fuzz}
fx=${DI_FIXTURES:-$root/tests/fixtures}
caps=$root/tests/fixtures/captures-k8s-1.20
bins=$(sh tests/fuzz/build.sh "$out") || { echo "fuzz: 0 passed, 1 failed (build)"; exit 1; }

# seed NAME: fills $out/corpus/NAME (kept between runs: it grows).
seed() {
	c="$out/corpus/$1"
	mkdir -p "$c"
	case $1 in
	fuzz_ws) cp tests/fuzz/corpus/* "$c/" 2>/dev/null ;;
	fuzz_kubeconfig) cp tests/fuzz/corpus_kubeconfig/* "$c/" 2>/dev/null ;;
	fuzz_claims) cp tests/fuzz/corpus_claims/* "$c/" 2>/dev/null ;;
	fuzz_stack) cp tests/fuzz/corpus_stack/* "$c/" 2>/dev/null ;;
	fuzz_engine) cp tests/fuzz/corpus_engine/* "$c/" 2>/dev/null ;;
	fuzz_sglangcfg) cp tests/fuzz/corpus_sglangcfg/* "$c/" 2>/dev/null ;;
	fuzz_modelcfg) cp tests/fuzz/corpus_modelcfg/* "$c/" 2>/dev/null ;;
	fuzz_counters) cp tests/fuzz/corpus_counters/* "$c/" 2>/dev/null ;;
	fuzz_promtext) cp tests/fuzz/corpus_promtext/* "$c/" 2>/dev/null ;;
	fuzz_pcie) cp tests/fuzz/corpus_pcie/* "$c/" 2>/dev/null ;;
	fuzz_engcfg) cp tests/fuzz/corpus_engcfg/* "$c/" 2>/dev/null ;;
	fuzz_known) cp tests/fuzz/corpus_known/* "$c/" 2>/dev/null ;;
	fuzz_mask) cp tests/fuzz/corpus_mask/* "$c/" 2>/dev/null ;;
	fuzz_versions) cp tests/fuzz/corpus_versions/* "$c/" 2>/dev/null ;;
	fuzz_report)
		DI_FIXTURES="$fx/tools" sh tests/fuzz/seed_report.sh "$c" >/dev/null 2>&1 ;;
	fuzz_logscan)
		cp tests/cluster/scenarios/logs/*.txt "$c/" 2>/dev/null
		# the real worker logs of the calibration corpus, and its log captures
		for f in tests/calibration/logs/*.txt tests/calibration/captures/nixl_* \
			tests/calibration/captures/ucx_log_* tests/calibration/captures/sglang_*; do
			[ -f "$f" ] && cp "$f" "$c/cal-${f##*/}"
		done
		[ -n "$fx" ] && for f in "$fx"/tools/nixl_* "$fx"/tools/ucx_* "$fx"/tools/nccl_* \
			"$fx"/tools/libfabric_* "$fx"/tools/dmesg_*; do
			[ -f "$f" ] && cp "$f" "$c/"
		done ;;
	fuzz_recipe)
		cp tests/fuzz/corpus_recipe/* "$c/" 2>/dev/null
		[ -n "$fx" ] && cp "$fx"/recipes/* "$c/" 2>/dev/null ;;
	fuzz_parsers)
		# tool outputs: the fixtures and the calibration captures (real
		# layouts: excerpts, pasted prompts, tabs), picked by name
		for f in ${fx:+"$fx"/tools/*} tests/calibration/captures/*.txt; do
			[ -f "$f" ] || continue
			case $(basename "$f") in
			ibstat_*) k=1 ;; ibstatus_*) k=2 ;; ibv_devinfo_*) k=3 ;;
			ibdev2netdev_*) k=4 ;; lsmod_* | proc_modules_*) k=6 ;;
			nvidia-smi_q_*) k=11 ;; nvidia-smi_topo_*) k=12 ;;
			nvidia-smi_nvlink_*) k=13 ;; ucx_info_v_*) k=14 ;;
			ucx_info_d_*) k=15 ;; fi_info_*) k=16 ;; *) k=23 ;;
			esac
			{ printf "\\$(printf %o "$k")"; head -c 16384 "$f"; } > "$c/$(basename "$f")"
		done ;;
	fuzz_head)
		printf 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: v5.channel.k8s.io\r\n\r\n' > "$c/101-v5"
		printf 'HTTP/1.1 101 Switching Protocols\r\nupgrade: WebSocket\r\nconnection: keep-alive, Upgrade\r\nsec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: v4.channel.k8s.io\r\n\r\n' > "$c/101-v4"
		printf 'HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n' > "$c/403"
		printf 'HTTP/1.0 500 Internal Server Error\r\nContent-Type: text/plain\r\nContent-Length: 26\r\n\r\ncontainer not found ("c")' > "$c/500" ;;
	fuzz_status)
		[ -n "$caps" ] && for f in "$caps"/*.json; do
			grep -q '"Status"' "$f" && { printf '\001\223'; cat "$f"; } > "$c/$(basename "$f")"
		done
		printf '\000\000{"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}' > "$c/exit3"
		# 403 (bytes 1, 47): forbiddenMessage, read into err.denied.
		printf '\001\057{"kind":"Status","status":"Failure","message":"pods \\"p\\" is forbidden: User \\"u\\" cannot get resource \\"pods/exec\\" in API group \\"\\" in the namespace \\"demo\\"","reason":"Forbidden","code":403}' > "$c/forbidden" ;;
	fuzz_perftest)
		printf 'Final:                   200     11.933   595.189   595.189     1680.14    1680.14        1680        1680\n' > "$c/final"
		printf '[1] [h:4 :0] ucp_worker.c:1763 UCX  INFO    ep_cfg[0]: tag(tcp/eth0)\n[1] [h:4 :0] perftest.c:405  UCX  ERROR client failed. connect() failed: Connection refused\ndi-transfer: time limit reached\n' > "$c/lanes"
		[ -n "$fx" ] && cp "$fx"/tools/ucx_worker_* "$c/" 2>/dev/null ;;
	fuzz_podlist)
		[ -n "$caps" ] && for f in "$caps"/a-*.json; do
			{ printf '\000'; cat "$f"; } > "$c/$(basename "$f")"
		done ;;
	fuzz_writers)
		printf 'ns\000qwen-decode-0\000decode\000node\033]0;x\007\000192.0.2.1\00010.0.0.1\000main\000img\377\000Running\000err\r\n\342\200\256' > "$c/escapes"
		printf 'a\000b\000prefill\000\302\233\000\000\000c\000\355\240\200\000Pending\000\000x' > "$c/c1-surrogate" ;;
	fuzz_yamlquote)
		# the shapes of issue 37 item 6: YAML 1.1 value/merge, sexagesimal,
		# _ digits, 0b/0o/0x, .inf/.nan, y/n/on/off, timestamps, controls,
		# keys that a NUL or cleaning makes equal
		printf '=\000<<\0001:20\0001_2_3\000.inf\000-.NaN\0000b101\0000o17\0000x1F\000~\000y\000N\000On\000off\0002026-12-07\0001e3\000.e3\000-.e+3\000.E-1' > "$c/typed"
		printf 'cpu\000cpu\000cpu#2\000a\001\000a^A\000\033]0;x\007\000\302\233\000\342\200\256\000\377\000line\nnext\000\000- x\000: y\000#c' > "$c/keys-controls" ;;
	fuzz_dgd)
		# hostile shapes of issue 37: bad items beside a good one
		cp tests/fuzz/corpus_dgd/* "$c/" 2>/dev/null
		printf '\000{"items":[{"metadata":{"name":"qwen","namespace":"dynamo","annotations":{"nvidia.com/current-worker-hash":"a"}},"spec":{"components":[{"name":"decode","componentType":"decode","replicas":1,"podTemplate":{"spec":{"containers":[{"name":"main","env":[{"name":"UCX_TLS","value":"tcp"}]}]}}}]}}]}' > "$c/beta"
		printf '\001{"metadata":{"name":"qwen"},"spec":{"envs":[{"name":"UCX_TLS","value":"rc"}],"services":{"decode":{"componentType":"worker","envs":[]}}}}' > "$c/alpha" ;;
	fuzz_execcred)
		printf '\000{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","spec":{},"status":{"token":"t","expirationTimestamp":"2030-01-01T00:00:00Z"}}' > "$c/v1"
		printf '\001{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","status":{"clientCertificateData":"-----BEGIN CERTIFICATE-----\\nx\\n-----END CERTIFICATE-----\\n","clientKeyData":"k"}}' > "$c/v1beta1-cert" ;;
	esac
	[ -n "$(ls -A "$c")" ] || printf 'x' > "$c/empty"
}

pass=0 fail=0
for bin in $bins; do
	name=$(basename "$bin")
	seed "$name"
	mkdir -p "$out/crash/$name" "$out/log"
	log="$out/log/$name.txt"
	"$bin" -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$out/crash/$name/" \
		"$out/corpus/$name" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1))
		echo "ok $name: ${execs:-?} execs in ${secs}s, ${cov:-cov: ?}"
	else
		fail=$((fail + 1))
		echo "FAIL $name (exit $rc): ${execs:-?} execs, see $log and $out/crash/$name/"
		grep -E 'ERROR|SUMMARY' "$log" | head -5
	fi
done
echo "fuzz: $pass passed, $fail failed"
[ $fail -eq 0 ]
