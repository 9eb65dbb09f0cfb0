#define _GNU_SOURCE
#include "http.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "util/log.h"
#include "util/xalloc.h"
#include "kube/config/auth.h"
#include "retry.h"
#include "kube/config/impersonate.h"
#include "urlpath.h"
#include "hdrcheck.h"
#include "proxy.h"
#include "kube/tls/tlspolicy.h"
#include "kube/tls/tlsconn.h"
#include "http_int.h"
#include "mux.h"

#define CONNECT_TIMEOUT_MS 15000L

/* libcurl calls this while connecting and transferring: non-zero aborts
 * the transfer (CURLE_ABORTED_BY_CALLBACK). */
static int on_progress(void *u, curl_off_t dt, curl_off_t dn, curl_off_t ut,
		       curl_off_t un)
{
	(void)u, (void)dt, (void)dn, (void)ut, (void)un;
	return cancel_why() != NULL;
}


static void share_lock(CURL *h, curl_lock_data d, curl_lock_access a, void *u)
{
	struct http_client *c = u;

	(void)h;
	(void)a;
	pthread_mutex_lock(&c->share_locks[d]);
}

static void share_unlock(CURL *h, curl_lock_data d, void *u)
{
	struct http_client *c = u;

	(void)h;
	pthread_mutex_unlock(&c->share_locks[d]);
}

/* Splits "scheme://host[:port]/prefix" into its parts; all outputs owned
 * by the caller. */
static void split_server(const char *server, char **scheme, char **hostport,
			 char **prefix)
{
	const char *p = strstr(server, "://");
	const char *h = p ? p + 3 : server;
	const char *slash = strchr(h, '/');

	*scheme = p ? xstrndup(server, (size_t)(p - server)) : xstrdup("https");
	*hostport = slash ? xstrndup(h, (size_t)(slash - h)) : xstrdup(h);
	*prefix = xstrdup(slash ? slash : "");
}

static const char *default_port(const char *scheme)
{
	return strcmp(scheme, "http") ? "443" : "80";
}

/* The port part of host[:port] (IPv6 literals are bracketed), or NULL. */
static const char *port_of(const char *hostport)
{
	const char *close = strrchr(hostport, ']');
	const char *colon = strrchr(close ? close : hostport, ':');

	return colon ? colon + 1 : NULL;
}

/* tls-server-name has no curl option in 7.88: put the name in the URL so
 * that SNI and verification use it, and CONNECT_TO the real address. */
static void setup_server_name(struct http_client *c)
{
	char *scheme, *hostport, *prefix;
	const char *port;
	char *host;

	split_server(c->cfg->server, &scheme, &hostport, &prefix);
	free(prefix);
	prefix = urlpath_prefix(c->cfg->server);
	c->prefix = xstrdup(prefix);
	c->log_base = xasprintf("%s://%s%s", scheme, hostport, prefix);
	c->url_host = xstrdup(hostport);
	port = port_of(hostport);
	if (c->cfg->tls_server_name && *c->cfg->tls_server_name) {
		/* A trailing dot is no part of the name (Go: hostnameInSNI,
		 * matchHostnames): stripped for SNI and the check alike. */
		size_t n = strlen(c->cfg->tls_server_name);
		char *name = n > 1 && c->cfg->tls_server_name[n - 1] == '.'
			? xstrndup(c->cfg->tls_server_name, n - 1)
			: xstrdup(c->cfg->tls_server_name);

		host = port ? xstrndup(hostport, (size_t)(port - 1 - hostport))
			    : xstrdup(hostport);
		if (!port)
			port = default_port(scheme);
		c->connect_to = xasprintf("%s:%s:%s:%s", name, port, host, port);
		c->base_url = xasprintf("%s://%s:%s%s", scheme, name, port, prefix);
		c->exec_url = xasprintf("http://%s:%s/", name, port);
		c->verify_host = name;
		free(host);
	} else {
		c->base_url = xstrdup(c->log_base);
		host = port ? xstrndup(hostport, (size_t)(port - 1 - hostport))
			    : xstrdup(hostport);
		c->exec_url = xasprintf("http://%s:%s/", host, port ? port : default_port(scheme));
		/* An IPv6 literal is matched without its brackets. */
		c->verify_host = host[0] == '[' ? xstrndup(host + 1, strlen(host) - 2)
						 : xstrdup(host);
		free(host);
	}
	c->exec_tls_ok = !strcmp(scheme, "https");
	free(scheme);
	free(hostport);
	free(prefix);
}

/* libcurl's global set-up (OpenSSL included) costs milliseconds that
 * `version`, `--help` and `env` never need: done on the first client, once,
 * before any worker thread exists. */
static void curl_once(void)
{
	if (curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK)
		atexit(curl_global_cleanup);
}

