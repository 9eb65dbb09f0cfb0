/* RFC 6455 framing: bytes in, frames out.  No I/O here, so the parser can be
 * fed byte-exact vectors and fuzzed.
 *
 * Client side only: frames we send are masked; frames we receive must not
 * be.  ws_reader reassembles fragmented data messages (control frames may
 * arrive between fragments) under a size cap.
 */
#ifndef KUBE_WS_H
#define KUBE_WS_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

enum ws_opcode {
	WS_CONT = 0x0,
	WS_TEXT = 0x1,
	WS_BINARY = 0x2,
	WS_CLOSE = 0x8,
	WS_PING = 0x9,
	WS_PONG = 0xA,
};

/* Sec-WebSocket-Key: base64 of 16 random bytes (OpenSSL RAND_bytes). out
 * must hold 25 bytes.  -1 if the random source fails. */
int ws_make_key(char out[25]);
/* Sec-WebSocket-Accept for key: base64(SHA-1(key + GUID)). out: 29 bytes. */
void ws_accept_for(const char *key, char out[29]);

/* Appends one masked client frame (FIN set) to out.  mask NULL draws a
 * fresh random key.  -1 if out's cap is passed or the random source fails. */
int ws_encode(struct buf *out, enum ws_opcode op, const void *payload,
	      size_t len, const uint8_t *mask);
/* ws_encode of the payload pre (npre bytes) then payload (len bytes),
 * without joining them first: the exec's channel byte and its stdin. */
int ws_encode_parts(struct buf *out, enum ws_opcode op, const void *pre,
		    size_t npre, const void *payload, size_t len,
		    const uint8_t *mask);

/* What the reader hands back. */
enum ws_event_kind {
	WS_EV_NONE = 0,     /* need more bytes */
	WS_EV_MESSAGE,      /* a whole data message: opcode, data, len */
	WS_EV_PING,         /* answer with a pong carrying data */
	WS_EV_PONG,
	WS_EV_CLOSE,        /* close_code (1005 when absent), data = reason */
	WS_EV_ERROR,        /* protocol violation: error names it; close_code to send */
};

struct ws_event {
	enum ws_event_kind kind;
	enum ws_opcode opcode;
	const uint8_t *data;  /* valid until the next ws_reader call */
	size_t len;
	int close_code;
	const char *error;    /* static string */
};

struct ws_reader {
	struct buf in;        /* bytes not yet parsed */
	struct buf msg;       /* data message being reassembled */
	int in_message;
	enum ws_opcode msg_opcode;
	size_t consumed;      /* bytes of `in` parsed; dropped at the next feed */
	uint8_t ctl[125];     /* control payload of the last event */
	int failed;
};

/* max_message caps one data message (longer ones: WS_EV_ERROR, 1009).
 * The input buffer holds one frame plus up to 1 MiB more: drain events
 * after each feed of at most that much. */
void ws_reader_init(struct ws_reader *r, size_t max_message);
void ws_reader_release(struct ws_reader *r);
/* Adds received bytes; -1 if the input buffer cap is passed. */
int ws_reader_feed(struct ws_reader *r, const void *p, size_t n);
/* Returns the next event from the bytes fed so far.  After WS_EV_ERROR the
 * reader stays failed. */
void ws_reader_next(struct ws_reader *r, struct ws_event *ev);

#endif
