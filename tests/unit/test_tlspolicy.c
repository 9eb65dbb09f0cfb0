/* The one TLS policy of both paths (src/kube/tls/tlspolicy.c, issue 23), where
 * the e2e matrix (tests/e2e/test_tls_matrix.py) cannot reach: a server
 * that asks to renegotiate (Python's ssl module cannot), met by the exec
 * path (tlsconn) and the GET path (http_get through libcurl); the CA text
 * parsed as Go's AppendCertsFromPEM; Go's system roots from SSL_CERT_FILE
 * and SSL_CERT_DIR; an HTTPS proxy's TLS, checked by the proxy's own name
 * (libcurl calls the context function for it too).  The server is OpenSSL in this process on 127.0.0.1;
 * nothing here asserts a time. */
#define _GNU_SOURCE
#include <arpa/inet.h>
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
#include "../../src/kube/http/http.h"
#include "../../src/kube/tls/tlsconn.h"
#include "../../src/kube/tls/tlspolicy.h"
#include "../../src/kube/tls/tlsstore.h"
#include "../../src/util/xalloc.h"

static EVP_PKEY *ca_key, *srv_key;
static X509 *ca, *srv;
static char ca_pem[4096];

static void ext(X509 *x, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX v3;
	X509_EXTENSION *e;

	X509V3_set_ctx(&v3, issuer, x, NULL, NULL, 0);
	e = X509V3_EXT_conf_nid(NULL, &v3, nid, value);
	X509_add_ext(x, e, -1);
	X509_EXTENSION_free(e);
}

static X509 *cert(const char *cn, EVP_PKEY *key, X509 *issuer, const char *san)
{
	static long serial = 1;
	X509 *x = X509_new();

	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), serial++);
	X509_gmtime_adj(X509_getm_notBefore(x), -60);
	X509_gmtime_adj(X509_getm_notAfter(x), 86400);
	X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
				   (const unsigned char *)cn, -1, -1, 0);
	X509_set_issuer_name(x, X509_get_subject_name(issuer ? issuer : x));
	X509_set_pubkey(x, key);
	ext(x, issuer ? issuer : x, NID_basic_constraints, issuer ? "CA:FALSE" : "critical,CA:TRUE");
	if (san)
		ext(x, issuer ? issuer : x, NID_subject_alt_name, san);
	X509_sign(x, ca_key, EVP_sha256());
	return x;
}

static void pki(void)
{
	BIO *b = BIO_new(BIO_s_mem());
	char *data;
	long n;

	ca_key = EVP_EC_gen("P-256");
	srv_key = EVP_EC_gen("P-256");
	ca = cert("policy-ca", ca_key, NULL, NULL);
	srv = cert("server", srv_key, ca, "DNS:localhost,IP:127.0.0.1");
	PEM_write_bio_X509(b, ca);
	n = BIO_get_mem_data(b, &data);
	snprintf(ca_pem, sizeof(ca_pem), "%.*s", (int)n, data);
	BIO_free(b);
}

/* ---- the server: TLS 1.2 (renegotiation is gone from 1.3) ---- */

struct server { SSL_CTX *ctx; int lfd, port, reneg; pthread_t th; };

/* Reads one request (an HTTP head or "ping"), asks to renegotiate when
 * s->reneg (a HelloRequest goes out first), then answers. */
static void serve(struct server *s, int fd)
{
	SSL *ssl = SSL_new(s->ctx);
	char buf[2048];
	static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
				 "Content-Length: 2\r\nConnection: close\r\n\r\n{}";

	SSL_set_fd(ssl, fd);
	if (SSL_accept(ssl) == 1 && SSL_read(ssl, buf, sizeof(buf)) > 0) {
		if (s->reneg && SSL_renegotiate(ssl) == 1)
			SSL_do_handshake(ssl);   /* sends the HelloRequest */
		SSL_write(ssl, ok, (int)sizeof(ok) - 1);
		while (SSL_read(ssl, buf, sizeof(buf)) > 0)
			;
		SSL_shutdown(ssl);
	}
	SSL_free(ssl);
	ERR_clear_error();
	close(fd);
}

