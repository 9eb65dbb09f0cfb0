/* The exec connections' TLS (src/kube/tls/tlsconn.c) against a real OpenSSL
 * server in this process: certificates are made here (a CA, a server
 * certificate for localhost and 127.0.0.1, an expired one, another CA, a
 * client certificate), the server runs in threads on 127.0.0.1, and the
 * client side is the module itself over a non-blocking socket, and once
 * inside curl's tunnel through an HTTPS proxy (a TLS CONNECT proxy here
 * too), the BIO over curl_easy_send/recv.  Nothing
 * here asserts a time: the hang case ends on a deadline and only checks
 * that the handshake never completed. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "loopback.h"
#include "t.h"
#include "../../src/kube/tls/tlsconn.h"
#include "../../src/kube/tls/tlspolicy.h"

/* ---- certificates ---- */

struct pki {
	EVP_PKEY *ca_key, *srv_key, *cli_key, *other_key;
	X509 *ca, *srv, *expired, *other_ca, *cli;
};

static void add_ext(X509 *x, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX v3;
	X509_EXTENSION *ext;

	X509V3_set_ctx(&v3, issuer, x, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &v3, nid, value);
	X509_add_ext(x, ext, -1);
	X509_EXTENSION_free(ext);
}

/* A certificate for key, signed by ikey (issuer NULL: self-signed CA),
 * valid from `from` to `to` seconds from now. */
static X509 *make_cert(const char *cn, EVP_PKEY *key, X509 *issuer, EVP_PKEY *ikey,
		       const char *san, long from, long to)
{
	static long serial = 1;
	X509 *x = X509_new();

	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), serial++);
	X509_gmtime_adj(X509_getm_notBefore(x), from);
	X509_gmtime_adj(X509_getm_notAfter(x), to);
	X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
				   (const unsigned char *)cn, -1, -1, 0);
	X509_set_issuer_name(x, X509_get_subject_name(issuer ? issuer : x));
	X509_set_pubkey(x, key);
	add_ext(x, issuer ? issuer : x, NID_basic_constraints,
		issuer ? "critical,CA:FALSE" : "critical,CA:TRUE");
	if (san)
		add_ext(x, issuer ? issuer : x, NID_subject_alt_name, san);
	X509_sign(x, ikey, EVP_sha256());
	return x;
}

static void pki_make(struct pki *p)
{
	p->ca_key = EVP_EC_gen("P-256");
	p->srv_key = EVP_EC_gen("P-256");
	p->cli_key = EVP_EC_gen("P-256");
	p->other_key = EVP_EC_gen("P-256");
	p->ca = make_cert("test-ca", p->ca_key, NULL, p->ca_key, NULL, -60, 86400);
	p->other_ca = make_cert("other-ca", p->other_key, NULL, p->other_key, NULL, -60, 86400);
	p->srv = make_cert("server", p->srv_key, p->ca, p->ca_key,
			   "DNS:localhost,IP:127.0.0.1", -60, 86400);
	p->expired = make_cert("server", p->srv_key, p->ca, p->ca_key,
			       "DNS:localhost,IP:127.0.0.1", -7200, -3600);
	p->cli = make_cert("alice", p->cli_key, p->ca, p->ca_key, NULL, -60, 86400);
}

static void pki_free(struct pki *p)
{
	X509_free(p->ca), X509_free(p->srv), X509_free(p->expired);
	X509_free(p->other_ca), X509_free(p->cli);
	EVP_PKEY_free(p->ca_key), EVP_PKEY_free(p->srv_key);
	EVP_PKEY_free(p->cli_key), EVP_PKEY_free(p->other_key);
}

/* PEM text of a certificate or a key; caller frees. */
static char *pem_of(X509 *x, EVP_PKEY *k, size_t *len)
{
	BIO *b = BIO_new(BIO_s_mem());
	char *data, *out;
	long n;

	if (x)
		PEM_write_bio_X509(b, x);
	else
		PEM_write_bio_PrivateKey(b, k, NULL, NULL, 0, NULL, NULL);
	n = BIO_get_mem_data(b, &data);
	out = malloc((size_t)n + 1);
	memcpy(out, data, (size_t)n);
	out[n] = '\0';
	*len = (size_t)n;
	BIO_free(b);
	return out;
}

