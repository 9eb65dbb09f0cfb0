/* Host inventory and pod resources seen from inside the pod: the PCI
 * inventory against the devices the pod got (A8), which UCX NIXL's plugin
 * links against (E1), /dev/shm as mounted (H3) and hugepages on EFA (H4). */
#include <stdio.h>
#include <string.h>

#include "check/internal.h"
#include "model/podspec.h"
#include "probe/facts.h"

#define SHM_SMALL_KB (1LL << 20)    /* H3: under 1 GiB warns (podspec.c) */

/* A8: the node's RDMA NICs matter only when the pod sees none of them in
 * /sys/class/infiniband (a device without uverbs is rdma-devices' case). */
static void pci(const struct check_input *in, struct check_results *out)
{
	const struct probe_pci *p = &in->f->pci;
	const struct probe_rdma_list *l = rdma_list(in->f);
	int nib, nefa, host = p->n_ib + p->n_mlx_eth + p->n_efa;
	char why[200];

	rdma_count(l, &nib, &nefa);
	if (nib + nefa > 0) {
		emit_na(out, CK_RDMA_PCI, "the pod sees %d RDMA device%s",
			nib + nefa, nib + nefa == 1 ? "" : "s");
		return;
	}
	if (p->src.status != PROBE_OK) {
		if (!in->cross_pod)
			emit_na(out, CK_RDMA_PCI, "KV stays inside this pod");
		else
			emit(out, CK_RDMA_PCI, CHECK_SKIPPED, NULL, "%s",
			     src_why(&p->src, "/sys/bus/pci/devices", why,
				     sizeof(why)));
		return;
	}
	if (!host && p->truncated && in->cross_pod) {
		emit(out, CK_RDMA_PCI, CHECK_SKIPPED, NULL,
		     "no RDMA NIC among the first %d PCI devices (the probe reads no more)",
		     p->ndevs);
		return;
	}
	if (!host) {
		if (!in->cross_pod)
			emit_na(out, CK_RDMA_PCI,
				"no RDMA NIC on the node's PCI bus (%d devices read); KV stays inside this pod",
				p->ndevs);
		else
			emit(out, CK_RDMA_PCI, hard(in),
			     "schedule the workers on nodes with RDMA NICs (nodeSelector/affinity on the NIC label)",
			     "no InfiniBand/ConnectX/EFA NIC on the node's PCI bus (%d devices read): this node has no RDMA",
			     p->ndevs);
		return;
	}
	if (!in->cross_pod) {
		emit_na(out, CK_RDMA_PCI,
			"the node has %d RDMA NIC%s, the pod none; KV stays inside this pod",
			host, host == 1 ? "" : "s");
		return;
	}
	emit(out, CK_RDMA_PCI, hard(in), NULL,
	     "the node has %d RDMA NIC%s on PCI (%d InfiniBand, %d ConnectX Ethernet, %d EFA) but the pod sees none: the RDMA resource is missing from the pod",
	     host, host == 1 ? "" : "s", p->n_ib, p->n_mlx_eth, p->n_efa);
}

/* Directory of a library path, "/usr/lib" and "/lib" counted the same
 * (merged /usr: ldd and ucx_info may each print either); F6 shares it. */
void lib_dir(const char *path, char *b, size_t n)
{
	const char *slash = strrchr(path, '/');
	size_t len = slash ? (size_t)(slash - path) : 0;

	if (!strncmp(path, "/usr/lib", 8) && len >= 8) {
		path += 4;
		len -= 4;
	}
	copy_strn(b, n, path, (size_t)len);
}

/* E1: the UCX NIXL loads (ldd of libplugin_UCX.so) against the UCX that
 * ucx_info, and so every other UCX check, describes.  It needs both sides:
 * without ldd, a loadable plugin or a Library path (UCX < 1.14) there is
 * nothing to compare, so it does not apply (the ucx-* checks still judge
 * the UCX that ucx_info shows). */
