/* `check`: probe every Dynamo worker pod, judge the fast path, one verdict. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "engine/engine.h"
#include "kube/auth.h"
#include "kube/claims.h"
#include "kube/dgd.h"
#include "check/dgd.h"
#include "check/known.h"
#include "run/run.h"
#include "recipe/recipe.h"
#include "run/drift.h"
#include "run/dgd.h"
#include "report/drift.h"
#include "report/report.h"
#include "push/push.h"
#include "run/transfer.h"
#include "util/safe.h"
#include "util/xalloc.h"
#include "verdict/verdict.h"

static const char *const help[] = {
	"Check that the KV-transfer fast path of a Dynamo deployment can be trusted.",
	"",
	"Finds the Dynamo worker pods (prefill, decode, worker) by label, runs one fixed",
	"read-only probe in each through the API server's exec endpoint (in parallel),",
	"and judges RDMA, GPUDirect RDMA, GDRCopy, NVLink, UCX, NIXL, libfabric/EFA, the",
	"transport environment and the container limits. Prints one row per pod, the",
	"findings worst first, and one verdict:",
	"  READY        every worker has fast-path evidence and no check failed (exit 0)",
	"  NOT READY    a check failed; \"Fix first\" names the most fundamental one (exit 2)",
	"  UNVERIFIED   nothing failed, but the fast path could not be proven (exit 3)",
	"Errors (flags, kubeconfig, API server, no pods) exit 1. Skipped is never a pass.",
	"",
	"It also reads the tail of each probed worker's log (GET pods/log; --logs=false",
	"to skip) and quotes, masked, the line that shows which NIXL backend and UCX/NCCL",
	"transport were chosen or refused (LOGS column). An unreadable or silent log is a",
	"skip that does not lower the verdict.",
	"",
	"--timeout bounds the whole run; Ctrl-C (SIGINT) or SIGTERM stops it early. Either",
	"way no new probe starts, probes in flight end at once, and the report of what",
	"finished is printed: unfinished pods are error rows (\"not finished: interrupted\"),",
	"so the exit code is 2 or 3, never 0. A second Ctrl-C exits at once (no report).",
	"If the pod list itself did not finish, the run is an error (exit 1).",
	"",
	"--transfer (opt-in, NOT read-only) then runs a real ucx_perftest between one",
	"prefill and one decode pod per node pair, with the workers' UCX settings, and",
	"adds a TRANSFER result: fail on TCP or error, ok near the RDMA port rate. It",
	"says what it runs before running it and stops it in both pods afterwards.",
	"",
	"--suggest-env adds, after the table, each pod's suggested variables (e.g. the",
	"UCX_NET_DEVICES of the rails nearest its GPUs) as an env list for its worker",
	"container; in JSON they are each check's suggestedEnv.",
	"",
	"Examples:",
	"  # Check the workers in namespace dynamo",
	"  kubectl dynamo-interconnect check -n dynamo",
	"",
	"  # One graph, JSON for CI",
	"  kubectl dynamo-interconnect check -n dynamo -l nvidia.com/dynamo-graph-deployment-name=qwen -o json",
	NULL,
};

/* The flags of one `check` run (the table below points into it). */
struct check_flags {
	int parallel;
	struct opt_duration probe_timeout;
	struct opt_duration run_timeout;      /* ms 0: none */
	const char *recipe_dir;               /* --recipe */
	const char *known_file;               /* --known-issues */
	int read_logs;                        /* --logs */
	int log_tail;                         /* --log-tail */
	int transfer;                         /* --transfer */
	struct opt_duration transfer_timeout;
	int by_node;                          /* --by-node */
	int suggest_env;                      /* --suggest-env */
	const char *pushgateway;              /* --pushgateway URL */
	struct timespec started;              /* not a flag: the run's start, for -o prometheus */
	const char *dgd;                      /* --dgd NAME */
};

#define MAX_LOG_TAIL 1000000

/* This run's flags: check_opts points into it; cmd_check resets it. */
static struct check_flags F;

static int print(const struct cmd_ctx *ctx, const struct check_flags *f,
		 const struct report *r, const char *format)
{
	struct report_style st = { 0 };
	int rc;

	if (cmd_print_document(format, r, &rc))
		return rc;
	st.wide = !strcmp(format, "wide");
	st.no_headers = ctx->g.no_headers;
	st.color = cmd_use_color(ctx, stdout);
	st.width = cmd_term_width(stdout);
	if (f->by_node)
		report_print_nodes(stdout, r, &st);
	else
		report_print_table(stdout, r, &st);
	/* --no-headers: the rows and nothing else, for scripts (product.md). */
	if (!st.no_headers)
		report_print_summary(stdout, r, &st);
	if (f->suggest_env)
		report_print_suggest_env(stdout, r);
	return 0;
}

