/* libFuzzer target for the WebSocket reader (src/kube/exec/ws.c).
 *
 * The first bytes of the input choose the message cap and where the rest
 * is split into feeds, so one corpus explores both the frame grammar and
 * every way TCP may cut it.  Build and run: see README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kube/exec/ws.h"

/* Invariants the reader promises its callers; abort() lets the fuzzer
 * report a broken one as a crash. */
static void check_event(const struct ws_event *ev, size_t max_message)
{
	switch (ev->kind) {
	case WS_EV_MESSAGE:
		if (ev->len > max_message || (ev->len && !ev->data))
			abort();
		if (ev->opcode != WS_TEXT && ev->opcode != WS_BINARY)
			abort();
		break;
	case WS_EV_PING:
	case WS_EV_PONG:
		if (ev->len > 125)
			abort();
		break;
	case WS_EV_CLOSE:
		if (ev->len > 123 || ev->close_code < 0 || ev->close_code > 65535)
			abort();
		break;
	case WS_EV_ERROR:
		if (!ev->error || (ev->close_code != 1002 && ev->close_code != 1009))
			abort();
		break;
	case WS_EV_NONE:
		break;
	}
	/* Touch every byte so ASan sees reads past the end. */
	if (ev->len) {
		volatile uint8_t sink = 0;
		size_t i;
		for (i = 0; i < ev->len; i++)
			sink ^= ev->data[i];
		(void)sink;
	}
}

/* 0: keep going, -1: the reader failed. */
static int drain(struct ws_reader *r, size_t max_message)
{
	struct ws_event ev;
	int guard = 0;

	do {
		ws_reader_next(r, &ev);
		check_event(&ev, max_message);
		if (ev.kind == WS_EV_ERROR) {
			/* It must stay failed. */
			ws_reader_next(r, &ev);
			if (ev.kind != WS_EV_ERROR)
				abort();
			return -1;
		}
		if (++guard > 1 << 20)
			abort();   /* events without progress */
	} while (ev.kind != WS_EV_NONE);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ws_reader r;
	size_t max_message, off = 3;
	uint8_t seed;

	if (size < 3)
		return 0;
	/* Small caps reach the 1009 paths; 0 means a roomy one. */
	max_message = data[0] ? data[0] * 4u : 1u << 20;
	seed = data[1] | 1;
	(void)data[2];
	ws_reader_init(&r, max_message);
	while (off < size) {
		size_t n = (size_t)(seed % 17) + 1;

		seed = (uint8_t)(seed * 37 + 11);
		if (n == 17)
			n = size - off;       /* sometimes all the rest */
		if (n > size - off)
			n = size - off;
		if (ws_reader_feed(&r, data + off, n) < 0)
			break;
		off += n;
		if (drain(&r, max_message) < 0)
			break;
	}
	ws_reader_release(&r);
	return 0;
}
