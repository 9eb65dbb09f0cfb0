/* OBSERVED family (checks.md O, issue 45): what the pod's RDMA ports
 * moved in check --observe's window, from the probe's two samples of
 * their counters (facts_counters.h).
 *
 * Evidence of use, never of readiness: these rows prove no link of the
 * KV path (table.def LINKS NONE), so they can lower a verdict and never
 * raise one.  A window in which nothing moved says "no KV traffic in the
 * window" and changes nothing.  Port counters are the node's, not the
 * pod's: other pods on the node and NCCL traffic on the same port count
 * too, and every finding says so rather than attribute them to this
 * worker. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "check/internal.h"
#include "probe/facts.h"
#include "util/buf.h"

#define SHARED_NOTE "port counters count every process on the node's port (other pods, NCCL), not only this worker"
/* O2: a rail idle next to a busy one of its kind; below this the busiest
 * carried too little to call the others idle (64 MiB: a few KV blocks). */
#define BUSY_MIN_BYTES (64LL << 20)
#define IDLE_PERMILLE 10          /* under 1 % of the busiest rail */
/* O3, NVSentinel docs/nic-health-monitor/link-counter-detection.md §1.4
 * (NVIDIA/NVSentinel, as in KaivalyaMDabhadkar/NVSentinel 07697cb):
 * symbol_error > 10/s and link_error_recovery > 5/min are non-fatal
 * degradation; the four counters below are fatal on any increase. */
#define SYMBOL_ERR_PER_S 10
#define LINK_RECOVERY_PER_MIN 5

static const enum probe_ctr fatal_ctr[] = {
	CTR_LINK_DOWNED, CTR_EXCESSIVE_BUF_OVERRUN, CTR_LOCAL_LINK_INTEGRITY, CTR_RNR_NAK_RETRY,
};

/* "1.5 GB" (decimal units: the port counters' own). */
static void bytes_text(int64_t v, char *b, size_t n)
{
	static const char *const unit[] = { "B", "kB", "MB", "GB", "TB", "PB" };
	double d = (double)v;
	int u = 0;

	while (d >= 1000.0 && u < 5)
		d /= 1000.0, u++;
	snprintf(b, n, u ? "%.1f %s" : "%.0f %s", d, unit[u]);
}

/* The busiest port, the ports that moved bytes and those whose data
 * counters were sampled twice (*sampled), and the total bytes moved; -1
 * total when no port had both samples of its data counters. */
static int64_t traffic(const struct probe_counters *c, size_t *busiest, size_t *moving,
		       size_t *sampled)
{
	int64_t total = -1, best = -1;

	*moving = *sampled = 0;
	for (size_t i = 0; i < c->n; i++) {
		int64_t b = probe_rail_bytes(&c->port[i]);

		if (b < 0)
			continue;
		(*sampled)++;
		if (total < 0)
			total = 0;
		total = b > INT64_MAX - total ? INT64_MAX : total + b;   /* saturating */
		*moving += b > 0;
		if (b > best)
			best = b, *busiest = i;
	}
	return total;
}

/* O1: the bytes per rail, busiest first in the detail. */
static void bytes_row(const struct probe_counters *c, struct check_results *out)
{
	size_t busiest = 0, moving, sampled;
	int64_t total = traffic(c, &busiest, &moving, &sampled);
	struct buf b = BUF_INIT(512);
	char t[32];

	if (total < 0) {
		emit_na(out, CK_OBSERVED_BYTES, "no RDMA port's data counters could be read%s",
			c->n ? "" : " (no RDMA port in the pod)");
		return;
	}
	if (total == 0) {
		emit(out, CK_OBSERVED_BYTES, CHECK_SKIPPED, NULL,
		     "no KV traffic in the window (%lds): none of %zu RDMA ports moved a byte; "
		     "an idle deployment, or KV on TCP (the LOGS column tells which)",
		     c->window_s, sampled);
		return;
	}
	for (size_t i = 0; i < c->n && b.len < 400; i++) {
		int64_t v = probe_rail_bytes(&c->port[i]);

		if (v <= 0)
			continue;
		bytes_text(v, t, sizeof t);
		buf_appendf(&b, "%s%s/%d %s", b.len ? ", " : "", c->port[i].dev, c->port[i].port, t);
	}
	bytes_text(total, t, sizeof t);
	emit(out, CK_OBSERVED_BYTES, CHECK_OK, NULL, "%s over %zu of %zu RDMA ports in %lds (%s); %s",
	     t, moving, sampled, c->window_s, buf_str(&b), SHARED_NOTE);
	buf_release(&b);
}

/* " near GPU4,GPU5": the GPUs for which nvidia-smi topo -m puts NIC dev
 * behind the same PCIe switch (PIX/PXB), the GPUs whose own rail it is;
 * nothing when topo was not read or names none. */
static void near_gpus(const struct probe_topo *t, const char *dev, struct buf *b)
{
	int nic = -1, first = 1;

	for (int k = 0; k < t->nnics && k < PROBE_MAX_NICS && nic < 0; k++)
		if (!strcmp(t->nic_name[k], dev))
			nic = k;
	for (int g = 0; nic >= 0 && g < t->gpu_rows && g < PROBE_MAX_GPUS; g++)
		if (t->gpu_nic[g][nic].link == PROBE_TOPO_PIX || t->gpu_nic[g][nic].link == PROBE_TOPO_PXB) {
			buf_appendf(b, "%sGPU%d", first ? " near " : ",", g);
			first = 0;
		}
}

/* A rail of the busiest one's kind: same link layer and rate. */
static int same_kind(const struct probe_rail_port *a, const struct probe_rail_port *b)
{
	return !strcmp(a->link_layer, b->link_layer) && a->rate_gbps == b->rate_gbps;
}

