/* The exec upgrade's handle (http.h, http_exec_easy_new): curl connects,
 * TLS is ours over that connection, with one context per credential
 * generation shared by every exec connection (tlsconn.h, issue 16). */
#include <stdlib.h>

#include "util/xalloc.h"
#include "kube/http/http_int.h"
#include "kube/tls/tlsconn.h"
#include "kube/tls/tlspolicy.h"

/* The exec connections' context for the credentials held now: built once
 * per credential generation (a plugin's client certificate may rotate);
 * auth_lock held.  A new reference, or NULL with e set. */
static struct tlsctx *exec_tls_locked(struct http_client *c, struct err *e)
{
	const struct kube_config *cfg = c->cfg;
	struct tlsctx_opts o = {
		c->tls_policy,
		cfg->client_key_pem ? cfg->client_cert_pem : NULL,
		cfg->client_cert_pem ? cfg->client_key_pem : NULL,
		cfg->client_cert_pem_len, cfg->client_key_pem_len,
	};

	if (!c->exec_tls || c->exec_tls_gen != c->auth_generation) {
		struct tlsctx *x = tlsctx_new(&o, e);

		if (!x)
			return NULL;
		tlsctx_unref(c->exec_tls);
		c->exec_tls = x;
		c->exec_tls_gen = c->auth_generation;
	}
	return tlsctx_ref(c->exec_tls);
}

CURL *http_exec_easy_new(struct http_client *c, struct tlsctx **tls,
			 int *via_curl, struct err *e)
{
	CURL *h;

	*tls = NULL;
	*via_curl = 0;
	if (!c->exec_tls_ok || c->tls_policy_err)
		return http_easy_new(c, "/", e);   /* says why for the latter */
	h = http_easy_base(c, xstrdup(c->exec_url), e);
	if (!h)
		return NULL;
	/* curl's only TLS here is an HTTPS proxy's: the policy's too. */
	tlspolicy_curl_proxy(h, c->tls_policy);
	pthread_mutex_lock(&c->auth_lock);
	*tls = exec_tls_locked(c, e);
	pthread_mutex_unlock(&c->auth_lock);
	if (!*tls) {
		http_easy_free(h);
		return NULL;
	}
	*via_curl = c->exec_via_curl;
	return h;
}
