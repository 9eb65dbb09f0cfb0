/* The pipeline check, node --pod, nixl and pods share (cmd.h
 * cmd_pipeline): connect, list, then the command's own run, judge and
 * report.  Each stage's failure is reported here, once, and everything a
 * stage took is given back in reverse order whatever the exit code. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "kube/api/claims.h"
#include "kube/api/pods.h"
#include "report/drift.h"
#include "report/report.h"
#include "run/session.h"
#include "util/safe.h"

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
	s.pipeline = p;
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

int cmd_run_session(struct cmd_ctx *ctx, struct cmd_session *cs, struct pods_query *q,
		    struct run_plan *plan, struct run_session *s)
{
	const struct cmd_pipeline *p = cs->pipeline;
	struct err e;
	int rc;

	cmd_pods_query(ctx, &cs->cfg, q);
	if (p->shape)
		p->shape(ctx, q, p->arg);
	plan->query = cs->query = q;
	plan->namespace = q->namespace;
	plan->all_namespaces = q->all_namespaces;
	plan->container = ctx->g.container;
	plan->claims = !!(p->needs & CMD_NEED_CLAIMS);
	err_clear(&e);
	rc = run_session(s, cs->client, NULL, plan, &e);
	cs->pods = &s->list;
	if (rc < 0)
		return cmd_fail(&e);
	if (s->empty)
		return p->empty ? p->empty(ctx, cs, p->arg) : EXIT_ERROR;
	return 0;
}

#define HINT_NAMESPACES 3

/* After an empty namespace, kubectl-like: where such pods are (one list
 * across namespaces with the same selector), else -A.  Names from the
 * server pass the terminal rule. */
static void where_workers_are(struct http_client *c, const struct pods_query *q)
{
	struct pods_query all = *q;
	struct pod_list l;
	struct err e;
	const char *ns[HINT_NAMESPACES];
	size_t n = 0, more = 0;

	all.all_namespaces = 1;
	err_clear(&e);
	if (pods_list(c, &all, &l, &e) < 0) {
		fprintf(stderr, "hint: to look in every namespace, add -A\n");
		return;
	}
	for (size_t i = 0; i < l.n; i++) {
		size_t k;

		for (k = 0; k < n && strcmp(ns[k], l.items[i].namespace); k++)
			;
		if (k < n || (i && !strcmp(l.items[i - 1].namespace, l.items[i].namespace)))
			continue;
		if (n < HINT_NAMESPACES)
			ns[n++] = l.items[i].namespace;
		else
			more++;
	}
	if (!n)
		fprintf(stderr, "hint: no namespace has such pods either (-A finds none)\n");
	for (size_t k = 0; k < n; k++)
		fprintf(stderr, "%s namespace \"%s\" (-n %s)", k ? "," : "hint: Dynamo workers run in",
			safe_show(ns[k]), safe_show(ns[k]));
	if (n)
		fprintf(stderr, "%s; or -A for all namespaces\n",
			more ? " and more" : "");
	pod_list_release(&l);
}

/* The pipeline's empty list: an error, with what was asked. */
int cmd_no_workers(const struct cmd_ctx *ctx, const struct cmd_session *s, void *arg)
{
	const struct pods_query *q = s->query;
	const char *sel = q->selector ? q->selector : PODS_DEFAULT_SELECTOR;

	(void)ctx, (void)arg;
	if (q->all_namespaces)
		fprintf(stderr, "error: no Dynamo worker pods found (selector %s)\n", sel);
	else
		fprintf(stderr, "error: no Dynamo worker pods found in namespace \"%s\" "
			"(selector %s)\n", q->namespace, sel);
	if (s->pods->skipped_components)
		fprintf(stderr, "(%zu frontend/planner/epp pods were left out)\n",
			s->pods->skipped_components);
	if (!q->all_namespaces)
		where_workers_are(s->client, q);
	return EXIT_ERROR;
}

