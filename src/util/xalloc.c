#define _GNU_SOURCE
#include "xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void xalloc_die(void)
{
	fputs("fatal: out of memory\n", stderr);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		xalloc_die();
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		xalloc_die();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		xalloc_die();
	return q;
}

void *xalloc_grow(void *p, size_t nr, size_t *alloc, size_t size)
{
	size_t n;

	if (nr <= *alloc)
		return p;
	n = *alloc < 8 ? 8 : *alloc + *alloc / 2;
	if (n < nr)
		n = nr;
	if (size && n > (size_t)-1 / size)
		xalloc_die();
	*alloc = n;
	return xrealloc(p, n * size);
}

char *xstrdup(const char *s)
{
	return s ? xstrndup(s, strlen(s)) : NULL;
}

char *xstrndup(const char *s, size_t n)
{
	char *p;

	if (!s)
		return NULL;
	p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		xalloc_die();
	va_end(ap);
	return s;
}
