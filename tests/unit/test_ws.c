/* RFC 6455 framing: byte-exact vectors from the RFC and from real captures
 * (docs/captures-k8s-1.20), fed whole and one byte at a time. */
#include "kube/exec/ws.h"
#include "t.h"

#include <openssl/evp.h>
#include <stdlib.h>

#define MAX_EVENTS 32

/* One event as recorded by collect(); data copied, since the reader's
 * pointers die at the next call. */
struct rec {
	enum ws_event_kind kind;
	enum ws_opcode opcode;
	int close_code;
	const char *error;
	size_t len;
	unsigned char *data;
};

struct recs {
	struct rec ev[MAX_EVENTS];
	int n;
	int feed_failed;
};

static void recs_free(struct recs *rs)
{
	int i;

	for (i = 0; i < rs->n; i++)
		free(rs->ev[i].data);
	rs->n = 0;
}

static int drain(struct ws_reader *r, struct recs *rs)
{
	struct ws_event ev;

	for (;;) {
		ws_reader_next(r, &ev);
		if (ev.kind == WS_EV_NONE)
			return 0;
		if (rs->n < MAX_EVENTS) {
			struct rec *x = &rs->ev[rs->n++];
			x->kind = ev.kind;
			x->opcode = ev.opcode;
			x->close_code = ev.close_code;
			x->error = ev.error;
			x->len = ev.len;
			x->data = malloc(ev.len + 1);
			if (ev.len)
				memcpy(x->data, ev.data, ev.len);
			x->data[ev.len] = 0;
		}
		if (ev.kind == WS_EV_ERROR)
			return -1;
	}
}

/* Feeds bytes step at a time (0: all at once), draining after each feed. */
static void collect(const void *bytes, size_t len, size_t step,
		    size_t max_message, struct recs *rs)
{
	struct ws_reader r;
	const unsigned char *p = bytes;
	size_t off = 0;

	memset(rs, 0, sizeof(*rs));
	ws_reader_init(&r, max_message);
	if (!step)
		step = len ? len : 1;
	while (off < len) {
		size_t n = len - off < step ? len - off : step;
		if (ws_reader_feed(&r, p + off, n) < 0) {
			rs->feed_failed = 1;
			break;
		}
		off += n;
		if (drain(&r, rs) < 0)
			break;
	}
	ws_reader_release(&r);
}

static int same_bytes(const struct buf *b, const unsigned char *want, size_t n)
{
	return b->len == n && !memcmp(b->data, want, n);
}

