/* The stages of a run session (session.h), declared once in stages[] and
 * run in that order.  Each stage decides from the plan whether it has
 * work; none prints: notices go to the plan's sink. */
#include <stdlib.h>
#include <string.h>

#include "run/session.h"
#include "check/dgd.h"
#include "kube/api/claims.h"
#include "kube/api/dgd.h"
#include "model/cancel.h"
#include "push/push.h"
#include "run/dgd.h"
#include "run/drift.h"
#include "run/transfer.h"

/* The pods: plan.query listed (or the caller's list), stopping the
 * session when none is found (s->empty, for the caller to word); -c that
 * no listed pod has is an error before any exec (a sidecar of some
 * workers: the others are not probed, each with that reason); then their
 * DRA claims (are they NICs? pod-rdma-resource). */
static int stage_list(struct run_session *s, struct err *e)
{
	const struct run_plan *p = s->plan;
	size_t i;

	if (p->query) {
		if (pods_list(s->client, p->query, &s->list, e) < 0)
			return -1;
		s->run.pods = &s->list;
	}
	if (!s->run.pods->n) {
		s->empty = 1;
		return 1;
	}
	for (i = 0; p->container && i < s->run.pods->n; i++)
		if (!s->run.pods->items[i].no_container)
			break;
	if (p->container && i == s->run.pods->n)
		return err_set(e, ERR_USAGE, "%s", s->run.pods->items[0].skip_reason);
	if (p->claims && p->query)
		claims_resolve(s->client, &s->list);
	run_init(&s->run, s->run.pods);
	/* A progress line only when it has time to show. */
	s->probe = p->probe;
	if (p->probe.sink) {
		s->sink = *p->probe.sink;
		if (s->run.pods->n <= p->progress_min)
			s->sink.progress = NULL, s->sink.progress_done = NULL;
		s->probe.sink = &s->sink;
	}
	return 0;
}

/* The DGDs: --dgd NAME GETs that one; else LIST them all (labels only on
 * 403), keeping those of the pods listed.  Shown with --dgd, or when some
 * were found; the note says why none were read (without --dgd a server
 * without the CRD is the common case, not worth a word). */
static int stage_dgds(struct run_session *s, struct err *e)
{
	const struct run_plan *p = s->plan;
	const struct pod_list *l = s->run.pods;

	if (!p->dgds)
		return 0;
	if (dgd_fetch(s->client, p->namespace, p->all_namespaces, p->dgd, &s->dgds, e) < 0)
		return -1;
	if (!p->dgd)
		run_dgd_keep_listed(l, &s->dgds);
	s->dgd_shown = p->dgd || s->dgds.n > 0;
	if (s->dgd_shown && p->all_namespaces)
		s->group = run_dgd_groups(l, &s->dgds);
	run_dgd_nodes(&s->run, &s->dgds);   /* multinode.nodeCount, checks.md J7 */
	if (p->dgd || s->dgds.access != DGD_NO_API)
		s->dgd_note = dgd_access_note(&s->dgds, s->note_buf, sizeof(s->note_buf));
	return 0;
}

/* The probes.  Kept of each pod: the tools and IPs when a transfer test
 * needs them; only the process env for drift and the DGD env check (P3),
 * so 10,000 pods of a DGD stay small. */
static int stage_probe(struct run_session *s, struct err *e)
{
	(void)e;
	s->run.keep_facts = s->plan->transfer || s->plan->keep_facts;
	s->run.known = s->plan->known;
	s->run.keep_env = s->plan->recipe != NULL || s->dgd_shown;
	run_pods(&s->run, s->client, &s->probe);
	return 0;
}

static int stage_transfer(struct run_session *s, struct err *e)
{
	(void)e;
	if (s->plan->transfer && !cancel_why())
		run_transfer_pairs(s->client, &s->run, s->plan->transfer_timeout_ms,
				   s->probe.sink);
	/* What ends early ends here: later stages judge what finished. */
	s->interrupted = cancel_why();
	return 0;
}

