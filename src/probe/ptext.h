/* Line and field helpers shared by the probe parsers (internal to src/probe).
 *
 * A struct pslice is a view into the caller's text: it owns nothing, is not
 * NUL-terminated, and lives as long as the text.  Every helper is bounded by
 * the slice length, so parsers never read past what they were given.
 */
#ifndef PROBE_PTEXT_H
#define PROBE_PTEXT_H

#include <stddef.h>

struct pslice {
	const char *s;
	size_t n;
};

struct ptext {
	const char *p, *end;
};

void ptext_init(struct ptext *it, const char *t, size_t n);
/* The next line without "\n" or "\r\n"; 0 at the end of the text. */
int ptext_line(struct ptext *it, struct pslice *line);

struct pslice ps_make(const char *s, size_t n);
struct pslice ps_trim(struct pslice x);
/* Columns of leading blanks, a tab counting as 8 (tool output mixes both). */
size_t ps_indent(struct pslice x);
int ps_eq(struct pslice x, const char *lit);
int ps_eq_ci(struct pslice x, const char *lit);
int ps_starts(struct pslice x, const char *prefix);
int ps_starts_ci(struct pslice x, const char *prefix);
/* Offset of needle in x, -1 when absent. */
long ps_find(struct pslice x, const char *needle);
long ps_find_ci(struct pslice x, const char *needle);
/* Splits at the first sep; both sides trimmed.  0 when sep is absent. */
int ps_split(struct pslice x, char sep, struct pslice *key, struct pslice *val);
/* Next blank-separated token from *rest (advanced past it); 0 at the end. */
int ps_token(struct pslice *rest, struct pslice *tok);
struct pslice ps_from(struct pslice x, size_t off);
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
