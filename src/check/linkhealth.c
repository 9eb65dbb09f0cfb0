/* O4 link health without a window (issue 45 point 3; docs/checks.md O4):
 * the PCIe links on the way from each RDMA NIC and each GPU to its root
 * port (probe section pcie_links, facts_pcie.h), each against what both
 * its ends can do.
 *
 * Each device's Link Status is the link it faces: an endpoint or a
 * switch's upstream port reports the link above it, a switch downstream
 * port or root port the link below it (PCIe Base spec 7.5.3.8; Linux
 * drivers/pci/pci-sysfs.c current_link_speed/width read it).  Walking up
 * from an endpoint the devices therefore pair off: (endpoint, downstream
 * port), (upstream port, downstream or root port), ...; each pair is one
 * link, trained to at most the lower of its two ends' maximum (the kernel's
 * own pcie_bandwidth_available() in drivers/pci/pci.c names such a link
 * "limited by" it).  A link below that is a degraded card, riser or slot;
 * scitix/sichek (b6344db, components/infiniband/checker/pcie_tree_width.go)
 * judges a NIC's tree the same way, against the lesser of both maxima.
 *
 * A GPU's own link is judged by width only: the driver lowers its speed
 * when the GPU is idle (nvidia-smi --help-query-gpu, pcie.link.gen.current:
 * "may be reduced when the GPU is not in use"; sichek's check_pcie.go
 * judges a GPU's generation only in P0).  Sysfs shows the node's
 * devices, so the finding is the node's, as the port counters are. */
#include <stdio.h>
#include <string.h>

#include "check/internal.h"
#include "probe/facts.h"
#include "util/buf.h"

#define MAX_LINKS (PROBE_MAX_PCIE_PATHS * PROBE_MAX_PCIE_HOPS / 2)

static int lesser(int a, int b)
{
	return a && b ? (a < b ? a : b) : 0;
}

/* hop's current value, else its partner's (both ends report the link). */
static int either(int a, int b)
{
	return a ? a : b;
}

/* The links already judged, by their upstream-facing end's BDF: a switch
 * link several endpoints share is named once. */
struct seen {
	size_t n;
	const char *bdf[MAX_LINKS];
};

static int seen_add(struct seen *s, const char *bdf)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->bdf[i], bdf))
			return 0;
	if (s->n < MAX_LINKS)
		s->bdf[s->n++] = bdf;
	return 1;
}

/* The link (lo, up) of path p: appends what is below capability to b
 * (detail), counts it in *bad; 1 when the link could be judged at all. */
static int judge_link(const struct probe_pcie_path *p, const struct probe_pcie_hop *lo,
		      const struct probe_pcie_hop *up, int own_gpu_link, struct buf *b, int *bad)
{
	int cw = either(lo->cur_width, up->cur_width), mw = lesser(lo->max_width, up->max_width);
	int cs = either(lo->cur_speed, up->cur_speed), ms = lesser(lo->max_speed, up->max_speed);
	int slow = !own_gpu_link && cs && ms && cs < ms, narrow = cw && mw && cw < mw;

	if (!(cw && mw) && !(cs && ms))
		return 0;
	if (!slow && !narrow)
		return 1;
	(*bad)++;
	if (b->len > 480)
		return 1;
	buf_appendf(b, "%s%s %s: %s-%s", b->len ? "; " : "", p->gpu ? "GPU" : "NIC", p->name, lo->bdf,
		    up->bdf);
	if (narrow)
		buf_appendf(b, " x%d of x%d", cw, mw);
	if (slow)
		buf_appendf(b, " %d.%d of %d.%d GT/s", cs / 10, cs % 10, ms / 10, ms % 10);
	return 1;
}

/* O6: ports whose link_downed is not 0, from one sample in every check
 * (section port_counters).  link_downed counts the times the port's
 * training state machine failed to keep LinkUp (IBA PortCounters
 * LinkDownedCounter); NVSentinel docs/nic-health-monitor/
 * link-counter-detection.md §2.4.3 makes any increase fatal, since active
 * QPs are not rerouted (llm-d/llm-d#191: an engine dying on a port flap).
 * Without a window the count runs from the last clear of the counters
 * (boot, or perfquery -x), so it is a warning naming the node's uptime as
 * the longest that can be; --observe (O3) tells a flap now. */
