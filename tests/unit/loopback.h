/* Test TLS servers on 127.0.0.1 (test_tlsconn.c, test_tlspolicy.c): the
 * listening socket and the teardown each of their servers and proxies
 * shares. */
#ifndef T_LOOPBACK_H
#define T_LOOPBACK_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/ssl.h>

/* An SSL_CTX serving cert with key; the caller frees it (t_stop does). */
static inline SSL_CTX *t_tls_ctx(X509 *cert, EVP_PKEY *key)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());

	SSL_CTX_use_certificate(ctx, cert);
	SSL_CTX_use_PrivateKey(ctx, key);
	return ctx;
}

/* A socket listening on 127.0.0.1 at a port the kernel picks (*port). */
static inline int t_listen(int backlog, int *port)
{
	struct sockaddr_in a = { 0 };
	socklen_t al = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bind(fd, (struct sockaddr *)&a, sizeof(a));
	listen(fd, backlog);
	getsockname(fd, (struct sockaddr *)&a, &al);
	*port = ntohs(a.sin_port);
	return fd;
}

/* Stops a server t_listen started: shutdown wakes its accept thread th,
 * which is joined; then the socket is closed and ctx freed. */
static inline void t_stop(int lfd, pthread_t th, SSL_CTX *ctx)
{
	shutdown(lfd, SHUT_RDWR);
	pthread_join(th, NULL);
	close(lfd);
	SSL_CTX_free(ctx);
}

#endif
