/* The exec client's socket loop (exec_int.h): a CONNECT_ONLY connection,
 * bytes in and out under the deadline and the cancel flag, WebSocket
 * frames, and reading the answer's head and error body. */
#include "exec_int.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/xalloc.h"
#include "exec_head.h"
#include "kube/tls/tlspolicy.h"

long long exec_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

long exec_remaining_ms(long long deadline)
{
	long long left = deadline - exec_now_ms();

	return left < 0 ? 0 : left > 0x7fffffff ? 0x7fffffff : (long)left;
}

/* res->message is one line of printable text whatever the server sent. */
__attribute__((format(printf, 3, 4)))
void exec_set_msg(struct exec_result *res, enum exec_outcome o,
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

void exec_set_timeout(struct exec_result *res, const struct conn *k)
{
	long ms = k->timeout_ms;

	if (ms % 1000)
		exec_set_msg(res, EXEC_TIMEOUT, "timed out after %.1fs waiting for %s",
			ms / 1000.0, k->waiting_for);
	else
		exec_set_msg(res, EXEC_TIMEOUT, "timed out after %lds waiting for %s",
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

/* ---- I/O under the deadline ---- */

/* 1 when the socket is ready (or in error: the next call reports it). */
static int wait_socket(struct conn *k, short events, long long deadline)
{
	struct pollfd pfd = { k->sock, events, 0 };

	for (;;) {
		long left = exec_remaining_ms(deadline);
		int rc;

		if (left <= 0)
			return 0;
		if (cancel_why()) {
			k->io_error = cancel_why();
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

/* Waits as our TLS asks (a read may need a write and back); 1 to go on. */
static int wait_tls(struct conn *k, enum tls_io r, long long deadline, enum io *io)
{
	int w;

	if (r == TLS_EOF || r == TLS_ERROR) {
		k->io_error = tlsconn_error(k->tls);
		*io = r == TLS_EOF ? IO_EOF : IO_ERROR;
		return 0;
	}
	w = wait_socket(k, r == TLS_WANT_WRITE ? POLLOUT : POLLIN, deadline);
	if (w <= 0)
		*io = w ? IO_ERROR : IO_TIMEOUT;
	return w > 0;
}

static enum io tls_recv(struct conn *k, long long deadline, size_t *n)
{
	enum io io = IO_ERROR;
	enum tls_io r;

	while ((r = tlsconn_read(k->tls, k->scratch, RECV_CHUNK, n)) != TLS_OK)
		if (!wait_tls(k, r, deadline, &io))
			return io;
	return IO_OK;
}

static enum io tls_send(struct conn *k, const char *s, size_t len)
{
	enum io io = IO_ERROR;

	while (len) {
		size_t n = 0;
		enum tls_io r = tlsconn_write(k->tls, s, len, &n);

		if (r == TLS_OK) {
			s += n;
			len -= n;
		} else if (!wait_tls(k, r, k->deadline, &io)) {
			return io;
		}
	}
	return IO_OK;
}

/* Up to RECV_CHUNK bytes into k->scratch.  Recv before poll: TLS may hold
 * decrypted bytes that poll() cannot see. */
enum io exec_conn_recv(struct conn *k, long long deadline, size_t *n)
{
	if (k->tls)
		return tls_recv(k, deadline, n);
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

enum io exec_conn_send(struct conn *k, const void *p, size_t len)
{
	const char *s = p;

	if (k->tls)
		return tls_send(k, s, len);
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

enum io exec_send_frame(struct conn *k, enum ws_opcode op, const void *pre,
			size_t npre, const void *payload, size_t len)
{
	struct buf f = BUF_INIT(npre + len + 16);   /* payload + the longest header */
	enum io rc = IO_ERROR;

	if (ws_encode_parts(&f, op, pre, npre, payload, len, NULL) == 0)
		rc = exec_conn_send(k, f.data, f.len);
	buf_release(&f);
	return rc;
}

/* Best effort: the peer may already be gone. */
void exec_send_close(struct conn *k, int code)
{
	unsigned char p[2] = { (unsigned char)(code >> 8), (unsigned char)code };
	int sendable = code >= 1000 && code <= 4999 && code != 1005 &&
		       code != 1006 && code != 1015;

	exec_send_frame(k, WS_CLOSE, NULL, 0, p, sendable ? 2 : 0);
}

/* ---- the response head ---- */

/* Reads until the blank line; bytes after it stay in head past *head_len. */
static int read_head(struct conn *k, struct buf *head, size_t *head_len,
		     struct exec_result *res);

/* By the head, a TLS 1.3 server's tickets (sent right after its Finished)
 * have been read, and a TLS 1.2 session was cached in the handshake. */
int exec_read_head(struct conn *k, struct buf *head, size_t *head_len,
		     struct exec_result *res)
{
	int rc = read_head(k, head, head_len, res);

	if (k->primer)
		tlsctx_primed(k->tlsx), k->primer = 0;
	return rc;
}

static int read_head(struct conn *k, struct buf *head, size_t *head_len,
		     struct exec_result *res)
{
	for (;;) {
		size_t from = head->len > 3 ? head->len - 3 : 0, n;
		enum io io = exec_conn_recv(k, k->deadline, &n);
		const char *end;

		if (io == IO_TIMEOUT) {
			exec_set_timeout(res, k);
			return -1;
		}
		if (io != IO_OK) {
			exec_set_msg(res, EXEC_ERROR, "connection closed before the "
				"upgrade response: %s", io == IO_EOF ?
				"end of stream" : k->io_error);
			return -1;
		}
		if (buf_append(head, k->scratch, n) < 0) {
			exec_set_msg(res, EXEC_ERROR, "upgrade response head is "
				"larger than %u KiB", HEAD_MAX >> 10);
			return -1;
		}
		end = find_crlfcrlf(head->data, head->len, from);
		if (end && (size_t)(end - head->data) + 4 <= HEAD_MAX) {
			*head_len = (size_t)(end - head->data) + 4;
			return 0;
		}
		if (head->len > HEAD_MAX) {
			exec_set_msg(res, EXEC_ERROR, "upgrade response head is "
				"larger than %u KiB", HEAD_MAX >> 10);
			return -1;
		}
	}
}

void exec_log_head(const char *head, size_t len)
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

/* Reads the error body (bounded in size and time) after the head. */
void exec_read_body(struct conn *k, const char *head, size_t head_len,
		      long status, struct buf *raw, struct buf *out)
{
	long long deadline = exec_now_ms() + BODY_WAIT_MS;
	size_t clen = 0, n;
	enum body_kind kind = exec_body_kind(head, head_len, status, &clen);

	if (deadline > k->deadline)
		deadline = k->deadline;
	while (!exec_body_done(kind, clen, raw, out)) {
		if (exec_conn_recv(k, deadline, &n) != IO_OK)
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

/* ---- connecting ---- */

/* Waits for the primer (tlsconn.h), at most TLSCTX_PRIME_WAIT_MS; 0 to go
 * on, -1 with res set when the deadline or a cancel came first. */
static int wait_turn(struct conn *k, struct exec_result *res)
{
	long long t0 = exec_now_ms();

	while (!tlsctx_turn(k->tlsx, CANCEL_SLICE_MS, (long)(exec_now_ms() - t0),
			    &k->primer)) {
		if (cancel_why()) {
			exec_set_msg(res, EXEC_ERROR, "%s", cancel_why());
			return -1;
		}
		if (exec_remaining_ms(k->deadline) <= 0) {
			exec_set_timeout(res, k);
			return -1;
		}
	}
	return 0;
}

/* The server's TLS over curl's connection, under the deadline.  Errors as
 * http_curl_error words curl's (http_status.c). */
static int tls_handshake(struct conn *k, int via_curl, struct exec_result *res)
{
	enum tls_io r;
	enum io io = IO_ERROR;
	long long hs_deadline;

	k->waiting_for = "the TLS handshake";
	if (wait_turn(k, res) < 0)
		return -1;
	k->tls = tlsconn_new(k->tlsx, via_curl ? -1 : (int)k->sock, k->h);
	if (!k->tls) {
		exec_set_msg(res, EXEC_ERROR, "Unable to connect to the server: "
			"cannot start TLS");
		return -1;
	}
	/* As long as curl gave the whole connection phase, TLS included. */
	hs_deadline = exec_now_ms() + http_connect_timeout_ms(k->c);
	if (hs_deadline > k->deadline)
		hs_deadline = k->deadline;
	while ((r = tlsconn_handshake(k->tls)) != TLS_OK) {
		if (wait_tls(k, r == TLS_EOF ? TLS_ERROR : r, hs_deadline, &io))
			continue;
		if (io == IO_TIMEOUT && exec_remaining_ms(k->deadline) <= 0)
			exec_set_timeout(res, k);
		else if (io == IO_TIMEOUT)
			/* kubectl's words (Go net/http transport.go,
			 * TLSHandshakeTimeout, which client-go sets). */
			exec_set_msg(res, EXEC_ERROR, "Unable to connect to the server: "
				"net/http: TLS handshake timeout");
		else if (tlsconn_verify_failed(k->tls))
			exec_set_msg(res, EXEC_ERROR, "Unable to connect to the server: "
				"tls: failed to verify certificate: %s", tlsconn_error(k->tls));
		else if (cancel_why())
			exec_set_msg(res, EXEC_ERROR, "%s", cancel_why());
		else
			exec_set_msg(res, EXEC_ERROR, "Unable to connect to the server: %s",
				k->io_error ? k->io_error : tlsconn_error(k->tls));
		return -1;
	}
	return 0;
}

int exec_conn_open(struct conn *k, const char *path, struct exec_result *res)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct err e;
	CURLcode rc;
	int via_curl = 0;

	(void)path;   /* curl only connects: the request line is ours */
	err_clear(&e);
	k->h = http_exec_easy_new(k->c, &k->tlsx, &via_curl, &e);
	if (!k->h) {
		exec_set_msg(res, EXEC_ERROR, "%s", e.msg);
		return -1;
	}
	curl_easy_setopt(k->h, CURLOPT_CONNECT_ONLY, 1L);
	/* Never h2: an Upgrade cannot ride an HTTP/2 connection (§7). */
	curl_easy_setopt(k->h, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
	/* Plain http through a proxy must tunnel, or the proxy reads our bytes. */
	curl_easy_setopt(k->h, CURLOPT_HTTPPROXYTUNNEL, 1L);
	curl_easy_setopt(k->h, CURLOPT_TIMEOUT_MS, exec_remaining_ms(k->deadline) + 1);
	curl_easy_setopt(k->h, CURLOPT_ERRORBUFFER, errbuf);
	k->waiting_for = "the connection to the server";
	tlspolicy_begin();   /* an HTTPS proxy's TLS is worded by the policy */
	rc = curl_easy_perform(k->h);
	curl_easy_setopt(k->h, CURLOPT_ERRORBUFFER, NULL);
	if (rc == CURLE_OPERATION_TIMEDOUT && exec_remaining_ms(k->deadline) <= 0) {
		exec_set_timeout(res, k);
		return -1;
	}
	if (rc != CURLE_OK) {
		http_curl_error(k->c, k->h, rc, errbuf, &e);
		exec_set_msg(res, EXEC_ERROR, "%s", e.msg);
		return -1;
	}
	if (curl_easy_getinfo(k->h, CURLINFO_ACTIVESOCKET, &k->sock) != CURLE_OK ||
	    k->sock == CURL_SOCKET_BAD) {
		exec_set_msg(res, EXEC_ERROR, "no socket after connecting");
		return -1;
	}
	return k->tlsx ? tls_handshake(k, via_curl, res) : 0;
}

/* Frees our TLS, then the handle (curl closes the socket), the scratch. */
void exec_conn_close(struct conn *k)
{
	if (k->primer)
		tlsctx_primed(k->tlsx);
	tlsconn_free(k->tls);
	tlsctx_unref(k->tlsx);
	http_easy_free(k->h);
	free(k->scratch);
}