/* ---- the server ---- */

enum srv_mode { SRV_ECHO, SRV_HANG, SRV_DROP };

struct server {
	SSL_CTX *ctx;
	enum srv_mode mode;
	int lfd, port;
	pthread_t thread;
	pthread_mutex_t lock;
	char client_cn[64];     /* the last verified client certificate's CN */
	char alpn_offered[64];  /* the last client's ALPN list, as "a,b" */
	int handled;
};

static int on_alpn(SSL *ssl, const unsigned char **out, unsigned char *outlen,
		   const unsigned char *in, unsigned inlen, void *arg)
{
	struct server *s = arg;
	unsigned i = 0;
	size_t o = 0;

	(void)ssl;
	pthread_mutex_lock(&s->lock);
	while (i < inlen && o + in[i] + 2 < sizeof(s->alpn_offered)) {
		if (o)
			s->alpn_offered[o++] = ',';
		memcpy(s->alpn_offered + o, in + i + 1, in[i]);
		o += in[i];
		i += in[i] + 1u;
	}
	s->alpn_offered[o] = '\0';
	pthread_mutex_unlock(&s->lock);
	return SSL_select_next_proto((unsigned char **)out, outlen,
				     (const unsigned char *)"\x08http/1.1", 9, in, inlen) ==
	       OPENSSL_NPN_NEGOTIATED ? SSL_TLSEXT_ERR_OK : SSL_TLSEXT_ERR_NOACK;
}

struct serve_arg { struct server *s; int fd; };

/* One connection: handshake, then answer each line "ping" with "ok". */
static void *serve_one(void *u)
{
	struct serve_arg *a = u;
	struct server *s = a->s;
	SSL *ssl;
	char buf[64];
	int n;

	if (s->mode == SRV_DROP) {
		close(a->fd);
		free(a);
		return NULL;
	}
	if (s->mode == SRV_HANG) {
		/* Reads the ClientHello, never answers; closes when the client does. */
		while (read(a->fd, buf, sizeof(buf)) > 0)
			;
		close(a->fd);
		free(a);
		return NULL;
	}
	ssl = SSL_new(s->ctx);
	SSL_set_fd(ssl, a->fd);
	if (SSL_accept(ssl) == 1) {
		X509 *peer = SSL_get1_peer_certificate(ssl);

		if (peer) {
			pthread_mutex_lock(&s->lock);
			X509_NAME_get_text_by_NID(X509_get_subject_name(peer), NID_commonName,
						  s->client_cn, sizeof(s->client_cn));
			pthread_mutex_unlock(&s->lock);
			X509_free(peer);
		}
		while ((n = SSL_read(ssl, buf, sizeof(buf))) > 0)
			if (n >= 4 && !memcmp(buf, "ping", 4))
				SSL_write(ssl, "ok\n", 3);
		SSL_shutdown(ssl);
	}
	SSL_free(ssl);
	ERR_clear_error();
	close(a->fd);
	free(a);
	return NULL;
}

static void *accept_loop(void *u)
{
	struct server *s = u;

	for (;;) {
		int fd = accept(s->lfd, NULL, NULL);
		struct serve_arg *a;
		pthread_t th;

		if (fd < 0)
			return NULL;   /* the listening socket was shut down */
		pthread_mutex_lock(&s->lock);
		s->handled++;
		pthread_mutex_unlock(&s->lock);
		a = malloc(sizeof(*a));
		a->s = s, a->fd = fd;
		pthread_create(&th, NULL, serve_one, a);
		pthread_detach(th);
	}
}

/* A server presenting cert (signed by the test CA); need_client: a client
 * certificate from that CA is required; max: the highest version or 0. */