/* Monotonic: a clock step during the run must not make a negative duration. */
static double seconds_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) + (now.tv_nsec - t0->tv_nsec) / 1e9;
}

/* --pushgateway: the -o prometheus text PUT to the grouping key job,
 * namespace (ns; "-A" for all); 0, or EXIT_PUSH after a one-line error. */
static int push(const char *ns, const char *url, const struct report *r)
{
	char *body = NULL, key[1024] = "/metrics/job/" PUSH_JOB;
	size_t len = 0;
	FILE *m = open_memstream(&body, &len);
	struct err e;
	int rc = -1;

	err_clear(&e);
	if (m && report_print_prometheus(m, r) == 0 && fclose(m) == 0) {
		m = NULL;
		if (push_key_append(key, sizeof(key), "namespace",
				    ns) < 0)
			err_set(&e, ERR_USAGE, "--pushgateway: grouping key too long");
		else
			rc = push_put(url, key, body, len, PUSH_TIMEOUT_MS, &e);
	} else {
		err_set(&e, ERR_OTHER, "--pushgateway: cannot format the metrics");
	}
	if (m)
		fclose(m);
	free(body);
	if (rc < 0) {
		cmd_fail(&e);
		return EXIT_PUSH;
	}
	return 0;
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

/* Where this report comes from: its buffers, and the source pointing in. */
struct check_source {
	char generated[32], sha[65], server[1024];
	struct report_source src;
};

static void source_of(const struct cmd_session *s, struct check_source *cs)
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

/* The run's verdict (verdict/), printed; returns its exit code. */
static int judge(const struct cmd_ctx *ctx, const struct check_flags *f,
		 const struct run *pr, const char *format, const struct pods_query *q,
		 const struct dgd_set *dgds, const struct dgd_findings *df, char *const *group,
		 const char *dgd_note, const struct report_source *src)
{
	struct verdict v;
	struct report r = { 0 };
	int rc;

	verdict_compute(pr->pod, pr->pods->n, &v);
	verdict_apply_dgd(&v, df);
	r.pods = pr->pod, r.n = pr->pods->n, r.verdict = &v;
	r.dgd = dgds, r.dgd_findings = df, r.group = group, r.dgd_note = dgd_note;
	r.source = src;
	r.all_namespaces = ctx->g.all_namespaces;
	r.duration_s = seconds_since(&f->started);
	rc = print(ctx, f, &r, format) < 0 || cmd_flush_stdout() ? EXIT_ERROR : v.exit_code;
	if (rc != EXIT_ERROR && f->pushgateway && push(q->all_namespaces ? "-A" : q->namespace, f->pushgateway, &r))
		rc = EXIT_PUSH;
	verdict_release(&v);
	return rc;
}

static void probe_options(const struct check_flags *f, struct run_options *o)
{
	memset(o, 0, sizeof(*o));
	o->parallel = f->parallel;
	o->timeout_ms = f->probe_timeout.ms;
	o->logs = f->read_logs;
	o->log_tail = f->log_tail;
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
static int no_pods(const struct cmd_ctx *ctx, const struct cmd_session *s, void *arg)
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

/* --dgd NAME: the pods of that DGD, by the operator's label. */
static void dgd_shape(const struct cmd_ctx *ctx, struct pods_query *q, void *arg)
{
	static char sel[512];

	(void)ctx, (void)arg;
	if (!F.dgd || q->selector)
		return;
	snprintf(sel, sizeof(sel), "nvidia.com/dynamo-graph-deployment-name=%.200s,%s",
		 F.dgd, PODS_DEFAULT_SELECTOR);
	q->selector = sel;
}

/* The access note of set into buf, or NULL when there is none to give:
 * without --dgd a server without the CRD is the common case. */
static const char *dgd_note(const struct dgd_set *set, int asked, char *buf, size_t n)
{
	return asked || set->access != DGD_NO_API ? dgd_access_note(set, buf, n) : NULL;
}

/* The DGD part as text: after the table, or on stderr for the formats
 * whose document has no place for it (junit, html); json, yaml and
 * prometheus hold it (report.h struct report.dgd).  The access note goes
 * to stderr (json/yaml also hold it: dynamoGraphDeploymentsNote). */
static void dgd_report(const struct dgd_set *set, const struct dgd_findings *f,
			 const char *format, const char *note)
{
	int text = !strcmp(format, "table") || !strcmp(format, "wide");
	int in_doc = !strcmp(format, "json") || !strcmp(format, "yaml") ||
		     !strcmp(format, "prometheus");
	size_t i;

	if (note)
		fprintf(stderr, "%s\n", note);
	for (i = 0; !in_doc && i < set->n; i++)
		report_print_dgd(text ? stdout : stderr, &set->items[i], f);
}

/* What one run hands the pipeline's body. */
struct check_run {
	const char *format;
	struct run_options opts;
	const struct recipe_set *recipe;
	const struct known_table *known;      /* --known-issues; NULL: built-in */
};

/* The pipeline's body: probes the listed pods, judges (with drift when a
 * recipe is given) and prints; returns the exit code. */
static int probe_and_report(struct cmd_ctx *ctx, struct cmd_session *s, void *arg)
{
	const struct check_run *cr = arg;
	const struct check_flags *f = &F;
	const struct pod_list *l = s->pods;
	struct run_options po = cr->opts;
	struct run_sink sink;
	struct run pr;
	struct dgd_set dgds = { 0 };
	struct dgd_findings df = { 0 };
	char **group = NULL;
	int rc, shown;
	char note_buf[300];
	const char *note;
	struct check_source cs;

	/* --dgd NAME: GET that one; else LIST them all (labels only on 403),
	 * keeping the DGDs of the pods listed. */
	{
		struct err e;

		err_clear(&e);
		if (dgd_fetch(s->client, s->query->namespace, s->query->all_namespaces,
			      f->dgd, &dgds, &e) < 0) {
			dgd_set_release(&dgds);
			return cmd_fail(&e);
		}
		if (!f->dgd)
			run_dgd_keep_listed(l, &dgds);
		shown = f->dgd || dgds.n > 0;
		if (shown && ctx->g.all_namespaces)
			group = run_dgd_groups(l, &dgds);
	}
	/* A progress line only on a terminal, and only when it has time to show. */
	report_sink(&sink, stderr, isatty(2) && l->n > 4);
	po.sink = &sink;
	run_init(&pr, l);
	run_dgd_nodes(&pr, &dgds);   /* multinode.nodeCount, checks.md J7 */
	/* tools and IPs for transfer; only the process env for drift and the
	 * DGD env check (P3), so 10,000 pods of a DGD stay small. */
	pr.keep_facts = f->transfer;
	pr.known = cr->known;
	pr.keep_env = cr->recipe != NULL || shown;
	run_pods(&pr, s->client, &po);
	if (f->transfer && !cancel_why())
		run_transfer_pairs(s->client, &pr, f->transfer_timeout.ms, &sink);
	if (cancel_why())
		fprintf(stderr, "warning: %s: the report covers what finished\n",
			cancel_why());
	if (cr->recipe)
		run_drift_judge(cr->recipe, f->recipe_dir, &pr);
	if (shown)
		run_dgd_judge(&pr, &dgds, &df);
	note = dgd_note(&dgds, f->dgd != NULL, note_buf, sizeof(note_buf));
	source_of(s, &cs);
	rc = judge(ctx, f, &pr, cr->format, s->query, shown ? &dgds : NULL, &df, group, note,
		   &cs.src);
	/* P2 made the verdict NOT READY already (verdict_apply_dgd). */
	if (rc != EXIT_ERROR)
		dgd_report(&dgds, &df, cr->format, note);
	dgd_findings_release(&df);
	run_dgd_groups_release(group, l->n);
	dgd_set_release(&dgds);
	if (cr->recipe && rc != EXIT_ERROR && !ctx->g.no_headers &&
	    (!strcmp(cr->format, "table") || !strcmp(cr->format, "wide")))
		report_print_drift(stdout, cr->recipe, f->recipe_dir, &pr);
	run_release(&pr);
	return rc;
}

static int run(struct cmd_ctx *ctx, struct check_run *cr)
{
	const struct cmd_pipeline p = {
		.needs = CMD_NEED_LIST | CMD_NEED_CLAIMS | CMD_CANCEL_CONNECT,
		.timeout_ms = F.run_timeout.ms,
		.empty = no_pods,
		.shape = dgd_shape,
		.body = probe_and_report,
		.arg = cr,
	};

	return cmd_pipeline_run(ctx, &p);
}

static const struct opt check_opts[] = {
	{ "parallel", 0, OPT_INT, &F.parallel, "N", "Pods probed at once (default 32)", 1, ENGINE_MAX_PARALLEL },
	{ "probe-timeout", 0, OPT_DURATION, &F.probe_timeout, "DURATION", "Deadline of one pod's probe (default 60s)", 1, 0 },
	{ "timeout", 0, OPT_DURATION, &F.run_timeout, "DURATION", "Deadline of the whole run; report what finished (default: none)", 1, 0 },
	{ "recipe", 0, OPT_STRING, &F.recipe_dir, "PATH", "Compare each pod's transport env with this recipe (file or directory)", 0, 0 },
	{ "logs", 0, OPT_BOOL, &F.read_logs, NULL, "Read each worker's log for the transport it chose (LOGS column; default true)", 0, 0 },
	{ "log-tail", 0, OPT_INT, &F.log_tail, "N", "Lines of each worker's log to read (default 5000)", 1, MAX_LOG_TAIL },
	{ "transfer", 0, OPT_BOOL, &F.transfer, NULL, "Also run a real ucx_perftest prefill -> decode (not read-only)", 0, 0 },
	{ "suggest-env", 0, OPT_BOOL, &F.suggest_env, NULL, "Also print the env the findings suggest (UCX_NET_DEVICES, ...) as a container env list to paste; JSON has it as suggestedEnv", 0, 0 },
	{ "by-node", 0, OPT_BOOL, &F.by_node, NULL, "One row per node: each family's worst status among its pods", 0, 0 },
	{ "transfer-timeout", 0, OPT_DURATION, &F.transfer_timeout, "DURATION", "Time limit of one transfer test (default 60s)", TRANSFER_MIN_LIMIT_MS, TRANSFER_MAX_LIMIT_MS },
	{ "pushgateway", 0, OPT_STRING, &F.pushgateway, "URL", "Also push the -o prometheus metrics to this Pushgateway (job dynamo_interconnect); exit 4 when the push fails", 0, 0 },
	{ "known-issues", 0, OPT_STRING, &F.known_file, "FILE", "Add or override known-issues rows by id from this file (docs/known-issues.md)", 0, 0 },
	{ "dgd", 0, OPT_STRING, &F.dgd, "NAME", "Only the pods of this DynamoGraphDeployment, and compare them with it (generation, components, env)", 0, 0 },
	OPT_TABLE_END
};

static int cmd_check(struct cmd_ctx *ctx, int argc, char **argv)
{
	const struct check_flags defaults = {
		.probe_timeout = { NULL, RUN_PROBE_TIMEOUT_MS },
		.read_logs = 1,
		.transfer_timeout = { NULL, TRANSFER_DEFAULT_LIMIT_MS },
	};
	struct recipe_set recipe;
	struct check_run cr = { 0 };
	struct known_table known;
	int rc;

	F = defaults;
	clock_gettime(CLOCK_MONOTONIC, &F.started);
	rc = cmd_start(ctx, &cmd_check_entry, argc, argv, &cr.format);
	if (rc)
		return rc < 0 ? 0 : rc;
	probe_options(&F, &cr.opts);
	/* Files are read before any cluster request: a bad one costs none. */
	if (F.known_file && cmd_known_load(F.known_file, &known))
		return EXIT_ERROR;
	cr.known = F.known_file ? &known : NULL;
	if (F.recipe_dir && cmd_env_drift_load(F.recipe_dir, &recipe))
		rc = EXIT_ERROR;
	else {
		cr.recipe = F.recipe_dir ? &recipe : NULL;
		rc = run(ctx, &cr);
		if (F.recipe_dir)
			recipe_set_release(&recipe);
	}
	if (F.known_file)
		known_table_release(&known);
	return rc;
}

/* Flags that would fail only after the whole run are refused before it. */
static int check_validate(const struct cmd_ctx *ctx)
{
	struct err e;

	(void)ctx;
	err_clear(&e);
	if (F.pushgateway && push_check_url(F.pushgateway, &e) < 0)
		return cmd_fail(&e);
	return 0;
}

const struct cmd_entry cmd_check_entry = {
	.name = "check", .summary = "Probe every Dynamo worker pod and judge the KV-transfer fast path",
	.help = help, .opts = check_opts, .outputs = "table,wide,json,yaml,junit,html,prometheus", .run = cmd_check,
	.validate = check_validate,
};
