#include "ptext.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int lower(int c)
{
	return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

size_t ps_indent(struct pslice x)
{
	size_t i, col = 0;

	for (i = 0; i < x.n && (x.s[i] == ' ' || x.s[i] == '\t'); i++)
		col += x.s[i] == '\t' ? 8 : 1;
	return col;
}

int ps_eq_ci(struct pslice x, const char *lit)
{
	return x.n == strlen(lit) && ps_starts_ci(x, lit);
}

int ps_starts_ci(struct pslice x, const char *prefix)
{
	size_t i, n = strlen(prefix);

	if (x.n < n)
		return 0;
	for (i = 0; i < n; i++)
		if (lower((unsigned char)x.s[i]) != lower((unsigned char)prefix[i]))
			return 0;
	return 1;
}

/* One pass: the first byte of the needle (either case) picks the
 * candidates, the rest is compared only there. */
static long find_ci(struct pslice x, const char *needle)
{
	size_t i, j, n = strlen(needle);
	int c0;

	if (n == 0)
		return 0;
	if (x.n < n)
		return -1;
	c0 = lower((unsigned char)needle[0]);
	for (i = 0; i + n <= x.n; i++) {
		if (lower((unsigned char)x.s[i]) != c0)
			continue;
		for (j = 1; j < n; j++)
			if (lower((unsigned char)x.s[i + j]) != lower((unsigned char)needle[j]))
				break;
		if (j == n)
			return (long)i;
	}
	return -1;
}

long ps_find_ci(struct pslice x, const char *needle)
{
	return find_ci(x, needle);
}

int ps_token(struct pslice *rest, struct pslice *tok)
{
	size_t i = 0, j;

	while (i < rest->n && ptext_blank((unsigned char)rest->s[i]))
		i++;
	if (i == rest->n) {
		rest->s += rest->n;
		rest->n = 0;
		return 0;
	}
	for (j = i; j < rest->n && !ptext_blank((unsigned char)rest->s[j]); j++)
		;
	*tok = ps_make(rest->s + i, j - i);
	rest->s += j;
	rest->n -= j;
	return 1;
}

void ps_copy(char *dst, size_t dstsz, struct pslice x)
{
	size_t n;

	if (!dstsz)
		return;
	n = x.n < dstsz - 1 ? x.n : dstsz - 1;
	if (n)
		memcpy(dst, x.s, n);
	dst[n] = '\0';
}

/* Numbers are copied to a small NUL-terminated buffer first: strtol and
 * strtod must never run past the slice. */
static size_t numbuf(struct pslice x, char *buf, size_t bufsz)
{
	x = ps_trim(x);
	ps_copy(buf, bufsz, x);
	return strlen(buf);
}

/* What strtol(base 10) gives on the trimmed slice's first 31 bytes (the
 * buffer the other number readers copy to), without the copy: an optional
 * sign, then at least one digit; out of range saturates like strtol. */
int ps_long(struct pslice x, long *out)
{
	unsigned long v = 0, limit;
	size_t i = 0;
	int neg = 0, over = 0;

	x = ps_trim(x);
	if (x.n > 31)
		x.n = 31;
	if (x.n && (x.s[0] == '-' || x.s[0] == '+')) {
		neg = x.s[0] == '-';
		i = 1;
	}
	if (i >= x.n || x.s[i] < '0' || x.s[i] > '9')
		return 0;
	limit = neg ? (unsigned long)LONG_MAX + 1 : (unsigned long)LONG_MAX;
	for (; i < x.n && x.s[i] >= '0' && x.s[i] <= '9'; i++) {
		unsigned d = (unsigned)(x.s[i] - '0');

		if (v > (limit - d) / 10)
			over = 1;
		else
			v = v * 10 + d;
	}
	if (over)
		*out = neg ? LONG_MIN : LONG_MAX;
	else
		*out = neg ? (long)(0 - v) : (long)v;
	return 1;
}

int ps_long_auto(struct pslice x, long *out)
{
	char buf[32], *end;
	long v;

	if (!numbuf(x, buf, sizeof buf) || !(buf[0] >= '0' && buf[0] <= '9'))
		return 0;
	v = strtol(buf, &end, 0);
	if (end == buf)
		return 0;
	*out = v;
	return 1;
}

/* 10^0..10^22: exact in a double. */
static const double pow10_exact[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* digits[.digits] with at most 15 digits in all: the integer of all digits
 * and the division by 10^k are exact operands, so the one rounding of the
 * division gives the correctly rounded value, which is what strtod returns
 * (Clinger's fast path); 0 when the text is not that simple. */
static int fast_decimal(const char *s, double *out)
{
	unsigned long long m = 0;
	int digits = 0, frac = -1;

	for (; *s; s++) {
		if (*s == '.' && frac < 0) {
			frac = 0;
			continue;
		}
		if (*s < '0' || *s > '9' || ++digits > 15)
			return 0;
		m = m * 10 + (unsigned)(*s - '0');
		if (frac >= 0)
			frac++;
	}
	if (!digits)
		return 0;
	*out = (double)m / pow10_exact[frac > 0 ? frac : 0];
	return 1;
}

int ps_double(struct pslice x, double *out)
{
	char buf[32], *end;
	double v;
	size_t i;

	if (!numbuf(x, buf, sizeof buf) || !(buf[0] >= '0' && buf[0] <= '9'))
		return 0;
	/* Only plain decimals: strtod would also take hex, inf and nan. */
	for (i = 0; buf[i] && ((buf[i] >= '0' && buf[i] <= '9') || buf[i] == '.'); i++)
		;
	buf[i] = '\0';
	if (fast_decimal(buf, out))
		return 1;
	v = strtod(buf, &end);
	if (end == buf)
		return 0;
	*out = v;
	return 1;
}

int ps_hex64(struct pslice x, unsigned long long *out)
{
	unsigned long long v = 0;
	size_t i, digits = 0;

	x = ps_trim(x);
	for (i = 0; i < x.n && digits < 16; i++, digits++) {
		int c = lower((unsigned char)x.s[i]), d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else
			break;
		v = (v << 4) | (unsigned)d;
	}
	if (!digits)
		return 0;
	*out = v;
	return 1;
}

int ps_is_digits(struct pslice x)
{
	size_t i;

	if (!x.n)
		return 0;
	for (i = 0; i < x.n; i++)
		if (x.s[i] < '0' || x.s[i] > '9')
			return 0;
	return 1;
}
