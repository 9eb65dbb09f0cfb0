#define _GNU_SOURCE
#include "buf.h"
#include "xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_init(struct buf *b, size_t max)
{
	b->data = NULL;
	b->len = b->cap = 0;
	b->max = max;
	b->overflowed = 0;
}

/* Capacity exactly cap (> len), the bytes and their NUL kept. */
static void set_cap(struct buf *b, size_t cap)
{
	b->data = xrealloc(b->data, cap);
	b->data[b->len] = '\0';
	b->cap = cap;
}

void buf_reserve(struct buf *b, size_t n)
{
	if (b->overflowed || b->len > b->max)
		return;
	if (n > b->max - b->len)
		n = b->max - b->len;
	if (b->len + n + 1 > b->cap)
		set_cap(b, b->len + n + 1);
}

int buf_append(struct buf *b, const void *p, size_t n)
{
	size_t need;

	if (b->overflowed || n > b->max || b->len > b->max - n) {
		buf_release(b);
		b->overflowed = 1;
		return -1;
	}
	need = b->len + n + 1;
	if (need > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < need)
			cap *= 2;
		set_cap(b, cap);
	}
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int buf_appends(struct buf *b, const char *s)
{
	return buf_append(b, s, strlen(s));
}

int buf_appendf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n, rc;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		xalloc_die();
	rc = buf_append(b, s, (size_t)n);
	free(s);
	return rc;
}

void buf_consume(struct buf *b, size_t n)
{
	if (n >= b->len) {
		b->len = 0;
	} else {
		memmove(b->data, b->data + n, b->len - n);
		b->len -= n;
	}
	if (b->data)
		b->data[b->len] = '\0';
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

void buf_release(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

char *buf_detach(struct buf *b, size_t *len)
{
	char *p = b->data ? b->data : xstrdup("");

	if (len)
		*len = b->len;
	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}

const char *buf_str(const struct buf *b)
{
	return b->data ? b->data : "";
}