static void server_start(struct server *s, const struct pki *p, X509 *cert,
			 int need_client, int max, enum srv_mode mode)
{
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
	s->mode = mode;
	s->ctx = t_tls_ctx(cert, p->srv_key);
	SSL_CTX_set_alpn_select_cb(s->ctx, on_alpn, s);
	/* Needed to resume sessions that verified a client (CPython's ssl
	 * sets one too, as does Go's server implicitly). */
	SSL_CTX_set_session_id_context(s->ctx, (const unsigned char *)"t", 1);
	if (max)
		SSL_CTX_set_max_proto_version(s->ctx, max);
	if (need_client) {
		X509_STORE_add_cert(SSL_CTX_get_cert_store(s->ctx), p->ca);
		SSL_CTX_set_verify(s->ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
	}
	s->lfd = t_listen(64, &s->port);
	pthread_create(&s->thread, NULL, accept_loop, s);
}

static void server_stop(struct server *s)
{
	t_stop(s->lfd, s->thread, s->ctx);
	/* serve_one threads end when their clients have closed: each test
	 * closes its connections before stopping the server. */
	usleep(0);
}

/* ---- the client side ---- */

static int dial(int port)
{
	struct sockaddr_in a = { 0 };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_family = AF_INET;
	a.sin_port = htons((unsigned short)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);   /* as curl leaves it */
	return fd;
}

/* Runs op until it is not a WANT: the WANT itself when the poll of
 * wait_ms found nothing (a hang). */
static enum tls_io drive_handshake(struct tlsconn *t, int fd, int wait_ms)
{
	enum tls_io r;

	while ((r = tlsconn_handshake(t)) == TLS_WANT_READ || r == TLS_WANT_WRITE) {
		struct pollfd pfd = { fd, r == TLS_WANT_READ ? POLLIN : POLLOUT, 0 };

		if (poll(&pfd, 1, wait_ms) <= 0)
			return r;
	}
	return r;
}

/* "ping" -> "ok": 0 when the answer came. */
static int ping(struct tlsconn *t, int fd)
{
	char buf[16];
	size_t n = 0;
	enum tls_io r;

	while ((r = tlsconn_write(t, "ping", 4, &n)) == TLS_WANT_WRITE)
		;
	if (r != TLS_OK || n != 4)
		return -1;
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };

		r = tlsconn_read(t, buf, sizeof(buf), &n);
		if (r == TLS_OK)
			return n >= 2 && !memcmp(buf, "ok", 2) ? 0 : -1;
		if (r != TLS_WANT_READ || poll(&pfd, 1, 10000) <= 0)
			return -1;
	}
}

struct client {
	struct tlsctx *x;
	struct tlsconn *t;
	int fd;
	enum tls_io hs;
};

/* Connects and handshakes; c->hs is the outcome. */
static void client_connect(struct client *c, struct tlsctx *x, int port, int wait_ms)
{
	c->x = x;
	c->fd = dial(port);
	c->t = c->fd >= 0 ? tlsconn_new(x, c->fd, NULL) : NULL;
	c->hs = c->t ? drive_handshake(c->t, c->fd, wait_ms) : TLS_ERROR;
}

static void client_close(struct client *c)
{
	tlsconn_free(c->t);
	if (c->fd >= 0)
		close(c->fd);
}

struct setup {
	struct pki p;
	char *ca_pem, *other_pem, *cli_pem, *cli_key_pem, *srv_key_pem;
	size_t ca_len, other_len, cli_len, cli_key_len, srv_key_len;
};

/* Policies live as long as the test (a context must not outlive its own). */
static struct tlspolicy *policies[64];
static int npolicies;

static struct tlspolicy *policy_for(const char *ca, const char *host, int insecure)
{
	struct tlspolicy_opts o = { ca, ca ? strlen(ca) : 0, insecure, host, NULL };
	struct err e;
	struct tlspolicy *p;

	err_clear(&e);
	p = tlspolicy_new(&o, &e);
	if (p && npolicies < 64)
		policies[npolicies++] = p;
	return p;
}

static struct tlsctx *ctx_for(struct setup *s, const char *ca, const char *host,
			      int insecure, int client_cert, struct err *e)
{
	struct tlsctx_opts o = { policy_for(ca, host, insecure), NULL, NULL, 0, 0 };

	if (client_cert) {
		o.cert_pem = s->cli_pem, o.cert_len = s->cli_len;
		o.key_pem = s->cli_key_pem, o.key_len = s->cli_key_len;
	}
	err_clear(e);
	return tlsctx_new(&o, e);
}

/* One handshake of a fresh context against a server presenting cert;
 * returns the outcome, the error text in why. */