static void test_accept(void)
{
	char out[29];

	ws_accept_for("dGhlIHNhbXBsZSBub25jZQ==", out);
	CHECK_STR(out, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
	/* Real server answers, captures b01 and b02. */
	ws_accept_for("6kIwOIjh0UR6Sguiyp5Aig==", out);
	CHECK_STR(out, "l5M0b71o/NP+U1aOdsrKRE9tBdU=");
	ws_accept_for("qMl85Lh0Yu0hdteoiUIfeA==", out);
	CHECK_STR(out, "UlmM1+yuUwDUKL/n6Bi+z3Ys7cU=");
}

static void test_make_key(void)
{
	char a[25], b[25];
	unsigned char raw[32];

	CHECK_INT(ws_make_key(a), 0);
	CHECK_INT(ws_make_key(b), 0);
	CHECK_INT(strlen(a), 24);
	CHECK(strcmp(a, b) != 0);
	/* 24 base64 chars decode to 18 bytes, the last two being padding. */
	CHECK_INT(EVP_DecodeBlock(raw, (const unsigned char *)a, 24), 18);
	CHECK(a[22] == '=' && a[23] == '=');
}

static void test_encode_rfc(void)
{
	static const unsigned char hello[] = { 0x81, 0x85, 0x37, 0xfa, 0x21,
		0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58 };
	static const unsigned char pong[] = { 0x8a, 0x85, 0x37, 0xfa, 0x21,
		0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58 };
	static const uint8_t mask[4] = { 0x37, 0xfa, 0x21, 0x3d };
	struct buf b = BUF_INIT(1 << 20);

	CHECK_INT(ws_encode(&b, WS_TEXT, "Hello", 5, mask), 0);
	CHECK(same_bytes(&b, hello, sizeof(hello)));
	buf_reset(&b);
	CHECK_INT(ws_encode(&b, WS_PONG, "Hello", 5, mask), 0);
	CHECK(same_bytes(&b, pong, sizeof(pong)));
	buf_release(&b);
}

/* Header bytes for a masked frame of len bytes, minimal length encoding. */
static void test_encode_lengths(void)
{
	static const uint8_t mask[4] = { 1, 2, 3, 4 };
	static const struct {
		size_t len;
		size_t hdr;
		unsigned char b[10];
	} v[] = {
		{ 0, 2, { 0x82, 0x80 } },
		{ 125, 2, { 0x82, 0xfd } },
		{ 126, 4, { 0x82, 0xfe, 0x00, 0x7e } },
		{ 256, 4, { 0x82, 0xfe, 0x01, 0x00 } },
		{ 65535, 4, { 0x82, 0xfe, 0xff, 0xff } },
		{ 65536, 10, { 0x82, 0xff, 0, 0, 0, 0, 0, 1, 0, 0 } },
	};
	unsigned char *payload = calloc(1, 65536);
	size_t i, j;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct buf b = BUF_INIT(1 << 20);
		int ok = 1;

		CHECK_INT(ws_encode(&b, WS_BINARY, payload, v[i].len, mask), 0);
		CHECK_INT(b.len, v[i].hdr + 4 + v[i].len);
		CHECK(!memcmp(b.data, v[i].b, v[i].hdr));
		CHECK(!memcmp(b.data + v[i].hdr, mask, 4));
		/* A zero payload masked is the key repeated. */
		for (j = 0; j < v[i].len; j++)
			ok &= (uint8_t)b.data[v[i].hdr + 4 + j] == mask[j % 4];
		CHECK(ok);
		buf_release(&b);
	}
	free(payload);
}

/* A frame whose payload comes in two parts (the exec's channel byte, then
 * the stdin chunk, not copied together first; issue 46) is byte for byte
 * the frame of the joined payload, across the length encodings and for
 * lengths that leave the 8-byte masking steps mid-key. */
static void test_encode_parts(void)
{
	static const uint8_t mask[4] = { 0x9d, 0x01, 0x7e, 0xc3 };
	static const size_t lens[] = { 0, 1, 3, 7, 124, 125, 126, 1000, 32768, 65534, 65535, 65536 };
	unsigned char *joined = malloc(65537);

	for (size_t i = 0; i < 65537; i++)
		joined[i] = (unsigned char)(i * 31 + 7);
	for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
		struct buf a = BUF_INIT(1 << 20), b = BUF_INIT(1 << 20);

		CHECK_INT(ws_encode(&a, WS_BINARY, joined, lens[i] + 1, mask), 0);
		CHECK_INT(ws_encode_parts(&b, WS_BINARY, joined, 1, joined + 1, lens[i], mask), 0);
		CHECK_INT(b.len, a.len);
		CHECK(a.len == b.len && !memcmp(a.data, b.data, a.len));
		buf_release(&a);
		buf_release(&b);
	}
	free(joined);
}

static void test_encode_limits(void)
{
	struct buf small = BUF_INIT(16);
	struct buf b = BUF_INIT(1024);
	char big[126] = { 0 };

	CHECK_INT(ws_encode(&b, WS_PING, big, 126, NULL), -1);
	CHECK_INT(ws_encode(&b, (enum ws_opcode)3, "x", 1, NULL), -1);
	CHECK_INT(ws_encode(&small, WS_BINARY, big, 20, NULL), -1);
	/* A fresh key per frame: two encodings of the same payload differ. */
	CHECK_INT(ws_encode(&b, WS_BINARY, "same payload", 12, NULL), 0);
	CHECK_INT(ws_encode(&b, WS_BINARY, "same payload", 12, NULL), 0);
	CHECK_INT(b.len, 36);
	CHECK(memcmp(b.data + 2, b.data + 20, 16) != 0);
	buf_release(&b);
	buf_release(&small);
}

