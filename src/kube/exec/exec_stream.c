/* The exec client's channel layer (exec_int.h, exec-protocol.md §3, §6):
 * after the 101, WebSocket messages routed by channel byte to stdout,
 * stderr and the status; pings on v5; stdin; the status channel decoded
 * into the result. */
#include "exec_int.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/xalloc.h"

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
	exec_send_close(s->k, code);
	s->failed = 1;
	exec_set_msg(s->res, EXEC_ERROR, "websocket protocol error: %s", why);
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
			exec_send_frame(s->k, WS_PONG, NULL, 0, ev.data, ev.len);
			break;
		case WS_EV_PONG:
			break;   /* we never ping, but a pong is harmless */
		case WS_EV_CLOSE:
			s->got_close = 1;
			s->close_code = ev.close_code;
			exec_send_close(s->k, ev.close_code);
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
	long long next_ping = exec_now_ms() + PING_PERIOD_MS;

	for (;;) {
		long long until = s->k->deadline;
		size_t n;
		enum io io;

		if (drain(s))
			return IO_OK;
		if (ping && next_ping < until)
			until = next_ping;
		io = exec_conn_recv(s->k, until, &n);
		if (io == IO_TIMEOUT && until < s->k->deadline) {
			static const uint8_t empty[1];

			if (exec_send_frame(s->k, WS_PING, NULL, 0, empty, 0) != IO_OK)
				return IO_ERROR;
			next_ping = exec_now_ms() + PING_PERIOD_MS;
			continue;
		}
		if (io != IO_OK)
			return io;
		next_ping = exec_now_ms() + PING_PERIOD_MS;
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
		exec_set_msg(res, EXEC_ERROR, "error stream protocol error: status "
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
		exec_set_timeout(res, s->k);
	else if (io == IO_ERROR)
		exec_set_msg(res, EXEC_ERROR, "connection to the server failed before "
			"the exec status arrived: %s", s->k->io_error);
	else if (!s->got_close)
		exec_set_msg(res, EXEC_ERROR, "connection closed before the exec status "
			"arrived (no WebSocket Close)");
	else if (s->close_code == 1000 || s->close_code == 1005)
		exec_set_msg(res, EXEC_NO_STATUS, "stream ended without an exec status");
	else
		exec_set_msg(res, EXEC_ERROR, "connection closed by the server with "
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
	static const uint8_t close_stdin[2] = { 255, 0 }, stdin_channel = 0;
	enum io io = IO_OK;

	/* The channel byte and the chunk go into the frame as two parts:
	 * the ~40 KB probe is copied once per frame, not twice. */
	while (io == IO_OK && len) {
		size_t n = len < STDIN_CHUNK ? len : STDIN_CHUNK;

		io = exec_send_frame(k, WS_BINARY, &stdin_channel, 1, p, n);
		p += n;
		len -= n;
	}
	if (io == IO_OK && protocol == 5)
		io = exec_send_frame(k, WS_BINARY, NULL, 0, close_stdin, sizeof(close_stdin));
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

void exec_run_stream(struct conn *k, const char *early, size_t n,
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
		exec_set_msg(res, EXEC_ERROR, "error stream protocol error: details "
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
			exec_set_msg(res, EXEC_ERROR, "error stream protocol error: "
				"invalid exit code value \"%.64s\"", msg ? msg : "");
			return;
		}
		res->exit_code = code;
		exec_set_msg(res, EXEC_EXIT_CODE, "command terminated with exit code %d",
			code);
		return;
	}
	exec_set_msg(res, EXEC_ERROR, "error stream protocol error: no ExitCode "
		"cause given");
}

void exec_decode_status(const char *json, size_t len, struct exec_result *res)
{
	cJSON *j = parse_json(json, len);
	const char *status = json_str(j, "status");

	res->exit_code = -1;
	if (!cJSON_IsObject(j)) {
		exec_set_msg(res, EXEC_ERROR, "error stream protocol error: invalid "
			"JSON in \"%.200s\"", len ? json : "");
	} else if (status && !strcmp(status, "Success")) {
		res->exit_code = 0;
		exec_set_msg(res, EXEC_SUCCESS, "%s", "");
	} else if (status && !strcmp(status, "Failure")) {
		const char *reason = json_str(j, "reason");
		const char *msg = json_str(j, "message");
		if (reason && !strcmp(reason, "NonZeroExitCode"))
			decode_exit(j, res);
		else
			exec_set_msg(res, EXEC_FAILED, "%s", msg && *msg ? msg :
				"the server could not run the command");
	} else {
		exec_set_msg(res, EXEC_ERROR, "error stream protocol error: unknown "
			"error");
	}
	cJSON_Delete(j);
}
