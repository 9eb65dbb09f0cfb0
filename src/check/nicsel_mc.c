/* Mooncake's NICs per GPU (checks.md E8, issue 42 item 2): the device list
 * a Mooncake transfer engine is given (SGLang's --disaggregation-ib-device;
 * on any other Mooncake pod MOONCAKE_DEVICE, the Mooncake store's variable,
 * which SGLang's backend does not read: issue 42 item 1) against each GPU's
 * PCIe switch.
 *
 * Mooncake's own choice (kvcache-ai/Mooncake mooncake-transfer-engine
 * src/topology.cpp): discover(filter) opens the listed devices only;
 * discoverCudaTopology() puts for GPU i the devices whose PCI path shares
 * the GPU's parent (getPciDistance() == 0: its PCIe switch) in
 * preferred_hca and every other listed device in avail_hca; selectDevice()
 * sends from preferred_hca and, where it is empty, from any of avail_hca.
 * A NIC off the GPU's switch cannot always reach its memory: transfers
 * fail with `local protection error` (kvcache-ai/Mooncake#284, the
 * maintainers' diagnosis; sgl-project/sglang#8324 on
 * --disaggregation-ib-device).  So a GPU of the pod left no listed device
 * on its switch fails; no list at all opens every device (each GPU then
 * prefers its own, B4 judges a GPU without one) and is not judged. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/internal.h"
#include "check/nicsel_int.h"
#include "model/envrules.h"
#include "model/fwrules.h"
#include "probe/facts.h"
#include "util/buf.h"
#include "util/clist.h"
#include "util/xalloc.h"

#define MC_FLAG "--disaggregation-ib-device"

/* Does the pod run a Mooncake transfer engine (an MC_/MOONCAKE_ variable,
 * or SGLang's Mooncake backend on its command line)? */
static int runs_mooncake(const struct check_input *in)
{
	struct envr_view view;
	struct envr_var *vars = book_view(&in->f->env, &view);
	int yes = envr_runs_mooncake(&view) ||
		  (in->ctx && envr_args_mooncake(in->ctx->args));

	free(vars);
	return yes;
}

/* Is dev an item of the comma list? */
static int in_list(const char *list, const char *dev)
{
	return clist_has(list, dev, strlen(dev), 0);
}

/* Is GPU g judged: every GPU of topo -m, or those CUDA_VISIBLE_DEVICES
 * lists by index (a UUID list: every GPU). */
static int gpu_used(const struct check_input *in, int g)
{
	const char *v = envv(in, "CUDA_VISIBLE_DEVICES");
	char idx[12];

	if (!v || !*v || strspn(v, "0123456789, ") != strlen(v))
		return 1;
	snprintf(idx, sizeof idx, "%d", g);
	return in_list(v, idx);
}

static int near(int link)
{
	return link == PROBE_TOPO_PIX || link == PROBE_TOPO_PXB;
}

/* The GPUs left no listed device on their switch into bad ("GPU4 (nearest
 * listed NODE)"), each judged GPU's first device on its switch into ok
 * ("GPU0 mlx5_0"), and every device on a judged GPU's switch into own (the
 * list to paste); the number of GPUs left none. */
static int judge_gpus(const struct check_input *in, const char *list, struct buf *bad,
		      struct buf *ok, struct buf *own)
{
	const struct probe_topo *t = &in->f->topo;
	int nb = 0, no = 0, nown = 0;
	int nn = t->nnics < PROBE_MAX_NICS ? t->nnics : PROBE_MAX_NICS;

	for (int c = 0; c < nn; c++)
		for (int g = 0; g < t->gpu_rows && g < PROBE_MAX_GPUS; g++)
			if (gpu_used(in, g) && near(t->gpu_nic[g][c].link)) {
				buf_appendf(own, "%s%s", nown++ ? "," : "", t->nic_name[c]);
				break;
			}
	for (int g = 0; g < t->gpu_rows && g < PROBE_MAX_GPUS; g++) {
		int best = 0, mine = -1;

		if (!gpu_used(in, g))
			continue;
		for (int c = 0; c < nn; c++) {
			int link = t->gpu_nic[g][c].link;

			if (!in_list(list, t->nic_name[c]))
				continue;
			if (near(link) && mine < 0)
				mine = c;
			if (link >= PROBE_TOPO_PIX && (!best || link < best))
				best = link;
		}
		if (mine >= 0)
			buf_appendf(ok, "%sGPU%d %s", no++ ? ", " : "", g, t->nic_name[mine]);
		else
			buf_appendf(bad, "%sGPU%d (nearest listed %s)", nb++ ? ", " : "", g,
				    best ? probe_topo_link_name(best) : "none in topo -m");
	}
	return nb;
}

