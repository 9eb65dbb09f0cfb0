/* ucx_perftest client output: the "Final:" row of the table and the lanes
 * UCX_LOG_LEVEL=info prints, e.g.
 *   [..] ucp_worker.c:1763 UCX  INFO    ep_cfg[0]: tag(tcp/eth0)
 *   [..] ucp_worker.c:1903 UCX  INFO    ucp_context_2 inter-node cfg#3 rma(rc_mlx5/mlx5_ib2:1) ...
 *   Final:                   200     11.933   595.189   595.189     1680.14    1680.14        1680        1680
 * (iterations, latency 50%ile/average/overall usec, bandwidth average/overall
 * MB/s, message rate average/overall). */
#include "perftest.h"

#include <arpa/inet.h>
#include <string.h>

#include "ptext.h"

/* Final: N p50 avg overall bw_avg bw_overall ... */
static void final_row(struct pslice rest, struct perftest_result *r)
{
	struct pslice tok;
	double v[6];
	long it;
	int i;

	if (!ps_token(&rest, &tok) || !ps_long(tok, &it))
		return;
	for (i = 0; i < 6; i++)
		if (!ps_token(&rest, &tok) || !ps_double(tok, &v[i]))
			return;
	r->final = 1;
	r->iterations = it;
	r->lat_avg_us = v[1];
	r->bw_mbs = v[4];
}

/* The lane list after `mark` ("ep_cfg[" up to ": ", or " cfg#" up to a
 * space) into r->lanes; 0 when the line has none. */
static int lanes(struct pslice line, const char *mark, const char *sep,
		 struct perftest_result *r)
{
	long at = ps_find(line, mark);
	struct pslice rest;

	if (at < 0)
		return 0;
	rest = ps_from(line, (size_t)at + 1);
	if ((at = ps_find(rest, sep)) < 0)
		return 0;
	ps_copy(r->lanes, sizeof(r->lanes), ps_trim(ps_from(rest, (size_t)at + 1)));
	return r->lanes[0] != '\0';
}

static void error_line(struct pslice line, struct perftest_result *r)
{
	long at;

	if (r->error[0])
		return;
	if ((at = ps_find(line, "UCX  ERROR")) >= 0)
		ps_copy(r->error, sizeof(r->error), ps_trim(ps_from(line, (size_t)at + 10)));
	else if (ps_starts(line, "di-transfer: ") && !ps_starts(line, "di-transfer: client exit") &&
		 !ps_starts(line, "di-transfer: server exit"))
		ps_copy(r->error, sizeof(r->error), ps_from(line, 13));
}

void perftest_parse(const char *text, size_t len, struct perftest_result *r)
{
	struct ptext it;
	struct pslice line;
	int ep = 0;   /* the test's own endpoint config wins over a context's */

	memset(r, 0, sizeof(*r));
	ptext_init(&it, text, len);
	while (ptext_line(&it, &line)) {
		struct pslice t = ps_trim(line);
		if (ps_starts(t, "Final:"))
			final_row(ps_from(t, 6), r);
		else if (ps_find(t, "ep_cfg[") >= 0) {
			if (!ep)
				ep = lanes(t, "ep_cfg[", ": ", r);
		} else if (ps_find(t, " cfg#") >= 0) {
			if (!ep && !r->lanes[0])
				lanes(t, " cfg#", " ", r);
		} else
			error_line(t, r);
	}
}

int perftest_valid_ip(const char *s)
{
	unsigned char a[16];

	return s && *s && strlen(s) < 64 &&
	       (inet_pton(AF_INET, s, a) == 1 || inet_pton(AF_INET6, s, a) == 1);
}
