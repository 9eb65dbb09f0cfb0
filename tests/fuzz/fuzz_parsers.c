/* libFuzzer target: every tool-output parser of src/probe (facts.h,
 * probe_parse_*), each on its own, outside the report framing that
 * fuzz_report goes through.  The first byte picks the parser. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probe/facts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct probe_facts *f;
	const char *t;
	size_t n;
	char *copy;

	if (!size)
		return 0;
	if (!f)
		f = probe_facts_new();
	copy = malloc(size - 1 ? size - 1 : 1);   /* exact size: ASan sees overreads */
	memcpy(copy, data + 1, size - 1);
	t = copy;
	n = size - 1;
	switch (data[0] % 33) {
	case 0: probe_parse_sysfs_ib(t, n, &f->sysfs_ib); break;
	case 1: probe_parse_ibstat(t, n, &f->ibstat); break;
	case 2: probe_parse_ibstatus(t, n, &f->ibstatus); break;
	case 3: probe_parse_ibv_devinfo(t, n, &f->ibv_devinfo); break;
	case 4: probe_parse_ibdev2netdev(t, n, &f->ibdev2netdev); break;
	case 5: probe_parse_dev_ib(t, n, &f->dev_ib); break;
	case 6: probe_parse_modules(t, n, &f->modules); break;
	case 7: probe_parse_sys_module(t, n, &f->modules); break;
	case 8: probe_parse_memory_peers(t, n, &f->modules); break;
	case 9: probe_parse_gdrdrv(t, n, &f->modules); break;
	case 10: probe_parse_nvdriver(t, n, &f->nvdriver); break;
	case 11: probe_parse_nvsmi_q(t, n, &f->nvsmi); break;
	case 12: probe_parse_topo(t, n, &f->topo); break;
	case 13: probe_parse_nvlink(t, n, &f->nvlink); break;
	case 14: probe_parse_ucx_v(t, n, &f->ucx); break;
	case 15: probe_parse_ucx_d(t, n, &f->ucx); break;
	case 16: probe_parse_fi_info(t, n, &f->fi); break;
	case 17: probe_parse_limits(t, n, &f->limits_self); break;
	case 18: probe_parse_status_caps(t, n, &f->limits_pid1); break;
	case 19: probe_parse_nixl_plugins(t, n, &f->nixl); break;
	case 20: probe_parse_nixl_tools(t, n, &f->nixl); break;
	case 21: probe_parse_nixl_python(t, n, &f->nixl); break;
	case 22: probe_parse_nixl_versions(t, n, &f->nixl); break;
	case 23: probe_parse_env(t, n, &f->env); break;
	case 24: probe_parse_kernel(t, n, &f->kernel); break;
	case 25: probe_env_allowed(t, n); break;
	case 26: probe_parse_mooncake(t, n, &f->mooncake); break;
	case 27: probe_parse_pci(t, n, &f->pci); break;
	case 28: probe_parse_shm(t, n, &f->shm); break;
	case 29: probe_parse_meminfo(t, n, &f->meminfo); break;
	case 30: probe_parse_ucx_ldd(t, n, &f->nixl_ucx_ldd); break;
	case 31: probe_parse_ucx_modules(t, n, &f->ucx_modules); break;
	case 32: probe_parse_verbs_libs(t, n, &f->verbs_libs); break;
	default:
		/* the same bytes twice into one struct: appending paths */
		probe_parse_ibstat(t, n, &f->ibstat);
		probe_parse_ibstat(t, n, &f->ibstat);
		break;
	}
	probe_facts_release(f);
	free(copy);
	return 0;
}