static int stage_drift(struct run_session *s, struct err *e)
{
	(void)e;
	if (s->plan->recipe)
		run_drift_judge(s->plan->recipe, s->plan->recipe_path, &s->run);
	return 0;
}

static int stage_dgd_judge(struct run_session *s, struct err *e)
{
	(void)e;
	if (s->dgd_shown)
		run_dgd_judge(&s->run, &s->dgds, &s->findings);
	return 0;
}

/* Every pod's results frozen once more: drift and --transfer thawed
 * the pods they added to (check.h check_results_freeze). */
static int stage_freeze(struct run_session *s, struct err *e)
{
	(void)e;
	for (size_t i = 0; i < s->run.pods->n; i++)
		check_results_freeze(&s->run.pod[i].results);
	return 0;
}

/* Monotonic: a clock step during the run must not make a negative duration. */
static double seconds_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) + (now.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The verdict (P2 failures make it NOT READY: verdict_apply_dgd) and the
 * report pointing at all of the session. */
static int stage_judge(struct run_session *s, struct err *e)
{
	struct report *r = &s->report;

	(void)e;
	verdict_compute(s->run.pod, s->run.pods->n, &s->verdict);
	verdict_apply_dgd(&s->verdict, &s->findings);
	s->judged = 1;
	r->pods = s->run.pod, r->n = s->run.pods->n, r->verdict = &s->verdict;
	r->dgd = s->dgd_shown ? &s->dgds : NULL;
	r->dgd_findings = &s->findings;
	r->group = s->group;
	r->dgd_note = s->dgd_note;
	r->all_namespaces = s->plan->all_namespaces;
	if (s->plan->started.tv_sec || s->plan->started.tv_nsec)
		r->duration_s = seconds_since(&s->plan->started);
	return 0;
}

static const struct stage {
	const char *name;
	int (*run)(struct run_session *s, struct err *e);
} stages[] = {
	{ "list", stage_list },
	{ "dgds", stage_dgds },
	{ "observe", run_observe_stage },
	{ "probe", stage_probe },
	{ "observe-kv", run_observe_kv_stage },
	{ "perftest", stage_transfer },
	{ "drift", stage_drift },
	{ "dgd-judge", stage_dgd_judge },
	{ "freeze", stage_freeze },
	{ "judge", stage_judge },
};

int run_session(struct run_session *s, struct http_client *c, const struct pod_list *l,
		const struct run_plan *p, struct err *e)
{
	int rc = 0;

	memset(s, 0, sizeof(*s));
	s->plan = p;
	s->client = c;
	s->run.pods = l;
	/* A stage's 1 ends the session early and well (no pod listed). */
	for (size_t i = 0; !rc && i < sizeof(stages) / sizeof(stages[0]); i++)
		rc = stages[i].run(s, e);
	return rc < 0 ? -1 : 0;
}

int run_session_push(const struct run_session *s, const char *url,
		     int (*metrics)(FILE *out, const struct report *r), struct err *e)
{
	char *body = NULL, key[1024] = "/metrics/job/" PUSH_JOB;
	size_t len = 0;
	FILE *m = open_memstream(&body, &len);
	const char *ns = s->plan->all_namespaces ? "-A" : s->plan->namespace;
	int rc = -1;

	if (m && metrics(m, &s->report) == 0 && fclose(m) == 0) {
		m = NULL;
		if (push_key_append(key, sizeof(key), "namespace", ns) < 0)
			err_set(e, ERR_USAGE, "--pushgateway: grouping key too long");
		else
			rc = push_put(url, key, body, len, PUSH_TIMEOUT_MS, e);
	} else {
		err_set(e, ERR_OTHER, "--pushgateway: cannot format the metrics");
	}
	if (m)
		fclose(m);
	free(body);
	return rc;
}

void run_session_release(struct run_session *s)
{
	if (s->judged)
		verdict_release(&s->verdict);
	dgd_findings_release(&s->findings);
	run_kv_free(s->kv);
	if (s->run.pods)
		run_dgd_groups_release(s->group, s->run.pods->n);
	dgd_set_release(&s->dgds);
	if (s->run.pod)
		run_release(&s->run);
	pod_list_release(&s->list);
}
