/* One TLS policy for both paths, as kubectl (tlspolicy.h). */
#define _GNU_SOURCE
#include "tlspolicy.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "tlsstore.h"
#include "util/xalloc.h"

/* A peer whose certificate is checked: the API server, or an HTTPS
 * proxy on the way (Go's Transport verifies the proxy with the same
 * tls.Config, ServerName the proxy's host: net/http transport.go
 * dialConn, addTLS). */
struct peer {
	char *host;          /* checked, trailing dot stripped */
	int ip;
	int proxy;           /* the HTTPS proxy: Go words its failures
			      * "proxyconnect tcp: ..." */
};

struct tlspolicy {
	X509_STORE *store;   /* NULL when insecure */
	struct peer server, proxy;   /* proxy.host NULL: no HTTPS proxy */
	char *sni;           /* NULL for an IP literal */
	int insecure;
};

/* This thread's last failure (tlspolicy.h: why per thread). */
static _Thread_local struct tlspolicy_last last = { 0, 0, -1, 0, "" };

static int peer_index = -1;   /* SSL_CTX ex_data: the peer it checks */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init_once(void)
{
	peer_index = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, NULL);
}

static int is_ip(const char *s)
{
	unsigned char a[16];

	return inet_pton(AF_INET, s, a) == 1 || inet_pton(AF_INET6, s, a) == 1;
}

/* Go strips one trailing dot for SNI (hostnameInSNI) and matches names
 * without it (matchHostnames). */
static void peer_set(struct peer *pe, const char *host)
{
	size_t n = strlen(host);

	pe->host = n > 1 && host[n - 1] == '.' ? xstrndup(host, n - 1) : xstrdup(host);
	pe->ip = is_ip(pe->host);
}

struct tlspolicy *tlspolicy_new(const struct tlspolicy_opts *o, struct err *e)
{
	struct tlspolicy *p = xcalloc(1, sizeof(*p));

	peer_set(&p->server, o->host);
	if (o->proxy_host)
		peer_set(&p->proxy, o->proxy_host), p->proxy.proxy = 1;
	p->sni = p->server.ip ? NULL : xstrdup(p->server.host);
	p->insecure = o->insecure;
	if (!p->insecure) {
		p->store = o->ca_pem ? tlsstore_from_pem(o->ca_pem, o->ca_len, e)
				     : tlsstore_system();
		if (!p->store) {
			tlspolicy_free(p);
			return NULL;
		}
	}
	return p;
}

void tlspolicy_free(struct tlspolicy *p)
{
	if (!p)
		return;
	tlsstore_free(p->store);
	free(p->server.host);
	free(p->proxy.host);
	free(p->sni);
	free(p);
}

const char *tlspolicy_host(const struct tlspolicy *p)
{
	return p->server.host;
}

const char *tlspolicy_sni(const struct tlspolicy *p)
{
	return p->sni;
}

/* ---- Go's words ---- */

/* Go's matchHostnames, for the wording only (the decision is OpenSSL's):
 * case-insensitive, trailing dots ignored, "*" as a whole first label. */
static int go_match(const char *pattern, const char *host)
{
	size_t pl = strlen(pattern), hl = strlen(host);
	const char *pd, *hd;

	if (pl && pattern[pl - 1] == '.')
		pl--;
	if (hl && host[hl - 1] == '.')
		hl--;
	if (!pl || !hl)
		return 0;
	if (pl >= 2 && pattern[0] == '*' && pattern[1] == '.') {
		pd = pattern + 1, hd = memchr(host, '.', hl);
		return hd && hd != host && (size_t)(pattern + pl - pd) == (size_t)(host + hl - hd) &&
		       !strncasecmp(pd, hd, (size_t)(host + hl - hd));
	}
	return pl == hl && !strncasecmp(pattern, host, pl);
}

