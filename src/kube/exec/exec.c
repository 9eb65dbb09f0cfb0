/* Pod exec over WebSocket (exec.h), by hand on libcurl CONNECT_ONLY.
 * This file: the request, one attempt, retries; exec_int.h lists the rest.
 *
 * libcurl 7.88 connects (proxy, TLS) and then only moves bytes: we write
 * the HTTP/1.1 upgrade request, read the head, and run RFC 6455 framing
 * (ws.h) and the Kubernetes channel protocol ourselves (exec-protocol.md
 * §3, §6-§8).  Every wait is a poll() bounded by the exec's deadline.
 * No globals: exec_run is called from many threads at once.
 */
#include "exec_int.h"

#include <openssl/crypto.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/xalloc.h"
#include "exec_head.h"
#include "kube/config/impersonate.h"
#include "kube/http/retry.h"

/* Sleeps in short slices so that a cancel (cancel_run) ends the wait. */
static void sleep_ms(long ms)
{
	while (ms > 0 && !cancel_why()) {
		long n = ms < CANCEL_SLICE_MS ? ms : CANCEL_SLICE_MS;
		struct timespec ts = { 0, n * 1000000L };

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
		ms -= n;
	}
}

/* ---- the request ---- */

static int append_param(struct buf *b, int *n, const char *name,
			const char *value)
{
	char *v = http_escape(value);
	int rc = buf_appendf(b, "%c%s=%s", (*n)++ ? '&' : '?', name, v);

	free(v);
	return rc;
}

/* Keys in the order kubectl's sorted url.Values gives them. */
static char *exec_path(const struct exec_request *rq)
{
	struct buf b = BUF_INIT(PATH_MAX_BYTES);
	char *ns = http_escape(rq->namespace), *pod = http_escape(rq->pod);
	const char *const *a;
	int rc, n = 0;

	rc = buf_appendf(&b, "/api/v1/namespaces/%s/pods/%s/exec", ns, pod);
	free(ns);
	free(pod);
	for (a = rq->argv; rc == 0 && a && *a; a++)
		rc = append_param(&b, &n, "command", *a);
	if (rc == 0 && rq->container)
		rc = append_param(&b, &n, "container", rq->container);
	if (rc == 0)
		rc = append_param(&b, &n, "stderr", "true");
	if (rc == 0 && rq->stdin_data)
		rc = append_param(&b, &n, "stdin", "true");
	if (rc == 0)
		rc = append_param(&b, &n, "stdout", "true");
	return rc == 0 ? buf_detach(&b, NULL) : NULL;
}

static void add_header(struct buf *b, const char *name, const char *value)
{
	buf_appendf(b, "%s: %s\r\n", name, value);
	log_header(name, value);
}

static void add_header_cb(const char *name, const char *value, void *arg)
{
	add_header(arg, name, value);
}

/* The whole upgrade request; the caller cleanses and releases req. */
static int build_request(struct conn *k, const char *path, const char *key,
			 unsigned *gen, struct buf *req)
{
	char *host = http_client_host_header(k->c);
	char *auth = http_client_auth_header(k->c, gen);

	/* The path goes after the server URL's own path, as in http_get. */
	buf_appendf(req, "GET %s%s HTTP/1.1\r\n", http_client_path_prefix(k->c),
		    path);
	add_header(req, "Host", host);
	if (auth) {
		const char *v = strchr(auth, ':');
		v = v ? v + 1 + strspn(v + 1, " ") : "";
		add_header(req, "Authorization", v);
		OPENSSL_cleanse(auth, strlen(auth));
	}
	impersonate_each(http_client_config(k->c), add_header_cb, req);
	add_header(req, "User-Agent", USER_AGENT);
	add_header(req, "Connection", "Upgrade");
	add_header(req, "Upgrade", "websocket");
	add_header(req, "Sec-WebSocket-Version", "13");
	add_header(req, "Sec-WebSocket-Key", key);
	add_header(req, "Sec-WebSocket-Protocol", EXEC_PROTOCOLS);
	free(host);
	free(auth);
	return buf_appends(req, "\r\n");
}