/* Serves connections one after the other until shut down. */
static void *accept_loop(void *u)
{
	struct server *s = u;
	int fd;

	while ((fd = accept(s->lfd, NULL, NULL)) >= 0)
		serve(s, fd);
	return NULL;
}

static void server_start(struct server *s, int reneg)
{
	memset(s, 0, sizeof(*s));
	s->reneg = reneg;
	s->ctx = t_tls_ctx(srv, srv_key);
	SSL_CTX_set_max_proto_version(s->ctx, TLS1_2_VERSION);
	s->lfd = t_listen(16, &s->port);
	pthread_create(&s->th, NULL, accept_loop, s);
}

static void server_stop(struct server *s)
{
	t_stop(s->lfd, s->th, s->ctx);
}

/* ---- the exec path ---- */

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
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return fd;
}

static int wait_fd(int fd, enum tls_io r)
{
	struct pollfd p = { fd, r == TLS_WANT_WRITE ? POLLOUT : POLLIN, 0 };

	return poll(&p, 1, 10000) > 0;
}

/* Handshake, "ping", then reads until the answer or a failure: TLS_OK
 * when the answer came; why holds the error otherwise. */
static enum tls_io exec_once(const struct tlspolicy *p, int port, char *why, size_t n)
{
	struct tlsctx_opts o = { p, NULL, NULL, 0, 0 };
	struct err e;
	struct tlsctx *x;
	struct tlsconn *t;
	enum tls_io r;
	char buf[512];
	size_t got = 0, total = 0;
	int fd = dial(port);

	err_clear(&e);
	x = tlsctx_new(&o, &e);
	t = x && fd >= 0 ? tlsconn_new(x, fd, NULL) : NULL;
	if (!t) {
		snprintf(why, n, "setup failed: %.200s", e.msg);
		tlsctx_unref(x);
		if (fd >= 0)
			close(fd);
		return TLS_ERROR;
	}
	while ((r = tlsconn_handshake(t)) == TLS_WANT_READ || r == TLS_WANT_WRITE)
		if (!wait_fd(fd, r))
			break;
	while (r == TLS_OK && (r = tlsconn_write(t, "ping", 4, &got)) == TLS_WANT_WRITE)
		wait_fd(fd, r);
	while (r == TLS_OK || r == TLS_WANT_READ || r == TLS_WANT_WRITE) {
		if (r != TLS_OK && !wait_fd(fd, r))
			break;
		r = tlsconn_read(t, buf + total, sizeof(buf) - 1 - total, &got);
		total += r == TLS_OK ? got : 0;
		buf[total] = '\0';
		if (r == TLS_OK && strstr(buf, "{}"))
			break;
	}
	snprintf(why, n, "%s", r == TLS_OK ? "" : tlsconn_error(t));
	tlsconn_free(t);
	tlsctx_unref(x);
	close(fd);
	return r;
}

static struct tlspolicy *policy(const char *ca_text, const char *host)
{
	struct tlspolicy_opts o = { ca_text, ca_text ? strlen(ca_text) : 0, 0, host, NULL };
	struct err e;

	err_clear(&e);
	return tlspolicy_new(&o, &e);
}

static void test_exec_renegotiation(void)
{
	struct server s;
	struct tlspolicy *p = policy(ca_pem, "localhost");
	char why[512];

	/* Without a renegotiation the answer comes (the control); with one
	 * the connection fails in Go's words (conn.go handleRenegotiation),
	 * though the answer followed the HelloRequest. */
	server_start(&s, 0);
	CHECK_INT(exec_once(p, s.port, why, sizeof(why)), TLS_OK);
	server_stop(&s);
	server_start(&s, 1);
	CHECK_INT(exec_once(p, s.port, why, sizeof(why)), TLS_ERROR);
	CHECK_STR(why, "local error: tls: no renegotiation");
	server_stop(&s);
	tlspolicy_free(p);
}

