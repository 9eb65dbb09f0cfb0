/* check --transfer / nixl --transfer: the flow of one transfer test.  The
 * in-pod side is fixed scripts (src/probe/xfer_*.sh) whose arguments are
 * values made here (token, port, sizes, seconds) or validated (the server
 * pod's IP); judging is in src/check/transfer.c. */
#include "run/transfer.h"

#include <openssl/rand.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/transfer.h"
#include "probe/facts.h"
#include "probe/invoke.h"
#include "probe/perftest.h"
#include "util/log.h"
#include "util/safe.h"
#include "util/xalloc.h"

#define XFER_SIZE "67108864"    /* 64 MiB messages: KV blocks move in large ones */
#define XFER_ITERS "32"         /* 2 GiB: about 2 s on TCP, 0.1 s on HDR */
#define XFER_MAX_OUTPUT (1u << 20)
#define XFER_SLACK_MS 10000L    /* exec deadline past the in-pod limit */
#define XFER_CLEANUP_MS 20000L

struct run_one {
	struct http_client *c;
	struct exec_request rq;
	struct exec_result res;
	char *stdin_owned;   /* rq.stdin_data */
};

static void *run_thread(void *arg)
{
	struct run_one *r = arg;

	exec_run(r->c, &r->rq, &r->res);
	return NULL;
}

/* argv is `sh -s -- ARGS...` (probe/invoke.h); script goes on stdin.
 * Release with request_done(). */
static void request(struct run_one *r, struct http_client *c, const struct pod_info *p,
		    const char *const *argv, const char *script, long timeout_ms)
{
	memset(r, 0, sizeof(*r));
	r->c = c;
	r->stdin_owned = invoke_stdin(script, &r->rq.stdin_len);
	r->rq.stdin_data = r->stdin_owned;
	r->rq.namespace = p->namespace;
	r->rq.pod = p->name;
	r->rq.container = p->container;
	r->rq.argv = argv;
	r->rq.timeout_ms = timeout_ms;
	r->rq.max_output = XFER_MAX_OUTPUT;
}

static void request_done(struct run_one *r)
{
	free(r->stdin_owned);
	r->stdin_owned = NULL;
	exec_result_release(&r->res);
}

/* A fresh marker token (hex) and a port in 20000-29999. */
static void token_and_port(char tok[17], char port[8])
{
	unsigned char raw[10];
	int i;

	if (RAND_bytes(raw, sizeof(raw)) != 1)
		memset(raw, 0x5a, sizeof(raw));
	for (i = 0; i < 8; i++)
		snprintf(tok + 2 * i, 3, "%02x", raw[i]);
	snprintf(port, 8, "%d", 20000 + ((raw[8] << 8 | raw[9]) % 10000));
}

/* Stops every process carrying the marker in one pod; what it says goes
 * to -v logs only. */
static void cleanup(struct http_client *c, const struct pod_info *p, const char *tok,
		    const struct run_sink *sink)
{
	const char *argv[] = { "sh", "-s", "--", tok, NULL };
	struct run_one r;

	request(&r, c, p, argv, xfer_cleanup, XFER_CLEANUP_MS);
	exec_run(c, &r.rq, &r.res);
	log_at(2, "transfer: cleanup in %s: %s%s", p->name,
	       r.res.outcome == EXEC_SUCCESS ? buf_str(&r.res.out) : exec_outcome_name(r.res.outcome),
	       r.res.outcome == EXEC_SUCCESS ? "" : r.res.message);
	if (r.res.outcome != EXEC_SUCCESS)
		run_say(sink, "warning: transfer: cleanup in pod %s failed: %s", safe_show(p->name),
			r.res.message[0] ? safe_show(r.res.message) : exec_outcome_name(r.res.outcome));
	request_done(&r);
}

static int has_perftest(const struct transfer_side *s)
{
	return s->f && s->f->nixl.tool[PROBE_NIXL_TOOL_UCX_PERFTEST];
}

static int has_cuda(const struct transfer_side *s)
{
	return s->f && s->f->ucx.tl_count[PROBE_TL_CUDA_COPY] > 0;
}

/* Why the client did not finish, NULL when it did (ran to its end). */
static const char *failure(const struct exec_result *r, const char *cancelled,
			   const char *limit, char *buf, size_t n)
{
	if (cancelled)
		return cancelled;
	if (r->outcome == EXEC_TIMEOUT ||
	    (r->outcome == EXEC_EXIT_CODE && (r->exit_code == 124 || r->exit_code == 137))) {
		snprintf(buf, n, "the time limit (%s s) passed, both sides stopped", limit);
		return buf;
	}
	if (r->outcome == EXEC_SUCCESS || r->outcome == EXEC_EXIT_CODE)
		return NULL;
	snprintf(buf, n, "%s", r->message[0] ? r->message : exec_outcome_name(r->outcome));
	return buf;
}

/* The client's two output streams (out, err), parsed together. */
static void parse(const struct exec_result *r, struct perftest_result *pr)
{
	struct buf all = BUF_INIT(2 * XFER_MAX_OUTPUT + 2);

	buf_appends(&all, buf_str(&r->out));
	buf_appends(&all, "\n");
	buf_appends(&all, buf_str(&r->err));
	perftest_parse(buf_str(&all), all.len, pr);
	buf_release(&all);
}

