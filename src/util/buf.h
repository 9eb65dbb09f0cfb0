/* A growable byte buffer with a hard size cap (after curl's dynbuf).
 *
 * Everything that holds bytes from the network or a file goes through one of
 * these, each created with an explicit maximum, so that a lying peer cannot
 * make us grow without bound.  Invariants: data is NULL or NUL-terminated
 * (the NUL is not counted in len and does not count against max); the buffer
 * owns data until buf_detach().  An append that would pass max frees the
 * buffer, marks it overflowed and returns -1, so callers need not clean up.
 */
#ifndef UTIL_BUF_H
#define UTIL_BUF_H

#include <stddef.h>

struct buf {
	char *data;
	size_t len;
	size_t cap;
	size_t max;
	int overflowed;
};

#define BUF_INIT(max_) { NULL, 0, 0, (max_), 0 }

void buf_init(struct buf *b, size_t max);
/* 0 on success, -1 when the cap would be passed (buffer is then released). */
int buf_append(struct buf *b, const void *p, size_t n);
int buf_appends(struct buf *b, const char *s);
/* Room for n more bytes in one allocation, so that appends up to it do not
 * copy the bytes again (n cut at the cap; never marks an overflow). */
void buf_reserve(struct buf *b, size_t n);
int buf_appendf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Drops the first n bytes, keeping the rest (for stream parsers). */
void buf_consume(struct buf *b, size_t n);
void buf_reset(struct buf *b);
/* Frees the contents; the buffer may be reused with the same cap. */
void buf_release(struct buf *b);
/* Hands the (always non-NULL, NUL-terminated) bytes to the caller, who frees them. */
char *buf_detach(struct buf *b, size_t *len);
/* Never NULL: "" for an empty buffer. */
const char *buf_str(const struct buf *b);

#endif
