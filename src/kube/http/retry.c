/* client-go's retry decisions (retry.h). */
#include "retry.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <time.h>

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void retry_init(struct retry *r, long timeout_ms)
{
	r->attempts = 0;
	r->deadline_ms = timeout_ms > 0 ? mono_ms() + timeout_ms : 0;
}

int retry_after_seconds(const char *v, long *secs)
{
	const char *p = v;
	char *end;
	long n;

	if (!v || !*v)
		return -1;
	if (*p == '+' || *p == '-')
		p++;
	if (*p < '0' || *p > '9')
		return -1;
	errno = 0;
	n = strtol(v, &end, 10);
	if (*end || errno == ERANGE)
		return -1;
	*secs = n;
	return 0;
}

int retry_transport_error(CURLcode rc)
{
	return rc == CURLE_GOT_NOTHING || rc == CURLE_RECV_ERROR ||
	       rc == CURLE_SEND_ERROR || rc == CURLE_PARTIAL_FILE;
}

long retry_next(struct retry *r, long status, const char *retry_after,
		int transport_retryable)
{
	long secs = 0;
	long long ms;

	if (++r->attempts > RETRY_MAX)
		return -1;
	if (status == 0) {
		if (!transport_retryable)
			return -1;
		secs = 1;   /* client-go's artificial "Retry-After: 1" */
	} else if (status != 429 && status < 500) {
		return -1;
	} else if (retry_after_seconds(retry_after, &secs) < 0) {
		return -1;
	}
	/* Go sleeps time.Duration(seconds)*time.Second; a negative one is no
	 * sleep at all. */
	ms = secs > 0 ? (secs > LONG_MAX / 1000 ? LONG_MAX : secs * 1000L) : 0;
	if (r->deadline_ms && mono_ms() + ms >= r->deadline_ms)
		return -1;
	return (long)ms;
}