static enum tls_io one(struct setup *s, X509 *cert, const char *store, const char *host,
		       int insecure, char *why, size_t n, int *verify_failed)
{
	struct server srv;
	struct client c;
	struct err e;
	struct tlsctx *x = ctx_for(s, store, host, insecure, 0, &e);
	enum tls_io r;

	server_start(&srv, &s->p, cert, 0, 0, SRV_ECHO);
	client_connect(&c, x, srv.port, 10000);
	r = c.hs;
	if (r == TLS_OK && ping(c.t, c.fd) < 0)
		r = TLS_ERROR;
	snprintf(why, n, "%s", c.t ? tlsconn_error(c.t) : "no connection");
	*verify_failed = c.t ? tlsconn_verify_failed(c.t) : 0;
	client_close(&c);
	tlsctx_unref(x);
	server_stop(&srv);
	return r;
}

static void test_verification(struct setup *s)
{
	char why[256];
	int vf = 0;

	/* Right CA, the name and the IP in the SANs: works. */
	CHECK_INT(one(s, s->p.srv, s->ca_pem, "localhost", 0, why, sizeof(why), &vf), TLS_OK);
	CHECK_INT(one(s, s->p.srv, s->ca_pem, "127.0.0.1", 0, why, sizeof(why), &vf), TLS_OK);
	/* Another CA: the chain fails, in Go's words (tlspolicy.h). */
	CHECK_INT(one(s, s->p.srv, s->other_pem, "localhost", 0, why, sizeof(why), &vf), TLS_ERROR);
	CHECK(vf);
	CHECK_STR(why, "x509: certificate signed by unknown authority");
	/* A name (tls-server-name) or an IP the certificate does not hold. */
	CHECK_INT(one(s, s->p.srv, s->ca_pem, "kubernetes.example", 0, why, sizeof(why), &vf), TLS_ERROR);
	CHECK(vf);
	CHECK_STR(why, "x509: certificate is valid for localhost, not kubernetes.example");
	CHECK_INT(one(s, s->p.srv, s->ca_pem, "127.0.0.2", 0, why, sizeof(why), &vf), TLS_ERROR);
	CHECK(vf);
	CHECK_STR(why, "x509: certificate is valid for 127.0.0.1, not 127.0.0.2");
	/* Expired: Go's words, its dates in RFC 3339. */
	CHECK_INT(one(s, s->p.expired, s->ca_pem, "localhost", 0, why, sizeof(why), &vf), TLS_ERROR);
	CHECK_HAS(why, "x509: certificate has expired or is not yet valid: current time ");
	CHECK_HAS(why, "Z is after ");
	/* insecure-skip-tls-verify: neither the CA nor the name counts. */
	CHECK_INT(one(s, s->p.srv, s->other_pem, "kubernetes.example", 1, why, sizeof(why), &vf),
		  TLS_OK);
	CHECK_INT(one(s, s->p.expired, NULL, "localhost", 1, why, sizeof(why), &vf), TLS_OK);
}

static void test_client_cert_alpn_version(struct setup *s)
{
	struct server srv;
	struct client c;
	struct err e;
	struct tlsctx *x;

	/* The server requires a client certificate: without one the
	 * handshake (or, in TLS 1.3, the first read) fails; with it the
	 * server sees the CN, and ALPN offered only http/1.1. */
	server_start(&srv, &s->p, s->p.srv, 1, 0, SRV_ECHO);
	x = ctx_for(s, s->ca_pem, "localhost", 0, 0, &e);
	client_connect(&c, x, srv.port, 10000);
	CHECK(c.hs != TLS_OK || ping(c.t, c.fd) < 0);
	client_close(&c);
	tlsctx_unref(x);
	x = ctx_for(s, s->ca_pem, "localhost", 0, 1, &e);
	CHECK(x != NULL);
	client_connect(&c, x, srv.port, 10000);
	CHECK_INT(c.hs, TLS_OK);
	CHECK_INT(ping(c.t, c.fd), 0);
	pthread_mutex_lock(&srv.lock);
	CHECK_STR(srv.client_cn, "alice");
	CHECK_STR(srv.alpn_offered, "http/1.1");
	pthread_mutex_unlock(&srv.lock);
	client_close(&c);
	tlsctx_unref(x);
	server_stop(&srv);

	/* A server stuck at TLS 1.1: refused (TLS 1.2 is the floor). */
	server_start(&srv, &s->p, s->p.srv, 0, TLS1_1_VERSION, SRV_ECHO);
	x = ctx_for(s, s->ca_pem, "localhost", 0, 0, &e);
	client_connect(&c, x, srv.port, 10000);
	CHECK_INT(c.hs, TLS_ERROR);
	CHECK_STR(tlsconn_error(c.t), "remote error: tls: protocol version not supported");
	client_close(&c);
	tlsctx_unref(x);
	server_stop(&srv);
}

