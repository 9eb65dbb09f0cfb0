#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void flatten(char *s)
{
	/* One line, always: a peer's message may carry newlines. */
	for (; *s; s++)
		if (*s == '\n' || *s == '\r' || *s == '\t')
			*s = ' ';
}

static int vset(struct err *e, enum err_kind kind, int prefixed,
		const char *fmt, va_list ap)
{
	if (!e)
		return -1;
	e->kind = kind;
	e->prefixed = prefixed;
	memset(&e->denied, 0, sizeof(e->denied));
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	flatten(e->msg);
	return -1;
}

int err_set(struct err *e, enum err_kind kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(e, kind, 0, fmt, ap);
	va_end(ap);
	return -1;
}

int err_setp(struct err *e, enum err_kind kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(e, kind, 1, fmt, ap);
	va_end(ap);
	return -1;
}

void err_clear(struct err *e)
{
	memset(e, 0, sizeof(*e));
}

const char *err_prefix(const struct err *e)
{
	return e->prefixed ? "" : "error: ";
}
