/* The client's TLS: its policy, made once, and what each easy handle
 * gets from it (http_int.h, tlspolicy.h). */
#include "kube/http/http_int.h"

#include <stdlib.h>
#include <string.h>

#include "tlspolicy.h"
#include "util/xalloc.h"

/* The host of an HTTPS proxy's URL (an IPv6 literal without brackets),
 * or NULL; never its credentials. */
static char *url_host(const char *url)
{
	CURLU *u = curl_url();
	char *host = NULL, *out = NULL;
	size_t n;

	if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK && host) {
		n = strlen(host);
		out = host[0] == '[' && n > 2 ? xstrndup(host + 1, n - 2) : xstrdup(host);
	}
	curl_free(host);
	curl_url_cleanup(u);
	return out;
}

/* Both paths' TLS, made once per client (tlspolicy.h).  CA data that
 * holds no usable certificate fails every request, as client-go fails
 * building its transport ("unable to load root certificates: ..."). */
void http_tls_setup(struct http_client *c)
{
	char *proxy_host = c->exec_via_curl ? url_host(c->proxy) : NULL;
	struct tlspolicy_opts o = {
		c->cfg->insecure ? NULL : c->cfg->ca_pem, c->cfg->ca_pem_len,
		c->cfg->insecure, c->verify_host, proxy_host,
	};
	struct err e;

	err_clear(&e);
	c->tls_policy = tlspolicy_new(&o, &e);
	if (!c->tls_policy)
		c->tls_policy_err = xstrdup(e.msg);
	free(proxy_host);
}

static void set_blob(CURL *h, CURLoption opt, char *data, size_t len)
{
	struct curl_blob blob = { data, len, CURL_BLOB_COPY };

	curl_easy_setopt(h, opt, &blob);
}

void http_tls_easy(CURL *h, const struct kube_config *cfg,
		   const struct tlspolicy *policy)
{
	tlspolicy_curl(h, policy);
	if (cfg->client_cert_pem && cfg->client_key_pem) {
		/* In memory: private keys never touch the disk. */
		set_blob(h, CURLOPT_SSLCERT_BLOB, cfg->client_cert_pem,
			 cfg->client_cert_pem_len);
		curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
		set_blob(h, CURLOPT_SSLKEY_BLOB, cfg->client_key_pem,
			 cfg->client_key_pem_len);
		curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
	}
}
