/* The pipeline check, node --pod, nixl and pods share (cmd.h
 * cmd_pipeline): connect, list, then the command's own run, judge and
 * report.  Each stage's failure is reported here, once, and everything a
 * stage took is given back in reverse order whatever the exit code. */
#include <string.h>

#include "cmd.h"
#include "kube/claims.h"
#include "kube/pods.h"

/* -c names a container no listed pod has: an error before any exec, in
 * the API server's words (kubectl exec/logs -c answer the same), not a run
 * that judges a container that is not there.  Where some pods have it
 * (a sidecar of some workers), the others are not probed, each with that
 * reason, and the run goes on.  0 to go on. */
static int container_missing(const struct cmd_ctx *ctx, const struct pod_list *l)
{
	struct err e;

	if (!ctx->g.container || !l->n)
		return 0;
	for (size_t i = 0; i < l->n; i++)
		if (!l->items[i].no_container)
			return 0;
	err_clear(&e);
	err_set(&e, ERR_USAGE, "%s", l->items[0].skip_reason);
	return cmd_fail(&e);
}

/* The list stage: the flags' query as the command shapes it, the list,
 * the claims; then the command's part. */
static int listed(struct cmd_ctx *ctx, const struct cmd_pipeline *p, struct cmd_session *s)
{
	struct pods_query q;
	struct pod_list l;
	struct err e;
	int rc;

	cmd_pods_query(ctx, &s->cfg, &q);
	if (p->shape)
		p->shape(ctx, &q, p->arg);
	err_clear(&e);
	if (pods_list(s->client, &q, &l, &e) < 0)
		return cmd_fail(&e);
	s->query = &q;
	s->pods = &l;
	if (l.n == 0 && p->empty) {
		rc = p->empty(ctx, s, p->arg);
	} else if (!(rc = container_missing(ctx, &l))) {
		/* DRA claims: are they NICs? (pod-rdma-resource) */
		if ((p->needs & CMD_NEED_CLAIMS) && l.n)
			claims_resolve(s->client, &l);
		rc = p->body(ctx, s, p->arg);
	}
	s->query = NULL;
	s->pods = NULL;
	pod_list_release(&l);
	return rc;
}

int cmd_pipeline_run(struct cmd_ctx *ctx, const struct cmd_pipeline *p)
{
	struct cmd_session s;
	int rc;

	memset(&s, 0, sizeof(s));
	if (p->needs & CMD_CANCEL_CONNECT)
		cmd_cancel_arm(p->timeout_ms);
	if (cmd_connect(ctx, &s.cfg, &s.client) < 0) {
		rc = EXIT_ERROR;
	} else {
		/* Ctrl-C must not kill us before a --transfer's cleanup has run. */
		if (p->needs & CMD_CANCEL_RUN)
			cmd_cancel_arm(0);
		rc = p->needs & CMD_NEED_LIST ? listed(ctx, p, &s) : p->body(ctx, &s, p->arg);
		cmd_disconnect(&s.cfg, s.client);
	}
	if (p->needs & (CMD_CANCEL_CONNECT | CMD_CANCEL_RUN))
		cmd_cancel_disarm();
	return rc;
}