static void append(char *buf, size_t n, const char *s)
{
	size_t l = strlen(buf);

	if (l + 1 < n)
		snprintf(buf + l, n - l, "%s%s", l ? ", " : "", s);
}

/* The certificate's DNS SANs (dns) or IP SANs, joined with ", "; the
 * number found. */
static int san_list(X509 *x, int dns, char *buf, size_t n)
{
	GENERAL_NAMES *names = X509_get_ext_d2i(x, NID_subject_alt_name, NULL, NULL);
	int i, found = 0;

	buf[0] = '\0';
	for (i = 0; i < sk_GENERAL_NAME_num(names); i++) {
		const GENERAL_NAME *g = sk_GENERAL_NAME_value(names, i);
		char one[INET6_ADDRSTRLEN + 1] = "";

		if (dns && g->type == GEN_DNS) {
			append(buf, n, (const char *)ASN1_STRING_get0_data(g->d.dNSName));
			found++;
		} else if (!dns && g->type == GEN_IPADD) {
			int len = ASN1_STRING_length(g->d.iPAddress);

			inet_ntop(len == 4 ? AF_INET : AF_INET6,
				  ASN1_STRING_get0_data(g->d.iPAddress), one, sizeof(one));
			append(buf, n, one);
			found++;
		}
	}
	GENERAL_NAMES_free(names);
	return found;
}

/* crypto/x509 HostnameError.Error(). */
static void hostname_words(const struct peer *p, X509 *x, char *out, size_t n)
{
	char cn[256] = "", valid[400];
	int has_san = X509_get_ext_by_NID(x, NID_subject_alt_name, -1) >= 0;

	X509_NAME_get_text_by_NID(X509_get_subject_name(x), NID_commonName, cn, sizeof(cn));
	if (!has_san && go_match(cn, p->host)) {
		snprintf(out, n, "x509: certificate relies on legacy Common Name field, "
			 "use SANs instead");
		return;
	}
	if (p->ip && !san_list(x, 0, valid, sizeof(valid))) {
		snprintf(out, n, "x509: cannot validate certificate for %s because it "
			 "doesn't contain any IP SANs", p->host);
		return;
	}
	if (!p->ip)
		san_list(x, 1, valid, sizeof(valid));
	if (!valid[0])
		snprintf(out, n, "x509: certificate is not valid for any names, but "
			 "wanted to match %s", p->host);
	else
		snprintf(out, n, "x509: certificate is valid for %s, not %s", valid, p->host);
	/* Stricter than Go (OpenSSL's RFC 6125 rule): say what to change. */
	if (!p->ip && strstr(valid, "*.")) {
		size_t l = strlen(out);

		snprintf(out + l, n - l, " (kubectl also matches a wildcard over one "
			 "label, such as *.test; this plugin does not: add the full name to "
			 "the certificate's DNS SANs)");
	}
}

static int name_matches(const struct peer *p, X509 *x)
{
	if (p->ip)
		return X509_check_ip_asc(x, p->host, 0) == 1;
	return X509_check_host(x, p->host, 0, X509_CHECK_FLAG_NEVER_CHECK_SUBJECT |
			       X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS, NULL) == 1;
}

