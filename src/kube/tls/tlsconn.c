/* The exec connections' TLS over curl's connection (tlsconn.h). */
#define _GNU_SOURCE
#include "tlsconn.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "tlspolicy.h"
#include "util/xalloc.h"

struct tlsctx {
	SSL_CTX *ctx;
	const struct tlspolicy *policy;  /* not owned (tlsconn.h) */
	pthread_mutex_t lock;    /* everything below */
	pthread_cond_t primed_cv;
	int refs;
	enum { PRIME_NONE, PRIME_RUNNING, PRIME_DONE } prime;
	SSL_SESSION *session;    /* the newest resumable session, owned */
	unsigned long full, resumed;
};

struct tlsconn {
	struct tlsctx *x;
	SSL *ssl;
	int counted;
	int verify_failed;
	int renegotiated;        /* the server asked: the connection is over */
	char err[512];
};

static int ctx_index = -1;          /* SSL ex_data slot: the tlsctx */
static BIO_METHOD *curl_bio_method; /* BIO over curl_easy_send/recv */
static BIO_METHOD *sock_bio_method; /* BIO over the socket, no SIGPIPE */

/* ---- a BIO over curl's connection (an HTTPS proxy's tunnel) ---- */

static int curl_bio_read(BIO *b, char *p, int len)
{
	size_t n = 0;
	CURLcode rc = curl_easy_recv(BIO_get_data(b), p, (size_t)len, &n);

	BIO_clear_retry_flags(b);
	if (rc == CURLE_AGAIN) {
		BIO_set_retry_read(b);
		return -1;
	}
	return rc == CURLE_OK ? (int)n : -1;   /* 0: the proxy closed */
}

static int curl_bio_write(BIO *b, const char *p, int len)
{
	size_t n = 0;
	CURLcode rc = curl_easy_send(BIO_get_data(b), p, (size_t)len, &n);

	BIO_clear_retry_flags(b);
	if (rc == CURLE_AGAIN) {
		BIO_set_retry_write(b);
		return -1;
	}
	return rc == CURLE_OK ? (int)n : -1;
}

static long curl_bio_ctrl(BIO *b, int cmd, long num, void *ptr)
{
	(void)b, (void)num, (void)ptr;
	return cmd == BIO_CTRL_FLUSH;   /* curl writes through at once */
}

/* The plain-TCP case: recv/send on the socket itself.  send() with
 * MSG_NOSIGNAL, as curl's own (Curl_send_plain): a peer gone never raises
 * SIGPIPE, whatever the program's disposition (OpenSSL's socket BIO
 * write()s). */
static int sock_bio_read(BIO *b, char *p, int len)
{
	ssize_t n = recv((int)(intptr_t)BIO_get_data(b), p, (size_t)len, 0);

	BIO_clear_retry_flags(b);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		BIO_set_retry_read(b);
	return (int)n;
}

static int sock_bio_write(BIO *b, const char *p, int len)
{
	ssize_t n = send((int)(intptr_t)BIO_get_data(b), p, (size_t)len, MSG_NOSIGNAL);

	BIO_clear_retry_flags(b);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		BIO_set_retry_write(b);
	return (int)n;
}

static int curl_bio_create(BIO *b)
{
	BIO_set_init(b, 1);
	return 1;
}

static BIO_METHOD *bio_method(const char *name, int (*rd)(BIO *, char *, int),
			      int (*wr)(BIO *, const char *, int))
{
	BIO_METHOD *m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, name);

	if (m) {
		BIO_meth_set_read(m, rd);
		BIO_meth_set_write(m, wr);
		BIO_meth_set_ctrl(m, curl_bio_ctrl);
		BIO_meth_set_create(m, curl_bio_create);
	}
	return m;
}

static void init_once(void)
{
	ctx_index = SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL);
	curl_bio_method = bio_method("curl connection", curl_bio_read, curl_bio_write);
	sock_bio_method = bio_method("socket", sock_bio_read, sock_bio_write);
}

/* ---- the context ---- */

/* The newest session replaces the one held: TLS 1.3 servers send tickets
 * after the handshake, and a resumed connection gets fresh ones.  As curl
 * (ossl_new_session_cb with SSL_SESS_CACHE_NO_INTERNAL) our own cache
 * holds it, OpenSSL's is off; unlike curl 7.88 the cache holds a COPY.
 * The object handed over stays the connection's session, and when that
 * connection ends without a close_notify (the API server and the test
 * cluster close exec connections so) SSL_free calls
 * SSL_CTX_remove_session on it, which marks it not resumable: a cached
 * reference then made the next connections fall back to full handshakes
 * (measured with tests/e2e/test_exec_tls.py: 8 of 12; curl's cache shows
 * the same at --parallel 1). */
