/* engine_each (engine/engine.h): every index exactly once, at most
 * `parallel` calls at a time, and really that many at once when there is
 * work for them (a gate holds each call until `want` are in flight, with a
 * bound so a pool that never fills fails the count instead of hanging). */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "engine/engine.h"
#include "t.h"

struct seen {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t n;
	int *hits;            /* per index: how many calls */
	int in_flight, most;
	int want;             /* hold each call until this many are in flight; 0: none */
	int full;             /* the gate opened once */
	long bound_ms;        /* how long a call waits at most for the gate */
};

static void gate(struct seen *s)
{
	struct timespec until;

	/* a bound only: a pool of `want` threads opens the gate at once */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += s->bound_ms % 1000 * 1000000L;
	until.tv_sec += s->bound_ms / 1000 + until.tv_nsec / 1000000000L;
	until.tv_nsec %= 1000000000L;
	if (s->in_flight >= s->want)
		s->full = 1;
	pthread_cond_broadcast(&s->cond);
	while (!s->full && pthread_cond_timedwait(&s->cond, &s->lock, &until) != ETIMEDOUT)
		;
}

static void visit(size_t i, void *arg)
{
	struct seen *s = arg;

	pthread_mutex_lock(&s->lock);
	if (i < s->n)
		s->hits[i]++;
	s->in_flight++;
	if (s->in_flight > s->most)
		s->most = s->in_flight;
	if (s->want)
		gate(s);
	s->in_flight--;
	pthread_mutex_unlock(&s->lock);
}

/* Runs engine_each over n indices, each call held until `want` are in
 * flight (at most bound_ms); the most calls seen at once. */
static int each(size_t n, int parallel, int want, long bound_ms, int *every_once)
{
	struct seen s = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, n, NULL, 0, 0, want, 0,
			  bound_ms };

	s.hits = calloc(n ? n : 1, sizeof *s.hits);
	engine_each(n, parallel, visit, &s);
	*every_once = 1;
	for (size_t i = 0; i < n; i++)
		*every_once &= s.hits[i] == 1;
	free(s.hits);
	pthread_cond_destroy(&s.cond);
	pthread_mutex_destroy(&s.lock);
	return s.most;
}

int main(void)
{
	int once;

	CHECK_INT(each(0, 4, 0, 0, &once), 0);          /* n = 0: fn never runs */
	CHECK(once);
	CHECK_INT(each(1, 4, 0, 0, &once), 1);
	CHECK(once);
	CHECK(each(100, 4, 0, 0, &once) <= 4);
	CHECK(once);
	/* four at once with parallel 4, never a fifth */
	CHECK_INT(each(100, 4, 4, 10000, &once), 4);
	CHECK(once);
	/* parallel > n: n threads, all busy at once */
	CHECK_INT(each(3, 16, 3, 10000, &once), 3);
	CHECK(once);
	/* parallel 1: one after another (a gate of 2 never opens; a second
	 * thread would be seen while the first waits) */
	CHECK_INT(each(5, 1, 2, 50, &once), 1);
	CHECK(once);
	/* parallel 0: the engine's default, bounded like any other */
	CHECK_INT(each(ENGINE_DEFAULT_PARALLEL * 2, 0, ENGINE_DEFAULT_PARALLEL, 10000, &once),
		  ENGINE_DEFAULT_PARALLEL);
	CHECK(once);
	printf("test_each: %d passed, %d failed\n", t_pass, t_fail);
	return t_fail != 0;
}