/* Go formats times with RFC 3339 in UTC. */
static void rfc3339(const ASN1_TIME *t, char *out, size_t n)
{
	struct tm tm;
	time_t now;

	if (t) {
		memset(&tm, 0, sizeof(tm));
		ASN1_TIME_to_tm(t, &tm);
	} else {
		now = time(NULL);
		gmtime_r(&now, &tm);
	}
	strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* CertificateInvalidError{Reason: Expired}; 0 when x is within its dates. */
static int time_words(X509 *x, char *out, size_t n)
{
	char now[32], when[32];
	int before = X509_cmp_current_time(X509_get0_notBefore(x)) > 0;

	if (!before && X509_cmp_current_time(X509_get0_notAfter(x)) >= 0)
		return 0;
	rfc3339(NULL, now, sizeof(now));
	rfc3339(before ? X509_get0_notBefore(x) : X509_get0_notAfter(x), when, sizeof(when));
	snprintf(out, n, "x509: certificate has expired or is not yet valid: current "
		 "time %s is %s %s", now, before ? "before" : "after", when);
	return 1;
}

/* Go checks the leaf's dates, then the name, then the chain
 * (Certificate.Verify); OpenSSL the chain first: the first failure is
 * worded as Go would have found it. */
static void verify_words(const struct peer *p, X509_STORE_CTX *sc, char *out, size_t n)
{
	X509 *leaf = X509_STORE_CTX_get0_cert(sc), *cur = X509_STORE_CTX_get_current_cert(sc);
	int code = X509_STORE_CTX_get_error(sc);

	if (leaf && time_words(leaf, out, n))
		return;
	if (leaf && !name_matches(p, leaf)) {
		hostname_words(p, leaf, out, n);
		return;
	}
	switch (code) {
	case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
	case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
	case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
	case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
	case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
	case X509_V_ERR_CERT_UNTRUSTED:
	case X509_V_ERR_CERT_SIGNATURE_FAILURE:
		snprintf(out, n, "x509: certificate signed by unknown authority");
		return;
	case X509_V_ERR_CERT_HAS_EXPIRED:
	case X509_V_ERR_CERT_NOT_YET_VALID:
		if (cur && time_words(cur, out, n))
			return;
		break;
	case X509_V_ERR_INVALID_PURPOSE:
		snprintf(out, n, "x509: certificate specifies an incompatible key usage");
		return;
	case X509_V_ERR_EE_KEY_TOO_SMALL:
	case X509_V_ERR_CA_KEY_TOO_SMALL:
		snprintf(out, n, "x509: the %s certificate's key has %d bits, under "
			 "the 112-bit strength of RSA-2048 (kubectl still accepts it): reissue "
			 "it with an RSA key of 2048 bits or more, or an ECDSA or Ed25519 key",
			 code == X509_V_ERR_EE_KEY_TOO_SMALL ? "server" : "CA",
			 cur && X509_get0_pubkey(cur) ? EVP_PKEY_get_bits(X509_get0_pubkey(cur)) : 0);
		return;
	}
	snprintf(out, n, "x509: %s", X509_verify_cert_error_string(code));
}

/* A stricter rule than Go's (a decision, docs/kubeconfig.md 11.1): every
 * key of the chain at least as strong as RSA-2048 (112 bits, NIST SP
 * 800-57), what OpenSSL's security level 2 asks of a chain.  Checked
 * here rather than by setting level 2, which would also refuse our own
 * client certificate's key and change the handshake. */
static int key_too_small(X509_STORE_CTX *sc)
{
	X509 *cur = X509_STORE_CTX_get_current_cert(sc);
	EVP_PKEY *k = cur ? X509_get0_pubkey(cur) : NULL;

	if (!k || EVP_PKEY_get_security_bits(k) >= 112)
		return 0;
	X509_STORE_CTX_set_error(sc, X509_STORE_CTX_get_error_depth(sc) ?
				 X509_V_ERR_CA_KEY_TOO_SMALL : X509_V_ERR_EE_KEY_TOO_SMALL);
	return 1;
}

static int on_verify(int ok, X509_STORE_CTX *sc)
{
	SSL *ssl = X509_STORE_CTX_get_ex_data(sc, SSL_get_ex_data_X509_STORE_CTX_idx());
	const struct peer *p = ssl ? SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl),
							 peer_index) : NULL;

	if (ok && p && key_too_small(sc))
		ok = 0;
	if (ok || !p || last.verify)
		return ok;
	verify_words(p, sc, last.text, sizeof(last.text));
	last.verify = 1;
	last.proxy = p->proxy;
	return 0;
}