static void nixl_ucx_lib(const struct check_input *in, struct check_results *out)
{
	static const char *const lib[PROBE_UCXLIB_COUNT] = { "libucp", "libuct", "libucs" };
	const struct probe_ucx_ldd *l = &in->f->nixl_ucx_ldd;
	const struct probe_ucx *u = &in->f->ucx;
	char mine[256], other[256], why[200];
	int i, first = -1;

	if (in->fabric == FABRIC_EFA) {
		emit_na(out, CK_UCX_NIXL_LIB, "EFA: NIXL uses LIBFABRIC");
		return;
	}
	if (l->src.status == PROBE_ABSENT && !l->plugin[0]) {
		emit_na(out, CK_UCX_NIXL_LIB, "no libplugin_UCX.so in the NIXL plugin directories");
		return;
	}
	if (l->src.status != PROBE_OK) {
		emit_na(out, CK_UCX_NIXL_LIB, "%s",
			src_why(&l->src, "ldd", why, sizeof(why)));
		return;
	}
	for (i = 0; i < PROBE_UCXLIB_COUNT; i++)
		if (l->not_found[i]) {
			emit(out, CK_UCX_NIXL_LIB, hard(in),
			     "put NIXL's UCX on the library path (LD_LIBRARY_PATH) or use the image's matching UCX",
			     "%s: %s.so.0 => not found: NIXL cannot load its UCX backend",
			     l->plugin, lib[i]);
			return;
		}
	for (i = 0; i < PROBE_UCXLIB_COUNT; i++) {
		if (!l->lib[i][0])
			continue;
		lib_dir(l->lib[i], other, sizeof(other));
		if (first < 0) {
			first = i;
			copy_str(mine, sizeof(mine), other);
		} else if (strcmp(mine, other)) {
			emit(out, CK_UCX_NIXL_LIB, CHECK_WARN, NULL,
			     "NIXL's UCX plugin mixes two UCX installs: %s from %s, %s from %s",
			     lib[first], mine, lib[i], other);
			return;
		}
	}
	if (first < 0) {
		emit_na(out, CK_UCX_NIXL_LIB,
			"ldd lists no libucp/libuct/libucs for %s", l->plugin);
		return;
	}
	if (!u->library_path[0]) {
		emit_na(out, CK_UCX_NIXL_LIB,
			"NIXL loads UCX from %s; %s", mine,
			u->v_src.status == PROBE_OK ?
			"ucx_info -v prints no Library path (UCX < 1.14)" :
			src_why(&u->v_src, "ucx_info", why, sizeof(why)));
		return;
	}
	lib_dir(u->library_path, other, sizeof(other));
	if (strcmp(mine, other))
		emit(out, CK_UCX_NIXL_LIB, CHECK_WARN, NULL,
		     "two UCX installs: NIXL loads %s from %s, ucx_info describes %s",
		     lib[first], mine, other);
	else
		emit(out, CK_UCX_NIXL_LIB, CHECK_OK, NULL,
		     "NIXL and ucx_info use the same UCX (%s)", mine);
}

/* H3: /dev/shm as the container really has it (pod-shm reads the spec). */
static void shm(const struct check_input *in, struct check_results *out)
{
	const struct probe_shm *s = &in->f->shm;
	const struct probe_nvsmi *g = &in->f->nvsmi;
	int ngpus = g->ngpus > 0 ? g->ngpus : g->attached;
	char why[200];

	if (g->src.status == PROBE_OK && ngpus >= 0 && ngpus < 2)
		emit_na(out, CK_LIMITS_SHM, "%d GPU: no intra-pod shared memory traffic",
			ngpus);
	else if (s->size_kb < 0 && s->tmpfs_default)
		emit(out, CK_LIMITS_SHM, CHECK_OK, NULL,
		     "/dev/shm tmpfs without a size limit (half of memory)");
	else if (s->size_kb < 0)
		emit(out, CK_LIMITS_SHM, CHECK_SKIPPED, NULL, "%s",
		     src_why(&s->src, "df and the /dev/shm mount", why, sizeof(why)));
	else if (s->size_kb < SHM_SMALL_KB)
		emit(out, CK_LIMITS_SHM, CHECK_WARN, NULL,
		     "/dev/shm is %lld MiB in the container: UCX posix/NCCL shared memory fails or falls back",
		     s->size_kb >> 10);
	else if (s->avail_kb < 0)
		emit(out, CK_LIMITS_SHM, CHECK_OK, NULL, "/dev/shm %lld GiB (tmpfs size=)",
		     s->size_kb >> 20);
	else
		emit(out, CK_LIMITS_SHM, CHECK_OK, NULL, "/dev/shm %lld GiB (%lld GiB free)",
		     s->size_kb >> 20, s->avail_kb >> 20);
}

/* H4: the EFA provider uses hugepages unless FI_EFA_USE_HUGE_PAGE=0. */
static void hugepages(const struct check_input *in, struct check_results *out)
{
	const struct probe_meminfo *m = &in->f->meminfo;
	const char *use = envv(in, "FI_EFA_USE_HUGE_PAGE");
	char why[200];

	if (in->fabric != FABRIC_EFA)
		emit_na(out, CK_LIMITS_HUGEPAGES, "not an EFA pod");
	else if (use && is_no(use))
		emit(out, CK_LIMITS_HUGEPAGES, CHECK_OK, NULL,
		     "FI_EFA_USE_HUGE_PAGE=%s: the EFA provider uses regular pages", use);
	else if (m->hp_total < 0)
		emit(out, CK_LIMITS_HUGEPAGES, CHECK_SKIPPED, NULL, "%s",
		     src_why(&m->src, "/proc/meminfo", why, sizeof(why)));
	else if (m->hp_total == 0)
		emit(out, CK_LIMITS_HUGEPAGES, CHECK_WARN, NULL,
		     "no hugepages on the node (HugePages_Total 0): the EFA provider falls back to regular pages");
	else if (m->hp_free == 0)
		emit(out, CK_LIMITS_HUGEPAGES, CHECK_WARN, NULL,
		     "all %lld hugepages in use (HugePages_Free 0): the EFA provider falls back to regular pages",
		     m->hp_total);
	else if (m->hp_free < 0)
		emit(out, CK_LIMITS_HUGEPAGES, CHECK_OK, NULL,
		     "%lld hugepages (free count not reported)", m->hp_total);
	else
		emit(out, CK_LIMITS_HUGEPAGES, CHECK_OK, NULL,
		     "%lld of %lld hugepages free (%lld KiB each)",
		     m->hp_free, m->hp_total, m->hp_size_kb > 0 ? m->hp_size_kb : 2048);
}

void check_host(const struct check_input *in, struct check_results *out)
{
	pci(in, out);
	nixl_ucx_lib(in, out);
	shm(in, out);
	hugepages(in, out);
}
