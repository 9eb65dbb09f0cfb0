/* Pod exec over WebSocket (exec.h), by hand on libcurl CONNECT_ONLY.
 *
 * libcurl 7.88 connects (proxy, TLS) and then only moves bytes: we write
 * the HTTP/1.1 upgrade request, read the head, and run RFC 6455 framing
 * (ws.h) and the Kubernetes channel protocol ourselves (exec-protocol.md
 * §3, §6-§8).  Every wait is a poll() bounded by the exec's deadline.
 * No globals: exec_run is called from many threads at once.
 */
#include "exec.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <openssl/crypto.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "../util/log.h"
#include "../util/xalloc.h"
#include "exec_head.h"
#include "impersonate.h"
#include "retry.h"
#include "ws.h"

#define USER_AGENT "kubectl-dynamo_interconnect/" PROG_VERSION " (linux/amd64)"
#define DEFAULT_TIMEOUT_MS 60000L
#define DEFAULT_MAX_OUTPUT (16u << 20)
#define HEAD_MAX (64u << 10)            /* response head, like client-go */
#define BODY_MAX (64u << 10)            /* error body read before giving up */
#define BODY_WAIT_MS 5000L              /* an error body is not worth more */
#define STATUS_MAX (1u << 20)
#define MESSAGE_MAX (16u << 20)         /* one reassembled WebSocket message */
#define RECV_CHUNK (16u << 10)          /* well under ws.h's feed slack */
#define PATH_MAX_BYTES (1u << 20)       /* Go servers refuse longer heads */

enum io { IO_OK, IO_EOF, IO_TIMEOUT, IO_ERROR };

/* Every wait polls in slices of at most this, then looks at the cancel
 * flag (http_cancelled), so Ctrl-C or --timeout ends an exec promptly. */
#define CANCEL_SLICE_MS 100

/* One connection attempt.  Owns h and scratch. */
struct conn {
	struct http_client *c;
	CURL *h;
	curl_socket_t sock;
	struct timespec start;
	long long deadline;      /* CLOCK_MONOTONIC, ms */
	long timeout_ms;
	const char *waiting_for; /* for the timeout message */
	const char *io_error;    /* static string from curl */
	char *scratch;           /* RECV_CHUNK bytes */
};

/* ---- small helpers ---- */

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static long remaining_ms(long long deadline)
{
	long long left = deadline - now_ms();

	return left < 0 ? 0 : left > 0x7fffffff ? 0x7fffffff : (long)left;
}

/* Sleeps in short slices so that a cancel (http_cancel) ends the wait. */
static void sleep_ms(long ms)
{
	while (ms > 0 && !http_cancelled()) {
		long n = ms < CANCEL_SLICE_MS ? ms : CANCEL_SLICE_MS;
		struct timespec ts = { 0, n * 1000000L };

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
		ms -= n;
	}
}

