/* The GET mux (src/kube/http/mux.h): transfers handed in from many
 * threads run on one multi handle's connections, each with its own
 * options; a hung one ends by its own deadline while the others go on.
 * Against a plain HTTP/1.1 loopback server that counts its connections
 * (counts, never a time). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/ssl.h>

#include "kube/http/mux.h"
#include "loopback.h"
#include "t.h"

struct server {
	int lfd, port;
	pthread_t th;
	atomic_int conns;   /* accepted */
	atomic_int held;    /* /hang requests held unanswered */
};

/* One connection: answers each request "ok", kept alive; a request for
 * /hang is held unanswered until the client closes. */
static void *serve_one(void *arg)
{
	struct { struct server *s; int fd; } *c = arg;
	char buf[4096];
	size_t have = 0;
	ssize_t n;

	while ((n = recv(c->fd, buf + have, sizeof(buf) - 1 - have, 0)) > 0) {
		char *end;

		have += (size_t)n;
		buf[have] = '\0';
		while ((end = strstr(buf, "\r\n\r\n")) != NULL) {
			static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
			size_t used = (size_t)(end + 4 - buf);

			if (!strncmp(buf, "GET /hang ", 10)) {
				atomic_fetch_add(&c->s->held, 1);
				while (recv(c->fd, buf, sizeof(buf), 0) > 0)
					;   /* until the client gives up */
				goto out;
			}
			if (send(c->fd, ok, sizeof(ok) - 1, MSG_NOSIGNAL) < 0)
				goto out;
			memmove(buf, buf + used, have - used + 1);
			have -= used;
		}
	}
out:
	close(c->fd);
	free(c);
	return NULL;
}

static void *accept_loop(void *arg)
{
	struct server *s = arg;
	int fd;

	while ((fd = accept(s->lfd, NULL, NULL)) >= 0) {
		struct { struct server *s; int fd; } *c = malloc(sizeof(*c));
		pthread_t th;

		atomic_fetch_add(&s->conns, 1);
		c->s = s;
		c->fd = fd;
		pthread_create(&th, NULL, serve_one, c);
		pthread_detach(th);
	}
	return NULL;
}

static void server_start(struct server *s)
{
	atomic_init(&s->conns, 0);
	atomic_init(&s->held, 0);
	s->lfd = t_listen(64, &s->port);
	pthread_create(&s->th, NULL, accept_loop, s);
}

static size_t discard(char *p, size_t size, size_t n, void *u)
{
	(void)p, (void)u;
	return size * n;
}

/* One GET of path through m; its CURLcode, *status the answer's. */
static CURLcode get(struct mux *m, int port, const char *path, long timeout_ms, long *status)
{
	char url[64];
	CURL *h = curl_easy_init();
	CURLcode rc;

	snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", port, path);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
	rc = mux_perform(m, h);
	*status = 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
	curl_easy_cleanup(h);
	return rc;
}

struct caller {
	struct mux *m;
	int port, n;
	const char *path;
	long timeout_ms;
	int ok;          /* GETs that came back 200 */
	CURLcode last;
};

static void *caller_run(void *arg)
{
	struct caller *c = arg;
	int i;

	for (i = 0; i < c->n; i++) {
		long status;

		c->last = get(c->m, c->port, c->path, c->timeout_ms, &status);
		c->ok += c->last == CURLE_OK && status == 200;
	}
	return NULL;
}

/* Runs the n (<= 8) callers in threads of their own; their 200s. */
static int run_all(struct caller *c, int n)
{
	pthread_t th[8];
	int i, ok = 0;

	for (i = 0; i < n; i++)
		pthread_create(&th[i], NULL, caller_run, &c[i]);
	for (i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		ok += c[i].ok;
	}
	return ok;
}

/* One caller after another: every GET on the one kept-alive connection. */
static void test_serial_reuse(void)
{
	struct server s;
	struct mux *m = mux_new();
	struct caller c = { m, 0, 10, "/ok", 5000, 0, CURLE_OK };

	server_start(&s);
	c.port = s.port;
	caller_run(&c);
	CHECK_INT(c.ok, 10);
	CHECK_INT(atomic_load(&s.conns), 1);
	mux_free(m);
	t_stop(s.lfd, s.th, NULL);
}

/* 8 threads, 5 GETs each: all answered, never more connections than
 * GETs in flight (HTTP/1.1 here: no multiplexing). */
static void test_threads_share_the_pool(void)
{
	struct server s;
	struct mux *m = mux_new();
	struct caller c[8];
	int i;

	server_start(&s);
	for (i = 0; i < 8; i++)
		c[i] = (struct caller){ m, s.port, 5, "/ok", 5000, 0, CURLE_OK };
	CHECK_INT(run_all(c, 8), 40);
	CHECK(atomic_load(&s.conns) >= 1 && atomic_load(&s.conns) <= 8);
	mux_free(m);
	t_stop(s.lfd, s.th, NULL);
}

/* A GET the server never answers ends by its own deadline; the other
 * threads' GETs, before and after it, are all answered. */
static void test_hung_transfer_ends_alone(void)
{
	struct server s;
	struct mux *m = mux_new();
	struct caller hung, c[3];
	pthread_t hth;
	int i;

	server_start(&s);
	hung = (struct caller){ m, s.port, 1, "/hang", 1000, 0, CURLE_OK };
	pthread_create(&hth, NULL, caller_run, &hung);
	for (i = 0; i < 3; i++)
		c[i] = (struct caller){ m, s.port, 10, "/ok", 60000, 0, CURLE_OK };
	CHECK_INT(run_all(c, 3), 30);
	pthread_join(hth, NULL);
	CHECK_INT(hung.ok, 0);
	CHECK_INT(hung.last, CURLE_OPERATION_TIMEDOUT);
	CHECK_INT(atomic_load(&s.held), 1);
	mux_free(m);
	t_stop(s.lfd, s.th, NULL);
}

/* A mux never used starts no thread; freeing it (and NULL) is fine. */
static void test_unused(void)
{
	mux_free(mux_new());
	mux_free(NULL);
	CHECK(1);
}

int main(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
	test_unused();
	test_serial_reuse();
	test_threads_share_the_pool();
	test_hung_transfer_ends_alone();
	curl_global_cleanup();
	return T_DONE("test_mux");
}
