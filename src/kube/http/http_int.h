/* Inside the HTTP client (http.h): the client's state, shared by
 *   http.c            the client, its credentials, the handles' common options
 *   get.c             GETs
 *   mux.c             GETs multiplexed on one connection (mux.h)
 *   status.c          errors in kubectl's words
 *   kube/tls/curl_tls.c   the TLS policy both paths share (tlspolicy.h)
 *   kube/exec/upgrade.c   the exec upgrade's handle and its TLS (tlsconn.h)
 * Not for use outside src/kube/. */
#ifndef KUBE_HTTP_INT_H
#define KUBE_HTTP_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "http.h"

#define USER_AGENT "kubectl-dynamo_interconnect/" PROG_VERSION " (linux/amd64)"
/* Without --request-timeout kubectl waits forever; a triage tool must not,
 * so a stalled transfer (under 1 byte/s for this long) is abandoned. */
#define STALL_SECONDS 30L

struct tlsctx;
struct tlspolicy;
struct mux;

struct http_client {
	struct kube_config *cfg;
	CURLSH *share;       /* DNS and TLS sessions: every handle */
	struct mux *mux;     /* the GETs' thread and connections (mux.h) */
	pthread_mutex_t share_locks[CURL_LOCK_DATA_LAST];
	pthread_mutex_t auth_lock;
	unsigned auth_generation;
	/* check_head_values() passed for auth_generation head_ok_gen (auth_lock) */
	int head_ok;
	unsigned head_ok_gen;
	atomic_ulong requests;
	char *url_host;      /* host[:port] as written in the server URL */
	char *connect_to;    /* CURLOPT_CONNECT_TO entry for tls-server-name */
	char *base_url;      /* server URL, host swapped for tls-server-name */
	char *prefix;        /* the URL's path as client-go joins it (urlpath.h) */
	char *log_base;      /* scheme://host[:port]prefix, for -v logs */
	char *exec_url;      /* http://host:port/ for exec over our own TLS */
	char *verify_host;   /* the name (or IP) the server certificate must match */
	struct tlspolicy *tls_policy; /* both paths' TLS (tlspolicy.h), or NULL: */
	char *tls_policy_err;     /* why not (https only), said on every request */
	struct tlsctx *exec_tls;  /* exec connections' TLS (tlsconn.h), auth_lock */
	unsigned exec_tls_gen;    /* the auth_generation it was built for */
	int exec_tls_ok;          /* the server URL is https */
	char *proxy;              /* kubectl's proxy choice (proxy.h), or NULL */
	int exec_via_curl;        /* that proxy is https: exec TLS over curl_easy_send/recv */
};

/* A handle for url with everything but the server's TLS (timeouts, keep-
 * alive, the share handle, CONNECT_TO, the proxy); url is freed. */
CURL *http_easy_base(struct http_client *c, char *url, struct err *e);

/* http_status.c: 1 when rc is a timeout before any connection was made
 * (the connect timeout, not the request's deadline), and its error in
 * kubectl's words ("dial tcp HOST:PORT: i/o timeout") naming that
 * timeout of ms (http_connect_timeout_ms); url_host when curl has no
 * address. */
int http_connect_timed_out(CURL *h, CURLcode rc);
int http_connect_timeout_error(const char *url_host, long ms, CURL *h, struct err *e);

/* http_tls.c: the client's TLS policy (tlspolicy.h), made once from the
 * kubeconfig (tls_policy, or tls_policy_err), and one handle's TLS: the
 * policy plus the client certificate, in memory. */
void http_tls_setup(struct http_client *c);
void http_tls_easy(CURL *h, const struct kube_config *cfg, const struct tlspolicy *policy);

#endif