/* The API server's URL as a report may show it: no user or password. */
static void server_shown(const char *server, char *out, size_t n)
{
	CURLU *u = curl_url();
	char *shown = NULL;

	snprintf(out, n, "%s", "");
	if (u && curl_url_set(u, CURLUPART_URL, server, 0) == CURLUE_OK &&
	    curl_url_set(u, CURLUPART_USER, NULL, 0) == CURLUE_OK &&
	    curl_url_set(u, CURLUPART_PASSWORD, NULL, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_URL, &shown, 0) == CURLUE_OK)
		snprintf(out, n, "%s", shown);
	/* curl adds the root path "/": show the URL as the kubeconfig has it. */
	if (*out && out[strlen(out) - 1] == '/' && *server && server[strlen(server) - 1] != '/')
		out[strlen(out) - 1] = '\0';
	curl_free(shown);
	curl_url_cleanup(u);
}

void cmd_report_source(const struct cmd_session *s, struct cmd_source *cs)
{
	/* SOURCE_DATE_EPOCH (reproducible-builds.org): a fixed time, so two
	 * runs can be compared byte for byte (the e2e tests set it). */
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	char *end = NULL;
	long long fixed = sde && *sde ? strtoll(sde, &end, 10) : -1;
	time_t now = fixed >= 0 && end && !*end ? (time_t)fixed : time(NULL);
	struct tm tm;

	memset(cs, 0, sizeof(*cs));
	if (gmtime_r(&now, &tm))
		strftime(cs->generated, sizeof(cs->generated), "%Y-%m-%dT%H:%M:%SZ", &tm);
	cmd_probe_sha256(cs->sha);
	server_shown(s->cfg.server ? s->cfg.server : "", cs->server, sizeof(cs->server));
	cs->src.generated = cs->generated;
	cs->src.version = PROG_VERSION;
	cs->src.probe_sha256 = cs->sha;
	cs->src.context = s->cfg.context_name;
	cs->src.server = cs->server;
	cs->src.namespace = s->query->namespace;
	cs->src.all_namespaces = s->query->all_namespaces;
}

/* The table formats: the table (or one row per node), the summary, the
 * suggested env, the DGD part and the drift table. */
static void print_text(const struct cmd_ctx *ctx, const struct cmd_print *how,
		       const struct run_session *s)
{
	struct report_style st = { 0 };

	st.wide = how->format->wide;
	st.no_headers = ctx->g.no_headers;
	st.color = cmd_use_color(ctx, stdout);
	st.width = cmd_term_width(stdout);
	if (how->by_node)
		report_print_nodes(stdout, &s->report, &st);
	else
		report_print_table(stdout, &s->report, &st);
	/* --no-headers: the rows and nothing else, for scripts (product.md). */
	if (!st.no_headers)
		report_print_summary(stdout, &s->report, &st);
	if (how->suggest_env)
		report_print_suggest_env(stdout, &s->report);
}

/* The report, the push, then what the document has no place for (the DGD
 * part on stderr, the access note) and the drift table; the exit code. */
int cmd_print_session(const struct cmd_ctx *ctx, const struct cmd_print *how,
		      const struct run_session *s)
{
	const struct report_format *f = how->format;
	int rc = f->document ? f->document(stdout, &s->report) : (print_text(ctx, how, s), 0);
	struct err e;

	if (rc < 0 || cmd_flush_stdout())
		return EXIT_ERROR;
	rc = s->verdict.exit_code;
	err_clear(&e);
	if (how->pushgateway &&
	    run_session_push(s, how->pushgateway, report_format("prometheus")->document, &e) < 0) {
		cmd_fail(&e);
		rc = EXIT_PUSH;
	}
	if (s->dgd_note)
		fprintf(stderr, "%s\n", s->dgd_note);
	for (size_t i = 0; !f->holds_dgd && s->dgd_shown && i < s->dgds.n; i++)
		report_print_dgd(f->text ? stdout : stderr, &s->dgds.items[i], &s->findings);
	if (how->recipe_path && !ctx->g.no_headers && f->text)
		report_print_drift(stdout, s->plan->recipe, how->recipe_path, &s->run);
	return rc;
}