static void test_read_rfc(void)
{
	static const unsigned char text[] = { 0x81, 0x05, 'H', 'e', 'l', 'l',
		'o' };
	static const unsigned char frag[] = { 0x01, 0x03, 'H', 'e', 'l', 0x80,
		0x02, 'l', 'o' };
	static const unsigned char ping[] = { 0x89, 0x05, 'H', 'e', 'l', 'l',
		'o' };
	struct recs rs;

	collect(text, sizeof(text), 0, 1 << 20, &rs);
	CHECK_INT(rs.n, 1);
	CHECK_INT(rs.ev[0].kind, WS_EV_MESSAGE);
	CHECK_INT(rs.ev[0].opcode, WS_TEXT);
	CHECK_STR((char *)rs.ev[0].data, "Hello");
	recs_free(&rs);

	collect(frag, sizeof(frag), 1, 1 << 20, &rs);
	CHECK_INT(rs.n, 1);
	CHECK_INT(rs.ev[0].kind, WS_EV_MESSAGE);
	CHECK_INT(rs.ev[0].opcode, WS_TEXT);
	CHECK_STR((char *)rs.ev[0].data, "Hello");
	recs_free(&rs);

	collect(ping, sizeof(ping), 0, 1 << 20, &rs);
	CHECK_INT(rs.n, 1);
	CHECK_INT(rs.ev[0].kind, WS_EV_PING);
	CHECK_STR((char *)rs.ev[0].data, "Hello");
	recs_free(&rs);
}

static void test_read_lengths(void)
{
	size_t sizes[] = { 256, 65536 };
	size_t i, j;

	for (i = 0; i < 2; i++) {
		size_t n = sizes[i], hdr = n < 65536 ? 4 : 10;
		unsigned char *f = malloc(hdr + n);
		struct recs rs;
		int ok = 1;

		f[0] = 0x82;
		if (n < 65536) {
			f[1] = 0x7e;
			f[2] = (unsigned char)(n >> 8);
			f[3] = (unsigned char)n;
		} else {
			memcpy(f + 1, "\x7f\0\0\0\0\0\x01\0\0", 9);
		}
		for (j = 0; j < n; j++)
			f[hdr + j] = (unsigned char)(j * 7);
		collect(f, hdr + n, 0, 1 << 20, &rs);
		CHECK_INT(rs.n, 1);
		CHECK_INT(rs.ev[0].kind, WS_EV_MESSAGE);
		CHECK_INT(rs.ev[0].opcode, WS_BINARY);
		CHECK_INT(rs.ev[0].len, n);
		for (j = 0; rs.n && j < rs.ev[0].len; j++)
			ok &= rs.ev[0].data[j] == (unsigned char)(j * 7);
		CHECK(ok);
		recs_free(&rs);
		/* Cut short by one byte: no event yet. */
		collect(f, hdr + n - 1, 0, 1 << 20, &rs);
		CHECK_INT(rs.n, 0);
		free(f);
	}
}

static void append_frame(struct buf *b, int byte0, const char *p, size_t n)
{
	unsigned char h[2] = { (unsigned char)byte0, (unsigned char)n };

	buf_append(b, h, 2);
	buf_append(b, p, n);
}

/* Shaped like capture b02: empty stdout message, stderr, stdout, status,
 * Close 1000. */
static void capture_stream(struct buf *b)
{
	static const char status[] = "\x03{\"metadata\":{},\"status\":\"Success\"}";
	static const char out[] = "\x01out-line-1\nout-line-2\n";
	static const char err[] = "\x02" "err-line-1\n";

	append_frame(b, 0x82, "\x01", 1);
	append_frame(b, 0x82, out, sizeof(out) - 1);
	append_frame(b, 0x82, err, sizeof(err) - 1);
	append_frame(b, 0x82, status, sizeof(status) - 1);
	append_frame(b, 0x88, "\x03\xe8", 2);
}

static void check_capture(const struct recs *rs)
{
	CHECK_INT(rs->n, 5);
	if (rs->n != 5)
		return;
	CHECK_INT(rs->ev[0].kind, WS_EV_MESSAGE);
	CHECK_INT(rs->ev[0].len, 1);
	CHECK_INT(rs->ev[0].data[0], 1);
	CHECK_STR((char *)rs->ev[1].data, "\x01out-line-1\nout-line-2\n");
	CHECK_STR((char *)rs->ev[2].data, "\x02" "err-line-1\n");
	CHECK_STR((char *)rs->ev[3].data,
		  "\x03{\"metadata\":{},\"status\":\"Success\"}");
	CHECK_INT(rs->ev[3].opcode, WS_BINARY);
	CHECK_INT(rs->ev[4].kind, WS_EV_CLOSE);
	CHECK_INT(rs->ev[4].close_code, 1000);
	CHECK_INT(rs->ev[4].len, 0);
}