static int on_new_session(SSL *ssl, SSL_SESSION *s)
{
	struct tlsctx *x = SSL_get_ex_data(ssl, ctx_index);
	SSL_SESSION *copy;

	if (!x || !SSL_SESSION_is_resumable(s) || !(copy = SSL_SESSION_dup(s)))
		return 0;
	pthread_mutex_lock(&x->lock);
	SSL_SESSION_free(x->session);
	x->session = copy;
	if (x->prime == PRIME_RUNNING)
		x->prime = PRIME_DONE;
	pthread_cond_broadcast(&x->primed_cv);
	pthread_mutex_unlock(&x->lock);
	return 0;   /* the reference OpenSSL passed stays OpenSSL's */
}

static int openssl_error(struct err *e, const char *what)
{
	char buf[200];

	ERR_error_string_n(ERR_get_error(), buf, sizeof(buf));
	ERR_clear_error();
	return err_setp(e, ERR_CONNECT, "Unable to connect to the server: %s: %s",
			what, buf);
}

/* The client certificate (and any chain after it) and its key, from PEM
 * text in memory: curl's cert_stuff for CURLOPT_SSLCERT_BLOB takes the
 * first certificate as the leaf and the rest as its chain
 * (use_certificate_chain_blob), then checks that the key matches. */
static int use_client_cert(SSL_CTX *ctx, const struct tlsctx_opts *o, struct err *e)
{
	BIO *b = BIO_new_mem_buf(o->cert_pem, (int)o->cert_len);
	X509 *x = b ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;
	EVP_PKEY *k;
	int ok = x && SSL_CTX_use_certificate(ctx, x) == 1;

	X509_free(x);
	while (ok && (x = PEM_read_bio_X509(b, NULL, NULL, NULL)) != NULL)
		if (SSL_CTX_add0_chain_cert(ctx, x) != 1)
			X509_free(x), ok = 0;
	BIO_free(b);
	if (!ok)
		return openssl_error(e, "unable to use the client certificate");
	ERR_clear_error();   /* the chain loop ends on "no start line" */
	b = BIO_new_mem_buf(o->key_pem, (int)o->key_len);
	k = b ? PEM_read_bio_PrivateKey(b, NULL, NULL, NULL) : NULL;
	BIO_free(b);
	ok = k && SSL_CTX_use_PrivateKey(ctx, k) == 1 && SSL_CTX_check_private_key(ctx) == 1;
	EVP_PKEY_free(k);
	return ok ? 0 : openssl_error(e, "unable to use the client key");
}

static int configure(struct tlsctx *x, const struct tlsctx_opts *o, struct err *e)
{
	static const unsigned char alpn[] = "\x08http/1.1";

	/* curl 7.88 ossl_connect_step1: SSL_OP_ALL plus no compression;
	 * buffers released while idle (SSL_MODE_RELEASE_BUFFERS). */
	SSL_CTX_set_options(x->ctx, SSL_OP_ALL | SSL_OP_NO_COMPRESSION);
	SSL_CTX_set_mode(x->ctx, SSL_MODE_RELEASE_BUFFERS);
	/* ALPN http/1.1 only: the upgrade cannot ride h2 (exec.c), and the API
	 * server would pick h2 if offered. */
	if (SSL_CTX_set_alpn_protos(x->ctx, alpn, sizeof(alpn) - 1) != 0)
		return openssl_error(e, "cannot set ALPN");
	SSL_CTX_set_session_cache_mode(x->ctx, SSL_SESS_CACHE_CLIENT |
				       SSL_SESS_CACHE_NO_INTERNAL_STORE);
	SSL_CTX_sess_set_new_cb(x->ctx, on_new_session);
	x->policy = o->policy;
	if (tlspolicy_apply(o->policy, x->ctx) < 0)
		return openssl_error(e, "cannot apply the TLS policy");
	if (o->cert_pem && o->key_pem && use_client_cert(x->ctx, o, e) < 0)
		return -1;
	return 0;
}

struct tlsctx *tlsctx_new(const struct tlsctx_opts *o, struct err *e)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct tlsctx *x;

	pthread_once(&once, init_once);
	if (ctx_index < 0 || !curl_bio_method || !sock_bio_method) {
		err_setp(e, ERR_OTHER, "cannot initialise OpenSSL");
		return NULL;
	}
	x = xcalloc(1, sizeof(*x));
	x->refs = 1;
	pthread_mutex_init(&x->lock, NULL);
	pthread_cond_init(&x->primed_cv, NULL);
	ERR_clear_error();
	x->ctx = SSL_CTX_new(TLS_client_method());
	if (!x->ctx) {
		openssl_error(e, "cannot create a TLS context");
		tlsctx_unref(x);
		return NULL;
	}
	if (configure(x, o, e) < 0) {
		tlsctx_unref(x);
		return NULL;
	}
	return x;
}