static void test_bad_material(struct setup *s)
{
	struct tlsctx_opts o = { NULL, NULL, NULL, 0, 0 };
	struct tlspolicy_opts po = { "not a certificate\n", 18, 0, "localhost", NULL };
	struct err e;

	/* A CA text without a certificate fails (client-go's words), never
	 * falls back to the system's roots. */
	err_clear(&e);
	CHECK(tlspolicy_new(&po, &e) == NULL);
	CHECK_STR(e.msg, "unable to load root certificates: unable to parse bytes as PEM block");
	/* A client key that is not the certificate's. */
	o.policy = policy_for(s->ca_pem, "localhost", 0);
	o.cert_pem = s->cli_pem, o.cert_len = s->cli_len;
	o.key_pem = s->srv_key_pem, o.key_len = s->srv_key_len;
	err_clear(&e);
	CHECK(tlsctx_new(&o, &e) == NULL);
	CHECK_HAS(e.msg, "unable to use the client key");
	o.key_pem = "junk", o.key_len = 4;
	err_clear(&e);
	CHECK(tlsctx_new(&o, &e) == NULL);
}

static void test_hang_and_drop(struct setup *s)
{
	struct server srv;
	struct client c;
	struct err e;
	struct tlsctx *x = ctx_for(s, s->ca_pem, "localhost", 0, 0, &e);

	/* A server that never answers: the handshake only ever wants to
	 * read (the caller's deadline ends it; exec_conn.c words it). */
	server_start(&srv, &s->p, s->p.srv, 0, 0, SRV_HANG);
	client_connect(&c, x, srv.port, 200);
	CHECK_INT(c.hs, TLS_WANT_READ);
	client_close(&c);
	server_stop(&srv);
	/* A server that closes at once: one clear line. */
	server_start(&srv, &s->p, s->p.srv, 0, 0, SRV_DROP);
	client_connect(&c, x, srv.port, 10000);
	CHECK_INT(c.hs, TLS_ERROR);
	CHECK(!strcmp(tlsconn_error(c.t), "the server closed the connection during the TLS "
		      "handshake") || strstr(tlsconn_error(c.t), "Connection reset"));
	client_close(&c);
	server_stop(&srv);
	tlsctx_unref(x);
}

/* ---- through an HTTPS proxy: our TLS inside curl's ---- */

struct proxy { SSL_CTX *ctx; int lfd, port, backend_port; pthread_t thread; char connect_line[128]; };

/* Copies both ways until either side ends. */
static void pipe_tls(SSL *ssl, int fd, int back)
{
	char buf[4096];
	int n;

	for (;;) {
		struct pollfd p[2] = { { fd, POLLIN, 0 }, { back, POLLIN, 0 } };

		if (!SSL_pending(ssl) && poll(p, 2, 10000) <= 0)
			return;
		if (SSL_pending(ssl) || (p[0].revents & (POLLIN | POLLHUP))) {
			n = SSL_read(ssl, buf, sizeof(buf));
			if (n <= 0 || write(back, buf, (size_t)n) != n)
				return;
		}
		if (p[1].revents & (POLLIN | POLLHUP)) {
			n = (int)read(back, buf, sizeof(buf));
			if (n <= 0 || SSL_write(ssl, buf, n) != n)
				return;
		}
	}
}

