/* Inside the exec client (exec.h): what its files share.
 *   exec.c         the request, one attempt, retries, the public calls
 *   exec_conn.c    the socket loop: connect, send and receive under the
 *                  deadline and the cancel flag, WebSocket frames, reading
 *                  the response head and an error body
 *   exec_head.c    the HTTP/1.1 head as bytes (pure): status line, fields,
 *                  the 101 checks, the error body's framing
 *   exec_stream.c  the channel layer: frames to stdout/stderr/status,
 *                  pings, stdin, the status channel's verdict
 * Not for use outside src/kube/exec*.c. */
#ifndef KUBE_EXEC_INT_H
#define KUBE_EXEC_INT_H

#include <time.h>

#include "util/buf.h"
#include "model/cancel.h"
#include "exec.h"
#include "kube/tls/tlsconn.h"
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
 * flag (cancel_why), so Ctrl-C or --timeout ends an exec promptly. */
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
	const char *io_error;    /* static string from curl, or tlsconn_error(tls) */
	char *scratch;           /* RECV_CHUNK bytes */
	struct tlsctx *tlsx;     /* https: the shared context (a reference) */
	struct tlsconn *tls;     /* https: our TLS over curl's connection */
	int primer;              /* this connection primes tlsx's session cache */
};

/* CLOCK_MONOTONIC in ms; what is left of deadline, clamped to an int. */
long long exec_now_ms(void);
long exec_remaining_ms(long long deadline);
/* res->message is one line of printable text whatever the server sent. */
void exec_set_msg(struct exec_result *res, enum exec_outcome o, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "timed out after 5s waiting for <k->waiting_for>". */
void exec_set_timeout(struct exec_result *res, const struct conn *k);

/* exec_conn.c.  Every wait is a poll() of at most CANCEL_SLICE_MS. */
int exec_conn_open(struct conn *k, const char *path, struct exec_result *res);
void exec_conn_close(struct conn *k);
/* Up to RECV_CHUNK bytes into k->scratch, waiting until deadline. */
enum io exec_conn_recv(struct conn *k, long long deadline, size_t *n);
enum io exec_conn_send(struct conn *k, const void *p, size_t len);
/* One frame whose payload is pre (npre bytes, NULL when 0) then payload
 * (ws_encode_parts): stdin's channel byte is not copied to its chunk. */
enum io exec_send_frame(struct conn *k, enum ws_opcode op, const void *pre,
			size_t npre, const void *payload, size_t len);
void exec_send_close(struct conn *k, int code);
/* Reads until the blank line; bytes after it stay in head past *head_len.
 * Then lets other connections resume this one's TLS session. */
int exec_read_head(struct conn *k, struct buf *head, size_t *head_len, struct exec_result *res);
/* The error body of a non-101 answer, bounded in size and time: raw holds
 * what came after the head on entry; the decoded body goes to out. */
void exec_read_body(struct conn *k, const char *head, size_t head_len,
		    long status, struct buf *raw, struct buf *out);
/* The response head at -v7. */
void exec_log_head(const char *head, size_t len);

/* exec_head.c: how the error body is framed, and whether raw holds it all. */
enum body_kind { BODY_NONE, BODY_LENGTH, BODY_CHUNKED, BODY_EOF };
enum body_kind exec_body_kind(const char *head, size_t len, long status, size_t *clen);
int exec_body_done(enum body_kind kind, size_t clen, const struct buf *raw, struct buf *out);

/* exec_stream.c: after the 101, runs the channel protocol to its end;
 * early holds bytes that came with the head. */
void exec_run_stream(struct conn *k, const char *early, size_t n,
		     const struct exec_request *rq, struct exec_result *res);

#endif
