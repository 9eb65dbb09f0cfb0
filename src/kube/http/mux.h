/* Inside the HTTP client (http_int.h): GETs multiplexed on one connection.
 *
 * kubectl (client-go, Go's net/http2 transport) sends its GETs as HTTP/2
 * streams on one connection per host.  libcurl 7.88 multiplexes only the
 * transfers of one multi handle (CURLMOPT_PIPELINING CURLPIPE_MULTIPLEX,
 * its default); easy handles performed in separate threads never share an
 * h2 connection, and each new connection costs an SSL_CTX and a handshake
 * (issue 46: ~4.5 M instructions).  So one thread per client owns one
 * multi handle; a caller hands it a prepared easy handle and blocks until
 * the transfer is over.  Against an HTTP/1.1-only server (or proxy) the
 * multi's pool keeps the connections alive for the next transfers, from
 * one thread, so a transfer finds an idle one whenever there is one.
 *
 * The thread starts on the first transfer and is joined by mux_free.
 * Not for use outside src/kube/http/.
 */
#ifndef KUBE_HTTP_MUX_H
#define KUBE_HTTP_MUX_H

#include <curl/curl.h>

/* The most connections the multi opens to the server, and keeps idle:
 * --parallel's bound (512), never fewer than the callers put in flight.
 * Against an HTTP/1.1 server a transfer waiting for a connection under a
 * tighter cap would spend its own deadline on another's hung read (a
 * stalled log or metric GET holds its connection until its own deadline).
 * How many log reads are in flight is src/run/run.c's RUN_LOG_GETS (8):
 * HTTP/1.1 or not, they need no more connections than that, as the
 * multi's pool hands an idle one to the next transfer. */
#define MUX_HOST_CONNECTIONS 512L

struct mux;

struct mux *mux_new(void);
/* Ends the thread (no transfer may be in flight) and closes the
 * connections.  NULL is a no-op. */
void mux_free(struct mux *m);

/* Performs h on the mux's connections, as curl_easy_perform would in
 * this thread: every option of h (timeouts, callbacks) holds; the
 * callbacks run in the mux's thread.  The TLS failure words of the
 * transfer (tlspolicy.h) are this thread's afterwards, as after
 * curl_easy_perform.  h must not use a share handle that shares
 * connections (the multi's own pool is what is multiplexed). */
CURLcode mux_perform(struct mux *m, CURL *h);

#endif
