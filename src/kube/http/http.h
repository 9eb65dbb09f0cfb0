/* HTTP to the API server through libcurl: GETs with Status errors, retries
 * and re-authentication, and pre-configured easy handles for the exec
 * upgrade (exec.h), which talks raw HTTP/1.1 over CURLOPT_CONNECT_ONLY.
 *
 * One struct http_client per run.  It borrows the struct kube_config (which
 * must outlive it) and owns a curl share handle so that parallel requests
 * reuse TLS sessions and DNS answers, and one thread that performs every
 * GET on one connection (HTTP/2 streams, as kubectl's; mux.h), started by
 * the first GET and ended by http_client_free.  Safe to use from several
 * threads: each request uses its own easy handle.
 */
#ifndef KUBE_HTTP_H
#define KUBE_HTTP_H

#include <curl/curl.h>
#include <stddef.h>

#include "model/cancel.h"
#include "util/buf.h"
#include "util/err.h"
#include "kube/config/kubeconfig.h"

#define HTTP_MAX_BODY (64u << 20)   /* cap on any response body */

struct http_client;

struct http_response {
	long status;
	struct buf body;   /* owned; release with http_response_release() */
};

/* Returns a new client; free with http_client_free().  Call after
 * auth_prepare() and before starting threads that use it: the first call
 * initialises libcurl for the process. */
struct http_client *http_client_new(struct kube_config *cfg);
void http_client_free(struct http_client *c);
const struct kube_config *http_client_config(const struct http_client *c);
/* Counters for the benchmark and tests. */
unsigned long http_client_requests(const struct http_client *c);

/* GET server+path (path starts with '/', query already escaped).  Follows
 * kubectl: gzip, the request timeout, client-go's retries (retry.h: 429
 * and 5xx with Retry-After, connection reset/EOF, up to 10), one
 * credential refresh after a 401.  Returns 0
 * for a 2xx answer; otherwise -1 with the error worded as kubectl does
 * ("Error from server (Forbidden): ...", "Unable to connect to the server:
 * ...").  resp is filled in both cases when an answer came. */
int http_get(struct http_client *c, const char *path,
	     struct http_response *resp, struct err *e);
void http_response_release(struct http_response *r);

/* What one GET may ask beyond http_get's defaults. */
struct http_get_opts {
	long timeout_ms;    /* whole request; 0: the client's (--request-timeout) */
	int private_body;   /* a 2xx body is never logged (-v 8): pod logs may
			     * hold anything, secrets included */
	size_t max_body;    /* > 0: keep at most this many body bytes and end
			     * the transfer there, not an error (a log read's
			     * limitBytes, which a server may ignore) */
};
/* The whole-response deadline of a GET when neither --request-timeout nor
 * the caller sets one (kubectl has none; a server dripping a byte a second
 * passes the stall guard, issue 12). */
#define HTTP_DEFAULT_DEADLINE_MS 60000L
/* http_get with opts; the tighter timeout wins. */
int http_get_with(struct http_client *c, const char *path,
		  const struct http_get_opts *o, struct http_response *resp,
		  struct err *e);

/* An easy handle with TLS, proxy, timeouts and the share handle set for
 * URL server+path; the caller owns it (curl_easy_cleanup).  Used by exec
 * with CURLOPT_CONNECT_ONLY and HTTP/1.1 only.  NULL with e set on error. */
CURL *http_easy_new(struct http_client *c, const char *path, struct err *e);
/* The exec upgrade's handle (tlsconn.h): for an https server, curl only
 * connects (CONNECT_ONLY on http://host:port/, through the proxy as for
 * any request) and *tls gets a reference to the client's shared TLS
 * context for the credentials held now; *via_curl says the TLS must ride
 * curl_easy_send/recv (an HTTPS proxy), not the socket.  For an http
 * server *tls is NULL.  NULL with e set on error. */
struct tlsctx;
CURL *http_exec_easy_new(struct http_client *c, struct tlsctx **tls,
			 int *via_curl, struct err *e);
/* How long connecting may take: curl's CURLOPT_CONNECTTIMEOUT, which
 * covers its TLS handshake too, so the exec's own handshake gets as long. */
long http_connect_timeout_ms(const struct http_client *c);
/* Frees a handle from http_easy_new and what it attached. NULL is a no-op. */
void http_easy_free(CURL *h);

/* The "Authorization: ..." header line (no CRLF) for the current
 * credentials, or NULL when none; the caller frees it.  *generation tells
 * which credentials those were, for http_client_reauth(). */
char *http_client_auth_header(struct http_client *c, unsigned *generation);
/* After a 401 seen with credentials of `generation`: refresh them once
 * (exec plugin re-run or token file re-read) unless another thread already
 * did.  0 when a retry makes sense. */
int http_client_reauth(struct http_client *c, unsigned generation,
		       struct err *e);

/* The server URL's path as every request starts with it ("" or "/a/b",
 * urlpath.h), and scheme://host[:port]prefix as -v logs show URLs. */
const char *http_client_path_prefix(const struct http_client *c);
const char *http_client_log_base(const struct http_client *c);

/* "Host: ..." value for the server URL (what curl would send). Caller frees. */
char *http_client_host_header(const struct http_client *c);

/* Turns a non-2xx answer into kubectl's wording, from a metav1.Status body
 * when there is one: "Error from server (NotFound): pods \"x\" not found",
 * "error: You must be logged in to the server (Unauthorized)". */
int http_status_error(long status, const char *body, size_t len,
		      struct err *e);
/* A 403's verb, resource, user and namespace from the Status message
 * (forbiddenMessage's wording); d is emptied when msg is not one.  Called
 * by http_status_error for e->denied; public for exec and the tests. */
void http_status_denial(const char *msg, struct err_denial *d);
/* Turns a curl failure into kubectl's wording ("Unable to connect to the
 * server: ...", "The connection to the server H:P was refused - ..."). */
int http_curl_error(const struct http_client *c, CURL *h, CURLcode rc,
		    const char *errbuf, struct err *e);

/* Every transfer watches the run's cancel flag (model/cancel.h): after
 * cancel_run(why) each one in flight ends within about 100 ms, no retry
 * starts, and exec_run's waits end; why becomes the reason. */
/* Percent-encodes everything outside RFC 3986's unreserved set.  Caller frees. */
char *http_escape(const char *s);

#endif