static void judge(const struct check_input *in, const char *by, const char *list,
		  struct check_results *out)
{
	struct buf bad = BUF_INIT(256), ok = BUF_INIT(256), own = BUF_INIT(256),
		   rem = BUF_INIT(512);
	int env = !strcmp(by, "MOONCAKE_DEVICE");
	int nb = judge_gpus(in, list, &bad, &ok, &own);

	if (!nb) {
		emit(out, CK_MOONCAKE_NIC_SELECT, CHECK_OK, NULL,
		     "each GPU has a device %s lists on its PCIe switch, which Mooncake prefers for it: %s",
		     by, buf_str(&ok));
	} else {
		if (*buf_str(&own))
			buf_appendf(&rem, "list each GPU's own NIC: %s%s%s (the NICs on the PCIe switches of the pod's GPUs, nvidia-smi topo -m PIX/PXB)",
				    by, env ? "=" : " ", buf_str(&own));
		else
			buf_appendf(&rem, "give the pod a NIC on each GPU's PCIe switch (topology-aware device plugin / DRA) and list it in %s", by);
		emit(out, CK_MOONCAKE_NIC_SELECT, hard(in), buf_str(&rem),
		     "%s lists %s, none on the PCIe switch of %s: Mooncake prefers for each GPU the listed NICs on its switch (topology.cpp discoverCudaTopology) and with none there sends from any listed NIC, which cannot reach that GPU's memory: `local protection error` (kvcache-ai/Mooncake#284, sgl-project/sglang#8324)",
		     by, list, buf_str(&bad));
		/* SGLang's list is an argument: suggestedArgs, not env */
		emit_suggest(out, env ? "MOONCAKE_DEVICE" : MC_FLAG, buf_str(&own));
	}
	emit_source(out, "nvidia-smi topo -m, " MC_FLAG ", MOONCAKE_DEVICE, CUDA_VISIBLE_DEVICES (Mooncake topology.cpp)");
	buf_release(&bad);
	buf_release(&ok);
	buf_release(&own);
	buf_release(&rem);
}

/* A Grace tray (GB200/GB300): each judged GPU's memory is a NUMA node of
 * its own (topo -m "GPU NUMA ID", reached over NVLink-C2C) and no NIC is
 * on a judged GPU's PCIe switch: the GPUs sit on PCI domains of their own
 * (kvcache-ai/Mooncake PR #1974: "GPUs and NICs are on separate PCI
 * domains", topo -m SYS to every NIC).  The switch rule above rests on
 * PCIe peer-to-peer and does not apply; 0 on any other node. */
static int grace_tray(const struct check_input *in)
{
	const struct probe_topo *t = &in->f->topo;
	int nn = t->nnics < PROBE_MAX_NICS ? t->nnics : PROBE_MAX_NICS, any = 0;

	for (int g = 0; g < t->gpu_rows && g < PROBE_MAX_GPUS; g++) {
		if (!gpu_used(in, g))
			continue;
		if (t->gpu_numa[g] < 0)
			return 0;
		for (int c = 0; c < nn; c++)
			if (near(t->gpu_nic[g][c].link))
				return 0;
		any = 1;
	}
	return any;
}

/* The CPU NUMA nodes of the judged GPUs (topo -m NUMA Affinity), at least 1. */
static int gpu_nodes(const struct check_input *in)
{
	const struct probe_topo *t = &in->f->topo;
	int n = 0;

	for (int g = 0; g < t->gpu_rows && g < PROBE_MAX_GPUS; g++) {
		int seen = 0;

		if (!gpu_used(in, g) || t->numa[g] < 0)
			continue;
		for (int h = 0; h < g; h++)
			seen |= gpu_used(in, h) && t->numa[h] == t->numa[g];
		n += !seen;
	}
	return n ? n : 1;
}

/* E8c: Mooncake's NIC ranking on a Grace tray.  Every release up to
 * 0.3.12.post1 ranks a GPU's listed NICs (those of its NUMA node) by
 * getPciDistance, the '/' count past the common prefix of the two sysfs
 * paths (topology.cpp discoverCudaTopology), and prefers only the nearest:
 * with GPUs and NICs on different PCI domains the prefix is a string
 * artifact, and one NIC per NUMA node is preferred, the others left to
 * avail_hca (PR #1974, open: 18 against 41 GB/s on a GB300).  A warn where
 * the list has more NICs than the GPUs have NUMA nodes; the operator's
 * own map (MC_CUSTOM_TOPO_JSON, transfer_engine_impl.cpp: parsed in place
 * of discovery) is ok. */