/* Go's alertText (crypto/tls/alert.go). */
static const char *alert_text(int a)
{
	switch (a) {
	case 10: return "unexpected message";
	case 20: return "bad record MAC";
	case 21: return "decryption failed";
	case 22: return "record overflow";
	case 30: return "decompression failure";
	case 40: return "handshake failure";
	case 42: return "bad certificate";
	case 43: return "unsupported certificate";
	case 44: return "revoked certificate";
	case 45: return "expired certificate";
	case 46: return "unknown certificate";
	case 47: return "illegal parameter";
	case 48: return "unknown certificate authority";
	case 49: return "access denied";
	case 50: return "error decoding message";
	case 51: return "error decrypting message";
	case 60: return "export restriction";
	case 70: return "protocol version not supported";
	case 71: return "insufficient security level";
	case 80: return "internal error";
	case 86: return "inappropriate fallback";
	case 90: return "user canceled";
	case 100: return "no renegotiation";
	case 109: return "missing extension";
	case 110: return "unsupported extension";
	case 111: return "certificate unobtainable";
	case 112: return "unrecognized name";
	case 113: return "bad certificate status response";
	case 114: return "bad certificate hash value";
	case 115: return "unknown PSK identity";
	case 116: return "certificate required";
	case 120: return "no application protocol";
	}
	return NULL;
}

/* Sees the records: a fatal alert from the server (its words), and a
 * HelloRequest after the handshake, the server asking to renegotiate,
 * which SSL_OP_NO_RENEGOTIATION answers with a no_renegotiation warning
 * where Go fails the connection ("local error: tls: no renegotiation",
 * conn.go handleRenegotiation): the callers fail it too. */
static void on_msg(int write_p, int version, int type, const void *buf, size_t len,
		   SSL *ssl, void *arg)
{
	const unsigned char *b = buf;

	(void)version, (void)arg;
	if (write_p || !len)
		return;
	if (type == SSL3_RT_ALERT && len == 2 && b[0] == SSL3_AL_FATAL && last.alert < 0) {
		const struct peer *pe = SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), peer_index);

		last.alert = b[1];
		last.proxy = pe && pe->proxy;
	}
	else if (type == SSL3_RT_HANDSHAKE && b[0] == SSL3_MT_HELLO_REQUEST &&
		 SSL_get_peer_finished(ssl, NULL, 0) > 0)
		last.reneg = 1;   /* the state machine is back "in init" here:
				   * the server's Finished says the first
				   * handshake was over (RFC 5246 7.4.1.1: a
				   * HelloRequest during it is ignored) */
}

void tlspolicy_begin(void)
{
	last.verify = last.reneg = last.proxy = 0;
	last.alert = -1;
	last.text[0] = '\0';
}

const char *tlspolicy_failure(int *verify)
{
	const char *a;

	*verify = 0;
	if (last.verify) {
		*verify = 1;
		return last.text;
	}
	if (last.reneg)
		return "local error: tls: no renegotiation";
	if (last.alert >= 0 && (a = alert_text(last.alert)) != NULL) {
		snprintf(last.text, sizeof(last.text), "remote error: tls: %s", a);
		return last.text;
	}
	if (last.alert >= 0) {
		snprintf(last.text, sizeof(last.text), "remote error: tls: alert(%d)", last.alert);
		return last.text;
	}
	return NULL;
}

const char *tlspolicy_failure_where(void)
{
	return last.proxy && (last.verify || last.alert >= 0) ? "proxyconnect tcp: " : "";
}

int tlspolicy_renegotiated(void)
{
	return last.reneg;
}

void tlspolicy_save(struct tlspolicy_last *out)
{
	*out = last;
}

void tlspolicy_load(const struct tlspolicy_last *in)
{
	last = *in;
}

/* ---- applying it ---- */