static void test_capture_stream(void)
{
	struct buf b = BUF_INIT(1 << 20);
	struct recs rs;
	size_t step;

	capture_stream(&b);
	for (step = 0; step <= 7; step += 1) {
		collect(b.data, b.len, step, 1 << 20, &rs);
		check_capture(&rs);
		recs_free(&rs);
	}
	buf_release(&b);
}

static void test_ping_between_fragments(void)
{
	struct buf b = BUF_INIT(1024);
	struct recs rs;
	size_t step;

	append_frame(&b, 0x02, "\x01" "ab", 3);
	append_frame(&b, 0x89, "xyz", 3);
	append_frame(&b, 0x00, "cd", 2);
	append_frame(&b, 0x8a, "", 0);
	append_frame(&b, 0x80, "e", 1);
	/* After a fragmented message, whole and fragmented ones still parse. */
	append_frame(&b, 0x82, "\x02z", 2);
	append_frame(&b, 0x02, "\x03", 1);
	append_frame(&b, 0x80, "{}", 2);
	for (step = 0; step <= 2; step++) {
		collect(b.data, b.len, step, 1 << 20, &rs);
		CHECK_INT(rs.n, 5);
		if (rs.n == 5) {
			CHECK_STR((char *)rs.ev[3].data, "\x02z");
			CHECK_STR((char *)rs.ev[4].data, "\x03{}");
			CHECK_INT(rs.ev[0].kind, WS_EV_PING);
			CHECK_STR((char *)rs.ev[0].data, "xyz");
			CHECK_INT(rs.ev[1].kind, WS_EV_PONG);
			CHECK_INT(rs.ev[2].kind, WS_EV_MESSAGE);
			CHECK_INT(rs.ev[2].opcode, WS_BINARY);
			CHECK_STR((char *)rs.ev[2].data, "\x01" "abcde");
		}
		recs_free(&rs);
	}
	buf_release(&b);
}

static void test_close(void)
{
	struct recs rs;

	collect("\x88\x00", 2, 0, 1024, &rs);
	CHECK_INT(rs.n, 1);
	CHECK_INT(rs.ev[0].kind, WS_EV_CLOSE);
	CHECK_INT(rs.ev[0].close_code, 1005);
	recs_free(&rs);

	collect("\x88\x05\x03\xf3" "bye", 7, 1, 1024, &rs);
	CHECK_INT(rs.n, 1);
	CHECK_INT(rs.ev[0].kind, WS_EV_CLOSE);
	CHECK_INT(rs.ev[0].close_code, 1011);
	CHECK_STR((char *)rs.ev[0].data, "bye");
	recs_free(&rs);

	collect("\x88\x01\x03", 3, 0, 1024, &rs);
	CHECK_INT(rs.n, 1);
	CHECK_INT(rs.ev[0].kind, WS_EV_ERROR);
	CHECK_INT(rs.ev[0].close_code, 1002);
	CHECK_HAS(rs.ev[0].error, "1-byte");
	recs_free(&rs);
}

/* A violation, reported as soon as its bytes are in, with the close code. */
static void expect_error(const char *bytes, size_t len, size_t max,
			 int code, const char *why)
{
	struct recs rs;
	size_t step;

	for (step = 0; step <= 1; step++) {
		collect(bytes, len, step, max, &rs);
		CHECK(rs.n >= 1);
		if (rs.n >= 1) {
			struct rec *x = &rs.ev[rs.n - 1];
			CHECK_INT(x->kind, WS_EV_ERROR);
			CHECK_INT(x->close_code, code);
			CHECK_HAS(x->error, why);
		}
		recs_free(&rs);
	}
}