struct tlsctx *tlsctx_ref(struct tlsctx *x)
{
	pthread_mutex_lock(&x->lock);
	x->refs++;
	pthread_mutex_unlock(&x->lock);
	return x;
}

void tlsctx_unref(struct tlsctx *x)
{
	int left;

	if (!x)
		return;
	pthread_mutex_lock(&x->lock);
	left = --x->refs;
	pthread_mutex_unlock(&x->lock);
	if (left)
		return;
	SSL_SESSION_free(x->session);
	SSL_CTX_free(x->ctx);
	pthread_cond_destroy(&x->primed_cv);
	pthread_mutex_destroy(&x->lock);
	free(x);
}

int tlsctx_turn(struct tlsctx *x, long wait_ms, long waited_ms, int *primer)
{
	struct timespec until;
	int go;

	*primer = 0;
	pthread_mutex_lock(&x->lock);
	if (x->prime == PRIME_NONE && !x->session) {
		x->prime = PRIME_RUNNING;
		*primer = 1;
	}
	if (x->prime == PRIME_RUNNING && !*primer && waited_ms < TLSCTX_PRIME_WAIT_MS) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += wait_ms / 1000;
		until.tv_nsec += (wait_ms % 1000) * 1000000L;
		if (until.tv_nsec >= 1000000000L)
			until.tv_sec++, until.tv_nsec -= 1000000000L;
		pthread_cond_timedwait(&x->primed_cv, &x->lock, &until);
	}
	go = *primer || x->prime != PRIME_RUNNING || waited_ms >= TLSCTX_PRIME_WAIT_MS;
	pthread_mutex_unlock(&x->lock);
	return go;
}

void tlsctx_primed(struct tlsctx *x)
{
	pthread_mutex_lock(&x->lock);
	x->prime = PRIME_DONE;
	pthread_cond_broadcast(&x->primed_cv);
	pthread_mutex_unlock(&x->lock);
}

void tlsctx_counts(struct tlsctx *x, unsigned long *full, unsigned long *resumed)
{
	pthread_mutex_lock(&x->lock);
	*full = x->full;
	*resumed = x->resumed;
	pthread_mutex_unlock(&x->lock);
}

/* ---- one connection ---- */

struct tlsconn *tlsconn_new(struct tlsctx *x, int fd, CURL *h)
{
	struct tlsconn *t = xcalloc(1, sizeof(*t));
	SSL_SESSION *s;
	BIO *b = NULL;

	ERR_clear_error();
	t->x = tlsctx_ref(x);
	t->ssl = SSL_new(x->ctx);
	if (t->ssl) {
		b = BIO_new(fd < 0 ? curl_bio_method : sock_bio_method);
		if (b) {
			BIO_set_data(b, fd < 0 ? (void *)h : (void *)(intptr_t)fd);
			SSL_set_bio(t->ssl, b, b);
		}
	}
	if (!t->ssl || !b ||
	    !SSL_set_ex_data(t->ssl, ctx_index, x) ||
	    tlspolicy_start(x->policy, t->ssl) < 0) {
		tlsconn_free(t);
		return NULL;
	}
	SSL_set_connect_state(t->ssl);
	/* A copy per connection: OpenSSL's client writes to the session it
	 * resumes during the handshake; one object shared by concurrent
	 * handshakes is a data race, and made some of them fall back to full
	 * ones (tests/unit/test_tlsconn.c, eight at once: extra full
	 * handshakes in 1 run of 5 without the copy). */
	pthread_mutex_lock(&x->lock);
	s = x->session ? SSL_SESSION_dup(x->session) : NULL;
	pthread_mutex_unlock(&x->lock);
	if (s) {
		SSL_set_session(t->ssl, s);   /* takes its own reference */
		SSL_SESSION_free(s);
	}
	return t;
}

/* Words a failed SSL call: Go's words where the policy has them (a
 * certificate refused, a server's alert, a renegotiation), else as curl
 * 7.88 does (ossl_connect_step2: the OpenSSL reason, and the
 * SSL_ERROR_SYSCALL cases). */
static enum tls_io failed(struct tlsconn *t, int r, int in_handshake)
{
	int se = SSL_get_error(t->ssl, r), verify = 0;
	unsigned long code = ERR_peek_error();
	const char *go = tlspolicy_failure(&verify);
	char why[160];

