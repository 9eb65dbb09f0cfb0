/* RFC 6455 client framing (ws.h).  Pure: bytes in, events out.
 *
 * The reader keeps unparsed bytes in r->in and r->consumed counts how many
 * of them are already used; they are dropped on the next feed, so event
 * data may point straight into r->in until then (no copy for the usual
 * single-frame message).  Fragmented messages are copied into r->msg.
 */
#include "ws.h"

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <string.h>

#define WS_GUID "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
#define WS_MAX_HEADER 14        /* 2 + 8 length bytes + 4 mask bytes */
/* Room in r->in beyond one whole frame: the bytes of one feed.  Callers
 * drain events after each feed of at most this much. */
#define WS_FEED_SLACK (1u << 20)

int ws_make_key(char out[25])
{
	unsigned char raw[16];

	if (RAND_bytes(raw, sizeof(raw)) != 1)
		return -1;
	EVP_EncodeBlock((unsigned char *)out, raw, sizeof(raw));
	return 0;
}

void ws_accept_for(const char *key, char out[29])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int ok;

	ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha1(), NULL) == 1 &&
	     EVP_DigestUpdate(ctx, key, strlen(key)) == 1 &&
	     EVP_DigestUpdate(ctx, WS_GUID, strlen(WS_GUID)) == 1 &&
	     EVP_DigestFinal_ex(ctx, md, &mdlen) == 1 && mdlen == 20;
	EVP_MD_CTX_free(ctx);
	/* An empty answer never matches a server's, so failure is safe. */
	out[0] = '\0';
	if (ok)
		EVP_EncodeBlock((unsigned char *)out, md, 20);
}

static int is_control(int op)
{
	return (op & 0x8) != 0;
}

static int valid_opcode(int op)
{
	return op == WS_CONT || op == WS_TEXT || op == WS_BINARY ||
	       op == WS_CLOSE || op == WS_PING || op == WS_PONG;
}

/* XORs p with the 4-byte key, 8 bytes a step (the probe's ~37 KB of stdin
 * went byte by byte: ~6 instructions a byte, issue 46); memcpy keeps the
 * loads unaligned-safe and compiles to plain moves. */
static void mask_payload(uint8_t *p, size_t len, const uint8_t key[4])
{
	const uint8_t k8[8] = { key[0], key[1], key[2], key[3], key[0], key[1], key[2], key[3] };
	uint64_t k, w;
	size_t i;

	memcpy(&k, k8, sizeof k);
	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, sizeof w);
		w ^= k;
		memcpy(p + i, &w, sizeof w);
	}
	for (; i < len; i++)
		p[i] ^= key[i % 4];
}

int ws_encode_parts(struct buf *out, enum ws_opcode op, const void *pre,
		    size_t npre, const void *payload, size_t len,
		    const uint8_t *mask)
{
	uint8_t hdr[WS_MAX_HEADER], key[4];
	size_t n = 0, start, total = npre + len;
	int k;

	if (total < len || !valid_opcode((int)op) || (is_control((int)op) && total > 125))
		return -1;
	if (mask)
		memcpy(key, mask, 4);
	else if (RAND_bytes(key, 4) != 1)
		return -1;
	hdr[n++] = (uint8_t)(0x80 | op);
	if (total <= 125) {
		hdr[n++] = (uint8_t)(0x80 | total);
	} else if (total <= 0xffff) {
		hdr[n++] = 0x80 | 126;
		hdr[n++] = (uint8_t)(total >> 8);
		hdr[n++] = (uint8_t)total;
	} else {
		hdr[n++] = 0x80 | 127;
		for (k = 7; k >= 0; k--)
			hdr[n++] = (uint8_t)((uint64_t)total >> (8 * k));
	}
	memcpy(hdr + n, key, 4);
	n += 4;
	buf_reserve(out, n + total);   /* one allocation for the frame */
	if (buf_append(out, hdr, n) < 0)
		return -1;
	start = out->len;
	if (buf_append(out, pre, npre) < 0 || buf_append(out, payload, len) < 0)
		return -1;
	mask_payload((uint8_t *)out->data + start, total, key);
	return 0;
}

int ws_encode(struct buf *out, enum ws_opcode op, const void *payload,
	      size_t len, const uint8_t *mask)
{
	return ws_encode_parts(out, op, NULL, 0, payload, len, mask);
}

void ws_reader_init(struct ws_reader *r, size_t max_message)
{
	size_t in_max = max_message;

	memset(r, 0, sizeof(*r));
	if (in_max > (size_t)-1 - WS_MAX_HEADER - WS_FEED_SLACK)
		in_max = (size_t)-1 - WS_MAX_HEADER - WS_FEED_SLACK;
	buf_init(&r->in, in_max + WS_MAX_HEADER + WS_FEED_SLACK);
	buf_init(&r->msg, max_message);
}

void ws_reader_release(struct ws_reader *r)
{
	buf_release(&r->in);
	buf_release(&r->msg);
}

/* What the reader holds at once in the usual stream: a kubelet message
 * (32 KiB) and the next read's bytes.  Reserved at the first feed, so the
 * buffer is not copied as it doubles up to it (issue 46). */
#define WS_FIRST_ROOM (64u << 10)

int ws_reader_feed(struct ws_reader *r, const void *p, size_t n)
{
	buf_consume(&r->in, r->consumed);
	r->consumed = 0;
	if (!r->in.cap)
		buf_reserve(&r->in, n > WS_FIRST_ROOM ? n : WS_FIRST_ROOM);
	if (buf_append(&r->in, p, n) < 0) {
		r->failed = 1009;
		return -1;
	}
	return 0;
}