static void test_violations(void)
{
	expect_error("\x82\x81\x01\x02\x03\x04\x05", 7, 1024, 1002, "masked");
	/* Only the header is there: the cap is checked before the payload. */
	expect_error("\x82\x7e\x00\x65", 4, 100, 1009, "too big");
	expect_error("\x82\x7f\x00\x00\x00\x01\x00\x00\x00\x00", 10, 1 << 20,
		     1009, "too big");
	expect_error("\x82\x7f\x80\x00\x00\x00\x00\x00\x00\x00", 10, 1 << 20,
		     1002, "top bit");
	expect_error("\x83\x00", 2, 1024, 1002, "reserved opcode");
	expect_error("\x8b\x00", 2, 1024, 1002, "reserved opcode");
	expect_error("\xc2\x00", 2, 1024, 1002, "reserved bits");
	expect_error("\xa2\x00", 2, 1024, 1002, "reserved bits");
	expect_error("\x92\x00", 2, 1024, 1002, "reserved bits");
	expect_error("\x80\x01" "a", 3, 1024, 1002, "continuation");
	expect_error("\x00\x01" "a", 3, 1024, 1002, "continuation");
	expect_error("\x02\x01" "a" "\x82\x01" "b", 6, 1024, 1002,
		     "in progress");
	expect_error("\x89\x7e\x00\x7e", 4, 1024, 1002, "125");
	expect_error("\x09\x00", 2, 1024, 1002, "fragmented control");
}

static void test_fragment_cap(void)
{
	struct buf b = BUF_INIT(1024);
	char chunk[60] = { 0 };
	struct recs rs;

	append_frame(&b, 0x02, chunk, 60);
	append_frame(&b, 0x00, chunk, 40);
	collect(b.data, b.len, 0, 100, &rs);
	CHECK_INT(rs.n, 0);    /* 100 bytes exactly: fine, not finished */
	recs_free(&rs);
	append_frame(&b, 0x80, chunk, 1);
	collect(b.data, b.len, 0, 100, &rs);
	CHECK_INT(rs.n, 1);
	CHECK_INT(rs.ev[0].kind, WS_EV_ERROR);
	CHECK_INT(rs.ev[0].close_code, 1009);
	recs_free(&rs);
	buf_release(&b);
}

static void test_stays_failed(void)
{
	struct ws_reader r;
	struct ws_event ev;

	ws_reader_init(&r, 1024);
	CHECK_INT(ws_reader_feed(&r, "\x83\x00\x81\x01" "a", 5), 0);
	ws_reader_next(&r, &ev);
	CHECK_INT(ev.kind, WS_EV_ERROR);
	ws_reader_next(&r, &ev);
	CHECK_INT(ev.kind, WS_EV_ERROR);
	CHECK_INT(ev.close_code, 1002);
	ws_reader_release(&r);
}

static void test_feed_cap(void)
{
	struct ws_reader r;
	struct ws_event ev;
	size_t n = 4u << 20;
	char *junk = calloc(1, n);

	ws_reader_init(&r, 16);
	CHECK_INT(ws_reader_feed(&r, junk, n), -1);
	ws_reader_next(&r, &ev);
	CHECK_INT(ev.kind, WS_EV_ERROR);
	CHECK_INT(ev.close_code, 1009);
	ws_reader_release(&r);
	free(junk);
}

/* Our own masked frames are what a server must never send us. */
static void test_roundtrip_rejected(void)
{
	struct buf b = BUF_INIT(1024);
	struct recs rs;

	CHECK_INT(ws_encode(&b, WS_BINARY, "\x01hi", 3, NULL), 0);
	collect(b.data, b.len, 0, 1024, &rs);
	CHECK_INT(rs.n, 1);
	CHECK_INT(rs.ev[0].kind, WS_EV_ERROR);
	recs_free(&rs);
	buf_release(&b);
}

int main(void)
{
	test_accept();
	test_make_key();
	test_encode_rfc();
	test_encode_lengths();
	test_encode_parts();
	test_encode_limits();
	test_read_rfc();
	test_read_lengths();
	test_capture_stream();
	test_ping_between_fragments();
	test_close();
	test_violations();
	test_fragment_cap();
	test_stays_failed();
	test_feed_cap();
	test_roundtrip_rejected();
	return T_DONE("test_ws");
}