/* One CONNECT over TLS, as an HTTPS proxy serves it. */
static void *proxy_one(void *u)
{
	struct proxy *px = u;
	int fd = accept(px->lfd, NULL, NULL), back = -1, n = 0, port = 0;
	SSL *ssl = SSL_new(px->ctx);
	char head[1024];

	SSL_set_fd(ssl, fd);
	if (fd >= 0 && SSL_accept(ssl) == 1) {
		while (n < (int)sizeof(head) - 1 && !strstr(head, "\r\n\r\n")) {
			int r = SSL_read(ssl, head + n, (int)sizeof(head) - 1 - n);
			if (r <= 0)
				break;
			n += r;
			head[n] = '\0';
		}
		sscanf(head, "CONNECT %*[^:]:%d", &port);
		snprintf(px->connect_line, sizeof(px->connect_line), "%.*s",
			 (int)strcspn(head, "\r"), head);
		back = port ? dial(port) : -1;
		if (back >= 0) {
			fcntl(back, F_SETFL, fcntl(back, F_GETFL) & ~O_NONBLOCK);
			SSL_write(ssl, "HTTP/1.1 200 Connection established\r\n\r\n", 39);
			pipe_tls(ssl, fd, back);
			close(back);
		}
		SSL_shutdown(ssl);
	}
	SSL_free(ssl);
	if (fd >= 0)
		close(fd);
	return NULL;
}

static void test_https_proxy(struct setup *s)
{
	struct server srv;
	struct proxy px;
	struct curl_blob ca = { s->ca_pem, s->ca_len, CURL_BLOB_COPY };
	char url[64], purl[64];
	struct err e;
	struct tlsctx *x = ctx_for(s, s->ca_pem, "localhost", 0, 0, &e);
	struct tlsconn *t = NULL;
	curl_socket_t sock = CURL_SOCKET_BAD;
	CURL *h = curl_easy_init();
	CURLcode rc;

	server_start(&srv, &s->p, s->p.srv, 0, 0, SRV_ECHO);
	memset(&px, 0, sizeof(px));
	px.ctx = t_tls_ctx(s->p.srv, s->p.srv_key);
	px.lfd = t_listen(4, &px.port);
	pthread_create(&px.thread, NULL, proxy_one, &px);

	/* What http_exec_easy_new asks of curl for an https server behind an
	 * https proxy: connect only, on the plain-TCP URL, through the tunnel. */
	snprintf(url, sizeof(url), "http://localhost:%d/", srv.port);
	snprintf(purl, sizeof(purl), "https://127.0.0.1:%d", px.port);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_CONNECT_ONLY, 1L);
	curl_easy_setopt(h, CURLOPT_PROXY, purl);
	curl_easy_setopt(h, CURLOPT_HTTPPROXYTUNNEL, 1L);
	curl_easy_setopt(h, CURLOPT_PROXY_CAINFO_BLOB, &ca);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	rc = curl_easy_perform(h);
	CHECK_INT(rc, CURLE_OK);
	curl_easy_getinfo(h, CURLINFO_ACTIVESOCKET, &sock);
	if (rc == CURLE_OK && sock != CURL_SOCKET_BAD)
		t = tlsconn_new(x, -1, h);
	CHECK(t != NULL);
	if (t) {
		CHECK_INT(drive_handshake(t, (int)sock, 10000), TLS_OK);
		CHECK_INT(ping(t, (int)sock), 0);
		CHECK_INT(tlsconn_verify_failed(t), 0);
	}
	tlsconn_free(t);
	curl_easy_cleanup(h);
	pthread_join(px.thread, NULL);
	CHECK_INT(strncmp(px.connect_line, "CONNECT localhost:", 18), 0);
	pthread_mutex_lock(&srv.lock);
	CHECK_INT(srv.handled, 1);
	pthread_mutex_unlock(&srv.lock);
	close(px.lfd);
	SSL_CTX_free(px.ctx);
	server_stop(&srv);
	tlsctx_unref(x);
}

/* ---- sessions: one full handshake, then resumptions ---- */

struct par { struct tlsctx *x; int port, ok, primer; };

/* One exec's TLS as exec_conn.c runs it: wait for a turn, handshake,
 * request and answer, let the others go. */