static void judge_grace(const struct check_input *in, const char *by, const char *list,
			struct check_results *out)
{
	const char *ver = in->f->mooncake.version;
	int old = envr_mooncake_pci_prefix(ver), nodes = gpu_nodes(in);
	size_t nics = *list ? 1 : 0;

	for (const char *p = list; *p; p++)
		nics += *p == ',';
	if (envv(in, "MC_CUSTOM_TOPO_JSON"))
		emit(out, CK_MOONCAKE_NIC_SELECT, CHECK_OK, NULL,
		     "Grace tray: MC_CUSTOM_TOPO_JSON maps the GPUs to the NICs %s lists, in place of Mooncake's discovery (transfer_engine_impl.cpp)",
		     by);
	else if (!old)
		emit(out, CK_MOONCAKE_NIC_SELECT, CHECK_SKIPPED, NULL,
		     "Grace tray, Mooncake %s: a release after 0.3.12.post1, the last read (kvcache-ai/Mooncake PR #1974's NIC ranking was in none up to it): not judged",
		     ver);
	else if (nics <= (size_t)nodes)
		emit(out, CK_MOONCAKE_NIC_SELECT, CHECK_OK, NULL,
		     "Grace tray: %s lists %s, at most one NIC per NUMA node of the GPUs (%d), so Mooncake's one preferred NIC per node leaves none idle (kvcache-ai/Mooncake PR #1974)",
		     by, list, nodes);
	else
		emit(out, CK_MOONCAKE_NIC_SELECT, CHECK_WARN,
		     "give each GPU its NICs in MC_CUSTOM_TOPO_JSON ({\"cuda:N\": [[preferred NICs], [others]]}, read in place of discovery: transfer_engine_impl.cpp), or take a Mooncake release with kvcache-ai/Mooncake PR #1974",
		     "Grace tray: %s lists %s for GPUs on %d NUMA node(s); no NIC shares a PCI domain with a GPU here, so E8's PCIe-switch rule does not apply, but Mooncake %s ranks a GPU's NICs by getPciDistance, a common prefix of sysfs paths (topology.cpp discoverCudaTopology), which on GB200/GB300 prefers one NIC per NUMA node and leaves the others to avail_hca: half the NICs idle (kvcache-ai/Mooncake PR #1974, open and in no release up to 0.3.12.post1: 18 against 41 GB/s on a GB300)",
		     by, list, nodes, *ver ? ver : "(version not read; every release up to 0.3.12.post1 does)");
	emit_source(out, "nvidia-smi topo -m (GPU NUMA ID), " MC_FLAG ", MOONCAKE_DEVICE, MC_CUSTOM_TOPO_JSON, mooncake_transfer_engine dist-info (Mooncake topology.cpp, PR #1974)");
}

/* The IPv4 subnet and routes of listed device d's netdev (RoCE), into g;
 * 0 when not all of them were read. */
static int rail_net(const struct check_input *in, const char *dev, struct check_gid_net *g)
{
	const struct probe_rdma_list *l = rdma_list(in->f);

	memset(g, 0, sizeof *g);
	for (int i = 0; l && i < l->ndevs; i++) {
		const struct probe_rdma_dev *d = &l->dev[i];
		const char *nd = d->nports > 0 && *d->port[0].gid_ndev ? d->port[0].gid_ndev : d->netdev;

		if (strcmp(d->name, dev) || !*nd)
			continue;
		check_netdev_view(&in->f->ipnet, nd, g);
		return g->net_known && g->routes_known;
	}
	return 0;
}

/* Does g's connected subnet or one of its routes reach address v? */
static int reaches(const struct check_gid_net *g, uint32_t v)
{
	uint32_t m = g->net_plen > 0 ? 0xffffffffu << (32 - g->net_plen) : 0;

	if (((g->net_v4 ^ v) & m) == 0)
		return 1;
	for (int i = 0; i < g->nroutes && i < 8; i++) {
		uint32_t rm = g->rt_plen[i] > 0 ? 0xffffffffu << (32 - g->rt_plen[i]) : 0;

		if (((g->rt_dst[i] ^ v) & rm) == 0)
			return 1;
	}
	return 0;
}

