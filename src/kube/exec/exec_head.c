/* The HTTP/1.1 head of an exec upgrade answer, as bytes: status line,
 * header fields, and the checks a 101 must pass (exec-protocol.md §3).
 * Pure functions, no I/O; exec_conn.c reads the bytes. */
#include "exec_head.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "exec.h"
#include "exec_int.h"
#include "ws.h"

long exec_head_status(const char *head, size_t len)
{
	long st = 0;
	size_t i;

	if (len < 12 || memcmp(head, "HTTP/1.", 7) || head[8] != ' ')
		return -1;
	for (i = 9; i < 12; i++) {
		if (head[i] < '0' || head[i] > '9')
			return -1;
		st = st * 10 + (head[i] - '0');
	}
	if (len > 12 && head[12] != ' ' && head[12] != '\r')
		return -1;
	return st;
}

void exec_hdr_start(struct exec_hdr_iter *it, const char *head, size_t len)
{
	const char *nl = memchr(head, '\n', len);

	it->p = nl ? nl + 1 : head + len;
	it->end = head + len;
}

static int is_ows(char ch)
{
	return ch == ' ' || ch == '\t';
}

int exec_hdr_next(struct exec_hdr_iter *it, const char **name, size_t *nlen,
		  const char **val, size_t *vlen)
{
	while (it->p < it->end) {
		const char *line = it->p, *eol = memchr(line, '\n', it->end - line);
		const char *colon, *v, *ve;

		eol = eol ? eol : it->end;
		it->p = eol < it->end ? eol + 1 : eol;
		colon = memchr(line, ':', eol - line);
		if (!colon)
			continue;     /* the blank line, or junk */
		ve = eol;
		if (ve > colon && ve[-1] == '\r')
			ve--;
		for (v = colon + 1; v < ve && is_ows(*v); v++)
			;
		while (ve > v && is_ows(ve[-1]))
			ve--;
		*name = line;
		*nlen = (size_t)(colon - line);
		*val = v;
		*vlen = (size_t)(ve - v);
		return 1;
	}
	return 0;
}

static int name_is(const char *n, size_t len, const char *want)
{
	return strlen(want) == len && !strncasecmp(n, want, len);
}

/* The first value of header `want`; 0 when absent. */
int exec_hdr_get(const char *head, size_t len, const char *want,
		 const char **val, size_t *vlen)
{
	struct exec_hdr_iter it;
	const char *n;
	size_t nl;

	exec_hdr_start(&it, head, len);
	while (exec_hdr_next(&it, &n, &nl, val, vlen))
		if (name_is(n, nl, want))
			return 1;
	return 0;
}

/* Whether a comma-separated value holds token, case-insensitively. */
int exec_has_token(const char *v, size_t len, const char *token)
{
	size_t tl = strlen(token), i = 0;

	while (i < len) {
		size_t s, e;

		while (i < len && (is_ows(v[i]) || v[i] == ','))
			i++;
		s = i;
		while (i < len && v[i] != ',')
			i++;
		e = i;
		while (e > s && is_ows(v[e - 1]))
			e--;
		if (e - s == tl && !strncasecmp(v + s, token, tl))
			return 1;
	}
	return 0;
}

/* Token in any of the header's lines (Connection may repeat). */
static int hdr_has_token(const char *head, size_t len, const char *want,
			 const char *token)
{
	struct exec_hdr_iter it;
	const char *n, *v;
	size_t nl, vl;

	exec_hdr_start(&it, head, len);
	while (exec_hdr_next(&it, &n, &nl, &v, &vl))
		if (name_is(n, nl, want) && exec_has_token(v, vl, token))
			return 1;
	return 0;
}

static int check_protocol(const char *head, size_t len, int *protocol,
			  char *msg, size_t msgsz)
{
	const char *v;
	size_t vl;

	if (!exec_hdr_get(head, len, "Sec-WebSocket-Protocol", &v, &vl) || !vl) {
		snprintf(msg, msgsz, "server chose no subprotocol, expected "
			 "one of [" EXEC_PROTOCOLS "]");
		return -1;
	}
	if (vl == 17 && !memcmp(v, "v5.channel.k8s.io", 17))
		*protocol = 5;
	else if (vl == 17 && !memcmp(v, "v4.channel.k8s.io", 17))
		*protocol = 4;
	else {
		snprintf(msg, msgsz, "invalid protocol, expected one of ["
			 EXEC_PROTOCOLS "], got \"%.*s\"", (int)(vl > 100 ? 100 : vl), v);
		return -1;
	}
	return 0;
}

int exec_check_upgrade(const char *head, size_t len, const char *key,
		       int *protocol, char *msg, size_t msgsz)
{
	char want[29];
	const char *v;
	size_t vl;

	*protocol = 0;
	if (exec_head_status(head, len) != 101) {
		snprintf(msg, msgsz, "expected status 101 Switching Protocols");
		return -1;
	}
	if (!hdr_has_token(head, len, "Upgrade", "websocket")) {
		snprintf(msg, msgsz, "upgrade response lacks \"Upgrade: websocket\"");
		return -1;
	}
	if (!hdr_has_token(head, len, "Connection", "upgrade")) {
		snprintf(msg, msgsz, "upgrade response lacks \"Connection: Upgrade\"");
		return -1;
	}
	ws_accept_for(key, want);
	if (!exec_hdr_get(head, len, "Sec-WebSocket-Accept", &v, &vl) ||
	    vl != strlen(want) || memcmp(v, want, vl)) {
		snprintf(msg, msgsz, "bad Sec-WebSocket-Accept in the upgrade "
			 "response (want \"%s\")", want);
		return -1;
	}
	if (exec_hdr_get(head, len, "Sec-WebSocket-Extensions", &v, &vl) && vl) {
		snprintf(msg, msgsz, "server chose WebSocket extensions we did "
			 "not offer: \"%.*s\"", (int)(vl > 100 ? 100 : vl), v);
		return -1;
	}
	return check_protocol(head, len, protocol, msg, msgsz);
}

/* ---- non-101: the error body's framing ---- */

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

enum body_kind exec_body_kind(const char *head, size_t len, long status,
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
int exec_body_done(enum body_kind kind, size_t clen, const struct buf *raw,
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
