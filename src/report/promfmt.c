/* The pieces of the Prometheus text format (exposition_formats.md) every
 * metrics printer shares (report_int.h): a label value escaped as the
 * format says, a metric's HELP and TYPE lines, and the pass that keeps
 * every series once.  Calls no printer, so prom.c and dgd.c both call down
 * into it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "util/safe.h"
#include "util/xalloc.h"

#define P "dynamo_interconnect_"

/* The escape of one code point of a label value, written to out; 0 when
 * it is written as it is.  The format escapes backslash, quote and line
 * feed only (client_golang expfmt writeEscapedString) and carries other
 * controls raw; those are spelled "\xNN" (C1 and bidi "\u0085", as
 * util/safe.c does for a terminal) with the backslash itself doubled, so
 * nothing raw reaches a terminal and two distinct names stay distinct
 * (issue 37 item 4: "w\x01" and "w\x02" were both "w?", one series). */
static int escape_cp(FILE *out, unsigned cp)
{
	if (cp == '\\')
		fputs("\\\\\\\\", out);         /* the value holds "\\" */
	else if (cp == '"')
		fputs("\\\"", out);
	else if (cp == '\n')
		fputs("\\n", out);
	else if (safe_is_control(cp))
		fprintf(out, cp < 0x80 ? "\\\\x%02x" : "\\\\u%04x", cp);
	else
		return 0;
	return 1;
}

void report_prom_value(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	unsigned cp;
	size_t n;

	while (*p) {
		n = safe_utf8_seq(p, &cp);
		if (!n) {
			fprintf(out, "\\\\x%02x", *p++);   /* not UTF-8: the byte, visibly */
			continue;
		}
		if (!escape_cp(out, cp))
			fwrite(p, 1, n, out);
		p += n;
	}
}

void report_prom_head(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP " P "%s %s\n# TYPE " P "%s %s\n", name, help, name, type);
}

/* ---- Every series once --------------------------------------------------
 * Escaping keeps distinct names distinct, but not names that were one
 * before they reached us: C strings end at a NUL, so DGD components "w"
 * and "w\0x" are both "w", and two pods or graphs may repeat.  The same
 * series twice makes the whole text invalid (the Pushgateway answers 400
 * and keeps the stale group: client_golang registry.go
 * checkMetricConsistency, "was collected before with the same name and
 * label values"); the second gets a label duplicate="2" (the third "3"),
 * so no value is lost and no alert matches it by accident.  A family with
 * more label names on some series is allowed since client_golang 0.9
 * (PR #417, "Relax consistency checks during gathering", which the
 * Pushgateway's merged Gatherers rely on). */

struct seen {
	const char *key;        /* the series: the line up to its last blank */
	size_t len;
	unsigned count;
};

static size_t hash(const char *s, size_t n)
{
	size_t h = 14695981039346656037ULL;     /* FNV-1a */

	while (n--)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

/* The times this series has been seen, counting this one. */
static unsigned count(struct seen *tab, size_t mask, const char *key, size_t len)
{
	size_t i = hash(key, len) & mask;

	while (tab[i].key && (tab[i].len != len || memcmp(tab[i].key, key, len)))
		i = (i + 1) & mask;
	tab[i].key = key;
	tab[i].len = len;
	return ++tab[i].count;
}

static void put_line(FILE *out, const char *line, size_t key, size_t len, unsigned n)
{
	if (n < 2) {
		fwrite(line, 1, len, out);
	} else if (key && line[key - 1] == '}') {
		fprintf(out, "%.*s,duplicate=\"%u\"%.*s", (int)(key - 1), line, n,
			(int)(len - key + 1), line + key - 1);
	} else {
		fprintf(out, "%.*s{duplicate=\"%u\"}%.*s", (int)key, line, n, (int)(len - key),
			line + key);
	}
}

int report_prom_unique(FILE *out, const char *text, size_t len)
{
	size_t lines = 1, cap = 16, i;
	struct seen *tab;
	const char *p = text, *end = text + len;

	for (i = 0; i < len; i++)
		lines += text[i] == '\n';
	while (cap < 2 * lines)
		cap *= 2;
	tab = xcalloc(cap, sizeof(*tab));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p), key = n;

		while (key && p[key - 1] != ' ')
			key--;
		key = key ? key - 1 : 0;        /* up to the blank before the value */
		put_line(out, p, key, n, *p == '#' || !key ? 1 : count(tab, cap - 1, p, key));
		p += n;
	}
	free(tab);
	return ferror(out) ? -1 : 0;
}