static void flaps_row(const struct probe_counters *c, struct check_results *out)
{
	struct buf b = BUF_INIT(256);
	int read = 0, down = 0;
	char up[80] = "";

	if (c->src.status == PROBE_NOT_LOOKED)
		return;
	for (size_t i = 0; i < c->n; i++) {
		const struct probe_rail_port *p = &c->port[i];
		uint64_t v = p->v[0][CTR_LINK_DOWNED];

		if (!(p->have[0] & (1u << CTR_LINK_DOWNED)))
			continue;
		read++;
		if (!v)
			continue;
		down++;
		if (b.len < 300)
			buf_appendf(&b, "%s%s/%d went down %llu time%s", b.len ? ", " : "", p->dev, p->port,
				    (unsigned long long)v, v == 1 ? "" : "s");
	}
	if (c->uptime_s > 0)
		snprintf(up, sizeof up, ", within the node's %ld.%ld days of uptime", c->uptime_s / 86400,
			 c->uptime_s % 86400 * 10 / 86400);
	if (!read)
		emit_na(out, CK_LINK_PORT_FLAPS, "no RDMA port's link_downed counter readable%s",
			c->n ? " (EFA ports have none)" : " (no RDMA port in the pod)");
	else if (down)
		emit(out, CK_LINK_PORT_FLAPS, CHECK_WARN, NULL,
		     "%s since the port counters were cleared%s (the node's ports, shared by its pods)",
		     buf_str(&b), up);
	else
		emit(out, CK_LINK_PORT_FLAPS, CHECK_OK, NULL,
		     "%d RDMA ports never went down since their counters were cleared%s", read, up);
	buf_release(&b);
}

/* O4 */
static void pcie_row(const struct probe_pcie *pc, struct check_results *out)
{
	struct buf b = BUF_INIT(512);
	struct seen s;
	int judged = 0, bad = 0;
	char why[200];

	if (pc->src.status == PROBE_NOT_LOOKED)
		return;   /* a probe without the section: no row */
	if (pc->src.status != PROBE_OK) {
		emit(out, CK_LINK_PCIE_TRAINED, CHECK_SKIPPED, NULL, "%s",
		     src_why(&pc->src, "the PCIe link attributes", why, sizeof why));
		return;
	}
	s.n = 0;
	for (size_t i = 0; i < pc->n; i++) {
		const struct probe_pcie_path *p = &pc->path[i];

		for (int h = 0; h + 1 < p->nhops; h += 2)
			if (seen_add(&s, p->hop[h].bdf))
				judged += judge_link(p, &p->hop[h], &p->hop[h + 1], p->gpu && h == 0, &b, &bad);
	}
	if (!judged)
		emit_na(out, CK_LINK_PCIE_TRAINED, "no PCIe link of an RDMA NIC or GPU readable in sysfs "
			"(none in the node's PCI tree, or a VM that shows no switch ports)");
	else if (bad)
		emit(out, CK_LINK_PCIE_TRAINED, CHECK_WARN, NULL,
		     "%d of %d PCIe links on the GPU and NIC paths trained below what both ends can do: %s "
		     "(the node's, as sysfs shows them)", bad, judged, buf_str(&b));
	else
		emit(out, CK_LINK_PCIE_TRAINED, CHECK_OK, NULL,
		     "%d PCIe links on the GPU and NIC paths run at the width (and, off the GPUs' own "
		     "links, the speed) both ends can do", judged);
	emit_source(out, "/sys/bus/pci/devices/*/current_link_*");
	buf_release(&b);
}

void check_linkhealth(const struct check_input *in, struct check_results *out)
{
	pcie_row(&in->f->pcie, out);
	flaps_row(&in->f->port_now, out);
}

/* The board (PSID, else the HCA type) of device d: sichek keys its
 * firmware spec by board_id (components/infiniband/checker/fw.go). */
static const char *board_of(const struct probe_rdma_dev *d)
{
	return d->board_id[0] ? d->board_id : d->hca_type;
}

/* How many devices of list l with a firmware read are of board b. */
static int board_count(const struct probe_rdma_list *l, const char *b)
{
	int k = 0;

	for (int i = 0; i < l->ndevs; i++)
		k += l->dev[i].fw_ver[0] && !strcmp(board_of(&l->dev[i]), b);
	return k;
}

void hca_firmware(const struct probe_facts *f, char *v, size_t n)
{
	const struct probe_rdma_list *l = rdma_list(f);
	const struct probe_rdma_dev *best = NULL;
	int most = 0, mixed = 0;

	*v = 0;
	for (int i = 0; l && i < l->ndevs; i++) {
		int k = l->dev[i].fw_ver[0] && board_of(&l->dev[i])[0] ? board_count(l, board_of(&l->dev[i])) : 0;

		if (k > most)
			most = k, best = &l->dev[i];
	}
	if (!best)
		return;
	for (int i = 0; i < l->ndevs; i++)
		mixed |= l->dev[i].fw_ver[0] && !strcmp(board_of(&l->dev[i]), board_of(best)) &&
			 strcmp(l->dev[i].fw_ver, best->fw_ver);
	snprintf(v, n, "%s %s", board_of(best), mixed ? "mixed" : best->fw_ver);
}