/* The policy on ctx, its certificate checked against pe's name. */
static int apply_peer(const struct tlspolicy *p, const struct peer *pe, SSL_CTX *ctx)
{
	X509_VERIFY_PARAM *vp = SSL_CTX_get0_param(ctx);

	pthread_once(&once, init_once);
	if (peer_index < 0 || !SSL_CTX_set_ex_data(ctx, peer_index, (void *)pe) ||
	    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1)
		return -1;
	SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION);
	SSL_CTX_set_msg_callback(ctx, on_msg);
	/* OpenSSL's default level, made explicit: a system openssl.cnf must
	 * not make one path differ from kubectl or from the other path.  The
	 * key-size rule of the server's chain is key_too_small's. */
	SSL_CTX_set_security_level(ctx, 1);
	if (p->insecure) {
		SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
		return 0;
	}
	SSL_CTX_set1_cert_store(ctx, p->store);
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, on_verify);
	X509_VERIFY_PARAM_set_hostflags(vp, X509_CHECK_FLAG_NEVER_CHECK_SUBJECT |
					X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
	return (pe->ip ? X509_VERIFY_PARAM_set1_ip_asc(vp, pe->host)
		       : X509_VERIFY_PARAM_set1_host(vp, pe->host, 0)) == 1 ? 0 : -1;
}

int tlspolicy_apply(const struct tlspolicy *p, SSL_CTX *ctx)
{
	return apply_peer(p, &p->server, ctx);
}

int tlspolicy_start(const struct tlspolicy *p, SSL *ssl)
{
	return !p->sni || SSL_set_tlsext_host_name(ssl, p->sni) == 1 ? 0 : -1;
}

/* libcurl 7.88 calls the context function for an HTTPS proxy's TLS too,
 * before the CONNECT: the CONNECT's status (reset for every transfer) is
 * still 0 there, 200 for the server's TLS inside the tunnel. */
static CURLcode curl_ctx(CURL *h, void *ssl_ctx, void *arg)
{
	const struct tlspolicy *p = arg;
	long connect_code = 0;
	const struct peer *pe = &p->server;

	if (p->proxy.host) {
		curl_easy_getinfo(h, CURLINFO_HTTP_CONNECTCODE, &connect_code);
		if (connect_code == 0)
			pe = &p->proxy;
	}
	return apply_peer(p, pe, ssl_ctx) == 0 ? CURLE_OK : CURLE_SSL_CERTPROBLEM;
}

void tlspolicy_curl_proxy(CURL *h, const struct tlspolicy *p)
{
	if (!p->proxy.host)
		return;
	curl_easy_setopt(h, CURLOPT_PROXY_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2);
	curl_easy_setopt(h, CURLOPT_PROXY_SSL_VERIFYHOST, 0L);
	curl_easy_setopt(h, CURLOPT_PROXY_SSL_VERIFYPEER, p->insecure ? 0L : 1L);
	curl_easy_setopt(h, CURLOPT_PROXY_CAINFO, NULL);
	curl_easy_setopt(h, CURLOPT_PROXY_CAPATH, NULL);
	curl_easy_setopt(h, CURLOPT_SSL_CTX_FUNCTION, curl_ctx);
	curl_easy_setopt(h, CURLOPT_SSL_CTX_DATA, (void *)p);
}

void tlspolicy_curl(CURL *h, const struct tlspolicy *p)
{
	curl_easy_setopt(h, CURLOPT_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2);
	/* curl's own name check falls back to the subject CN: off; OpenSSL
	 * checks the name in the chain's verification (apply_peer). */
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, p->insecure ? 0L : 1L);
	/* No file, no directory: only the policy's store is trusted. */
	curl_easy_setopt(h, CURLOPT_CAINFO, NULL);
	curl_easy_setopt(h, CURLOPT_CAPATH, NULL);
	curl_easy_setopt(h, CURLOPT_SSL_CTX_FUNCTION, curl_ctx);
	curl_easy_setopt(h, CURLOPT_SSL_CTX_DATA, (void *)p);
	tlspolicy_curl_proxy(h, p);
}