/* A share handle (NULL if curl cannot make one: each handle then keeps
 * its own caches) for DNS and TLS sessions.  Never connections: the GETs'
 * are the mux's own (mux.h), and libcurl 7.88 leaves an exec's
 * CONNECT_ONLY connection in a shared cache after curl_easy_cleanup (RSS
 * grew 15 MiB at 1024 pods), where another thread's dead-connection sweep
 * closes one that has input pending while the exec still reads it
 * ("Unsupported protocol"). */
static CURLSH *new_share(struct http_client *c)
{
	CURLSH *sh = curl_share_init();

	if (!sh)
		return NULL;
	curl_share_setopt(sh, CURLSHOPT_LOCKFUNC, share_lock);
	curl_share_setopt(sh, CURLSHOPT_UNLOCKFUNC, share_unlock);
	curl_share_setopt(sh, CURLSHOPT_USERDATA, c);
	curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
	curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
	return sh;
}

/* kubectl's choice (proxy.h), made once per client (the kubeconfig and
 * the environment do not change during a run), set explicitly: "" turns
 * off curl's own reading of the environment, and NOPROXY "" stops curl's
 * NO_PROXY from bypassing a proxy we chose. */
static void choose_proxy(struct http_client *c)
{
	struct proxy_env env;

	proxy_env_get(&env);
	c->proxy = proxy_for(c->cfg->server, c->cfg->proxy_url, &env);
	/* Through an HTTPS proxy curl's connection is TLS itself: the exec's
	 * own TLS then rides curl_easy_send/recv, not the socket. */
	c->exec_via_curl = c->proxy && !strncasecmp(c->proxy, "https://", 8);
}

struct http_client *http_client_new(struct kube_config *cfg)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct http_client *c = xcalloc(1, sizeof(*c));
	int i;

	pthread_once(&once, curl_once);

	c->cfg = cfg;
	for (i = 0; i < CURL_LOCK_DATA_LAST; i++)
		pthread_mutex_init(&c->share_locks[i], NULL);
	pthread_mutex_init(&c->auth_lock, NULL);
	c->share = new_share(c);
	/* The GETs of all threads on one connection, HTTP/2 streams as
	 * kubectl's, or kept-alive HTTP/1.1 ones: a pod list page or log read
	 * takes no new TLS handshake (issue 16: 5.3 M instructions per log
	 * read; issue 46).  Its thread starts with the first GET. */
	c->mux = mux_new();
	setup_server_name(c);
	choose_proxy(c);
	if (c->exec_tls_ok)
		http_tls_setup(c);   /* after the proxy: an HTTPS one is checked too */
	return c;
}

void http_client_free(struct http_client *c)
{
	int i;

	if (!c)
		return;
	mux_free(c->mux);   /* before the share its handles used */
	if (c->share)
		curl_share_cleanup(c->share);
	tlsctx_unref(c->exec_tls);   /* before the policy it applies */
	tlspolicy_free(c->tls_policy);
	free(c->tls_policy_err);
	for (i = 0; i < CURL_LOCK_DATA_LAST; i++)
		pthread_mutex_destroy(&c->share_locks[i]);
	pthread_mutex_destroy(&c->auth_lock);
	if (c->proxy) {   /* may hold credentials: never logged, wiped */
		OPENSSL_cleanse(c->proxy, strlen(c->proxy));
		free(c->proxy);
	}
	free(c->url_host);
	free(c->connect_to);
	free(c->base_url);
	free(c->prefix);
	free(c->log_base);
	free(c->exec_url);
	free(c->verify_host);
	free(c);
}

const struct kube_config *http_client_config(const struct http_client *c)
{
	return c->cfg;
}

unsigned long http_client_requests(const struct http_client *c)
{
	return atomic_load(&((struct http_client *)c)->requests);
}

const char *http_client_path_prefix(const struct http_client *c)
{
	return c->prefix;
}

const char *http_client_log_base(const struct http_client *c)
{
	return c->log_base;
}

char *http_client_host_header(const struct http_client *c)
{
	return xstrdup(c->url_host);
}

static void set_proxy(CURL *h, const struct http_client *c)
{
	curl_easy_setopt(h, CURLOPT_PROXY, c->proxy ? c->proxy : "");
	curl_easy_setopt(h, CURLOPT_NOPROXY, "");   /* curl copies both */
}

/* Nothing is sent with a value that would split the request head: the
 * config's and the current credentials' (hdrcheck.h).  The config never
 * changes and the credentials only with auth_generation, so a generation
 * that passed is not checked again on every request (the hot path: one
 * easy handle per exec and per GET).  A failure is not remembered: it is
 * reported on every request that would send it. */
static char *auth_line_locked(const struct http_client *c);

