/* Section rail_counters (facts_counters.h): the probe's two samples of
 * every RDMA port's counters.  All of it is pod output: names are matched
 * against the fixed list, numbers parsed strictly, the rest ignored. */
#include "internal.h"
#include "util/strcopy.h"

#include <stdio.h>
#include <string.h>

static const char *const ctr_names[CTR__COUNT] = {
	"counters/port_xmit_data", "counters/port_rcv_data", "counters/symbol_error",
	"counters/link_downed", "counters/link_error_recovery", "counters/port_rcv_errors",
	"counters/local_link_integrity_errors", "counters/excessive_buffer_overrun_errors",
	"counters/port_xmit_discards", "hw_counters/rnr_nak_retry_err",
	"hw_counters/local_ack_timeout_err", "hw_counters/tx_bytes", "hw_counters/rx_bytes",
	"hw_counters/rdma_read_bytes", "hw_counters/rdma_read_resp_bytes",
	"hw_counters/rdma_write_bytes", "hw_counters/rdma_write_recv_bytes",
};

const char *probe_ctr_name(enum probe_ctr c)
{
	return (unsigned)c < CTR__COUNT ? ctr_names[c] : NULL;
}

static int ctr_of(struct pslice name)
{
	for (int c = 0; c < CTR__COUNT; c++)
		if (ps_eq(name, ctr_names[c]))
			return c;
	return -1;
}

/* A decimal counter of at most 20 digits that fits 64 bits. */
static int u64_of(struct pslice x, uint64_t *out)
{
	uint64_t v = 0;

	if (!x.n || x.n > 20 || !ps_is_digits(x))
		return 0;
	for (size_t i = 0; i < x.n; i++) {
		unsigned d = (unsigned)(x.s[i] - '0');

		if (v > (UINT64_MAX - d) / 10)
			return 0;
		v = v * 10 + d;
	}
	*out = v;
	return 1;
}

/* A device name as sysfs has them: [A-Za-z0-9_.-], 1 to 31 bytes. */
static int dev_ok(struct pslice d)
{
	if (!d.n || d.n >= 32)
		return 0;
	for (size_t i = 0; i < d.n; i++) {
		char ch = d.s[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '-'))
			return 0;
	}
	return 1;
}

/* The port DEV/PORT, added when new (NULL past the cap or for a bad name). */
static struct probe_rail_port *port_of(struct probe_counters *c, struct pslice dev,
				       struct pslice port, int add)
{
	long pn;

	if (!dev_ok(dev) || !ps_is_digits(port) || port.n > 3 || !ps_long(port, &pn) || pn < 0 || pn > 255)
		return NULL;
	for (size_t i = 0; i < c->n; i++)
		if (ps_eq(dev, c->port[i].dev) && c->port[i].port == pn)
			return &c->port[i];
	if (!add)
		return NULL;
	if (c->n == PROBE_MAX_RAIL_PORTS) {
		c->dropped++;
		return NULL;
	}
	ps_copy(c->port[c->n].dev, sizeof c->port[c->n].dev, dev);
	c->port[c->n].port = (int)pn;
	copy_str(c->port[c->n].link_layer, sizeof c->port[c->n].link_layer, "unknown");
	return &c->port[c->n++];
}

/* "port DEV PORT LL RATE" */
static void port_line(struct probe_counters *c, struct pslice rest)
{
	struct pslice dev, pn, ll, rate;
	struct probe_rail_port *p;
	long r;

	if (!ps_token(&rest, &dev) || !ps_token(&rest, &pn) || !ps_token(&rest, &ll) ||
	    !ps_token(&rest, &rate) || (p = port_of(c, dev, pn, 1)) == NULL)
		return;
	if (dev_ok(ll) && ll.n < sizeof p->link_layer)
		ps_copy(p->link_layer, sizeof p->link_layer, ll);
	if (ps_long(rate, &r) && r > 0 && r < 100000)
		p->rate_gbps = (int)r;
}

/* "s0|s1 DEV PORT NAME VALUE": 1 when taken. */
static int sample_line(struct probe_counters *c, int s, struct pslice rest)
{
	struct pslice dev, pn, name, val;
	struct probe_rail_port *p;
	uint64_t v;
	int k;

	if (!ps_token(&rest, &dev) || !ps_token(&rest, &pn) || !ps_token(&rest, &name) ||
	    !ps_token(&rest, &val) || (k = ctr_of(name)) < 0 || !u64_of(val, &v) ||
	    (p = port_of(c, dev, pn, s == 0)) == NULL)
		return 0;
	p->v[s][k] = v;
	p->have[s] |= 1u << k;
	return 1;
}

int probe_parse_counters(const char *t, size_t n, struct probe_counters *c)
{
	struct ptext it;
	struct pslice line, k, v, rest;
	long w;
	int got = 0;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		rest = line;
		if (ps_split(line, '=', &k, &v) && ps_eq(k, "window")) {
			if (ps_long(v, &w) && w > 0 && w <= 600)
				c->window_s = w;
		} else if (ps_split(line, '=', &k, &v) && ps_eq(k, "uptime")) {
			if (ps_is_digits(v) && v.n <= 10 && ps_long(v, &w) && w > 0)
				c->uptime_s = w;
		} else if (ps_token(&rest, &k)) {
			if (ps_eq(k, "port"))
				port_line(c, rest);
			else if (ps_eq(k, "s0") || ps_eq(k, "s1"))
				got += sample_line(c, ps_eq(k, "s1"), rest);
		}
	}
	return got;
}

int probe_ctr_delta(const struct probe_rail_port *p, enum probe_ctr c, uint64_t *d)
{
	uint32_t bit = 1u << c;

	if ((unsigned)c >= CTR__COUNT || !(p->have[0] & bit) || !(p->have[1] & bit) ||
	    p->v[1][c] < p->v[0][c])
		return 0;
	*d = p->v[1][c] - p->v[0][c];
	return 1;
}

static int64_t capped(uint64_t v)
{
	return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

int64_t probe_rail_bytes(const struct probe_rail_port *p)
{
	uint64_t a, b;

	if (probe_ctr_delta(p, CTR_XMIT_DATA, &a) && probe_ctr_delta(p, CTR_RCV_DATA, &b))
		return capped(a > UINT64_MAX / 8 || b > UINT64_MAX / 8 ? UINT64_MAX : 4 * (a + b));
	if (probe_ctr_delta(p, CTR_EFA_TX_BYTES, &a) && probe_ctr_delta(p, CTR_EFA_RX_BYTES, &b))
		return capped(a > UINT64_MAX / 2 || b > UINT64_MAX / 2 ? UINT64_MAX : a + b);
	return -1;
}
