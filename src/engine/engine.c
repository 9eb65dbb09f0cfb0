#include "engine.h"

#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../model/cancel.h"
#include "../util/log.h"
#include "../util/xalloc.h"

struct pool {
	struct http_client *client;
	const struct pod_list *pods;
	const struct engine_job *job;
	struct exec_result *results;
	pthread_mutex_t lock;
	size_t *probe;      /* the indices of the pods to probe, in list order */
	char *unsent;       /* per entry of probe: cancelled before it started */
	size_t done;
	size_t total;       /* pods to probe */
	size_t failed;      /* finished without a report */
	/* Per exec in flight (at most one per thread): the pod it runs
	 * ((size_t)-1: none) and since when (monotonic ms), for the progress
	 * line's "waiting for". */
	struct slot { size_t pod; long long since; } *slot;
	int nslots;
};

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The exec in flight longest, into at (under the lock). */
static void longest(const struct pool *p, struct engine_progress *at)
{
	long long first = 0, now = now_ms();

	for (int w = 0; w < p->nslots; w++) {
		const struct slot *s = &p->slot[w];

		if (s->pod == (size_t)-1 || (at->waiting && s->since >= first))
			continue;
		first = s->since;
		at->waiting = &p->pods->items[s->pod];
		at->waited_ms = (long)(now - s->since);
	}
}

static void finished(struct pool *p, int w, int failed)
{
	struct engine_progress at = { 0 };

	pthread_mutex_lock(&p->lock);
	p->done++;
	p->failed += failed != 0;
	p->slot[w].pod = (size_t)-1;
	if (p->job->progress) {
		at.done = p->done, at.total = p->total, at.failed = p->failed;
		longest(p, &at);
		p->job->progress(&at, p->job->progress_arg);
	}
	pthread_mutex_unlock(&p->lock);
}

/* Pod i starts: a free slot (one per thread, so there is always one)
 * holds it; returns the slot's number. */
static int started(struct pool *p, size_t i)
{
	int w = 0;

	pthread_mutex_lock(&p->lock);
	while (w + 1 < p->nslots && p->slot[w].pod != (size_t)-1)
		w++;
	p->slot[w].pod = i;
	p->slot[w].since = now_ms();
	pthread_mutex_unlock(&p->lock);
	return w;
}

/* engine_each's callback: the exec of the j-th pod to probe.  Cancelled
 * (Ctrl-C, --timeout): it starts nothing; engine_run reports the pod as
 * never started, in list order, once every exec has returned. */
static void run_one(size_t j, void *arg)
{
	struct pool *p = arg;
	size_t i = p->probe[j];
	const struct pod_info *pod = &p->pods->items[i];
	struct exec_request rq = {
		.namespace = pod->namespace,
		.pod = pod->name,
		.container = pod->container,
		.argv = p->job->argv,
		.stdin_data = p->job->stdin_data,
		.stdin_len = p->job->stdin_len,
		.timeout_ms = p->job->timeout_ms,
		.max_output = p->job->max_output,
	};
	struct exec_result one, *r = p->results ? &p->results[i] : &one;
	int failed, w;

	if (cancel_why()) {
		p->unsent[j] = 1;
		return;
	}
	w = started(p, i);
	exec_run(p->client, &rq, r);
	failed = r->outcome != EXEC_SUCCESS && r->outcome != EXEC_EXIT_CODE;
	log_at(6, "exec %s/%s: %s", pod->namespace, pod->name,
	       exec_outcome_name(r->outcome));
	if (p->job->on_result)
		p->job->on_result(i, r, p->job->on_result_arg);
	if (!p->results)
		exec_result_release(r);
	finished(p, w, failed);
}

static void mark_unprobed(const struct pod_info *pod, struct exec_result *r)
{
	memset(r, 0, sizeof(*r));
	buf_init(&r->out, 1);
	buf_init(&r->err, 1);
	r->outcome = EXEC_ERROR;
	/* The list's own words, bare: the caller words the miss (model/reason.h). */
	snprintf(r->message, sizeof(r->message), "%s", pod->skip_reason);
}

/* Pod k, never started because the run was cancelled: that reason, through
 * on_result like any other. */
static void not_started(struct pool *p, size_t k)
{
	struct exec_result one, *r = p->results ? &p->results[k] : &one;

	memset(r, 0, sizeof(*r));
	buf_init(&r->out, 1);
	buf_init(&r->err, 1);
	r->outcome = EXEC_ERROR;
	snprintf(r->message, sizeof(r->message),
		 "not started: %s", cancel_why() ? cancel_why() : "cancelled");
	if (p->job->on_result)
		p->job->on_result(k, r, p->job->on_result_arg);
	if (!p->results)
		exec_result_release(r);
}

static int pool_size(const struct engine_job *job, size_t total)
{
	int n = job->parallel > 0 ? job->parallel : ENGINE_DEFAULT_PARALLEL;

	if (n > ENGINE_MAX_PARALLEL)
		n = ENGINE_MAX_PARALLEL;
	return (size_t)n > total ? (int)total : n;
}

void engine_run(struct http_client *c, const struct pod_list *l,
		const struct engine_job *job, struct exec_result *results)
{
	struct pool p = { c, l, job, results, PTHREAD_MUTEX_INITIALIZER, NULL, NULL, 0, 0, 0, NULL, 0 };
	size_t k;

	p.probe = xcalloc(l->n ? l->n : 1, sizeof(*p.probe));
	for (k = 0; k < l->n; k++) {
		if (l->items[k].probe)
			p.probe[p.total++] = k;
		else if (results)
			mark_unprobed(&l->items[k], &results[k]);
	}
	p.unsent = xcalloc(p.total ? p.total : 1, 1);
	p.nslots = pool_size(job, p.total);
	if (p.nslots < 1)
		p.nslots = 1;
#ifdef M_ARENA_MAX
	/* glibc gives each busy thread its own malloc arena; with dozens of
	 * workers that is most of our peak memory, for no speed we can see
	 * (bench/RESULTS.md).  Two arenas keep contention low enough. */
	mallopt(M_ARENA_MAX, 2);
#endif
	p.slot = xcalloc((size_t)p.nslots, sizeof(*p.slot));
	for (int w = 0; w < p.nslots; w++)
		p.slot[w].pod = (size_t)-1;
	/* The pool is engine_each's (the same bound, stack and fallback to
	 * this thread when none can be started). */
	engine_each(p.total, job->parallel, run_one, &p);
	for (k = 0; k < p.total; k++)
		if (p.unsent[k])
			not_started(&p, p.probe[k]);
	pthread_mutex_destroy(&p.lock);
	free(p.slot);
	free(p.unsent);
	free(p.probe);
}
