/* An API server's non-2xx answer in kubectl's words: a Status object's
 * message and reason when the body is one, else client-go's generic text
 * for the code (k8s.io/apimachinery errors.go, NewGenericServerResponse). */
#include <cjson/cJSON.h>
#include <string.h>

#include "http.h"

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