	if (se == SSL_ERROR_WANT_READ)
		return TLS_WANT_READ;
	if (se == SSL_ERROR_WANT_WRITE)
		return TLS_WANT_WRITE;
	if (se == SSL_ERROR_ZERO_RETURN)
		return TLS_EOF;
	if (se == SSL_ERROR_SSL && ERR_GET_LIB(code) == ERR_LIB_SSL &&
	    ERR_GET_REASON(code) == SSL_R_UNEXPECTED_EOF_WHILE_READING)
		se = SSL_ERROR_SYSCALL, code = 0, errno = 0;  /* OpenSSL 3's word for a bare EOF */
	if (go && (se == SSL_ERROR_SSL || se == SSL_ERROR_SYSCALL)) {
		t->verify_failed = verify && in_handshake;
		snprintf(t->err, sizeof(t->err), "%s", go);
	} else if (se == SSL_ERROR_SSL && code) {
		ERR_error_string_n(code, why, sizeof(why));
		snprintf(t->err, sizeof(t->err), "%s%s", in_handshake ?
			 "TLS handshake failed: " : "", why);
	} else if (se == SSL_ERROR_SYSCALL && !code && errno && r < 0) {
		snprintf(t->err, sizeof(t->err), "%s%s", in_handshake ?
			 "TLS handshake failed: " : "", strerror(errno));
	} else if (in_handshake) {
		snprintf(t->err, sizeof(t->err), "the server closed the connection "
			 "during the TLS handshake");
	} else {
		/* An EOF without close_notify: the stream ended all the same
		 * (Go's servers often close that way); the WebSocket layer
		 * says whether it ended too early. */
		ERR_clear_error();
		return TLS_EOF;
	}
	ERR_clear_error();
	return TLS_ERROR;
}

/* A renegotiation request met by the last read or write: the connection
 * is over (tlsconn.h), whatever OpenSSL did with it. */
static enum tls_io check_reneg(struct tlsconn *t, enum tls_io r)
{
	if (!t->renegotiated && !tlspolicy_renegotiated())
		return r;
	t->renegotiated = 1;
	snprintf(t->err, sizeof(t->err), "local error: tls: no renegotiation");
	return TLS_ERROR;
}

enum tls_io tlsconn_handshake(struct tlsconn *t)
{
	int r;

	ERR_clear_error();
	tlspolicy_begin();
	errno = 0;
	r = SSL_connect(t->ssl);
	if (r != 1)
		return failed(t, r, 1);
	if (!t->counted) {
		t->counted = 1;
		pthread_mutex_lock(&t->x->lock);
		if (SSL_session_reused(t->ssl))
			t->x->resumed++;
		else
			t->x->full++;
		pthread_mutex_unlock(&t->x->lock);
	}
	return TLS_OK;
}

enum tls_io tlsconn_read(struct tlsconn *t, void *p, size_t len, size_t *n)
{
	int r;

	*n = 0;
	if (t->renegotiated)
		return check_reneg(t, TLS_ERROR);
	ERR_clear_error();
	tlspolicy_begin();
	errno = 0;
	r = SSL_read_ex(t->ssl, p, len, n);
	return check_reneg(t, r == 1 ? TLS_OK : failed(t, r ? r : -1, 0));
}

enum tls_io tlsconn_write(struct tlsconn *t, const void *p, size_t len, size_t *n)
{
	int r;

	*n = 0;
	if (t->renegotiated)
		return check_reneg(t, TLS_ERROR);
	ERR_clear_error();
	tlspolicy_begin();
	errno = 0;
	r = SSL_write_ex(t->ssl, p, len, n);
	if (r == 1)
		return check_reneg(t, TLS_OK);
	r = failed(t, -1, 0);
	if (r == TLS_EOF) {   /* writing to a closed peer is an error */
		snprintf(t->err, sizeof(t->err), "the server closed the connection");
		return TLS_ERROR;
	}
	return r;
}

const char *tlsconn_error(const struct tlsconn *t)
{
	return t->err[0] ? t->err : "TLS error";
}

int tlsconn_verify_failed(const struct tlsconn *t)
{
	return t->verify_failed;
}

int tlsconn_resumed(const struct tlsconn *t)
{
	return SSL_session_reused(t->ssl);
}

void tlsconn_free(struct tlsconn *t)
{
	if (!t)
		return;
	if (t->ssl) {
		/* As curl's ossl_close: one close_notify, no wait for the
		 * answer (the socket may already be gone). */
		if (SSL_is_init_finished(t->ssl))
			SSL_shutdown(t->ssl);
		ERR_clear_error();
		SSL_free(t->ssl);
	}
	tlsctx_unref(t->x);
	free(t);
}
