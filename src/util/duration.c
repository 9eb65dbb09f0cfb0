/* Durations as kubectl reads --request-timeout (ParseTimeout in
 * k8s.io/kubectl/pkg/cmd/util/helpers.go: a bare integer is seconds,
 * else Go's time.ParseDuration). */
#include "duration.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TIMEOUT_ERROR "Invalid timeout value. Timeout must be a single integer in " \
	"seconds, or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h)"

/* Nanoseconds per unit of Go's time.ParseDuration, 0 when unknown. */
static double unit_ns(const char *u, size_t n)
{
	static const struct { const char *name; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "\xc2\xb5s", 1e3 }, { "\xce\xbcs", 1e3 },
		{ "ms", 1e6 }, { "s", 1e9 }, { "m", 60e9 }, { "h", 3600e9 },
	};
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strlen(units[i].name) == n && !memcmp(units[i].name, u, n))
			return units[i].ns;
	return 0;
}

/* One "<number><unit>" component; advances *p.  -1 on a syntax error. */
static int duration_part(const char **p, double *ns)
{
	const char *s = *p, *u;
	double value = 0, scale = 1, per;
	int digits = 0;

	for (; *s >= '0' && *s <= '9'; s++, digits++)
		value = value * 10 + (*s - '0');
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++, digits++)
			value += (*s - '0') * (scale /= 10);
	for (u = s; *s && *s != '.' && (*s < '0' || *s > '9'); s++)
		;
	if (!digits || !(per = unit_ns(u, (size_t)(s - u))))
		return -1;
	*ns += value * per;
	*p = s;
	return 0;
}

static int parse_duration(const char *s, double *ns)
{
	*ns = 0;
	if (*s == '+')
		s++;
	if (!strcmp(s, "0"))
		return 0;
	if (!*s)
		return -1;
	while (*s)
		if (duration_part(&s, ns) < 0)
			return -1;
	return 0;
}

int duration_parse_ms(const char *s, long *ms, struct err *e)
{
	double ns;
	char *end;
	long long secs;

	*ms = 0;
	errno = 0;
	secs = strtoll(s, &end, 10);
	if (*s && *s != '-' && *s != ' ' && !*end && !errno) {
		if (secs > (long long)(9.2e15))
			return err_set(e, ERR_USAGE, TIMEOUT_ERROR);
		*ms = (long)(secs * 1000);
		return 0;
	}
	if (parse_duration(s, &ns) < 0 || ns > 9.2e18)
		return err_set(e, ERR_USAGE, TIMEOUT_ERROR);
	*ms = (long)(ns / 1e6);
	if (*ms == 0 && ns > 0)
		*ms = 1;   /* 0 would mean "no timeout" */
	return 0;
}

/* The largest unit that divides ms exactly: "1h", "90s", "250ms". */
void duration_format_ms(long ms, char *out, size_t n)
{
	if (ms && ms % 3600000 == 0)
		snprintf(out, n, "%ldh", ms / 3600000);
	else if (ms && ms % 60000 == 0)
		snprintf(out, n, "%ldm", ms / 60000);
	else if (ms && ms % 1000 == 0)
		snprintf(out, n, "%lds", ms / 1000);
	else
		snprintf(out, n, "%ldms", ms);
}