static void *par_client(void *u)
{
	struct par *p = u;
	struct client c;
	long waited = 0;

	while (!tlsctx_turn(p->x, 50, waited, &p->primer))
		waited += 50;
	client_connect(&c, p->x, p->port, 10000);
	p->ok = c.hs == TLS_OK && ping(c.t, c.fd) == 0;
	if (p->primer)
		tlsctx_primed(p->x);
	client_close(&c);
	return NULL;
}

static void test_sessions(struct setup *s)
{
	struct server srv;
	struct client c;
	struct err e;
	struct tlsctx *x = ctx_for(s, s->ca_pem, "localhost", 0, 1, &e);
	unsigned long full = 0, resumed = 0;
	struct par p[8];
	pthread_t th[8];
	int i, primers = 0, ok = 0, primer;

	server_start(&srv, &s->p, s->p.srv, 1, 0, SRV_ECHO);
	/* Five in a row on one context: the first is full, then all resume
	 * (the TLS 1.3 ticket comes with the first answer). */
	for (i = 0; i < 5; i++) {
		client_connect(&c, x, srv.port, 10000);
		CHECK_INT(c.hs, TLS_OK);
		CHECK_INT(ping(c.t, c.fd), 0);
		CHECK_INT(tlsconn_resumed(c.t), i > 0);
		client_close(&c);
	}
	tlsctx_counts(x, &full, &resumed);
	CHECK_INT(full, 1);
	CHECK_INT(resumed, 4);
	tlsctx_unref(x);

	/* Eight at once on a fresh context: one primes, seven resume. */
	x = ctx_for(s, s->ca_pem, "localhost", 0, 1, &e);
	for (i = 0; i < 8; i++) {
		p[i].x = x, p[i].port = srv.port, p[i].ok = 0, p[i].primer = 0;
		pthread_create(&th[i], NULL, par_client, &p[i]);
	}
	for (i = 0; i < 8; i++) {
		pthread_join(th[i], NULL);
		primers += p[i].primer;
		ok += p[i].ok;
	}
	CHECK_INT(ok, 8);
	CHECK_INT(primers, 1);
	tlsctx_counts(x, &full, &resumed);
	CHECK_INT(full, 1);
	CHECK_INT(resumed, 7);
	tlsctx_unref(x);

	/* The turn itself: the first primes, a second waits (a bounded
	 * number of times), and goes once the first is done. */
	x = ctx_for(s, s->ca_pem, "localhost", 0, 0, &e);
	CHECK_INT(tlsctx_turn(x, 1, 0, &primer), 1);
	CHECK_INT(primer, 1);
	CHECK_INT(tlsctx_turn(x, 1, 0, &primer), 0);
	CHECK_INT(primer, 0);
	CHECK_INT(tlsctx_turn(x, 1, TLSCTX_PRIME_WAIT_MS, &primer), 1);  /* waited enough */
	tlsctx_primed(x);
	CHECK_INT(tlsctx_turn(x, 1, 0, &primer), 1);
	CHECK_INT(primer, 0);
	tlsctx_unref(x);
	server_stop(&srv);
}

int main(void)
{
	struct setup s;

	/* The test server's SSL_shutdown may write to a closed socket. */
	signal(SIGPIPE, SIG_IGN);
	memset(&s, 0, sizeof(s));
	pki_make(&s.p);
	s.ca_pem = pem_of(s.p.ca, NULL, &s.ca_len);
	s.other_pem = pem_of(s.p.other_ca, NULL, &s.other_len);
	s.cli_pem = pem_of(s.p.cli, NULL, &s.cli_len);
	s.cli_key_pem = pem_of(NULL, s.p.cli_key, &s.cli_key_len);
	s.srv_key_pem = pem_of(NULL, s.p.srv_key, &s.srv_key_len);

	test_verification(&s);
	test_client_cert_alpn_version(&s);
	test_bad_material(&s);
	test_hang_and_drop(&s);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	test_https_proxy(&s);
	test_sessions(&s);

	while (npolicies)
		tlspolicy_free(policies[--npolicies]);
	free(s.ca_pem), free(s.other_pem), free(s.cli_pem);
	free(s.cli_key_pem), free(s.srv_key_pem);
	pki_free(&s.p);
	curl_global_cleanup();
	return T_DONE("test_tlsconn");
}
