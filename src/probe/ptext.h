/* Line and field helpers shared by the probe parsers (internal to src/probe).
 *
 * A struct pslice is a view into the caller's text: it owns nothing, is not
 * NUL-terminated, and lives as long as the text.  Every helper is bounded by
 * the slice length, so parsers never read past what they were given.
 */
#ifndef PROBE_PTEXT_H
#define PROBE_PTEXT_H

#include <stddef.h>
#include <string.h>

struct pslice {
	const char *s;
	size_t n;
};

struct ptext {
	const char *p, *end;
};

/* The helpers every line goes through are inline: with a string literal
 * the compiler folds strlen and expands the short memcmp, so a chain of
 * key compares costs a length test each (issue 16: instructions per byte). */
static inline int ptext_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static inline void ptext_init(struct ptext *it, const char *t, size_t n)
{
	it->p = t;
	it->end = t ? t + n : t;
}

/* The next line without "\n" or "\r\n"; 0 at the end of the text. */
static inline int ptext_line(struct ptext *it, struct pslice *line)
{
	const char *nl;

	if (!it->p || it->p >= it->end)
		return 0;
	nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
	line->s = it->p;
	line->n = (size_t)((nl ? nl : it->end) - it->p);
	it->p = nl ? nl + 1 : it->end;
	if (line->n && line->s[line->n - 1] == '\r')
		line->n--;
	return 1;
}

static inline struct pslice ps_make(const char *s, size_t n)
{
	struct pslice x = { s, n };
	return x;
}

static inline struct pslice ps_trim(struct pslice x)
{
	while (x.n && ptext_blank((unsigned char)x.s[0])) {
		x.s++;
		x.n--;
	}
	while (x.n && ptext_blank((unsigned char)x.s[x.n - 1]))
		x.n--;
	return x;
}

/* Columns of leading blanks, a tab counting as 8 (tool output mixes both). */
size_t ps_indent(struct pslice x);

static inline int ps_eq(struct pslice x, const char *lit)
{
	size_t n = strlen(lit);

	return x.n == n && (n == 0 || !memcmp(x.s, lit, n));
}

int ps_eq_ci(struct pslice x, const char *lit);

static inline int ps_starts(struct pslice x, const char *prefix)
{
	size_t n = strlen(prefix);

	return x.n >= n && (n == 0 || !memcmp(x.s, prefix, n));
}

int ps_starts_ci(struct pslice x, const char *prefix);
/* Offset of needle in x, -1 when absent. */
static inline long ps_find(struct pslice x, const char *needle)
{
	size_t n = strlen(needle), o = 0;
	const char *p, *end = x.s + x.n;

	if (n == 0)
		return 0;
	if (x.n < n)
		return -1;
	/* memchr for a non-blank byte of the needle (the log scanner runs
	 * this on every line; nvidia-smi's " : " would stop memchr at every
	 * space of a padded line): p + o walks candidates for needle[o]. */
	while (o + 1 < n && needle[o] == ' ')
		o++;
	for (p = x.s; (size_t)(end - p) >= n; p++) {
		const char *hit = memchr(p + o, needle[o], (size_t)(end - p) - n + 1);

		if (!hit)
			break;
		p = hit - o;
		if (!memcmp(p, needle, n))
			return (long)(p - x.s);
	}
	return -1;
}

long ps_find_ci(struct pslice x, const char *needle);
static inline struct pslice ps_from(struct pslice x, size_t off)
{
	if (off > x.n)
		off = x.n;
	return ps_make(x.s + off, x.n - off);
}

/* Splits at the first sep; both sides trimmed.  0 when sep is absent. */
static inline int ps_split(struct pslice x, char sep, struct pslice *key,
			   struct pslice *val)
{
	const char *at = x.n ? memchr(x.s, sep, x.n) : NULL;

	if (!at)
		return 0;
	*key = ps_trim(ps_make(x.s, (size_t)(at - x.s)));
	*val = ps_trim(ps_make(at + 1, x.n - (size_t)(at - x.s) - 1));
	return 1;
}

/* Next blank-separated token from *rest (advanced past it); 0 at the end. */
int ps_token(struct pslice *rest, struct pslice *tok);
/* Copies into dst (always NUL-terminated, truncated to fit). */
void ps_copy(char *dst, size_t dstsz, struct pslice x);
/* Leading decimal integer (optional sign); 0 when there is none. */
int ps_long(struct pslice x, long *out);
/* Leading "0x..." or decimal integer. */
int ps_long_auto(struct pslice x, long *out);
/* Leading decimal number ("26.562"); 0 when none. */
int ps_double(struct pslice x, double *out);
/* Hex digits (no prefix), up to 64 bits; 0 when none. */
int ps_hex64(struct pslice x, unsigned long long *out);
/* True when every byte is a decimal digit and there is at least one. */
int ps_is_digits(struct pslice x);

#endif
