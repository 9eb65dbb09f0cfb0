/* GET (http.h http_get, http_get_with): one request on the client's
 * multiplexed connection (mux.h), its retries (retry.h) and impersonation headers, the
 * body bounded and the answer's status in kubectl's words. */
#define _GNU_SOURCE
#include "http.h"

#include <openssl/crypto.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "util/log.h"
#include "util/xalloc.h"
#include "kube/config/impersonate.h"
#include "kube/tls/tlspolicy.h"
#include "retry.h"
#include "urlpath.h"
#include "http_int.h"
#include "mux.h"

struct get_state {
	struct buf *body;
	char retry_after[32];
	char location[512]; /* of a 3xx, which is never followed */
	const struct http_get_opts *o;
	int cut;            /* the body reached o->max_body: ended, kept */
};

static size_t on_body(char *p, size_t size, size_t n, void *u)
{
	struct get_state *st = u;
	size_t max = st->o->max_body;

	if (tlspolicy_renegotiated())
		return 0;   /* the connection is over (tlspolicy.h) */
	if (max && st->body->len + size * n > max) {
		buf_append(st->body, p, max - st->body->len);
		st->cut = 1;
		return 0;   /* curl ends the transfer: the rest is not read */
	}
	if (buf_append(st->body, p, size * n) < 0)
		return 0;   /* curl aborts with CURLE_WRITE_ERROR */
	return size * n;
}

/* The value of header line p (len bytes) into out, trimmed, cut to n. */
static void header_value(const char *p, size_t len, size_t skip, char *out, size_t n)
{
	size_t o = 0;

	while (skip < len && isspace((unsigned char)p[skip]))
		skip++;
	while (len > skip && isspace((unsigned char)p[len - 1]))
		len--;
	while (skip < len && o + 1 < n)
		out[o++] = p[skip++];
	out[o] = '\0';
}

static size_t on_header(char *p, size_t size, size_t n, void *u)
{
	struct get_state *st = u;
	size_t len = size * n;
	static const char name[] = "retry-after:", loc[] = "location:";

	if (len > sizeof(loc) && !strncasecmp(p, loc, sizeof(loc) - 1))
		header_value(p, len, sizeof(loc) - 1, st->location, sizeof(st->location));
	if (len > sizeof(name) && !strncasecmp(p, name, sizeof(name) - 1)) {
		size_t i = sizeof(name) - 1, o = 0;
		while (i < len && isspace((unsigned char)p[i]))
			i++;
		while (i < len && o + 1 < sizeof(st->retry_after) &&
		       !isspace((unsigned char)p[i]))
			st->retry_after[o++] = p[i++];
		st->retry_after[o] = '\0';
	}
	return len;
}

static void add_slist_header(const char *name, const char *value, void *arg)
{
	struct curl_slist **hl = arg;
	char *line = xasprintf("%s: %s", name, value);

	*hl = curl_slist_append(*hl, line);
	log_header(name, value);
	free(line);
}

static struct curl_slist *get_headers(struct http_client *c, unsigned *gen)
{
	struct curl_slist *hl = NULL;
	char *auth = http_client_auth_header(c, gen);

	hl = curl_slist_append(hl, "Accept: application/json");
	log_header("Accept", "application/json");
	if (auth) {
		hl = curl_slist_append(hl, auth);
		log_header("Authorization", auth + strlen("Authorization: "));
		OPENSSL_cleanse(auth, strlen(auth));
		free(auth);
	}
	impersonate_each(c->cfg, add_slist_header, &hl);
	log_header("User-Agent", USER_AGENT);
	return hl;
}

/* Sleeps in short slices so that a cancel ends the wait promptly. */
static void sleep_ms(long ms)
{
	while (ms > 0 && !cancel_why()) {
		long n = ms < 100 ? ms : 100;
		struct timespec ts = { 0, n * 1000000L };

		while (nanosleep(&ts, &ts) < 0)
			;
		ms -= n;
	}
}