/* ---- the GET path ---- */

static int get_once(const char *ca_text, int port, int insecure, struct err *e)
{
	struct kube_config cfg;
	struct http_client *c;
	struct http_response r = { 0 };
	char server[64];
	int rc;

	memset(&cfg, 0, sizeof(cfg));
	snprintf(server, sizeof(server), "https://localhost:%d", port);
	cfg.server = server;
	cfg.namespace = "default";
	cfg.ca_pem = (char *)ca_text;
	cfg.ca_pem_len = ca_text ? strlen(ca_text) : 0;
	cfg.insecure = insecure;
	cfg.timeout_ms = 20000;
	c = http_client_new(&cfg);
	err_clear(e);
	rc = http_get(c, "/api", &r, e);
	http_response_release(&r);
	http_client_free(c);
	return rc;
}

static void test_get_renegotiation(void)
{
	struct server s;
	struct err e;

	server_start(&s, 0);
	CHECK_INT(get_once(ca_pem, s.port, 0, &e), 0);
	server_stop(&s);
	server_start(&s, 1);
	CHECK(get_once(ca_pem, s.port, 0, &e) < 0);
	CHECK_STR(e.msg, "Unable to connect to the server: local error: tls: no renegotiation");
	/* Insecure or not: the policy is the same. */
	CHECK(get_once(NULL, s.port, 1, &e) < 0);
	CHECK_STR(e.msg, "Unable to connect to the server: local error: tls: no renegotiation");
	server_stop(&s);
}

/* ---- through an HTTPS proxy: its TLS is checked by its own name ---- */

struct proxy { SSL_CTX *ctx; int lfd, port; pthread_t th; };

/* Copies both ways until either side ends. */
static void pipe_both(SSL *ssl, int fd, int back)
{
	char buf[4096];
	int n;

	for (;;) {
		struct pollfd p[2] = { { fd, POLLIN, 0 }, { back, POLLIN, 0 } };

		if (!SSL_pending(ssl) && poll(p, 2, 10000) <= 0)
			return;
		if (SSL_pending(ssl) || (p[0].revents & (POLLIN | POLLHUP))) {
			if ((n = SSL_read(ssl, buf, sizeof(buf))) <= 0 || write(back, buf, (size_t)n) != n)
				return;
		}
		if (p[1].revents & (POLLIN | POLLHUP)) {
			if ((n = (int)read(back, buf, sizeof(buf))) <= 0 || SSL_write(ssl, buf, n) != n)
				return;
		}
	}
}

/* CONNECT over TLS, one connection after the other. */
static void *proxy_loop(void *u)
{
	struct proxy *px = u;
	int fd;

	while ((fd = accept(px->lfd, NULL, NULL)) >= 0) {
		SSL *ssl = SSL_new(px->ctx);
		char head[1024];
		int n = 0, port = 0, back;

		SSL_set_fd(ssl, fd);
		if (SSL_accept(ssl) == 1) {
			head[0] = '\0';
			while (n < (int)sizeof(head) - 1 && !strstr(head, "\r\n\r\n")) {
				int r = SSL_read(ssl, head + n, (int)sizeof(head) - 1 - n);
				if (r <= 0)
					break;
				head[n += r] = '\0';
			}
			sscanf(head, "CONNECT %*[^:]:%d", &port);
			back = port ? dial(port) : -1;
			if (back >= 0) {
				fcntl(back, F_SETFL, fcntl(back, F_GETFL) & ~O_NONBLOCK);
				SSL_write(ssl, "HTTP/1.1 200 Connection established\r\n\r\n", 39);
				pipe_both(ssl, fd, back);
				close(back);
			}
		}
		SSL_free(ssl);
		ERR_clear_error();
		close(fd);
	}
	return NULL;
}

static void proxy_start(struct proxy *px, X509 *cert)
{
	px->ctx = t_tls_ctx(cert, srv_key);
	px->lfd = t_listen(16, &px->port);
	pthread_create(&px->th, NULL, proxy_loop, px);
}

