/* The kubeconfig's certificate authority, parsed once per run into one
 * X509_STORE that every TLS connection shares (issue 16).
 *
 * Handing curl the PEM (CURLOPT_CAINFO_BLOB) makes libcurl 7.88 decode it
 * again on every connection, resumed or not (PEM_X509_INFO_read_bio: about
 * 1.6 M instructions each).  Instead http.c sets CURLOPT_CAINFO and
 * CURLOPT_CAPATH to NULL (so curl loads nothing, not even the system
 * bundle: the kubeconfig's CA is the only trust, as in client-go, whose
 * rest.TLSClientConfig.CAData replaces the system roots) and installs this
 * store from CURLOPT_SSL_CTX_FUNCTION.  Verification itself is unchanged:
 * OpenSSL checks the chain against the store and curl the host name.  The
 * exec connections' own TLS (tlsconn.h) trusts the same store and checks
 * the name with OpenSSL's X509_VERIFY_PARAM.
 */
#ifndef KUBE_TLSSTORE_H
#define KUBE_TLSSTORE_H

#include <curl/curl.h>
#include <stddef.h>

struct x509_store_st;

/* A new store holding every certificate of the PEM text pem[0..len), with
 * the flags curl sets on its own store (trusted-first, partial chain), or
 * NULL when the text holds no certificate (the caller then hands curl the
 * blob, which fails the way it always did).  Free with tlsstore_free(). */
struct x509_store_st *tlsstore_from_pem(const char *pem, size_t len);
void tlsstore_free(struct x509_store_st *store);

/* A CURLOPT_SSL_CTX_FUNCTION: replaces the SSL_CTX's store with the one
 * in CURLOPT_SSL_CTX_DATA (a counted reference; the store is only read,
 * which OpenSSL allows from several threads). */
CURLcode tlsstore_ssl_ctx(CURL *h, void *ssl_ctx, void *store);

#endif