struct frame {
	int fin;
	int op;
	uint64_t len;
	size_t hdr;     /* header bytes before the payload */
};

static int bad(const char **why, const char *what)
{
	*why = what;
	return -1;
}

/* Checks each field as soon as its bytes are there, so that a violation is
 * reported without waiting for a payload that may never come.
 * 1: header complete, 0: need more bytes, -1: *why names the violation. */
static int parse_header(const uint8_t *p, size_t n, struct frame *f,
			const char **why)
{
	size_t ext, i;

	if (n < 1)
		return 0;
	f->fin = p[0] >> 7;
	f->op = p[0] & 0x0f;
	if (p[0] & 0x70)
		return bad(why, "reserved bits set in frame header");
	if (!valid_opcode(f->op))
		return bad(why, "reserved opcode");
	if (n < 2)
		return 0;
	if (p[1] & 0x80)
		return bad(why, "masked frame from server");
	f->len = p[1] & 0x7f;
	if (is_control(f->op) && !f->fin)
		return bad(why, "fragmented control frame");
	if (is_control(f->op) && f->len > 125)
		return bad(why, "control frame longer than 125 bytes");
	ext = f->len == 126 ? 2 : f->len == 127 ? 8 : 0;
	if (n < 2 + ext)
		return 0;
	if (ext) {
		f->len = 0;
		for (i = 0; i < ext; i++)
			f->len = (f->len << 8) | p[2 + i];
		if (ext == 8 && (f->len >> 63))
			return bad(why, "64-bit frame length with the top bit set");
	}
	f->hdr = 2 + ext;
	return 1;
}

static void fail(struct ws_reader *r, struct ws_event *ev, int code,
		 const char *why)
{
	r->failed = code;
	ev->kind = WS_EV_ERROR;
	ev->close_code = code;
	ev->error = why;
}

/* Data-frame rules that need only the header.  NULL when fine. */
static const char *check_data(const struct ws_reader *r,
			      const struct frame *f, int *code)
{
	size_t have = r->in_message ? r->msg.len : 0;

	*code = 1002;
	if (f->op == WS_CONT && !r->in_message)
		return "continuation frame without a message start";
	if (f->op != WS_CONT && r->in_message)
		return "new data frame while a fragmented message is in progress";
	if (f->len > (uint64_t)(r->msg.max - have)) {
		*code = 1009;
		return "message too big";
	}
	return NULL;
}

/* 1: event filled, 0: fragment absorbed, keep parsing. */
static int take_data(struct ws_reader *r, const struct frame *f,
		     const uint8_t *payload, struct ws_event *ev)
{
	size_t len = (size_t)f->len;

	if (!r->in_message && f->fin) {
		ev->kind = WS_EV_MESSAGE;
		ev->opcode = (enum ws_opcode)f->op;
		ev->data = payload;
		ev->len = len;
		return 1;
	}
	if (!r->in_message) {
		buf_reset(&r->msg);
		r->in_message = 1;
		r->msg_opcode = (enum ws_opcode)f->op;
	}
	if (buf_append(&r->msg, payload, len) < 0) {
		fail(r, ev, 1009, "message too big");
		return 1;
	}
	if (!f->fin)
		return 0;
	r->in_message = 0;
	ev->kind = WS_EV_MESSAGE;
	ev->opcode = r->msg_opcode;
	ev->data = (const uint8_t *)buf_str(&r->msg);
	ev->len = r->msg.len;
	return 1;
}

/* Control payloads are copied so they outlive a later fragment. */
static void take_control(struct ws_reader *r, const struct frame *f,
			 const uint8_t *payload, struct ws_event *ev)
{
	size_t len = (size_t)f->len;

	memcpy(r->ctl, payload, len);
	ev->opcode = (enum ws_opcode)f->op;
	ev->data = r->ctl;
	ev->len = len;
	if (f->op == WS_PING) {
		ev->kind = WS_EV_PING;
	} else if (f->op == WS_PONG) {
		ev->kind = WS_EV_PONG;
	} else if (len == 0) {
		ev->kind = WS_EV_CLOSE;
		ev->close_code = 1005;
	} else if (len == 1) {
		fail(r, ev, 1002, "close frame with a 1-byte payload");
	} else {
		ev->kind = WS_EV_CLOSE;
		ev->close_code = (r->ctl[0] << 8) | r->ctl[1];
		ev->data = r->ctl + 2;
		ev->len = len - 2;
	}
}

void ws_reader_next(struct ws_reader *r, struct ws_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	if (r->failed) {
		fail(r, ev, r->failed, "websocket stream already failed");
		return;
	}
	while (r->in.data) {
		const uint8_t *p = (const uint8_t *)r->in.data + r->consumed;
		size_t avail = r->in.len - r->consumed;
		const char *why = NULL;
		struct frame f;
		int code = 1002;

		switch (parse_header(p, avail, &f, &why)) {
		case 0:
			return;
		case -1:
			fail(r, ev, 1002, why);
			return;
		}
		if (!is_control(f.op) && (why = check_data(r, &f, &code))) {
			fail(r, ev, code, why);
			return;
		}
		if (f.len > avail - f.hdr)
			return;
		r->consumed += f.hdr + (size_t)f.len;
		if (is_control(f.op)) {
			take_control(r, &f, p + f.hdr, ev);
			return;
		}
		if (take_data(r, &f, p + f.hdr, ev))
			return;
	}
}