static void proxy_stop(struct proxy *px)
{
	t_stop(px->lfd, px->th, px->ctx);
}

static int get_via(const char *proxy_url, int port, struct err *e)
{
	struct kube_config cfg;
	struct http_client *c;
	struct http_response r = { 0 };
	char server[64];
	int rc;

	memset(&cfg, 0, sizeof(cfg));
	snprintf(server, sizeof(server), "https://localhost:%d", port);
	cfg.server = server;
	cfg.namespace = "default";
	cfg.ca_pem = ca_pem;
	cfg.ca_pem_len = strlen(ca_pem);
	cfg.proxy_url = (char *)proxy_url;
	cfg.timeout_ms = 20000;
	c = http_client_new(&cfg);
	err_clear(e);
	rc = http_get(c, "/api", &r, e);
	http_response_release(&r);
	http_client_free(c);
	return rc;
}

static void test_https_proxy(void)
{
	struct server s;
	struct proxy px;
	struct err e;
	char url[64];
	/* Valid for the proxy's address only, never for the server's name:
	 * checked against the server's name it would fail. */
	X509 *ip_only = cert("proxy", srv_key, ca, "IP:127.0.0.1");
	X509 *wrong = cert("proxy", srv_key, ca, "DNS:other.example");

	server_start(&s, 0);
	proxy_start(&px, ip_only);
	snprintf(url, sizeof(url), "https://127.0.0.1:%d", px.port);
	CHECK_INT(get_via(url, s.port, &e), 0);
	proxy_stop(&px);
	/* A proxy whose certificate is not its own: Go's words for it, the
	 * proxy's failure wrapped as net/http wraps it (kubectl in
	 * tests/e2e/test_tls_matrix.py says the same). */
	proxy_start(&px, wrong);
	snprintf(url, sizeof(url), "https://127.0.0.1:%d", px.port);
	CHECK(get_via(url, s.port, &e) < 0);
	CHECK_STR(e.msg, "Unable to connect to the server: proxyconnect tcp: tls: failed to "
		  "verify certificate: x509: cannot validate certificate for 127.0.0.1 because "
		  "it doesn't contain any IP SANs");
	proxy_stop(&px);
	server_stop(&s);
	X509_free(ip_only);
	X509_free(wrong);
}

/* ---- the trust ---- */

static void test_ca_text(void)
{
	char text[8192];
	struct err e;
	X509_STORE *st;
	static const char bad[] = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
	static const char hdr[] = "-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\n\n"
				  "AAAA\n-----END CERTIFICATE-----\n";

	/* One block that does not parse, then the CA: the CA is kept (Go's
	 * AppendCertsFromPEM skips the bad block), and so is a CA after a
	 * block with headers, a key, or text between blocks. */
	snprintf(text, sizeof(text), "%s%s", bad, ca_pem);
	st = tlsstore_from_pem(text, strlen(text), &e);
	CHECK(st != NULL);
	tlsstore_free(st);
	snprintf(text, sizeof(text), "junk\n%s-----BEGIN PRIVATE KEY-----\nAAAA\n"
		 "-----END PRIVATE KEY-----\nmore junk\n%s", hdr, ca_pem);
	st = tlsstore_from_pem(text, strlen(text), &e);
	CHECK(st != NULL);
	tlsstore_free(st);
	/* Nothing that parses: client-go's words (transport.go
	 * createErrorParsingCAData). */
	err_clear(&e);
	CHECK(tlsstore_from_pem(bad, strlen(bad), &e) == NULL);
	CHECK_STR(e.msg, "unable to load root certificates: failed to parse certificate: "
		  "x509: malformed certificate");
	err_clear(&e);
	CHECK(tlsstore_from_pem("not pem\n", 8, &e) == NULL);
	CHECK_STR(e.msg, "unable to load root certificates: unable to parse bytes as PEM block");
	/* A CA whose END line is missing is no block at all. */
	snprintf(text, sizeof(text), "%.*s", (int)(strstr(ca_pem, "-----END") - ca_pem), ca_pem);
	err_clear(&e);
	CHECK(tlsstore_from_pem(text, strlen(text), &e) == NULL);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
}