/* O2: rails of the busiest one's kind that stayed (nearly) idle, each
 * with the GPUs it is the near rail of (ucx#11680: one GPU's traffic on
 * another GPU's rail). */
static void idle_row(const struct probe_counters *c, const struct probe_topo *topo,
		     struct check_results *out)
{
	size_t busiest = 0, moving, sampled, idle = 0, kind = 0;
	int64_t total = traffic(c, &busiest, &moving, &sampled), top;
	struct buf b = BUF_INIT(512);
	char t[32];

	top = total > 0 ? probe_rail_bytes(&c->port[busiest]) : 0;
	if (top < BUSY_MIN_BYTES) {
		emit_na(out, CK_OBSERVED_IDLE, "too little traffic in the window to compare rails");
		return;
	}
	for (size_t i = 0; i < c->n; i++) {
		int64_t v = probe_rail_bytes(&c->port[i]);

		if (v < 0 || !same_kind(&c->port[i], &c->port[busiest]))
			continue;
		kind++;
		/* in double: v * 1000 overflows for counters near 2^63 */
		if ((double)v * 1000.0 / (double)top >= IDLE_PERMILLE)
			continue;
		idle++;
		if (b.len < 300) {
			buf_appendf(&b, "%s%s/%d", b.len ? ", " : "", c->port[i].dev, c->port[i].port);
			near_gpus(topo, c->port[i].dev, &b);
		}
	}
	bytes_text(top, t, sizeof t);
	if (idle)
		emit(out, CK_OBSERVED_IDLE, CHECK_WARN, NULL,
		     "%zu of %zu %s rails idle (%s) while %s/%d carried %s: KV uses part of the fabric "
		     "(openucx/ucx#11680); %s", idle, kind, c->port[busiest].link_layer, buf_str(&b),
		     c->port[busiest].dev, c->port[busiest].port, t, SHARED_NOTE);
	else
		emit(out, CK_OBSERVED_IDLE, CHECK_OK, NULL, "all %zu %s rails carried traffic (busiest %s)",
		     kind, c->port[busiest].link_layer, t);
	buf_release(&b);
}

/* One port's errors in the window into b; the worst status it shows. */
static enum check_status port_errors(const struct probe_counters *c, const struct probe_rail_port *p,
				     struct buf *b)
{
	enum check_status st = CHECK_OK;
	uint64_t d;

	for (size_t k = 0; k < sizeof fatal_ctr / sizeof fatal_ctr[0]; k++)
		if (probe_ctr_delta(p, fatal_ctr[k], &d) && d) {
			buf_appendf(b, "%s%s/%d %s +%" PRIu64, b->len ? ", " : "", p->dev, p->port,
				    probe_ctr_name(fatal_ctr[k]), d);
			st = CHECK_FAIL;
		}
	if (probe_ctr_delta(p, CTR_SYMBOL_ERROR, &d) &&
	    d > (uint64_t)SYMBOL_ERR_PER_S * (uint64_t)c->window_s) {
		buf_appendf(b, "%s%s/%d symbol_error +%" PRIu64 " (over %d/s)", b->len ? ", " : "",
			    p->dev, p->port, d, SYMBOL_ERR_PER_S);
		st = st == CHECK_FAIL ? st : CHECK_WARN;
	}
	if (probe_ctr_delta(p, CTR_LINK_ERROR_RECOVERY, &d) &&
	    (double)d * 60.0 > (double)LINK_RECOVERY_PER_MIN * (double)c->window_s) {
		buf_appendf(b, "%s%s/%d link_error_recovery +%" PRIu64 " (over %d/min)",
			    b->len ? ", " : "", p->dev, p->port, d, LINK_RECOVERY_PER_MIN);
		st = st == CHECK_FAIL ? st : CHECK_WARN;
	}
	return st;
}

/* O3: error counters that rose. */
static void errors_row(const struct probe_counters *c, struct check_results *out)
{
	enum check_status worst = CHECK_OK;
	struct buf b = BUF_INIT(512);

	if (!c->n) {
		emit_na(out, CK_OBSERVED_ERRORS, "no RDMA port in the pod");
		return;
	}
	for (size_t i = 0; i < c->n && b.len < 400; i++) {
		enum check_status st = port_errors(c, &c->port[i], &b);

		if (st == CHECK_FAIL || (st == CHECK_WARN && worst == CHECK_OK))
			worst = st;
	}
	if (worst == CHECK_OK)
		emit(out, CK_OBSERVED_ERRORS, CHECK_OK, NULL,
		     "no error counter rose on %zu RDMA ports in %lds", c->n, c->window_s);
	else
		emit(out, CK_OBSERVED_ERRORS, worst, NULL, "%s in %lds (NVSentinel link-counter rules); %s",
		     buf_str(&b), c->window_s, SHARED_NOTE);
	buf_release(&b);
}

void check_observed(const struct check_input *in, struct check_results *out)
{
	const struct probe_counters *c = &in->f->counters;
	char why[200];

	/* Without --observe the probe writes no section: no row at all. */
	if (c->src.status == PROBE_NOT_LOOKED)
		return;
	if (c->src.status != PROBE_OK) {
		if (c->src.status == PROBE_ABSENT)
			snprintf(why, sizeof why, "no sleep in the container: the counter window could not run");
		else
			src_why(&c->src, "the counter window", why, sizeof why);
		emit(out, CK_OBSERVED_BYTES, CHECK_SKIPPED, NULL, "%s", why);
		return;
	}
	bytes_row(c, out);
	idle_row(c, &in->f->topo, out);
	errors_row(c, out);
}