/* res->message is one line of printable text whatever the server sent. */
__attribute__((format(printf, 3, 4)))
static void set_msg(struct exec_result *res, enum exec_outcome o,
		    const char *fmt, ...)
{
	va_list ap;
	char *p;

	res->outcome = o;
	va_start(ap, fmt);
	vsnprintf(res->message, sizeof(res->message), fmt, ap);
	va_end(ap);
	for (p = res->message; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
}

static void set_timeout(struct exec_result *res, const struct conn *k)
{
	long ms = k->timeout_ms;

	if (ms % 1000)
		set_msg(res, EXEC_TIMEOUT, "timed out after %.1fs waiting for %s",
			ms / 1000.0, k->waiting_for);
	else
		set_msg(res, EXEC_TIMEOUT, "timed out after %lds waiting for %s",
			ms / 1000, k->waiting_for);
}

static const char *find_crlfcrlf(const char *p, size_t len, size_t from)
{
	size_t i;

	for (i = from; i + 4 <= len; i++)
		if (!memcmp(p + i, "\r\n\r\n", 4))
			return p + i;
	return NULL;
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

/* ---- I/O under the deadline ---- */

/* 1 when the socket is ready (or in error: the next call reports it). */
static int wait_socket(struct conn *k, short events, long long deadline)
{
	struct pollfd pfd = { k->sock, events, 0 };

	for (;;) {
		long left = remaining_ms(deadline);
		int rc;

		if (left <= 0)
			return 0;
		if (http_cancelled()) {
			k->io_error = http_cancelled();
			return -1;
		}
		rc = poll(&pfd, 1, (int)(left < CANCEL_SLICE_MS ? left : CANCEL_SLICE_MS));
		if (rc > 0)
			return 1;
		if (rc < 0 && errno != EINTR) {
			k->io_error = "poll failed";
			return -1;
		}
	}
}

/* Up to RECV_CHUNK bytes into k->scratch.  Recv before poll: TLS may hold
 * decrypted bytes that poll() cannot see. */
static enum io conn_recv(struct conn *k, long long deadline, size_t *n)
{
	for (;;) {
		CURLcode rc;
		int w;

		*n = 0;
		rc = curl_easy_recv(k->h, k->scratch, RECV_CHUNK, n);
		if (rc == CURLE_OK)
			return *n ? IO_OK : IO_EOF;
		if (rc != CURLE_AGAIN) {
			k->io_error = curl_easy_strerror(rc);
			return IO_ERROR;
		}
		w = wait_socket(k, POLLIN, deadline);
		if (w <= 0)
			return w ? IO_ERROR : IO_TIMEOUT;
	}
}

static enum io conn_send(struct conn *k, const void *p, size_t len)
{
	const char *s = p;

	while (len) {
		size_t n = 0;
		CURLcode rc = curl_easy_send(k->h, s, len, &n);
		int w;

		if (rc == CURLE_OK) {
			s += n;
			len -= n;
			continue;
		}
		if (rc != CURLE_AGAIN) {
			k->io_error = curl_easy_strerror(rc);
			return IO_ERROR;
		}
		w = wait_socket(k, POLLOUT, k->deadline);
		if (w <= 0)
			return w ? IO_ERROR : IO_TIMEOUT;
	}
	return IO_OK;
}

static enum io send_frame(struct conn *k, enum ws_opcode op,
			  const void *payload, size_t len)
{
	struct buf f = BUF_INIT(len + 16);   /* payload + the longest header */
	enum io rc = IO_ERROR;

	if (ws_encode(&f, op, payload, len, NULL) == 0)
		rc = conn_send(k, f.data, f.len);
	buf_release(&f);
	return rc;
}

/* Best effort: the peer may already be gone. */
static void send_close(struct conn *k, int code)
{
	unsigned char p[2] = { (unsigned char)(code >> 8), (unsigned char)code };
	int sendable = code >= 1000 && code <= 4999 && code != 1005 &&
		       code != 1006 && code != 1015;

	send_frame(k, WS_CLOSE, p, sendable ? 2 : 0);
}

/* ---- the response head ---- */

/* Reads until the blank line; bytes after it stay in head past *head_len. */
static int read_head(struct conn *k, struct buf *head, size_t *head_len,
		     struct exec_result *res)
{
	for (;;) {
		size_t from = head->len > 3 ? head->len - 3 : 0, n;
		enum io io = conn_recv(k, k->deadline, &n);
		const char *end;

		if (io == IO_TIMEOUT) {
			set_timeout(res, k);
			return -1;
		}
		if (io != IO_OK) {
			set_msg(res, EXEC_ERROR, "connection closed before the "
				"upgrade response: %s", io == IO_EOF ?
				"end of stream" : k->io_error);
			return -1;
		}
		if (buf_append(head, k->scratch, n) < 0) {
			set_msg(res, EXEC_ERROR, "upgrade response head is "
				"larger than %u KiB", HEAD_MAX >> 10);
			return -1;
		}
		end = find_crlfcrlf(head->data, head->len, from);
		if (end && (size_t)(end - head->data) + 4 <= HEAD_MAX) {
			*head_len = (size_t)(end - head->data) + 4;
			return 0;
		}
		if (head->len > HEAD_MAX) {
			set_msg(res, EXEC_ERROR, "upgrade response head is "
				"larger than %u KiB", HEAD_MAX >> 10);
			return -1;
		}
	}
}

static void log_response_head(const char *head, size_t len)
{
	struct exec_hdr_iter it;
	const char *n, *v;
	size_t nl, vl;

	if (!log_enabled(7))
		return;
	log_at(7, "Response Headers:");
	exec_hdr_start(&it, head, len);
	while (exec_hdr_next(&it, &n, &nl, &v, &vl)) {
		char *name = xstrndup(n, nl), *val = xstrndup(v, vl);
		log_header(name, val);
		free(name);
		free(val);
	}
}

/* ---- non-101: the error body ---- */

/* Decodes a chunked body.  1 complete, 0 incomplete, -1 malformed. */
static int dechunk(const char *p, size_t len, struct buf *out)
{
	size_t pos = 0;

	buf_reset(out);
	for (;;) {
		const char *crlf = memchr(p + pos, '\n', len - pos);
		unsigned long long size = 0;
		size_t i = pos;

		if (!crlf)
			return 0;
		for (; p + i < crlf && p[i] != ';' && p[i] != '\r'; i++) {
			int d = p[i] >= '0' && p[i] <= '9' ? p[i] - '0' :
				p[i] >= 'a' && p[i] <= 'f' ? p[i] - 'a' + 10 :
				p[i] >= 'A' && p[i] <= 'F' ? p[i] - 'A' + 10 : -1;
			if (d < 0 || size > (1ull << 40))
				return -1;
			size = size * 16 + (unsigned)d;
		}
		if (i == pos)
			return -1;
		pos = (size_t)(crlf - p) + 1;
		if (size == 0)
			return 1;
		if (len - pos < size + 2)
			return 0;
		if (buf_append(out, p + pos, (size_t)size) < 0)
			return 1;   /* capped: what we have is enough */
		pos += (size_t)size + 2;
	}
}

enum body_kind { BODY_NONE, BODY_LENGTH, BODY_CHUNKED, BODY_EOF };

static enum body_kind body_kind(const char *head, size_t len, long status,
				size_t *clen)
{
	const char *v;
	size_t vl;

	if (status == 204 || status == 304 || status < 200)
		return BODY_NONE;
	if (exec_hdr_get(head, len, "Transfer-Encoding", &v, &vl) &&
	    exec_has_token(v, vl, "chunked"))
		return BODY_CHUNKED;
	if (exec_hdr_get(head, len, "Content-Length", &v, &vl)) {
		char tmp[24];
		if (vl == 0 || vl >= sizeof(tmp))
			return BODY_EOF;
		memcpy(tmp, v, vl);
		tmp[vl] = '\0';
		*clen = (size_t)strtoull(tmp, NULL, 10);
		return BODY_LENGTH;
	}
	return BODY_EOF;
}

/* Whether raw already holds the whole body; the decoded body goes to out. */
static int body_done(enum body_kind kind, size_t clen, const struct buf *raw,
		     struct buf *out)
{
	int rc;

	switch (kind) {
	case BODY_NONE:
		return 1;
	case BODY_LENGTH:
		return raw->len >= clen || raw->len >= BODY_MAX;
	case BODY_CHUNKED:
		rc = dechunk(buf_str(raw), raw->len, out);
		return rc != 0 || raw->len >= BODY_MAX;
	default:
		return raw->len >= BODY_MAX;
	}
}

/* Reads the error body (bounded in size and time) after the head. */
static void read_body(struct conn *k, const char *head, size_t head_len,
		      long status, struct buf *raw, struct buf *out)
{
	long long deadline = now_ms() + BODY_WAIT_MS;
	size_t clen = 0, n;
	enum body_kind kind = body_kind(head, head_len, status, &clen);

	if (deadline > k->deadline)
		deadline = k->deadline;
	while (!body_done(kind, clen, raw, out)) {
		if (conn_recv(k, deadline, &n) != IO_OK)
			break;
		if (buf_append(raw, k->scratch, n) < 0)
			break;
	}
	if (kind == BODY_CHUNKED)
		return;
	buf_reset(out);
	buf_append(out, buf_str(raw),
		   kind == BODY_LENGTH && raw->len > clen ? clen : raw->len);
}

/* ---- the stream ---- */

struct session {
	struct conn *k;
	struct exec_result *res;
	struct ws_reader rd;
	struct buf status;      /* channel 3, concatenated */
	int got_close;
	int close_code;
	int failed;             /* res already says why */
};

static void capped_append(struct buf *b, const uint8_t *p, size_t n,
			  int *truncated)
{
	size_t room = b->max - b->len;

	if (n > room) {
		n = room;
		*truncated = 1;
	}
	if (n)
		buf_append(b, p, n);
}

static void demux(struct session *s, const uint8_t *p, size_t len)
{
	if (len == 0)
		return;        /* no channel byte: nothing to route */
	switch (p[0]) {
	case 1:
		capped_append(&s->res->out, p + 1, len - 1, &s->res->truncated);
		break;
	case 2:
		capped_append(&s->res->err, p + 1, len - 1, &s->res->truncated);
		break;
	case 3:
		/* On overflow the buffer marks itself; finish() reports it. */
		buf_append(&s->status, p + 1, len - 1);
		break;
	default:
		log_at(8, "exec: dropping a message on channel %u", p[0]);
		break;
	}
}

static void protocol_error(struct session *s, int code, const char *why)
{
	send_close(s->k, code);
	s->failed = 1;
	set_msg(s->res, EXEC_ERROR, "websocket protocol error: %s", why);
}

/* Handles the events parsed so far.  1 when the stream is over. */
static int drain(struct session *s)
{
	struct ws_event ev;

	for (;;) {
		ws_reader_next(&s->rd, &ev);
		switch (ev.kind) {
		case WS_EV_NONE:
			return 0;
		case WS_EV_MESSAGE:
			/* Binary only: we offer no base64 protocol (§3). */
			if (ev.opcode != WS_BINARY) {
				protocol_error(s, 1003, "unexpected text message");
				return 1;
			}
			demux(s, ev.data, ev.len);
			break;
		case WS_EV_PING:
			send_frame(s->k, WS_PONG, ev.data, ev.len);
			break;
		case WS_EV_PONG:
			break;   /* we never ping, but a pong is harmless */
		case WS_EV_CLOSE:
			s->got_close = 1;
			s->close_code = ev.close_code;
			send_close(s->k, ev.close_code);
			return 1;
		case WS_EV_ERROR:
			protocol_error(s, ev.close_code, ev.error);
			return 1;
		}
	}
}

/* client-go's v5 WebSocket executor pings every 5 s (websocket.go
 * pingPeriod) so that idle-timeout load balancers (AWS ELB: 60 s) keep a
 * silent command's connection; the servers answer with a Pong. */
#define PING_PERIOD_MS 5000LL

/* Reads until Close, EOF, a violation or the deadline; on v5 a Ping goes
 * out whenever nothing has arrived for PING_PERIOD_MS. */
static enum io pump(struct session *s)
{
	int ping = s->res->protocol == 5;
	long long next_ping = now_ms() + PING_PERIOD_MS;

	for (;;) {
		long long until = s->k->deadline;
		size_t n;
		enum io io;

		if (drain(s))
			return IO_OK;
		if (ping && next_ping < until)
			until = next_ping;
		io = conn_recv(s->k, until, &n);
		if (io == IO_TIMEOUT && until < s->k->deadline) {
			static const uint8_t empty[1];

			if (send_frame(s->k, WS_PING, empty, 0) != IO_OK)
				return IO_ERROR;
			next_ping = now_ms() + PING_PERIOD_MS;
			continue;
		}
		if (io != IO_OK)
			return io;
		next_ping = now_ms() + PING_PERIOD_MS;
		/* A failed feed leaves the reader failed: drain reports it. */
		ws_reader_feed(&s->rd, s->k->scratch, n);
	}
}

/* Like Go's json.Unmarshal: trailing bytes are an error.  cJSON checks
 * for them only when the NUL is inside the length it is given. */
static cJSON *parse_json(const char *p, size_t len)
{
	char *tmp = xmalloc(len + 1);
	cJSON *j;

	if (len)
		memcpy(tmp, p, len);
	tmp[len] = '\0';
	j = cJSON_ParseWithLengthOpts(tmp, len + 1, NULL, 1);
	free(tmp);
	return j;
}

static int status_parses(const struct buf *b)
{
	cJSON *j = b->len ? parse_json(b->data, b->len) : NULL;

	cJSON_Delete(j);
	return j != NULL;
}

static void finish(struct session *s, enum io io)
{
	struct exec_result *res = s->res;

	if (s->failed)
		return;
	if (s->status.overflowed) {
		set_msg(res, EXEC_ERROR, "error stream protocol error: status "
			"larger than %u KiB", STATUS_MAX >> 10);
		return;
	}
	/* The status is the server's last word; if it is whole, a missing
	 * Close or a late hang does not change what the command did. */
	if (s->status.len && (io != IO_TIMEOUT || status_parses(&s->status))) {
		exec_decode_status(s->status.data, s->status.len, res);
		return;
	}
	if (io == IO_TIMEOUT)
		set_timeout(res, s->k);
	else if (io == IO_ERROR)
		set_msg(res, EXEC_ERROR, "connection to the server failed before "
			"the exec status arrived: %s", s->k->io_error);
	else if (!s->got_close)
		set_msg(res, EXEC_ERROR, "connection closed before the exec status "
			"arrived (no WebSocket Close)");
	else if (s->close_code == 1000 || s->close_code == 1005)
		set_msg(res, EXEC_NO_STATUS, "stream ended without an exec status");
	else
		set_msg(res, EXEC_ERROR, "connection closed by the server with "
			"code %d before the exec status arrived", s->close_code);
}

/* Stdin as channel-0 messages of at most STDIN_CHUNK bytes (the size
 * client-go's stdin copy and the kubelet's frames use), then on v5 the
 * CLOSE signal [255, 0] (exec-protocol.md §3).  The server reads while we
 * write, so a send blocks at most until the deadline. */
#define STDIN_CHUNK (32u << 10)
static enum io send_stdin(struct conn *k, const char *p, size_t len,
			  int protocol)
{
	static const uint8_t close_stdin[2] = { 255, 0 };
	uint8_t *msg = xmalloc(STDIN_CHUNK + 1);
	enum io io = IO_OK;

	while (io == IO_OK && len) {
		size_t n = len < STDIN_CHUNK ? len : STDIN_CHUNK;

		msg[0] = 0;
		memcpy(msg + 1, p, n);
		io = send_frame(k, WS_BINARY, msg, n + 1);
		p += n;
		len -= n;
	}
	free(msg);
	if (io == IO_OK && protocol == 5)
		io = send_frame(k, WS_BINARY, close_stdin, sizeof(close_stdin));
	return io;
}

/* No message may be reassembled far past what the output cap keeps (a
 * 16 MiB message against a 4 MiB cap was held whole before, issue 12),
 * but a message of ordinary size is always taken: the kubelet sends up to
 * 32 KiB per message, so a small cap (di_exec --max-output 1000) truncates
 * the output instead of failing the stream. */
#define MESSAGE_FLOOR ((size_t)1 << 20)
static size_t message_cap(size_t max_output)
{
	size_t cap = max_output + 1 < MESSAGE_FLOOR ? MESSAGE_FLOOR : max_output + 1;

	return cap < MESSAGE_MAX ? cap : MESSAGE_MAX;
}

static void run_stream(struct conn *k, const char *early, size_t n,
		       const struct exec_request *rq, struct exec_result *res)
{
	struct session s;
	enum io io;

	memset(&s, 0, sizeof(s));
	s.k = k;
	s.res = res;
	buf_init(&s.status, STATUS_MAX);
	ws_reader_init(&s.rd, message_cap(res->out.max));
	k->waiting_for = "the command to finish";
	if (n)
		ws_reader_feed(&s.rd, early, n);
	io = rq->stdin_data ? send_stdin(k, rq->stdin_data, rq->stdin_len,
					 res->protocol) : IO_OK;
	if (io == IO_OK)
		io = pump(&s);
	else if (io == IO_ERROR)
		/* the server may have answered and closed: read what it said */
		io = pump(&s);
	finish(&s, io);
	ws_reader_release(&s.rd);
	buf_release(&s.status);
}

/* ---- one attempt ---- */

/* What the caller needs to decide on a retry. */
struct attempt {
	long status;           /* non-101 answer, 0 otherwise */
	unsigned gen;          /* credentials used */
	char retry_after[32];
};

static int conn_open(struct conn *k, const char *path, struct exec_result *res)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct err e;
	CURLcode rc;

	err_clear(&e);
	k->h = http_easy_new(k->c, path, &e);
	if (!k->h) {
		set_msg(res, EXEC_ERROR, "%s", e.msg);
		return -1;
	}
	curl_easy_setopt(k->h, CURLOPT_CONNECT_ONLY, 1L);
	/* Never h2: an Upgrade cannot ride an HTTP/2 connection (§7). */
	curl_easy_setopt(k->h, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
	/* Plain http through a proxy must tunnel, or the proxy reads our bytes. */
	curl_easy_setopt(k->h, CURLOPT_HTTPPROXYTUNNEL, 1L);
	curl_easy_setopt(k->h, CURLOPT_TIMEOUT_MS, remaining_ms(k->deadline) + 1);
	curl_easy_setopt(k->h, CURLOPT_ERRORBUFFER, errbuf);
	k->waiting_for = "the connection to the server";
	rc = curl_easy_perform(k->h);
	curl_easy_setopt(k->h, CURLOPT_ERRORBUFFER, NULL);
	if (rc == CURLE_OPERATION_TIMEDOUT && remaining_ms(k->deadline) <= 0) {
		set_timeout(res, k);
		return -1;
	}
	if (rc != CURLE_OK) {
		http_curl_error(k->c, k->h, rc, errbuf, &e);
		set_msg(res, EXEC_ERROR, "%s", e.msg);
		return -1;
	}
	if (curl_easy_getinfo(k->h, CURLINFO_ACTIVESOCKET, &k->sock) != CURLE_OK ||
	    k->sock == CURL_SOCKET_BAD) {
		set_msg(res, EXEC_ERROR, "no socket after connecting");
		return -1;
	}
	return 0;
}

/* Frees the handle (and what http_easy_new attached) and the scratch. */
static void conn_close(struct conn *k)
{
	http_easy_free(k->h);
	free(k->scratch);
}

static int send_request(struct conn *k, const char *path, const char *key,
			struct attempt *at, struct exec_result *res)
{
	struct buf req = BUF_INIT(PATH_MAX_BYTES + (64u << 10));
	enum io io;

	log_at(6, "GET %s%s", http_client_log_base(k->c), path);
	log_at(7, "Request Headers:");
	if (build_request(k, path, key, &at->gen, &req) < 0) {
		set_msg(res, EXEC_ERROR, "exec request is too large");
		return -1;
	}
	k->waiting_for = "the upgrade response";
	io = conn_send(k, req.data, req.len);
	OPENSSL_cleanse(req.data, req.len);
	buf_release(&req);
	if (io == IO_TIMEOUT)
		set_timeout(res, k);
	else if (io != IO_OK)
		set_msg(res, EXEC_ERROR, "sending the exec request: %s",
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
	log_response_head(head, len);
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
	read_body(k, head->data, head_len, at->status, &raw, &body);
	log_body("Response Body", buf_str(&body), body.len);
	if (exec_hdr_get(head->data, head_len, "Retry-After", &v, &vl) &&
	    vl < sizeof(at->retry_after)) {
		memcpy(at->retry_after, v, vl);
		at->retry_after[vl] = '\0';
	}
	err_clear(&e);
	http_status_error(at->status, buf_str(&body), body.len, &e);
	set_msg(res, EXEC_ERROR, "%s", e.msg);
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
		set_msg(res, EXEC_ERROR, "unable to upgrade streaming request: %s",
			why);
		return;
	}
	run_stream(k, head->data + head_len, head->len - head_len, rq, res);
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
		set_msg(res, EXEC_ERROR, "cannot generate a WebSocket key");
	} else if (conn_open(&k, path, res) == 0 &&
		   send_request(&k, path, key, at, res) == 0 &&
		   read_head(&k, &head, &head_len, res) == 0) {
		res->http_status = exec_head_status(head.data, head_len);
		log_status(&k, path, head.data, head_len);
		if (res->http_status < 0) {
			res->http_status = 0;
			set_msg(res, EXEC_ERROR, "malformed HTTP status line in "
				"the upgrade response");
		} else if (res->http_status != 101) {
			at->status = res->http_status;
			upgrade_failed(&k, &head, head_len, at, res);
		} else {
			upgraded(&k, &head, head_len, key, rq, res);
		}
	}
	buf_release(&head);
	conn_close(&k);
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
	long long deadline = now_ms() + timeout_ms;
	char *path = rq->namespace && rq->pod ? exec_path(rq) : NULL;
	struct retry rt;
	int reauthed = 0;

	result_init(res, rq->max_output ? rq->max_output : DEFAULT_MAX_OUTPUT);
	if (!rq->namespace || !rq->pod || !rq->argv || !rq->argv[0]) {
		free(path);
		set_msg(res, EXEC_ERROR, "exec needs a namespace, a pod and a command");
		return -1;
	}
	if (!path) {
		set_msg(res, EXEC_ERROR, "exec command line is too long");
		return -1;
	}
	/* Only answers before the 101 are retried: after it the command may
	 * have run (retry.h). */
	retry_init(&rt, remaining_ms(deadline));
	for (;;) {
		struct attempt at;
		long delay;

		attempt_once(c, path, rq, deadline, timeout_ms, &at, res);
		if (http_cancelled())
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
	if (http_cancelled() && res->outcome != EXEC_SUCCESS &&
	    res->outcome != EXEC_EXIT_CODE)
		set_msg(res, EXEC_ERROR, "not finished: %s", http_cancelled());
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

/* ---- the status channel ---- */

static const char *json_str(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* strconv.ParseUint(s, 10, 8): digits only, 0..255. */
static int parse_exit_code(const char *s)
{
	int v = 0;

	if (!s || !*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
		if (v > 255)
			return -1;
	}
	return v;
}

static void decode_exit(const cJSON *j, struct exec_result *res)
{
	const cJSON *details = cJSON_GetObjectItemCaseSensitive(j, "details");
	const cJSON *causes = cJSON_GetObjectItemCaseSensitive(details, "causes");
	const cJSON *list = cJSON_IsArray(causes) ? causes : NULL;
	const cJSON *cause;

	if (!cJSON_IsObject(details)) {
		set_msg(res, EXEC_ERROR, "error stream protocol error: details "
			"must be set");
		return;
	}
	cJSON_ArrayForEach(cause, list) {
		const char *reason = json_str(cause, "reason");
		const char *msg = json_str(cause, "message");
		int code;

		if (!reason || strcmp(reason, "ExitCode"))
			continue;
		code = parse_exit_code(msg);
		if (code < 0) {
			set_msg(res, EXEC_ERROR, "error stream protocol error: "
				"invalid exit code value \"%.64s\"", msg ? msg : "");
			return;
		}
		res->exit_code = code;
		set_msg(res, EXEC_EXIT_CODE, "command terminated with exit code %d",
			code);
		return;
	}
	set_msg(res, EXEC_ERROR, "error stream protocol error: no ExitCode "
		"cause given");
}

void exec_decode_status(const char *json, size_t len, struct exec_result *res)
{
	cJSON *j = parse_json(json, len);
	const char *status = json_str(j, "status");

	res->exit_code = -1;
	if (!cJSON_IsObject(j)) {
		set_msg(res, EXEC_ERROR, "error stream protocol error: invalid "
			"JSON in \"%.200s\"", len ? json : "");
	} else if (status && !strcmp(status, "Success")) {
		res->exit_code = 0;
		set_msg(res, EXEC_SUCCESS, "%s", "");
	} else if (status && !strcmp(status, "Failure")) {
		const char *reason = json_str(j, "reason");
		const char *msg = json_str(j, "message");
		if (reason && !strcmp(reason, "NonZeroExitCode"))
			decode_exit(j, res);
		else
			set_msg(res, EXEC_FAILED, "%s", msg && *msg ? msg :
				"the server could not run the command");
	} else {
		set_msg(res, EXEC_ERROR, "error stream protocol error: unknown "
			"error");
	}
	cJSON_Delete(j);
}