static void test_system_roots(void)
{
	char dir[] = "/tmp/test-tlspolicy-XXXXXX", file[64], sub[64], empty[64];
	struct server s;
	struct tlspolicy *p;
	char why[512];

	CHECK(mkdtemp(dir) != NULL);
	snprintf(file, sizeof(file), "%s/ca.pem", dir);
	snprintf(sub, sizeof(sub), "%s/certs", dir);
	snprintf(empty, sizeof(empty), "%s/empty", dir);
	mkdir(sub, 0700);
	mkdir(empty, 0700);
	write_file(file, ca_pem);
	snprintf(why, sizeof(why), "%s/any-name", sub);   /* Go reads every file */
	write_file(why, ca_pem);
	server_start(&s, 0);

	/* No CA in the kubeconfig: SSL_CERT_FILE is trusted (GET and exec). */
	setenv("SSL_CERT_FILE", file, 1);
	setenv("SSL_CERT_DIR", empty, 1);
	p = policy(NULL, "localhost");
	CHECK_INT(exec_once(p, s.port, why, sizeof(why)), TLS_OK);
	tlspolicy_free(p);
	/* SSL_CERT_DIR (a list, colon-separated), with no usable file. */
	setenv("SSL_CERT_FILE", empty, 1);
	setenv("SSL_CERT_DIR", sub, 1);
	snprintf(why, sizeof(why), "%s:%s", empty, sub);
	setenv("SSL_CERT_DIR", why, 1);
	p = policy(NULL, "localhost");
	CHECK_INT(exec_once(p, s.port, why, sizeof(why)), TLS_OK);
	tlspolicy_free(p);
	/* Neither holds it: refused in Go's words. */
	setenv("SSL_CERT_DIR", empty, 1);
	p = policy(NULL, "localhost");
	CHECK_INT(exec_once(p, s.port, why, sizeof(why)), TLS_ERROR);
	CHECK_STR(why, "x509: certificate signed by unknown authority");
	tlspolicy_free(p);
	/* The GET path trusts the same store. */
	{
		struct err e;

		setenv("SSL_CERT_FILE", file, 1);
		CHECK_INT(get_once(NULL, s.port, 0, &e), 0);
		setenv("SSL_CERT_FILE", empty, 1);
		CHECK(get_once(NULL, s.port, 0, &e) < 0);
		CHECK_STR(e.msg, "Unable to connect to the server: tls: failed to verify "
			  "certificate: x509: certificate signed by unknown authority");
	}
	unsetenv("SSL_CERT_FILE");
	unsetenv("SSL_CERT_DIR");
	server_stop(&s);
	unlink(file);
	snprintf(why, sizeof(why), "%s/any-name", sub);
	unlink(why);
	rmdir(sub);
	rmdir(empty);
	rmdir(dir);
}

static void test_names(void)
{
	struct tlspolicy *p = policy(ca_pem, "localhost.");

	/* One trailing dot goes from the name checked and sent. */
	CHECK_STR(tlspolicy_host(p), "localhost");
	CHECK_STR(tlspolicy_sni(p), "localhost");
	tlspolicy_free(p);
	p = policy(ca_pem, "127.0.0.1");
	CHECK(tlspolicy_sni(p) == NULL);
	tlspolicy_free(p);
	p = policy(ca_pem, "::1");
	CHECK(tlspolicy_sni(p) == NULL);
	tlspolicy_free(p);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	pki();
	test_names();
	test_ca_text();
	test_exec_renegotiation();
	test_get_renegotiation();
	test_system_roots();
	test_https_proxy();
	X509_free(ca), X509_free(srv);
	EVP_PKEY_free(ca_key), EVP_PKEY_free(srv_key);
	curl_global_cleanup();
	return T_DONE("test_tlspolicy");
}
