/* Version ranges of the known-issues table (docs/known-issues.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/known_int.h"

/* "1.3.1", "0.10.0.post1", "1.4.0rc2" as four numbers (a pre-release
 * counts as its release, ".post1" as no number). */
static void ver_parse(const char *s, long v[4])
{
	v[0] = v[1] = v[2] = v[3] = 0;
	for (int i = 0; i < 4 && s && *s >= '0' && *s <= '9'; i++) {
		v[i] = strtol(s, (char **)&s, 10);
		if (*s != '.')
			break;
		s++;
	}
}

int known_ver_cmp(const char *a, const char *b)
{
	long x[4], y[4];

	ver_parse(a, x);
	ver_parse(b, y);
	for (int i = 0; i < 4; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

int known_in_range(const char *ranges, const char *v)
{
	char from[48], until[48];

	for (const char *p = ranges; *p;) {
		size_t len = strcspn(p, " "), dash = strcspn(p, "-");

		if (len && dash < len) {
			copy_strn(from, sizeof from, p, dash);
			copy_strn(until, sizeof until, p + dash + 1, len - dash - 1);
			if (known_ver_cmp(v, from) >= 0 && (!until[0] || known_ver_cmp(v, until) < 0))
				return 1;
		}
		p += len;
		p += strspn(p, " ");
	}
	return 0;
}