static void add_both(const struct transfer_side *a, const struct transfer_side *b,
		     const struct transfer_outcome *o)
{
	transfer_judge(o, a->results);
	transfer_judge(o, b->results);
}

void run_transfer_pair(struct http_client *c, const struct transfer_side *client,
		       const struct transfer_side *server, long limit_ms,
		       const struct run_sink *sink)
{
	struct transfer_outcome o;
	struct perftest_result cres, sres;
	struct run_one srv, cli;
	const char *ip = server->pod->pod_ip, *mem, *cancelled;
	char tok[17], port[8], secs[24], why[600];
	pthread_t th;

	memset(&o, 0, sizeof(o));
	o.client_pod = client->pod->name;
	o.server_pod = server->pod->name;
	if (!has_perftest(client) || !has_perftest(server)) {
		o.no_tool = 1;
		o.missing_in = has_perftest(client) ? server->pod->name : client->pod->name;
		run_say(sink, "transfer: not run between %s and %s: no ucx_perftest in %s",
			safe_show(o.client_pod), safe_show(o.server_pod), safe_show(o.missing_in));
		add_both(client, server, &o);
		return;
	}
	if (!perftest_valid_ip(ip)) {
		o.failure = "the decode pod has no valid pod IP";
		add_both(client, server, &o);
		return;
	}
	token_and_port(tok, port);
	snprintf(secs, sizeof(secs), "%ld", (limit_ms + 999) / 1000);
	mem = has_cuda(client) && has_cuda(server) ? "cuda" : "host";
	run_say(sink, "transfer: running ucx_perftest server in %s pod %s, client in %s pod %s "
		"(tag_bw, 64 MiB x " XFER_ITERS ", %s memory, limit %s s)",
		safe_show(server->pod->role), safe_show(server->pod->name),
		safe_show(client->pod->role), safe_show(client->pod->name), mem, secs);
	{
		const char *sargv[] = { "sh", "-s", "--", "server", tok, port, secs, NULL };
		const char *cargv[] = { "sh", "-s", "--", "client", tok, ip, port, XFER_SIZE,
					XFER_ITERS, mem, secs, NULL };
		int threaded;

		request(&srv, c, server->pod, sargv, xfer_perftest, limit_ms + XFER_SLACK_MS);
		request(&cli, c, client->pod, cargv, xfer_perftest, limit_ms + XFER_SLACK_MS);
		threaded = pthread_create(&th, NULL, run_thread, &srv) == 0;
		if (threaded)
			exec_run(c, &cli.rq, &cli.res);
		else {
			cli.res.outcome = EXEC_ERROR;
			snprintf(cli.res.message, sizeof(cli.res.message), "cannot start a thread");
		}
		/* Always: stop what may still run (the server waits for a client
		 * that failed; a cancel leaves processes the API server may not
		 * kill), with a cancel cleared for the time it takes. */
		cancelled = cancel_why();
		cancel_reset();
		cleanup(c, server->pod, tok, sink);
		cleanup(c, client->pod, tok, sink);
		if (threaded)
			pthread_join(th, NULL);
		if (cancelled)
			cancel_run(cancelled);
	}
	parse(&cli.res, &cres);
	parse(&srv.res, &sres);
	o.res = &cres;
	o.failure = cres.final ? NULL : failure(&cli.res, cancelled, secs, why, sizeof(why));
	o.server_error = sres.error[0] ? sres.error : NULL;
	o.expect_gbps = transfer_port_rate(client->f);
	if (o.expect_gbps <= 0 || (transfer_port_rate(server->f) > 0 &&
				   transfer_port_rate(server->f) < o.expect_gbps))
		o.expect_gbps = transfer_port_rate(server->f);
	add_both(client, server, &o);
	request_done(&cli);
	request_done(&srv);
}

void run_transfer_pairs(struct http_client *c, struct run *pr, long limit_ms,
			const struct run_sink *sink)
{
	size_t n = pr->pods->n, i, m;
	struct transfer_pod *tp = xcalloc(n, sizeof(*tp));
	struct transfer_pair pairs[TRANSFER_MAX_PAIRS];
	char **groups = xcalloc(n, sizeof(*groups));

	for (i = 0; i < n; i++) {
		const struct pod_info *p = &pr->pods->items[i];
		tp[i].role = p->role;
		tp[i].node = p->node;
		tp[i].group = groups[i] = xasprintf("%s/%s", p->namespace, p->graph);
		tp[i].usable = pr->pod[i].probed && pr->pod[i].facts && p->pod_ip && *p->pod_ip;
	}
	m = transfer_pick_pairs(tp, n, pairs, TRANSFER_MAX_PAIRS);
	if (m == 0)
		run_say(sink, "transfer: no probed prefill and decode pods to test between");
	for (i = 0; i < m && !cancel_why(); i++) {
		struct transfer_side cl = { &pr->pods->items[pairs[i].client],
					    pr->pod[pairs[i].client].facts, &pr->pod[pairs[i].client].results };
		struct transfer_side sv = { &pr->pods->items[pairs[i].server],
					    pr->pod[pairs[i].server].facts, &pr->pod[pairs[i].server].results };
		run_transfer_pair(c, &cl, &sv, limit_ms, sink);
	}
	for (i = 0; i < n; i++)
		free(groups[i]);
	free(groups);
	free(tp);
}

