/* The exec connections' TLS, run by us over the connection curl made
 * (issue 16 item 3).
 *
 * libcurl 7.88 builds a fresh SSL_CTX for every connection (1.24 M
 * instructions each) and no option shares one.  For the exec upgrade curl
 * therefore only connects (DNS, proxy, CONNECT tunnel, SOCKS, connect
 * timeout; CONNECT_ONLY on a plain-TCP URL) and this module runs TLS over
 * that connection with ONE SSL_CTX per credential generation (tlsctx),
 * shared by every exec connection, with a client session cache so that
 * connections resume instead of verifying the chain again.
 *
 * What curl did for the server's TLS (lib/vtls/openssl.c of curl 7.88,
 * ossl_connect_step1/step2) is done here the same way; each place names
 * its source.  Versions, trust, the name check and SNI are the one policy
 * both paths share (tlspolicy.h).  Not for use outside src/kube/.
 */
#ifndef KUBE_TLSCONN_H
#define KUBE_TLSCONN_H

#include <curl/curl.h>
#include <stddef.h>

#include "util/err.h"

struct tlspolicy;

/* What one SSL_CTX is built from; nothing is kept but what OpenSSL copies
 * (the PEM texts are parsed and forgotten) and the policy, which must
 * outlive the context (the client holds both). */
struct tlsctx_opts {
	const struct tlspolicy *policy; /* versions, trust, name (tlspolicy.h) */
	const char *cert_pem, *key_pem; /* client certificate and key, or NULL */
	size_t cert_len, key_len;
};

/* A shared context, counted: the client holds one reference, every
 * connection another, so a context replaced after a credential refresh
 * lives until its last connection ends. */
struct tlsctx;

/* A new context (one reference) or NULL with e set (a client key that does
 * not parse). */
struct tlsctx *tlsctx_new(const struct tlsctx_opts *o, struct err *e);
struct tlsctx *tlsctx_ref(struct tlsctx *x);
void tlsctx_unref(struct tlsctx *x);

/* Session priming: the first connection of a context handshakes alone;
 * the others wait (at most TLSCTX_PRIME_WAIT_MS in all) until its session
 * is cached or it is done, then resume it.  Returns 1 when the caller may
 * handshake now (*primer set to 1 for the one that primes), 0 after
 * waiting up to wait_ms without a turn: the caller looks at its deadline
 * and cancel flag, then asks again. */
#define TLSCTX_PRIME_WAIT_MS 2000L
int tlsctx_turn(struct tlsctx *x, long wait_ms, long waited_ms, int *primer);
/* The primer is done (its head read, failed or closed): let the others go. */
void tlsctx_primed(struct tlsctx *x);
/* Full and resumed handshakes completed on x (tests, benchmark). */
void tlsctx_counts(struct tlsctx *x, unsigned long *full, unsigned long *resumed);

/* One TLS connection over fd (a plain TCP socket), or, with fd < 0, over
 * curl's own connection through curl_easy_send/recv on h (an HTTPS proxy's
 * tunnel, which curl encrypts).  Holds a reference to x. */
struct tlsconn;
enum tls_io { TLS_OK, TLS_WANT_READ, TLS_WANT_WRITE, TLS_EOF, TLS_ERROR };

struct tlsconn *tlsconn_new(struct tlsctx *x, int fd, CURL *h);
/* One step of the handshake (non-blocking).  TLS_ERROR: tlsconn_error()
 * says why, in Go's words where tlspolicy.h has them, and
 * tlsconn_verify_failed() whether the certificate was the reason.  A
 * read that meets a renegotiation request fails ("local error: tls: no
 * renegotiation"), as Go's does. */
enum tls_io tlsconn_handshake(struct tlsconn *t);
enum tls_io tlsconn_read(struct tlsconn *t, void *p, size_t len, size_t *n);
enum tls_io tlsconn_write(struct tlsconn *t, const void *p, size_t len, size_t *n);
const char *tlsconn_error(const struct tlsconn *t);
int tlsconn_verify_failed(const struct tlsconn *t);
int tlsconn_resumed(const struct tlsconn *t);
/* Sends close_notify (best effort, never waits) and frees; NULL is a no-op. */
void tlsconn_free(struct tlsconn *t);

#endif