/* ---- one attempt ---- */

/* What the caller needs to decide on a retry. */
struct attempt {
	long status;           /* non-101 answer, 0 otherwise */
	unsigned gen;          /* credentials used */
	char retry_after[32];
};

static int send_request(struct conn *k, const char *path, const char *key,
			struct attempt *at, struct exec_result *res)
{
	struct buf req = BUF_INIT(PATH_MAX_BYTES + (64u << 10));
	enum io io;

	log_at(6, "GET %s%s", http_client_log_base(k->c), path);
	log_at(7, "Request Headers:");
	if (build_request(k, path, key, &at->gen, &req) < 0) {
		exec_set_msg(res, EXEC_ERROR, "exec request is too large");
		return -1;
	}
	k->waiting_for = "the upgrade response";
	io = exec_conn_send(k, req.data, req.len);
	OPENSSL_cleanse(req.data, req.len);
	buf_release(&req);
	if (io == IO_TIMEOUT)
		exec_set_timeout(res, k);
	else if (io != IO_OK)
		exec_set_msg(res, EXEC_ERROR, "sending the exec request: %s",
			k->io_error);
	return io == IO_OK ? 0 : -1;
}

/* "101 Switching Protocols in 12 milliseconds", as kubectl -v6 logs it. */
static void log_status(struct conn *k, const char *path, const char *head,
		       size_t len)
{
	const char *eol = memchr(head, '\r', len);
	size_t n = eol ? (size_t)(eol - head) : 0;
	struct timespec t1;
	double ms;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (double)(t1.tv_sec - k->start.tv_sec) * 1e3 +
	     (double)(t1.tv_nsec - k->start.tv_nsec) / 1e6;
	log_at(6, "GET %s%s %.*s in %.0f milliseconds",
	       http_client_log_base(k->c), path,
	       n > 9 ? (int)(n - 9) : 0, n > 9 ? head + 9 : "", ms);
	exec_log_head(head, len);
}

static void upgrade_failed(struct conn *k, struct buf *head, size_t head_len,
			   struct attempt *at, struct exec_result *res)
{
	struct buf raw = BUF_INIT(BODY_MAX + RECV_CHUNK);
	struct buf body = BUF_INIT(BODY_MAX);
	const char *v;
	size_t vl;
	struct err e;

	buf_append(&raw, head->data + head_len, head->len - head_len);
	exec_read_body(k, head->data, head_len, at->status, &raw, &body);
	log_body("Response Body", buf_str(&body), body.len);
	if (exec_hdr_get(head->data, head_len, "Retry-After", &v, &vl) &&
	    vl < sizeof(at->retry_after)) {
		memcpy(at->retry_after, v, vl);
		at->retry_after[vl] = '\0';
	}
	err_clear(&e);
	http_status_error(at->status, buf_str(&body), body.len, &e);
	exec_set_msg(res, EXEC_ERROR, "%s", e.msg);
	res->denied = e.denied;
	buf_release(&raw);
	buf_release(&body);
}

static void upgraded(struct conn *k, struct buf *head, size_t head_len,
		     const char *key, const struct exec_request *rq,
		     struct exec_result *res)
{
	char why[256];

	if (exec_check_upgrade(head->data, head_len, key, &res->protocol, why,
			       sizeof(why)) < 0) {
		res->protocol = 0;
		exec_set_msg(res, EXEC_ERROR, "unable to upgrade streaming request: %s",
			why);
		return;
	}
	exec_run_stream(k, head->data + head_len, head->len - head_len, rq, res);
}

static void attempt_once(struct http_client *c, const char *path,
			 const struct exec_request *rq,
			 long long deadline, long timeout_ms,
			 struct attempt *at, struct exec_result *res)
{
	struct conn k;
	struct buf head = BUF_INIT(HEAD_MAX + RECV_CHUNK);
	size_t head_len = 0;
	char key[25];