/* client-go's getCreds: an expired credential is fetched again before it
 * is used, its client certificate too (Go's handshake asks GetCert, which
 * runs the plugin again first: exec.go credsExpired).  So it runs when a
 * handle is made, before the handle takes the certificate (GETs) or the
 * exec context is chosen, and before the Authorization line is written.
 * auth_lock held. */
static void refresh_expired_locked(struct http_client *c)
{
	struct err e;

	if (auth_token_stale(c->cfg)) {
		err_clear(&e);
		if (auth_reread_token(c->cfg, &e) > 0)
			c->auth_generation++;
		else if (e.msg[0])
			log_at(2, "re-reading the token file, keeping the token held: %s", e.msg);
		return;
	}
	if (!auth_expired(c->cfg))
		return;
	err_clear(&e);
	if (auth_refresh(c->cfg, &e) == 0)
		c->auth_generation++;
	else
		log_at(2, "refreshing expired credentials: %s", e.msg);
}

static int check_head_values(struct http_client *c, struct err *e)
{
	char *auth;
	int rc;

	pthread_mutex_lock(&c->auth_lock);
	refresh_expired_locked(c);
	if (c->head_ok && c->head_ok_gen == c->auth_generation) {
		pthread_mutex_unlock(&c->auth_lock);
		return 0;
	}
	auth = auth_line_locked(c);
	rc = hdrcheck_config(c->cfg, auth, e);
	if (rc == 0)
		c->head_ok = 1, c->head_ok_gen = c->auth_generation;
	pthread_mutex_unlock(&c->auth_lock);
	if (auth) {
		OPENSSL_cleanse(auth, strlen(auth));
		free(auth);
	}
	return rc;
}

long http_connect_timeout_ms(const struct http_client *c)
{
	long t = c->cfg->timeout_ms;

	return t > 0 && t < CONNECT_TIMEOUT_MS ? t : CONNECT_TIMEOUT_MS;
}

CURL *http_easy_base(struct http_client *c, char *url, struct err *e)
{
	CURL *h = curl_easy_init();

	if (!h) {
		free(url);
		err_set(e, ERR_OTHER, "cannot initialise libcurl");
		return NULL;
	}
	/* Nothing is sent with a value that would split the request head. */
	if (check_head_values(c, e) < 0) {
		free(url);
		curl_easy_cleanup(h);
		return NULL;
	}
	curl_easy_setopt(h, CURLOPT_URL, url);
	free(url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "https,http");
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	/* Like client-go's dialer (net.Dialer KeepAlive 30 s): idle and
	 * interval 30 s, so a silent exec or watch survives idle-timeout NATs
	 * and load balancers. */
	curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPIDLE, 30L);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPINTVL, 30L);
	curl_easy_setopt(h, CURLOPT_USERAGENT, USER_AGENT);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, http_connect_timeout_ms(c));
	if (c->share)
		curl_easy_setopt(h, CURLOPT_SHARE, c->share);
	if (c->connect_to) {
		struct curl_slist *ct = curl_slist_append(NULL, c->connect_to);
		/* curl keeps the list pointer: attach it to the handle's life. */
		curl_easy_setopt(h, CURLOPT_CONNECT_TO, ct);
		curl_easy_setopt(h, CURLOPT_PRIVATE, ct);
	}
	set_proxy(h, c);
	return h;
}

CURL *http_easy_new(struct http_client *c, const char *path, struct err *e)
{
	CURL *h;

	if (c->tls_policy_err) {
		err_set(e, ERR_CONFIG, "%s", c->tls_policy_err);   /* "error: ..." */
		return NULL;
	}
	h = http_easy_base(c, xasprintf("%s%s", c->base_url, path), e);
	if (!h)
		return NULL;
	if (!c->tls_policy)
		return h;   /* plain http */
	/* A refresh (auth_expired) may replace a plugin's client certificate. */
	pthread_mutex_lock(&c->auth_lock);
	http_tls_easy(h, c->cfg, c->tls_policy);
	pthread_mutex_unlock(&c->auth_lock);
	return h;
}

void http_easy_free(CURL *h)
{
	struct curl_slist *ct = NULL;

	if (!h)
		return;
	curl_easy_getinfo(h, CURLINFO_PRIVATE, (char **)&ct);
	curl_easy_cleanup(h);
	curl_slist_free_all(ct);
}

static char *basic_auth_header(const char *user, const char *pass)
{
	char *plain = xasprintf("%s:%s", user, pass ? pass : "");
	size_t n = strlen(plain);
	unsigned char *b64 = xmalloc(4 * ((n + 2) / 3) + 1);
	char *line;

	EVP_EncodeBlock(b64, (const unsigned char *)plain, (int)n);
	line = xasprintf("Authorization: Basic %s", (char *)b64);
	OPENSSL_cleanse(plain, n);
	free(plain);
	free(b64);
	return line;
}

