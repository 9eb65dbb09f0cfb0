/* An API server's non-2xx answer in kubectl's words: a Status object's
 * message and reason when the body is one, else client-go's generic text
 * for the code (k8s.io/apimachinery errors.go, NewGenericServerResponse). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "http.h"
#include "http_int.h"

/* client-go's messages for answers that carry no Status (errors.go,
 * NewGenericServerResponse). */
static void generic_reason(long status, const char **reason, const char **msg)
{
	static const struct { long code; const char *reason, *msg; } t[] = {
		{ 400, "BadRequest", "the server rejected our request for an unknown reason" },
		{ 401, "Unauthorized", "the server has asked for the client to provide credentials" },
		{ 403, "Forbidden", "the server does not allow access to the requested resource" },
		{ 404, "NotFound", "the server could not find the requested resource" },
		{ 405, "MethodNotAllowed", "the server does not allow this method on the requested resource" },
		{ 409, "Conflict", "the server reported a conflict" },
		{ 422, "Invalid", "the server rejected our request due to an error in our request" },
		{ 429, "TooManyRequests", "the server has received too many requests and has asked us to try again later" },
		{ 503, "ServiceUnavailable", "the server is currently unable to handle the request" },
		{ 504, "Timeout", "the server was unable to return a response in the time allotted, but may still be processing the request" },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].code == status) {
			*reason = t[i].reason;
			*msg = t[i].msg;
			return;
		}
	*reason = status >= 500 ? "InternalError" : "";
	*msg = NULL;
}

/* Copies the quoted word after key in s into out; 0 when absent. */
static int quoted_after(const char *s, const char *key, char *out, size_t n)
{
	const char *p = strstr(s, key), *q;

	if (!p)
		return 0;
	p += strlen(key);
	q = strchr(p, '"');
	if (!q || (size_t)(q - p) >= n)
		return 0;
	memcpy(out, p, (size_t)(q - p));
	out[q - p] = '\0';
	return 1;
}

/* What RBAC refused, read once here where the server's words arrive:
 * 'User "u" cannot VERB resource "RES" in API group "" in the namespace
 * "NS"' (k8s.io/apiserver pkg/endpoints/handlers/responsewriters/errors.go,
 * forbiddenMessage; RES is resource/subresource).  Anything else leaves d
 * empty: the message is still shown, only no hint comes from it. */
void http_status_denial(const char *msg, struct err_denial *d)
{
	static const char cannot[] = "\" cannot ", res[] = " resource \"";
	const char *c, *v;
	size_t vn;

	memset(d, 0, sizeof(*d));
	if (!msg || !strstr(msg, "forbidden") || !(c = strstr(msg, cannot)))
		return;
	v = c + strlen(cannot);
	vn = strcspn(v, " ");
	if (vn == 0 || vn >= sizeof(d->verb) || strncmp(v + vn, res, strlen(res)) ||
	    !quoted_after(v + vn, res, d->resource, sizeof(d->resource))) {
		d->resource[0] = '\0';
		return;
	}
	memcpy(d->verb, v, vn);
	d->verb[vn] = '\0';
	quoted_after(msg, "User \"", d->user, sizeof(d->user));
	quoted_after(msg, "in the namespace \"", d->ns, sizeof(d->ns));
}

static int status_from_json(long status, const cJSON *j, struct err *e)
{
	const cJSON *kind = cJSON_GetObjectItemCaseSensitive(j, "kind");
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(j, "message");
	const cJSON *reason = cJSON_GetObjectItemCaseSensitive(j, "reason");
	const char *m = cJSON_IsString(msg) ? msg->valuestring : "";
	const char *r = cJSON_IsString(reason) ? reason->valuestring : "";

	if (!cJSON_IsString(kind) || strcmp(kind->valuestring, "Status"))
		return 0;
	if (status == 401 || !strcmp(r, "Unauthorized"))
		err_set(e, ERR_AUTH, "You must be logged in to the server (%s)",
			*m ? m : "Unauthorized");
	else if (*r)
		err_setp(e, ERR_API, "Error from server (%s): %s", r, m);
	else
		err_setp(e, ERR_API, "Error from server: %s", m);
	if (e && (status == 403 || !strcmp(r, "Forbidden")))
		http_status_denial(m, &e->denied);
	return 1;
}

int http_status_error(long status, const char *body, size_t len,
		      struct err *e)
{
	cJSON *j = len ? cJSON_ParseWithLength(body, len) : NULL;
	const char *reason, *msg;
	int done = j && status_from_json(status, j, e);

	cJSON_Delete(j);
	if (e)
		e->http_status = status;
	if (done)
		return -1;
	generic_reason(status, &reason, &msg);
	if (status == 401)
		return err_set(e, ERR_AUTH,
			       "You must be logged in to the server (Unauthorized)");
	if (!msg) {
		/* Bodies are the server's words: keep them, bounded, one line. */
		return err_setp(e, ERR_API,
				"Error from server (%s): an error on the server (\"%.200s\") "
				"has prevented the request from succeeding",
				*reason ? reason : "Unknown", len ? body : "unknown");
	}
	return err_setp(e, ERR_API, "Error from server (%s): %s", reason, msg);
}

/* ---- a connect timeout (http.c words every other curl error) ---- */

/* A timeout before any connection was made: the connect timeout fired
 * (CURLOPT_CONNECTTIMEOUT_MS, http_connect_timeout_ms), not the request's
 * deadline.  A transfer on a kept-alive or multiplexed connection has no
 * connect time either (curl 7.88 counts none for a reused connection):
 * that one sent its request, so a request sent says it was the deadline. */
int http_connect_timed_out(CURL *h, CURLcode rc)
{
	curl_off_t us = 0;
	long sent = 0;

	return rc == CURLE_OPERATION_TIMEDOUT && h &&
	       curl_easy_getinfo(h, CURLINFO_CONNECT_TIME_T, &us) == CURLE_OK && us == 0 &&
	       curl_easy_getinfo(h, CURLINFO_REQUEST_SIZE, &sent) == CURLE_OK && sent == 0;
}

/* In kubectl's words, Go's dial error ("dial tcp 10.0.0.1:443: i/o
 * timeout", net/http's Dialer with its Timeout), then which deadline that
 * was, so the 15 s connect timeout is never taken for the 60 s one. */
int http_connect_timeout_error(const char *url_host, long ms, CURL *h, struct err *e)
{
	char *ip = NULL, to[32];
	long port = 0;

	curl_easy_getinfo(h, CURLINFO_PRIMARY_IP, &ip);
	curl_easy_getinfo(h, CURLINFO_PRIMARY_PORT, &port);
	if (ms % 1000)
		snprintf(to, sizeof(to), "%ld ms", ms);
	else
		snprintf(to, sizeof(to), "%ld s", ms / 1000);
	if (ip && *ip && port > 0)
		return err_setp(e, ERR_TIMEOUT, "Unable to connect to the server: dial tcp %s%s%s:%ld: "
				"i/o timeout (no connection within the connect timeout of %s)",
				strchr(ip, ':') ? "[" : "", ip, strchr(ip, ':') ? "]" : "", port, to);
	return err_setp(e, ERR_TIMEOUT, "Unable to connect to the server: dial tcp %s: i/o timeout "
			"(no connection within the connect timeout of %s)", url_host, to);
}
