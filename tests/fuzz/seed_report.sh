#!/bin/sh
# seed_report.sh OUTDIR: seed corpus for fuzz_report, one v1 report per
# fixture with the fixture as the body of the section that parses it, plus
# this machine's own probe report.  The first byte is fuzz_report's switch.
set -eu
out=$1
fx=${DI_FIXTURES:-tests/fixtures/tools}
mkdir -p "$out"
section() {
	case $1 in
	ibstat_*) echo ibstat ;; ibstatus_*) echo ibstatus ;;
	ibv_devinfo_*) echo ibv_devinfo ;; ibdev2netdev_*) echo ibdev2netdev ;;
	lsmod_* | proc_modules_*) echo proc_modules ;;
	nvidia-smi_q_*) echo nvsmi_q ;; nvidia-smi_topo_*) echo nvsmi_topo ;;
	nvidia-smi_nvlink_*) echo nvsmi_nvlink ;;
	ucx_info_v_*) echo ucx_info_v ;; ucx_info_d_*) echo ucx_info_d ;;
	fi_info_* | libfabric_*) echo fi_info ;;
	*) echo env_pid1 ;;
	esac
}
for f in "$fx"/*.txt; do
	[ "${f##*/}" = README.md ] && continue
	s=$(section "${f##*/}")
	{
		printf '\000dynamo-interconnect-probe v1\n@@@ %s\n' "$s"
		tail -n +2 "$f"
		printf '\n@@@ end %s rc=0\n@@@ done\n' "$s"
	} >"$out/${f##*/}"
done
{ printf '\000'; sh src/probe/probe.sh 2>/dev/null; } >"$out/local-report"
