/* ONE TLS policy for both connection paths, the GETs through libcurl and
 * the exec connections' own TLS (tlsconn.h), made to behave as kubectl
 * v1.32 does (Go crypto/tls + crypto/x509 under client-go; issue 23).
 * docs/kubeconfig.md "TLS" lists every decision and its source.
 *
 *  - TLS 1.2 and up (crypto/tls: a client's default MinVersion), no
 *    renegotiation (client-go leaves Config.Renegotiation at
 *    RenegotiateNever: "local error: tls: no renegotiation").
 *  - The trust: tlsstore.h (the kubeconfig's CA parsed as
 *    AppendCertsFromPEM, else Go's system roots, SSL_CERT_FILE/_DIR).
 *  - The name: DNS SANs only, never the subject CN
 *    (X509_CHECK_FLAG_NEVER_CHECK_SUBJECT: Go 1.17 removed the CN
 *    fallback); a wildcard only as a whole left-most label; an IP host
 *    against IP SANs only; a trailing dot stripped (Go's
 *    hostnameInSNI and matchHostnames).
 *  - SNI whenever the name is not an IP, insecure or not (hostnameInSNI).
 *  - Stricter than Go, with an error saying what to change: keys weaker
 *    than RSA-2048 in the server's chain (when verifying), single-label
 *    wildcards ("*.test", OpenSSL's RFC 6125 rule).
 *  - Errors in Go's words (x509 HostnameError, UnknownAuthorityError,
 *    CertificateInvalidError; "remote error: tls: ..." for an alert).
 *
 * The words of a failure are kept per thread: a handshake, or a read
 * that met a renegotiation, runs in the thread that then reports it
 * (curl_easy_perform here is synchronous, and so is each exec's TLS), or
 * the GET mux carries them there (tlspolicy_save/load).
 * Not for use outside src/kube/.
 */
#ifndef KUBE_TLSPOLICY_H
#define KUBE_TLSPOLICY_H

#include <curl/curl.h>
#include <stddef.h>

#include "util/err.h"

struct ssl_ctx_st;
struct ssl_st;

struct tlspolicy_opts {
	const char *ca_pem;   /* the kubeconfig's CA text, or NULL: system roots */
	size_t ca_len;
	int insecure;         /* insecure-skip-tls-verify */
	const char *host;     /* tls-server-name or the URL's host (an IPv6
			       * literal without brackets) */
	const char *proxy_host; /* an HTTPS proxy's host, or NULL: Go checks
				 * it with the same config, by its own name */
};

/* Immutable once made, shared by every connection of a client. */
struct tlspolicy;

/* A new policy, or NULL with e set in client-go's words (CA data with no
 * certificate that parses: "unable to load root certificates: ..."). */
struct tlspolicy *tlspolicy_new(const struct tlspolicy_opts *o, struct err *e);
void tlspolicy_free(struct tlspolicy *p);

/* The name checked (trailing dot stripped) and the SNI sent (NULL for an
 * IP literal: RFC 6066 section 3). */
const char *tlspolicy_host(const struct tlspolicy *p);
const char *tlspolicy_sni(const struct tlspolicy *p);

/* Applies the policy to a client SSL_CTX: versions, options, trust,
 * name check, verify and message callbacks.  0, or -1 when OpenSSL
 * refused (out of memory).  The context must not outlive p. */
int tlspolicy_apply(const struct tlspolicy *p, struct ssl_ctx_st *ctx);
/* The per-connection part: the SNI.  0 or -1. */
int tlspolicy_start(const struct tlspolicy *p, struct ssl_st *ssl);

/* The same for an easy handle: CURLOPT_SSLVERSION TLSv1.2,
 * CURLOPT_SSL_CTX_FUNCTION applying the policy; curl's own name check is
 * off (it falls back to the CN) and OpenSSL's is on instead.  An HTTPS
 * proxy's TLS gets the policy too, checked against the proxy's name. */
void tlspolicy_curl(CURL *h, const struct tlspolicy *p);
/* Only the HTTPS proxy's part (the exec handles: curl's only TLS there is
 * the proxy's); nothing without an HTTPS proxy. */
void tlspolicy_curl_proxy(CURL *h, const struct tlspolicy *p);

/* Forgets this thread's last failure: call before a handshake or read. */
void tlspolicy_begin(void);
/* This thread's failure since tlspolicy_begin in Go's words, or NULL;
 * *verify set to 1 when the certificate was refused (the caller then
 * prefixes "tls: failed to verify certificate: "). */
const char *tlspolicy_failure(int *verify);
/* What Go puts before those words: "proxyconnect tcp: " when the failure
 * was an HTTPS proxy's TLS (net/http transport.go dialConn wraps it in a
 * net.OpError, Op "proxyconnect"), else "". */
const char *tlspolicy_failure_where(void);
/* 1 when this thread's connection met a renegotiation request since
 * tlspolicy_begin: its request fails, as Go's does (curl only warns the
 * server, and a server that goes on would be answered). */
int tlspolicy_renegotiated(void);

/* This thread's failure state itself, carried from the thread that ran a
 * transfer to the one that reports it: the GETs multiplexed on one
 * connection run in the HTTP client's own thread (kube/http/mux.h), whose
 * state holds what its transfers met since it was last idle. */
struct tlspolicy_last {
	int verify, reneg, alert;   /* alert: a fatal alert received, or -1 */
	int proxy;                  /* the failure was an HTTPS proxy's TLS */
	char text[512];
};
void tlspolicy_save(struct tlspolicy_last *out);
void tlspolicy_load(const struct tlspolicy_last *in);

#endif
