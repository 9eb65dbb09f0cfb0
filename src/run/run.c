/* The per-pod run (run.h): probe pods in parallel and turn each report
 * into check results.  Knows the flow, not the details: exec is in
 * src/kube, parsing in src/probe, judging in src/check. */
#include <semaphore.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "probe/facts.h"
#include "probe/invoke.h"
#include "probe/local.h"
#include "run/logs.h"
#include "run/mask.h"
#include "run/observe.h"
#include "run/run.h"
#include "util/intern.h"
#include "util/log.h"
#include "util/xalloc.h"

static int is_kv_role(const char *role)
{
	return !strcmp(role, "prefill") || !strcmp(role, "decode");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Nodes of the pods with role (NULL: prefill or decode), sorted for
 * bsearch; owned array of borrowed strings, *n of them. */
static const char **role_nodes(const struct pod_list *l, const char *role, size_t *n)
{
	const char **v = xcalloc(l->n + 1, sizeof *v);

	*n = 0;
	for (size_t i = 0; i < l->n; i++)
		if (role ? !strcmp(l->items[i].role, role) : is_kv_role(l->items[i].role))
			v[(*n)++] = l->items[i].node;
	qsort(v, *n, sizeof *v, cmp_str);
	return v;
}

/* Pods of role on node in the sorted nodes v (n of them). */
static size_t on_node(const char **v, size_t n, const char *node)
{
	const char **hit = bsearch(&node, v, n, sizeof *v, cmp_str);
	size_t k = 0;

	if (!hit)
		return 0;
	while (hit > v && !strcmp(hit[-1], node))
		hit--;
	for (; hit + k < v + n && !strcmp(hit[k], node); k++)
		;
	return k;
}

/* check_context.kv_peers_apart of pod p: no pod of the other KV role on
 * its node, or for another role no KV pod there.  O(log n) per pod over
 * the sorted node lists. */
static int peers_apart(const struct pod_info *p, const char **pre, size_t npre,
			  const char **dec, size_t ndec, const char **kv, size_t nkv)
{
	if (!*p->node)
		return 0;   /* not scheduled: unknown */
	if (!strcmp(p->role, "prefill"))
		return on_node(dec, ndec, p->node) == 0;
	if (!strcmp(p->role, "decode"))
		return on_node(pre, npre, p->node) == 0;
	return on_node(kv, nkv, p->node) == 0;
}

/* check_context.peer_args of a decode pod: the first prefill pod of its
 * graph with args.  A scan of the list per decode pod: at 1024 pods a
 * million compares at most, nothing beside the probes. */
/* Pod strings are never NULL from the list (pods.h); a hand-built one
 * may leave them so. */
static int same(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* *unread: the reason when no prefill peer's args were read but one of
 * them had args past the cap (pod_info.args_unread). */
static const char *peer_args(const struct pod_list *l, const struct pod_info *p,
			     const char **unread)
{
	*unread = NULL;
	if (strcmp(p->role, "decode"))
		return NULL;
	for (size_t i = 0; i < l->n; i++) {
		const struct pod_info *q = &l->items[i];

		if (strcmp(q->role, "prefill") || !same(q->graph, p->graph) ||
		    !same(q->namespace, p->namespace))
			continue;
		if (q->args && *q->args)
			return q->args;
		if (q->args_unread && *q->args_unread)
			*unread = "the prefill peer's command and args are over 64 KiB, not read";
	}
	return NULL;
}

/* check_context.nodes: the pod's LeaderWorkerSet size, else the listed
 * pods of its Grove group (one scaling-group replica is one multinode
 * worker: a leader and its workers).  A scan per grouped pod, as above. */
static int group_nodes(const struct pod_list *l, const struct pod_info *p)
{
	int n = 0;

	if (p->nodes > 0 || !p->group || !*p->group)
		return p->nodes;
	for (size_t i = 0; i < l->n; i++)
		n += l->items[i].group && !strcmp(l->items[i].group, p->group) &&
		     same(l->items[i].namespace, p->namespace);
	return n;
}

/* Deployment-wide facts each pod's checks need (check.h check_context).
 * n log n in pods: some prefill and some decode pod sit on different
 * nodes unless every prefill and decode pod shares one node. */
static void contexts(struct run *pr)
{
	const struct pod_list *l = pr->pods;
	const char *kv_node = NULL;
	int has_p = 0, has_d = 0, nodes_differ = 0;
	size_t i, npre, ndec, nkv;
	const char **pre = role_nodes(l, "prefill", &npre);
	const char **dec = role_nodes(l, "decode", &ndec);
	const char **kv = role_nodes(l, NULL, &nkv);

	for (i = 0; i < l->n; i++) {
		const struct pod_info *p = &l->items[i];

		has_p |= !strcmp(p->role, "prefill");
		has_d |= !strcmp(p->role, "decode");
		if (!is_kv_role(p->role))
			continue;
		if (!kv_node)
			kv_node = p->node;
		else if (strcmp(kv_node, p->node))
			nodes_differ = 1;
	}
	for (i = 0; i < l->n; i++) {
		struct check_context *c = &pr->pod[i].ctx;
		const char *role = l->items[i].role;
		memset(c, 0, sizeof(*c));
		c->node = l->items[i].node;
		c->role = role;
		c->kv_known = 1;
		/* Prefill and decode always hand KV across pods; aggregated
		 * workers only do when the graph also has split roles. */
		c->kv_cross_pod = is_kv_role(role) || (has_p && has_d);
		c->kv_cross_node = has_p && has_d && nodes_differ;
		c->kv_peers_apart = peers_apart(&l->items[i], pre, npre, dec, ndec, kv, nkv);
		c->npods = l->n;
		if (l->items[i].spec && l->items[i].spec->nixl_backend[0])
			c->nixl_backend = l->items[i].spec->nixl_backend;
		c->peer_args = peer_args(l, &l->items[i], &c->peer_args_unread);
		c->args = l->items[i].args && *l->items[i].args ? l->items[i].args : NULL;
		c->args_unread = l->items[i].args_unread;
		c->secret_env = l->items[i].secret_env;
		c->plain_env = l->items[i].plain_env;
		c->nodes = group_nodes(l, &l->items[i]);
	}
	free(pre), free(dec), free(kv);
}

/* A pod's spec facts; a pod_info made by hand (tests) may have none, which
 * reads as the zeroed struct it used to hold. */
static const struct pod_spec_facts *spec_of(const struct pod_info *p)
{
	static const struct pod_spec_facts zero;

	return p->spec ? p->spec : &zero;
}

/* Parses a report and judges pod i from it; the reason when it cannot. */
/* -v 2: the probe's own cost in this pod (issue 46). */
static void log_cost(const struct run_pod *rp)
{
	if (log_enabled(2))
		log_at(2, "probe %s/%s: %zu bytes sent, %ld ms wall, %ld ms CPU in the pod "
		       "(-1: not reported)", rp->pod->namespace, rp->pod->name,
		       rp->cost.bytes, rp->cost.wall_ms, rp->cost.cpu_ms);
}

static void judge_report(struct run *pr, size_t i, const char *text, size_t len,
			 int truncated)
{
	struct run_pod *rp = &pr->pod[i];
	struct probe_facts *f = probe_facts_new();
	struct err e;

	err_clear(&e);
	rp->cost.bytes = len;
	if (probe_parse_report(text, len, f, &e) == 0) {
		rp->cost.wall_ms = f->cost.wall_ms;
		rp->cost.cpu_ms = f->cost.cpu_ms;
		log_cost(rp);
		/* product.md: a Secret's value is never shown, but it is
		 * judged: mark, check the real values, then mask (mask.h). */
		run_mask_mark(f, rp->pod->secret_env);
		rp->ctx.known = pr->known;
		check_pod(f, spec_of(rp->pod), &rp->ctx, &rp->results);
		run_mask_apply(f, &rp->results);
		rp->probed = 1;
	} else {
		/* A report cut at the cap cannot parse: say why. */
		char *why = truncated
			? xasprintf("the probe's output passed the %u MiB cap and was "
				    "cut (%s)", RUN_MAX_OUTPUT >> 20, e.msg)
			: xasprintf("cannot read the probe report: %s", e.msg);

		reason_set(&rp->reason, REASON_REPORT, why);
		free(why);
	}
	if (pr->keep_env && rp->probed)
		rp->env_block = run_env_block(&f->env);
	if (rp->probed)
		rp->rails = run_rails_keep(&f->counters);
	if (pr->keep_facts && rp->probed)
		rp->facts = f;
	else
		probe_facts_free(f);
}

static void judge_unprobed(struct run *pr, size_t i)
{
	struct run_pod *rp = &pr->pod[i];

	if (!rp->probed)
		check_pod_unprobed(rp->reason.why, spec_of(rp->pod), &rp->ctx, &rp->results);
}

void run_digest_report(struct run *pr, size_t i, const char *text, size_t len)
{
	judge_report(pr, i, text, len, 0);
	judge_unprobed(pr, i);
}

/* Judges pod i from its exec (parse, check) and drops the output. */
static void digest_exec(struct run *pr, size_t i, struct exec_result *r)
{
	int ran = r->outcome == EXEC_SUCCESS || r->outcome == EXEC_EXIT_CODE;

	struct reason *why = &pr->pod[i].reason;

	if (ran && r->out.len) {
		judge_report(pr, i, buf_str(&r->out), r->out.len, r->truncated);
	} else if (ran) {
		char *s = xasprintf("the probe printed nothing (exit code %d)", r->exit_code);

		reason_set(why, REASON_SILENT, s);
		free(s);
	} else {
		reason_set(why, REASON_EXEC, r->message);
		free(why->denied);
		why->denied = reason_denial_copy(&r->denied);
	}
	judge_unprobed(pr, i);
	buf_release(&r->out);
	buf_release(&r->err);
}

/* At most RUN_LOG_GETS log reads in flight (a smaller --parallel has
 * fewer workers anyway).  Every GET is a stream of the HTTP client's one
 * multiplexed connection (kube/http/mux.h) when the server speaks HTTP/2,
 * as kube-apiserver does; against an HTTP/1.1-only server each read in
 * flight holds a connection of its own (curl 7.88 builds a new SSL_CTX
 * for each, ~1.2 M instructions, plus a handshake), so bounded, at most
 * that many connections are opened and the rest reuse them kept alive.
 * The trade-off is time at scale: a log GET is about
 * one round trip plus the kubelet's read, 8 of them at 100 ms read ~50
 * logs a second, near what 64 workers probing ~1 s each finish; a
 * tighter bound would make the log reads the bottleneck of a large fleet
 * (bench/RESULTS.md, issue 46: 40 pods, callgrind, M/pod logs on: 8.2
 * unbounded, 8.3 at 16, 7.7 at 8, 7.3 at 4). */
#define RUN_LOG_GETS 8

/* The pod's log, read inside the gate; a run cancelled while this worker
 * waited reads nothing. */
static void read_log(struct run *pr, size_t i)
{
	/* sem_wait returns early only on a signal (EINTR): wait again */
	while (sem_wait(pr->log_gate) != 0)
		;
	if (!cancel_why())
		run_logs_pod(pr, pr->client, pr->opts, i);
	sem_post(pr->log_gate);
}

/* Turns one finished exec into check results, then drops the output so
 * memory stays flat however many pods there are. */
static void digest(size_t i, struct exec_result *r, void *arg)
{
	struct run *pr = arg;

	digest_exec(pr, i, r);
	if (pr->opts->logs && pr->pod[i].probed && !cancel_why())
		read_log(pr, i);
	/* Judged: frozen, kept once per distinct content from here (drift
	 * and --transfer thaw the pods they add to; the session freezes
	 * them again). */
	check_results_freeze(&pr->pod[i].results);
}

/* The engine's account with the probe deadline added (run_sink). */
struct progress_arg {
	const struct run_sink *sink;
	long deadline_ms;
};

static void progress(const struct engine_progress *e, void *arg)
{
	const struct progress_arg *pa = arg;
	const struct run_progress at = { e->done, e->total, e->failed, e->waiting,
					 e->waited_ms, pa->deadline_ms };

	pa->sink->progress(&at, pa->sink->arg);
}

void run_say(const struct run_sink *s, const char *fmt, ...)
{
	va_list ap;
	char *line;
	int n;

	if (!s || !s->notice)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	line = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(line, (size_t)n + 1, fmt, ap);
	va_end(ap);
	s->notice(line, s->arg);
	free(line);
}

void run_init(struct run *pr, const struct pod_list *l)
{
	size_t n = l->n ? l->n : 1;

	memset(pr, 0, sizeof(*pr));
	pr->pods = l;
	pr->pod = xcalloc(n, sizeof(*pr->pod));
	for (size_t i = 0; i < l->n; i++) {
		pr->pod[i].pod = &l->items[i];
		pr->pod[i].cost.wall_ms = pr->pod[i].cost.cpu_ms = -1;
	}
	contexts(pr);
}

char *run_probe_stdin(size_t *len)
{
	return invoke_stdin(probe_script, len);
}

void run_pods(struct run *pr, struct http_client *c,
		    const struct run_options *o)
{
	struct engine_job job = { 0 };
	const struct run_sink *s = o->sink;
	struct progress_arg pa = { s, run_observe_timeout_ms(o->timeout_ms, o->observe_s) };
	sem_t gate;
	size_t i;

	job.argv = invoke_probe_argv;
	job.stdin_data = run_observe_stdin(probe_script, o->observe_s, &job.stdin_len);
	job.parallel = o->parallel;
	job.timeout_ms = run_observe_timeout_ms(o->timeout_ms, o->observe_s);
	job.max_output = RUN_MAX_OUTPUT;
	job.progress = s && s->progress ? progress : NULL;
	job.progress_arg = &pa;
	job.on_result = digest;
	job.on_result_arg = pr;
	pr->client = c;
	pr->opts = o;
	sem_init(&gate, 0, RUN_LOG_GETS);
	pr->log_gate = &gate;
	/* No result array: each exec's result lives only while it is
	 * digested (issue 27, memory independent of the pod count). */
	engine_run(c, pr->pods, &job, NULL);
	free((char *)job.stdin_data);
	sem_destroy(&gate);
	pr->client = NULL;
	pr->opts = NULL;
	pr->log_gate = NULL;
	if (s && s->progress_done)
		s->progress_done(pr->pods->n, s->arg);
	for (i = 0; i < pr->pods->n; i++) {
		const struct pod_info *pod = &pr->pods->items[i];
		if (pod->probe)
			continue;
		reason_set(&pr->pod[i].reason, REASON_SKIPPED, pod->skip_reason);
		check_pod_unprobed(pod->skip_reason, spec_of(pod), &pr->pod[i].ctx,
				   &pr->pod[i].results);
		check_results_freeze(&pr->pod[i].results);
	}
}

void run_release(struct run *pr)
{
	for (size_t i = 0; pr->pods && i < pr->pods->n; i++) {
		check_results_release(&pr->pod[i].results);
		reason_release(&pr->pod[i].reason);
		free(pr->pod[i].log_denied);
		if (pr->pod[i].facts)
			probe_facts_free(pr->pod[i].facts);
		intern_unref(pr->pod[i].env_block, NULL);
		run_rails_free(pr->pod[i].rails);
	}
	free(pr->pod);
	memset(pr, 0, sizeof(*pr));
}