/* Are the listed rails rail-only (E8b): RoCE, at least two, each netdev's
 * subnet and routes read, and none reaching another's address (a route
 * between rails, or one subnet for two, makes a miss cross rails and
 * work)? */
static int rail_only(const struct check_input *in, const char *list)
{
	struct check_gid_net g[16];
	int n = 0;

	if (in->fabric != FABRIC_ROCE)
		return 0;
	for (const char *p = list; *p && n < 16;) {
		size_t k = strcspn(p, ",");
		char dev[40];

		copy_strn(dev, sizeof dev, p, (size_t)(k < 39 ? k : 39));
		if (k && !rail_net(in, dev, &g[n++]))
			return 0;
		p += k;
		p += *p != '\0';
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			if (i != j && reaches(&g[i], g[j].net_v4))
				return 0;
	return n >= 2;
}

/* GPU g's ports as Mooncake picks them (topology.cpp): the listed devices
 * (list NULL: every device) on its PCIe switch (preferred_hca), else every
 * listed one (avail_hca), into e; selectDevice spreads slices over them. */
static void mc_gpu(const struct check_input *in, const char *list, int g,
		   struct check_gpu_nic *e)
{
	const struct probe_topo *t = &in->f->topo;
	int nn = t->nnics < PROBE_MAX_NICS ? t->nnics : PROBE_MAX_NICS, pref = 0, code = 0;

	for (int c = 0; c < nn; c++)
		pref |= (!list || in_list(list, t->nic_name[c])) && near(t->gpu_nic[g][c].link);
	e->n = 0;
	for (int c = 0; c < nn; c++) {
		int link = t->gpu_nic[g][c].link;

		if ((list && !in_list(list, t->nic_name[c])) || (pref && !near(link)))
			continue;
		if (nicsel_add_port(in, t->nic_name[c], e) && link >= PROBE_TOPO_PIX &&
		    (!code || link < code))
			code = link;
	}
	e->max_rails = e->n < 0 ? CHECK_GPU_NIC_PORTS : e->n;
	e->nsugg = 0;
	copy_str(e->link, sizeof e->link, code ? probe_topo_link_name(code) : "");
}

/* gpuNics for a pod whose KV is Mooncake's (SGLang's Mooncake backend on
 * its command line): each GPU's ports as Mooncake picks them, in place of
 * ucx-nic-select's UCX model (E8). */
static void mc_gpu_nics(const struct check_input *in, const char *list, const char *by,
			struct check_results *out)
{
	struct check_gpu_nic *all;

	if (!in->ctx || !envr_args_mooncake(in->ctx->args) || !out->gpu_nics)
		return;
	/* ucx-nic-select's array, not yet frozen (check_pod): replaced */
	all = xmalloc(out->n_gpu_nics * sizeof(*all));
	memcpy(all, out->gpu_nics, out->n_gpu_nics * sizeof(*all));
	for (size_t i = 0; i < out->n_gpu_nics; i++) {
		struct check_gpu_nic *e = &all[i];

		if (e->gpu < 0 || e->gpu >= in->f->topo.gpu_rows || e->gpu >= PROBE_MAX_GPUS)
			continue;
		copy_str(e->chosen_by, sizeof e->chosen_by, list ? by : "all");
		mc_gpu(in, list, e->gpu, e);
	}
	free((void *)out->gpu_nics);
	out->gpu_nics = all;
}

/* GPU g's preferred listed NICs ("mlx5_0", "mlx5_0+mlx5_1"; "?" none on
 * its switch) into b after sep. */
static void rank_nics(const struct check_input *in, const char *list, int g,
		      const char *sep, struct buf *b)
{
	const struct probe_topo *t = &in->f->topo;
	int nn = t->nnics < PROBE_MAX_NICS ? t->nnics : PROBE_MAX_NICS, k = 0;

	buf_appendf(b, "%s", sep);
	for (int c = 0; c < nn; c++)
		if (in_list(list, t->nic_name[c]) && near(t->gpu_nic[g][c].link))
			buf_appendf(b, "%s%s", k++ ? "+" : "", t->nic_name[c]);
	if (!k)
		buf_appendf(b, "?");
}

/* Per rank, its GPU's preferred NICs (check.h mc_rank_nics): the ranks
 * are CUDA_VISIBLE_DEVICES's GPUs in its order (by index), else every GPU
 * of topo -m; "" where topo -m was not read or the tray is a Grace one. */
static void rank_digest(const struct check_input *in, const char *list, struct buf *b)
{
	const struct probe_topo *t = &in->f->topo;
	const char *v = envv(in, "CUDA_VISIBLE_DEVICES");
	int rows = t->gpu_rows < PROBE_MAX_GPUS ? t->gpu_rows : PROBE_MAX_GPUS, k = 0;

	if (t->src.status != PROBE_OK || rows <= 0 || grace_tray(in))
		return;
	if (!v || !*v || strspn(v, "0123456789, ") != strlen(v)) {
		for (int g = 0; g < rows; g++)
			rank_nics(in, list, g, k++ ? ";" : "", b);
		return;
	}
	for (const char *p = v; *p;) {
		char *end;
		long g = strtol(p, &end, 10);

		if (end == p) {
			p++;
			continue;
		}
		if (g >= rows) {
			buf_reset(b);
			return;
		}
		rank_nics(in, list, (int)g, k++ ? ";" : "", b);
		p = end;
	}
}

/* The pod's side of the pair rule E8b (verdict/pairnet.c). */
static void digest(const struct check_input *in, const char *list, struct check_results *out)
{
	struct check_summary *sum = &out->summary;
	struct buf b = BUF_INIT(192);

	snprintf(sum->mc_rails, sizeof sum->mc_rails, "%.127s", list);
	sum->mc_affinity = envv(in, "MC_ENABLE_DEST_DEVICE_AFFINITY") != NULL;
	sum->mc_rail_only = rail_only(in, list);
	rank_digest(in, list, &b);
	if (b.len < sizeof sum->mc_rank_nics)
		copy_str(sum->mc_rank_nics, sizeof sum->mc_rank_nics, buf_str(&b));
	buf_release(&b);
}

void check_mooncake_nics(const struct check_input *in, struct check_results *out)
{
	const char *v = NULL, *by = MC_FLAG;
	char flag[512];
	int sgl;

	if ((in->fabric != FABRIC_INFINIBAND && in->fabric != FABRIC_ROCE) || !in->cross_pod) {
		emit_na(out, CK_MOONCAKE_NIC_SELECT, "no InfiniBand/RoCE path across pods (%s)",
			fabric_name(in->fabric));
		return;
	}
	if (!env_readable(in) || !runs_mooncake(in)) {
		emit_na(out, CK_MOONCAKE_NIC_SELECT, "%s", !env_readable(in) ?
			"the main process's environment was not readable" :
			"the pod runs no Mooncake transfer engine");
		return;
	}
	sgl = in->ctx && envr_args_mooncake(in->ctx->args);
	if (in->ctx && fwr_flag(in->ctx->args, MC_FLAG, flag, sizeof flag))
		v = flag;
	else if (!sgl && (v = envv(in, "MOONCAKE_DEVICE")) && *v)
		by = "MOONCAKE_DEVICE";
	mc_gpu_nics(in, v && *v && !strchr(v, '{') ? v : NULL, by, out);
	if (sgl && (!v || !*v) && (v = envv(in, "MOONCAKE_DEVICE")) && *v) {
		emit_na(out, CK_MOONCAKE_NIC_SELECT, "%s",
			"SGLang's Mooncake backend passes " MC_FLAG ", absent, as \"\" to TransferEngine.initialize (sglang disaggregation/mooncake/transfer_engine.py): Mooncake opens every device and prefers each GPU's own; MOONCAKE_DEVICE is not read there (the Mooncake store's MooncakeConfig.load_from_env reads it)");
		return;
	}
	if (!v || !*v || strchr(v, '{')) {
		emit_na(out, CK_MOONCAKE_NIC_SELECT, "%s", v && *v ?
			"a per-GPU device map (JSON) is not judged yet" :
			"no device list (" MC_FLAG ", MOONCAKE_DEVICE): Mooncake opens every device and prefers each GPU's own (B4 judges a GPU without one)");
		return;
	}
	digest(in, v, out);
	if (in->f->topo.src.status != PROBE_OK || in->f->topo.gpu_rows <= 0) {
		emit(out, CK_MOONCAKE_NIC_SELECT, CHECK_SKIPPED, NULL,
		     "nvidia-smi topo -m not read: which listed NIC is on each GPU's PCIe switch is unknown");
		return;
	}
	if (grace_tray(in))
		judge_grace(in, by, v, out);
	else
		judge(in, by, v, out);
}
