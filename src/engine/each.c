/* engine_each (engine.h): a bounded pool of threads over the indices
 * 0..n-1, for work that waits on the network per item (check --observe's
 * metric reads through the pod proxy: one after another, N pods whose
 * proxy hangs cost N timeouts). */
#include "engine.h"

#include <pthread.h>
#include <stdlib.h>

#include "../util/xalloc.h"

struct each {
	size_t n;
	size_t next;          /* next index to hand out, under lock */
	void (*fn)(size_t i, void *arg);
	void *arg;
	pthread_mutex_t lock;
};

/* The next index, or n when all are handed out. */
static size_t each_take(struct each *e)
{
	size_t i;

	pthread_mutex_lock(&e->lock);
	i = e->next < e->n ? e->next++ : e->n;
	pthread_mutex_unlock(&e->lock);
	return i;
}

static void *each_worker(void *arg)
{
	struct each *e = arg;
	size_t i;

	while ((i = each_take(e)) < e->n)
		e->fn(i, e->arg);
	return NULL;
}

static size_t each_threads(size_t n, int parallel)
{
	size_t t = parallel > 0 ? (size_t)parallel : ENGINE_DEFAULT_PARALLEL;

	if (t > ENGINE_MAX_PARALLEL)
		t = ENGINE_MAX_PARALLEL;
	return t < n ? t : n;
}

void engine_each(size_t n, int parallel, void (*fn)(size_t i, void *arg), void *arg)
{
	struct each e = { n, 0, fn, arg, PTHREAD_MUTEX_INITIALIZER };
	size_t want = each_threads(n, parallel), started = 0;
	pthread_t *threads = xcalloc(want ? want : 1, sizeof *threads);
	pthread_attr_t attr;

	pthread_attr_init(&attr);
	/* each call needs little stack (engine.c's workers do with as much) */
	pthread_attr_setstacksize(&attr, 1024 * 1024);
	while (started < want && pthread_create(&threads[started], &attr, each_worker, &e) == 0)
		started++;
	if (started == 0)
		each_worker(&e);   /* no thread to be had: the work is done here */
	for (size_t t = 0; t < started; t++)
		pthread_join(threads[t], NULL);
	pthread_attr_destroy(&attr);
	pthread_mutex_destroy(&e.lock);
	free(threads);
}