	memset(&k, 0, sizeof(k));
	memset(at, 0, sizeof(*at));
	res->http_status = 0;
	res->protocol = 0;
	k.c = c;
	k.deadline = deadline;
	k.timeout_ms = timeout_ms;
	k.scratch = xmalloc(RECV_CHUNK);
	clock_gettime(CLOCK_MONOTONIC, &k.start);
	if (ws_make_key(key) < 0) {
		exec_set_msg(res, EXEC_ERROR, "cannot generate a WebSocket key");
	} else if (exec_conn_open(&k, path, res) == 0 &&
		   send_request(&k, path, key, at, res) == 0 &&
		   exec_read_head(&k, &head, &head_len, res) == 0) {
		res->http_status = exec_head_status(head.data, head_len);
		log_status(&k, path, head.data, head_len);
		if (res->http_status < 0) {
			res->http_status = 0;
			exec_set_msg(res, EXEC_ERROR, "malformed HTTP status line in "
				"the upgrade response");
		} else if (res->http_status != 101) {
			at->status = res->http_status;
			upgrade_failed(&k, &head, head_len, at, res);
		} else {
			upgraded(&k, &head, head_len, key, rq, res);
		}
	}
	buf_release(&head);
	exec_conn_close(&k);
}

/* ---- public ---- */

static void result_init(struct exec_result *res, size_t max_output)
{
	memset(res, 0, sizeof(*res));
	res->outcome = EXEC_ERROR;
	res->exit_code = -1;
	buf_init(&res->out, max_output);
	buf_init(&res->err, max_output);
}

int exec_run(struct http_client *c, const struct exec_request *rq,
	     struct exec_result *res)
{
	long timeout_ms = rq->timeout_ms > 0 ? rq->timeout_ms : DEFAULT_TIMEOUT_MS;
	long long deadline = exec_now_ms() + timeout_ms;
	char *path = rq->namespace && rq->pod ? exec_path(rq) : NULL;
	struct retry rt;
	int reauthed = 0;

	result_init(res, rq->max_output ? rq->max_output : DEFAULT_MAX_OUTPUT);
	if (!rq->namespace || !rq->pod || !rq->argv || !rq->argv[0]) {
		free(path);
		exec_set_msg(res, EXEC_ERROR, "exec needs a namespace, a pod and a command");
		return -1;
	}
	if (!path) {
		exec_set_msg(res, EXEC_ERROR, "exec command line is too long");
		return -1;
	}
	/* Only answers before the 101 are retried: after it the command may
	 * have run (retry.h). */
	retry_init(&rt, exec_remaining_ms(deadline));
	for (;;) {
		struct attempt at;
		long delay;

		attempt_once(c, path, rq, deadline, timeout_ms, &at, res);
		if (cancel_why())
			break;
		if (at.status == 401 && !reauthed) {
			reauthed = 1;
			if (http_client_reauth(c, at.gen, NULL) == 0)
				continue;
		}
		if (!at.status)
			break;   /* upgraded, or no answer at all */
		delay = retry_next(&rt, at.status, at.retry_after, 0);
		if (delay < 0)
			break;
		log_at(6, "exec: server answered %ld, retrying in %ld ms",
		       at.status, delay);
		sleep_ms(delay);
	}
	free(path);
	/* Cancelled mid-way: whatever broke, the reason is the cancel. */
	if (cancel_why() && res->outcome != EXEC_SUCCESS &&
	    res->outcome != EXEC_EXIT_CODE)
		exec_set_msg(res, EXEC_ERROR, "not finished: %s", cancel_why());
	return res->outcome == EXEC_SUCCESS || res->outcome == EXEC_EXIT_CODE
		       ? 0 : -1;
}

void exec_result_release(struct exec_result *res)
{
	buf_release(&res->out);
	buf_release(&res->err);
}

const char *exec_outcome_name(enum exec_outcome o)
{
	switch (o) {
	case EXEC_SUCCESS:
		return "success";
	case EXEC_EXIT_CODE:
		return "exit-code";
	case EXEC_FAILED:
		return "failed";
	case EXEC_NO_STATUS:
		return "no-status";
	case EXEC_ERROR:
		return "error";
	case EXEC_TIMEOUT:
		return "timeout";
	}
	return "unknown";
}
