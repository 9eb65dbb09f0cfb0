#include "safe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "xalloc.h"

size_t safe_utf8_seq(const unsigned char *p, unsigned *cp)
{
	unsigned c = p[0], min;
	size_t n, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, c &= 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, c &= 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, c &= 0x07, min = 0x10000;
	else
		return 0;
	/* Continuation bytes: the NUL terminator is never one, so a
	 * truncated sequence stops here without reading past the end. */
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (p[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/* Code points that reorder or hide text on a terminal: the bidi embedding,
 * override and isolate controls and the marks (Unicode UAX #9, the set
 * "Trojan Source", CVE-2021-42574, abuses). */
static int is_bidi(unsigned c)
{
	return c == 0x061c || c == 0x200e || c == 0x200f ||
	       (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

int safe_is_control(unsigned c)
{
	return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) || is_bidi(c);
}

/* The escape for one code point, or NULL when it prints as is. */
static const char *term_escape(unsigned c, char tmp[16], int keep_nl)
{
	if (c == '\n' && keep_nl)
		return NULL;
	if (c == 0x1b)
		return "^[";
	if (c == '\r')
		return "\\r";
	if (c == '\n')
		return "\\n";
	if (c == '\t')
		return "\\t";
	if (c < 0x20) {
		snprintf(tmp, 16, "^%c", (char)(c + 0x40));
		return tmp;
	}
	if (c == 0x7f)
		return "^?";
	if ((c >= 0x80 && c <= 0x9f) || is_bidi(c)) {
		snprintf(tmp, 16, "\\u%04x", c);
		return tmp;
	}
	return NULL;
}

static int is_term(const char *s, int keep_nl)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned cp;
	size_t n;
	char tmp[16];

	if (!s)
		return 1;
	while (*p) {
		n = safe_utf8_seq(p, &cp);
		if (!n || term_escape(cp, tmp, keep_nl))
			return 0;
		p += n;
	}
	return 1;
}

int safe_is_term(const char *s)
{
	return is_term(s, 0);
}

/* keep_nl: LF stays as it is; doc: a byte outside valid UTF-8 becomes
 * U+FFFD (the JSON/YAML rule) rather than "\xff". */
static char *term(const char *s, int keep_nl, int doc)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	struct buf b = BUF_INIT((size_t)-1);
	const char *esc;
	char tmp[16];
	unsigned cp;
	size_t n;

	while (*p) {
		n = safe_utf8_seq(p, &cp);
		if (!n) {
			if (doc)
				buf_appends(&b, "\xef\xbf\xbd"); /* U+FFFD */
			else
				buf_appendf(&b, "\\x%02x", *p);
			p++;
			continue;
		}
		esc = term_escape(cp, tmp, keep_nl);
		if (esc)
			buf_appends(&b, esc);
		else
			buf_append(&b, p, n);
		p += n;
	}
	return buf_detach(&b, NULL);
}

char *safe_term(const char *s)
{
	return term(s, 0, 0);
}

char *safe_term_text(const char *s)
{
	return term(s, 1, 0);
}

char *safe_doc(const char *s)
{
	return term(s, 1, 1);
}

int safe_is_doc(const char *s)
{
	return is_term(s, 1);
}

const char *safe_show(const char *s)
{
	static _Thread_local char *ring[16];
	static _Thread_local unsigned next;
	char **slot = &ring[next++ % 16];

	free(*slot);
	*slot = safe_term(s);
	return *slot;
}

int safe_is_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned cp;
	size_t n;

	if (!s)
		return 1;
	while (*p) {
		n = safe_utf8_seq(p, &cp);
		if (!n)
			return 0;
		p += n;
	}
	return 1;
}

char *safe_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	struct buf b = BUF_INIT((size_t)-1);
	unsigned cp;
	size_t n;

	while (*p) {
		n = safe_utf8_seq(p, &cp);
		if (!n) {
			buf_appends(&b, "\xef\xbf\xbd"); /* U+FFFD */
			p++;
			continue;
		}
		buf_append(&b, p, n);
		p += n;
	}
	return buf_detach(&b, NULL);
}

void safe_put_line(FILE *out, const char *prefix, const char *s)
{
	char *t = safe_term(s);

	fprintf(out, "%s%s\n", prefix, t);
	free(t);
}