/* The Authorization line of the credentials held now; auth_lock held. */
static char *auth_line_locked(const struct http_client *c)
{
	if (c->cfg->token && *c->cfg->token)
		return xasprintf("Authorization: Bearer %s", c->cfg->token);
	if (c->cfg->username && *c->cfg->username)
		return basic_auth_header(c->cfg->username, c->cfg->password);
	return NULL;
}

char *http_client_auth_header(struct http_client *c, unsigned *generation)
{
	char *line = NULL;
	int unchecked;

	/* An expired credential was fetched again when this request's handle
	 * was made (check_head_values): once per request, as client-go. */
	pthread_mutex_lock(&c->auth_lock);
	if (generation)
		*generation = c->auth_generation;
	line = auth_line_locked(c);
	unchecked = !c->head_ok || c->head_ok_gen != c->auth_generation;
	pthread_mutex_unlock(&c->auth_lock);
	/* check_head_values() checked the credentials held when the handle was
	 * made; a token another request's 401 has just fetched is checked
	 * here: a value that would split the request head is never written. */
	if (unchecked && line && !hdrcheck_value_ok(strchr(line, ':') + 1)) {
		log_at(1, "the exec credential plugin's status.token holds a control "
		       "character: not sent");
		OPENSSL_cleanse(line, strlen(line));
		free(line);
		line = NULL;
	}
	return line;
}

int http_client_reauth(struct http_client *c, unsigned generation,
		       struct err *e)
{
	int rc = 0;

	pthread_mutex_lock(&c->auth_lock);
	if (c->auth_generation == generation) {
		rc = auth_refresh(c->cfg, e);
		if (rc == 0)
			c->auth_generation++;
	}
	pthread_mutex_unlock(&c->auth_lock);
	return rc;
}

/* ---- errors in kubectl's words (statuses: http_status.c) ---- */

int http_curl_error(const struct http_client *c, CURL *h, CURLcode rc,
		    const char *errbuf, struct err *e)
{
	const char *why = errbuf && *errbuf ? errbuf : curl_easy_strerror(rc);
	long os_errno = 0;
	int verify = 0;
	/* Only for a failure TLS can be behind (the state is this thread's
	 * last handshake or read, tlspolicy.h). */
	const char *go = rc == CURLE_SSL_CONNECT_ERROR || rc == CURLE_PEER_FAILED_VERIFICATION ||
			 rc == CURLE_RECV_ERROR || rc == CURLE_SEND_ERROR ||
			 rc == CURLE_GOT_NOTHING || rc == CURLE_SSL_CERTPROBLEM
			 ? tlspolicy_failure(&verify) : NULL;

	if (h)
		curl_easy_getinfo(h, CURLINFO_OS_ERRNO, &os_errno);
	if (rc == CURLE_ABORTED_BY_CALLBACK && cancel_why())
		return err_setp(e, ERR_OTHER, "%s", cancel_why());
	if (rc == CURLE_COULDNT_CONNECT && (os_errno == ECONNREFUSED || strstr(why, "refused")))
		return err_setp(e, ERR_CONNECT,
				"The connection to the server %s was refused - "
				"did you specify the right host or port?",
				c->url_host);
	if (http_connect_timed_out(h, rc))
		return http_connect_timeout_error(c->url_host, http_connect_timeout_ms(c), h, e);
	if (rc == CURLE_OPERATION_TIMEDOUT)
		return err_setp(e, ERR_TIMEOUT,
				"Unable to connect to the server: %s", why);
	/* The policy's words (Go's) when it saw why: "failed to verify
	 * certificate" only for a certificate refused, never for a server's
	 * alert (tlspolicy.h). */
	if (go && verify)
		return err_setp(e, ERR_CONNECT, "Unable to connect to the server: %stls: "
				"failed to verify certificate: %s", tlspolicy_failure_where(), go);
	if (go)
		return err_setp(e, ERR_CONNECT, "Unable to connect to the server: %s%s",
				tlspolicy_failure_where(), go);
	if (rc == CURLE_PEER_FAILED_VERIFICATION || rc == CURLE_SSL_CACERT_BADFILE)
		return err_setp(e, ERR_CONNECT,
				"Unable to connect to the server: tls: failed to "
				"verify certificate: %s", why);
	return err_setp(e, ERR_CONNECT, "Unable to connect to the server: %s", why);
}

static int unreserved(unsigned char ch)
{
	return isalnum(ch) || ch == '-' || ch == '.' || ch == '_' || ch == '~';
}

char *http_escape(const char *s)
{
	return urlpath_escape(s, strlen(s), unreserved);
}
