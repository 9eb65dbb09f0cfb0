#include "log.h"
#include "safe.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <time.h>

static int g_level;

void log_set_level(int level)
{
	g_level = level;
}

int log_level(void)
{
	return g_level;
}

int log_enabled(int level)
{
	return g_level >= level;
}

void log_at(int level, const char *fmt, ...)
{
	va_list ap;
	char line[2048], *safe;
	struct timespec ts;
	struct tm tm;

	if (g_level < level)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	/* Headers and bodies come from the server: the terminal rule. */
	safe = safe_term(line);
	/* klog's header, so the lines sort and read like kubectl -v output. */
	fprintf(stderr, "I%02d%02d %02d:%02d:%02d.%06ld] %s\n", tm.tm_mon + 1,
		tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		ts.tv_nsec / 1000, safe);
	free(safe);
}

static int is_secret_header(const char *name)
{
	return !strcasecmp(name, "Authorization") ||
	       !strcasecmp(name, "Proxy-Authorization") ||
	       !strcasecmp(name, "Cookie");
}

void log_header(const char *name, const char *value)
{
	if (!log_enabled(7))
		return;
	if (is_secret_header(name)) {
		/* kubectl keeps the scheme and hides the rest. */
		const char *sp = value;
		while (*sp && *sp != ' ')
			sp++;
		log_at(7, "    %s: %.*s <masked>", name, (int)(sp - value), value);
		return;
	}
	log_at(7, "    %s: %s", name, value);
}

void log_body(const char *what, const char *data, size_t len)
{
	const size_t cap = 10240;

	if (!log_enabled(8))
		return;
	log_at(8, "%s: %.*s%s", what, (int)(len > cap ? cap : len), data,
	       len > cap ? " [truncated]" : "");
}
