/* client-go's retry rule (rest/with_retry.go IsNextRetry, request.go
 * checkWait): which answers are retried, how long we wait, how many. */
#include "kube/http/retry.h"
#include "t.h"

static void test_answers(void)
{
	struct retry r;

	retry_init(&r, 0);
	/* 429 and any 5xx, only with a Retry-After Atoi reads; waits as told */
	CHECK_INT(retry_next(&r, 429, "2", 0), 2000);
	CHECK_INT(retry_next(&r, 503, "1", 0), 1000);
	CHECK_INT(retry_next(&r, 500, "3", 0), 3000);
	CHECK_INT(retry_next(&r, 504, "0", 0), 0);
	CHECK_INT(retry_next(&r, 429, "3600", 0), 3600000);   /* no cap of our own */
	CHECK_INT(retry_next(&r, 502, "-5", 0), 0);           /* negative: no sleep */
	retry_init(&r, 0);
	CHECK_INT(retry_next(&r, 503, "", 0), -1);            /* no Retry-After: no retry */
	retry_init(&r, 0);
	CHECK_INT(retry_next(&r, 429, NULL, 0), -1);
	retry_init(&r, 0);
	CHECK_INT(retry_next(&r, 429, "1.5", 0), -1);         /* Atoi refuses it */
	retry_init(&r, 0);
	CHECK_INT(retry_next(&r, 429, "Wed, 21 Oct 2015 07:28:00 GMT", 0), -1);
	retry_init(&r, 0);
	CHECK_INT(retry_next(&r, 404, "1", 0), -1);
	retry_init(&r, 0);
	CHECK_INT(retry_next(&r, 409, "1", 0), -1);
}

static void test_ten_retries(void)
{
	struct retry r;
	int i;

	retry_init(&r, 0);
	for (i = 0; i < RETRY_MAX; i++)
		CHECK_INT(retry_next(&r, 429, "0", 0), 0);
	CHECK_INT(retry_next(&r, 429, "0", 0), -1);
	CHECK_INT(RETRY_MAX, 10);
}

static void test_transport(void)
{
	struct retry r;

	retry_init(&r, 0);
	CHECK_INT(retry_next(&r, 0, NULL, retry_transport_error(CURLE_GOT_NOTHING)), 1000);
	CHECK_INT(retry_next(&r, 0, NULL, retry_transport_error(CURLE_RECV_ERROR)), 1000);
	CHECK_INT(retry_next(&r, 0, NULL, retry_transport_error(CURLE_COULDNT_CONNECT)), -1);
	retry_init(&r, 0);
	CHECK_INT(retry_next(&r, 0, NULL, retry_transport_error(CURLE_OPERATION_TIMEDOUT)), -1);
	CHECK(retry_transport_error(CURLE_PARTIAL_FILE));
	CHECK(retry_transport_error(CURLE_SEND_ERROR));
	CHECK(!retry_transport_error(CURLE_PEER_FAILED_VERIFICATION));
}

static void test_deadline(void)
{
	struct retry r;

	/* a wait that would end past the request's deadline ends the retries */
	retry_init(&r, 5000);
	CHECK_INT(retry_next(&r, 429, "3600", 0), -1);
	retry_init(&r, 3600 * 1000L);
	CHECK_INT(retry_next(&r, 429, "1", 0), 1000);
}

static void test_atoi(void)
{
	long s = -99;

	CHECK_INT(retry_after_seconds("12", &s), 0);
	CHECK_INT(s, 12);
	CHECK_INT(retry_after_seconds("+3", &s), 0);
	CHECK_INT(s, 3);
	CHECK_INT(retry_after_seconds(" 3", &s), -1);
	CHECK_INT(retry_after_seconds("3 ", &s), -1);
	CHECK_INT(retry_after_seconds("", &s), -1);
	CHECK_INT(retry_after_seconds("-", &s), -1);
	CHECK_INT(retry_after_seconds("99999999999999999999999", &s), -1);
}

int main(void)
{
	test_answers();
	test_ten_retries();
	test_transport();
	test_deadline();
	test_atoi();
	return T_DONE("test_retry");
}
