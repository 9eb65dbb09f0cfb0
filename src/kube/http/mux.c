/* GETs multiplexed on one connection: one thread, one multi handle (mux.h). */
#define _GNU_SOURCE
#include "mux.h"

#include <pthread.h>
#include <stdlib.h>

#include "util/xalloc.h"
#include "kube/tls/tlspolicy.h"

/* The thread's longest sleep: curl_multi_wakeup ends it at once when a
 * transfer is handed in, and curl shortens it to its own next timer (a
 * transfer's timeout included); the bound is only a safety net. */
#define MUX_POLL_MS 1000

/* One transfer handed in; its caller waits for done (lock). */
struct mux_req {
	CURL *h;
	CURLcode rc;
	int done;
	struct tlspolicy_last tls;   /* the thread's TLS state at the end */
	struct mux_req *next;
};

struct mux {
	pthread_mutex_t lock;
	pthread_cond_t done_cv;   /* some transfer ended */
	pthread_t thread;
	int started;              /* the thread runs (lock) */
	int stopping;             /* mux_free asked it to end (lock) */
	CURLM *multi;             /* set before started; the thread's alone */
	struct mux_req *queue;    /* handed in, not yet added (lock) */
	struct mux_req *active;   /* in the multi (the thread's alone) */
};

struct mux *mux_new(void)
{
	struct mux *m = xcalloc(1, sizeof(*m));

	pthread_mutex_init(&m->lock, NULL);
	pthread_cond_init(&m->done_cv, NULL);
	return m;
}

static void finish(struct mux *m, struct mux_req *r, CURLcode rc)
{
	r->rc = rc;
	/* What this transfer's TLS met, for its caller's words (tlspolicy.h). */
	tlspolicy_save(&r->tls);
	pthread_mutex_lock(&m->lock);
	r->done = 1;
	pthread_cond_broadcast(&m->done_cv);
	pthread_mutex_unlock(&m->lock);
}

/* Adds what was handed in, in the order it came.  1 when the thread is
 * to end: mux_free asked and nothing is left. */
static int take_queue(struct mux *m)
{
	struct mux_req *q, *rev = NULL;
	int stopping;

	pthread_mutex_lock(&m->lock);
	q = m->queue;
	m->queue = NULL;
	stopping = m->stopping;
	pthread_mutex_unlock(&m->lock);
	while (q) {   /* the queue is newest first */
		struct mux_req *next = q->next;
		q->next = rev;
		rev = q;
		q = next;
	}
	/* An idle mux starts with no failure of earlier transfers.  Not
	 * before each transfer: the state is the thread's, shared by the
	 * transfers in flight, and forgetting there would lose a failure one
	 * of them met and has not ended with yet.  So a transfer's words are
	 * what the thread met while it ran, which on one server and one
	 * policy is its own connection's. */
	if (rev && !m->active)
		tlspolicy_begin();
	while (rev) {
		struct mux_req *r = rev;
		rev = r->next;
		if (curl_multi_add_handle(m->multi, r->h) != CURLM_OK) {
			finish(m, r, CURLE_OUT_OF_MEMORY);
			continue;
		}
		r->next = m->active;
		m->active = r;
	}
	return stopping && !m->active;
}

/* The request of easy handle h, unlinked from the active list. */
static struct mux_req *unlink_active(struct mux *m, CURL *h)
{
	struct mux_req **p;

	for (p = &m->active; *p; p = &(*p)->next)
		if ((*p)->h == h) {
			struct mux_req *r = *p;
			*p = r->next;
			return r;
		}
	return NULL;
}

/* Hands every ended transfer back to its caller. */
static void finish_ended(struct mux *m)
{
	CURLMsg *msg;
	int left;

	while ((msg = curl_multi_info_read(m->multi, &left)) != NULL) {
		CURL *h = msg->easy_handle;
		CURLcode rc = msg->data.result;   /* msg dies with the removal */
		struct mux_req *r;

		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_multi_remove_handle(m->multi, h);
		r = unlink_active(m, h);
		if (r)
			finish(m, r, rc);
	}
}

static void *mux_main(void *arg)
{
	struct mux *m = arg;
	int running;

	while (!take_queue(m)) {
		curl_multi_perform(m->multi, &running);
		finish_ended(m);
		curl_multi_poll(m->multi, NULL, 0, MUX_POLL_MS, NULL);
	}
	return NULL;
}

/* The multi and its thread; lock held.  -1 when either cannot be had. */
static int start_locked(struct mux *m)
{
	m->multi = curl_multi_init();
	if (!m->multi)
		return -1;
	/* CURLPIPE_MULTIPLEX is 7.88's default, said here because it is the
	 * point; the caps are mux.h's. */
	curl_multi_setopt(m->multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
	curl_multi_setopt(m->multi, CURLMOPT_MAX_HOST_CONNECTIONS, MUX_HOST_CONNECTIONS);
	curl_multi_setopt(m->multi, CURLMOPT_MAXCONNECTS, MUX_HOST_CONNECTIONS);
	if (pthread_create(&m->thread, NULL, mux_main, m) != 0) {
		curl_multi_cleanup(m->multi);
		m->multi = NULL;
		return -1;
	}
	m->started = 1;
	return 0;
}

CURLcode mux_perform(struct mux *m, CURL *h)
{
	struct mux_req r = { h, CURLE_OK, 0, { 0, 0, -1, 0, "" }, NULL };

	/* Wait for the first connection's ALPN rather than open more: a
	 * transfer that finds it still handshaking would otherwise not know
	 * it can multiplex (libcurl's CURLOPT_PIPEWAIT). */
	curl_easy_setopt(h, CURLOPT_PIPEWAIT, 1L);
	pthread_mutex_lock(&m->lock);
	if (!m->started && start_locked(m) < 0) {
		pthread_mutex_unlock(&m->lock);
		return curl_easy_perform(h);   /* no thread: as before, here */
	}
	r.next = m->queue;
	m->queue = &r;
	pthread_mutex_unlock(&m->lock);
	curl_multi_wakeup(m->multi);
	pthread_mutex_lock(&m->lock);
	while (!r.done)
		pthread_cond_wait(&m->done_cv, &m->lock);
	pthread_mutex_unlock(&m->lock);
	tlspolicy_load(&r.tls);
	return r.rc;
}

void mux_free(struct mux *m)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->stopping = 1;
	pthread_mutex_unlock(&m->lock);
	if (m->started) {
		curl_multi_wakeup(m->multi);
		pthread_join(m->thread, NULL);
		curl_multi_cleanup(m->multi);
	}
	pthread_cond_destroy(&m->done_cv);
	pthread_mutex_destroy(&m->lock);
	free(m);
}