static double elapsed_ms(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 +
	       (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/* The tighter of the client's request timeout (or the default deadline)
 * and the caller's. */
static long timeout_ms(const struct http_client *c, const struct http_get_opts *o)
{
	long t = c->cfg->timeout_ms > 0 ? c->cfg->timeout_ms : HTTP_DEFAULT_DEADLINE_MS;

	if (o->timeout_ms > 0 && (!t || o->timeout_ms < t))
		t = o->timeout_ms;
	return t;
}

/* One attempt.  Returns the CURLcode; resp->status and retry_after set. */
static CURLcode get_once(struct http_client *c, const char *path,
			 struct http_response *resp, struct get_state *st,
			 unsigned *gen, char *errbuf, struct err *e)
/* On a transport failure e is set here, while the handle still exists. */
{
	struct curl_slist *hl;
	struct timespec t0;
	CURLcode rc;
	CURL *h = http_easy_new(c, path, e);

	if (!h)
		return CURLE_FAILED_INIT;
	log_at(6, "GET %s%s", c->log_base, path);
	hl = get_headers(c, gen);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hl);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, st);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, st);
	if (!c->cfg->disable_compression)
		curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
	if (timeout_ms(c, st->o) > 0)
		curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms(c, st->o));
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, STALL_SECONDS);
	buf_reset(&resp->body);
	st->retry_after[0] = '\0';
	st->location[0] = '\0';
	st->cut = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	errbuf[0] = '\0';
	tlspolicy_begin();
	/* On the client's multiplexed connection (mux.h), which leaves this
	 * thread's TLS failure words as curl_easy_perform here would. */
	rc = mux_perform(c->mux, h);
	/* A renegotiation ends the request (on_body refused the rest, or the
	 * server closed on curl's warning): an error, never retried, as
	 * client-go does not retry it. */
	if (rc != CURLE_OK && tlspolicy_renegotiated())
		rc = CURLE_SSL_CONNECT_ERROR;
	atomic_fetch_add(&c->requests, 1);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &resp->status);
	log_at(6, "GET %s%s %ld in %.0f milliseconds", c->log_base, path,
	       resp->status, elapsed_ms(&t0));
	if (st->o->private_body && resp->status / 100 == 2)
		log_at(8, "Response Body: %zu bytes, not shown", resp->body.len);
	else
		log_body("Response Body", buf_str(&resp->body), resp->body.len);
	if (rc != CURLE_OK && rc != CURLE_WRITE_ERROR)
		http_curl_error(c, h, rc, errbuf, e);
	/* Worded as the connect timeout it was: the caller must not call it
	 * the request's deadline.  Neither is retried. */
	if (http_connect_timed_out(h, rc))
		rc = CURLE_COULDNT_CONNECT;
	curl_slist_free_all(hl);
	http_easy_free(h);
	return rc;
}

/* Says which deadline ended the request, so the user knows the flag. */
static int http_default_deadline_error(struct err *e)
{
	char was[sizeof(e->msg)];

	snprintf(was, sizeof(was), "%s", e ? e->msg : "");
	return err_setp(e, ERR_TIMEOUT, "%s (the default deadline of %ld s for a "
			"request; --request-timeout sets another)", was,
			HTTP_DEFAULT_DEADLINE_MS / 1000);
}

int http_get(struct http_client *c, const char *path,
	     struct http_response *resp, struct err *e)
{
	static const struct http_get_opts none = { .timeout_ms = 0 };

	return http_get_with(c, path, &none, resp, e);
}

int http_get_with(struct http_client *c, const char *path,
		  const struct http_get_opts *o, struct http_response *resp,
		  struct err *e)
{
	char errbuf[CURL_ERROR_SIZE];
	struct get_state st = { &resp->body, "", "", o, 0 };
	struct retry rt;
	int reauthed = 0;
	unsigned gen = 0;

	resp->status = 0;
	buf_init(&resp->body, HTTP_MAX_BODY);
	retry_init(&rt, timeout_ms(c, o));
	for (;;) {
		long delay;
		CURLcode rc = get_once(c, path, resp, &st, &gen, errbuf, e);

		if (rc == CURLE_FAILED_INIT)
			return -1;
		if (rc == CURLE_WRITE_ERROR && st.cut)
			rc = CURLE_OK;
		if (rc == CURLE_OPERATION_TIMEDOUT && c->cfg->timeout_ms <= 0 && o->timeout_ms <= 0)
			return http_default_deadline_error(e);
		if (rc == CURLE_WRITE_ERROR && resp->body.overflowed)
			return err_set(e, ERR_PROTOCOL,
				       "response from the server is larger than %u MiB",
				       HTTP_MAX_BODY >> 20);
		if (rc == CURLE_OK && resp->status >= 200 && resp->status < 300)
			return 0;
		if (rc == CURLE_OK && resp->status == 401 && !reauthed) {
			reauthed = 1;
			if (http_client_reauth(c, gen, NULL) == 0)
				continue;
		}
		/* A GET is idempotent: a reset or EOF is retried (retry.h). */
		delay = rc == CURLE_OK
			? retry_next(&rt, resp->status, st.retry_after, 0)
			: retry_next(&rt, 0, NULL, retry_transport_error(rc));
		if (delay < 0 || cancel_why()) {
			if (rc != CURLE_OK)
				return -1;   /* get_once worded it */
			break;
		}
		log_at(6, "%s%ld, retrying in %ld ms", rc == CURLE_OK ?
		       "server answered " : "connection failed: curl error ",
		       rc == CURLE_OK ? resp->status : (long)rc, delay);
		sleep_ms(delay);
	}
	if (resp->status >= 300 && resp->status < 400) {
		/* Redirects are never followed (the credentials would go along);
		 * say where it pointed: an SSO or proxy front door, usually. */
		if (e)
			e->http_status = resp->status;
		return err_setp(e, ERR_API, "Error from server: the server answered %ld, a "
				"redirect to %s%s%s, which is not followed (a proxy or login "
				"page in front of the API server?)", resp->status,
				*st.location ? "\"" : "", *st.location ? st.location : "no Location",
				*st.location ? "\"" : "");
	}
	return http_status_error(resp->status, buf_str(&resp->body),
				 resp->body.len, e);
}

void http_response_release(struct http_response *r)
{
	buf_release(&r->body);
}
