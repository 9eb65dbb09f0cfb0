/* When to try a request again, as client-go's rest client decides
 * (rest/with_retry.go IsNextRetry, rest/request.go checkWait and the
 * IsRetryableErrorFunc of Request.Do):
 *   - at most 10 retries (maxRetries: 10), 11 attempts in all;
 *   - an answer is retried only when it is 429 or 5xx AND carries a
 *     Retry-After that strconv.Atoi reads; the wait is what it says
 *     (no cap, no back-off of our own); without Retry-After: no retry;
 *   - for a GET, a connection reset or EOF (no answer) is retried after
 *     1 s, as client-go's artificial "Retry-After: 1" 500 answer does;
 *   - never past the request's deadline (--request-timeout): a wait that
 *     would end after it ends the retries instead.
 * An exec upgrade uses the same rule before the 101; after it nothing is
 * retried (the command may have run).
 */
#ifndef KUBE_RETRY_H
#define KUBE_RETRY_H

#include <curl/curl.h>

#define RETRY_MAX 10

struct retry {
	int attempts;           /* retries granted so far */
	long long deadline_ms;  /* CLOCK_MONOTONIC ms; 0: none */
};

/* timeout_ms: the whole request's budget, 0 for none. */
void retry_init(struct retry *r, long timeout_ms);

/* After an attempt that got an answer (status) or none (status 0, with
 * transport_retryable from retry_transport_error()): the milliseconds to
 * wait before the next attempt, or -1 to give up. */
long retry_next(struct retry *r, long status, const char *retry_after,
		int transport_retryable);

/* Whether a curl failure is what client-go's IsConnectionReset /
 * IsProbableEOF accept: the server closed or reset the connection
 * (CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR,
 * CURLE_PARTIAL_FILE).  A refused connection or a timeout is not. */
int retry_transport_error(CURLcode rc);

/* Retry-After as strconv.Atoi reads it: optional sign, digits, nothing
 * else.  0 and the value in *secs, or -1. */
int retry_after_seconds(const char *v, long *secs);

#endif
