/* The trust store of every TLS connection (GETs and exec alike), built
 * once per run as kubectl builds its x509.CertPool (issue 23).
 *
 * With CA data in the kubeconfig it is the only trust (client-go,
 * transport/transport.go rootCertPool: the pool replaces the system
 * roots), parsed as Go's CertPool.AppendCertsFromPEM parses it: every
 * CERTIFICATE block without headers that parses is added, a block that
 * does not parse is skipped, and the data fails only when no block
 * parsed.  Without CA data, Go's system roots on Linux
 * (crypto/x509/root_unix.go loadSystemRoots): SSL_CERT_FILE or else the
 * first readable of the distributions' bundle files, plus every file of
 * SSL_CERT_DIR (colon-separated) or else of /etc/ssl/certs and
 * /etc/pki/tls/certs.  Parsing once matters too: libcurl 7.88 decodes a
 * CURLOPT_CAINFO_BLOB again on every connection (issue 16).
 */
#ifndef KUBE_TLSSTORE_H
#define KUBE_TLSSTORE_H

#include <stddef.h>

#include "util/err.h"

struct x509_store_st;

/* A new store from the kubeconfig's CA text pem[0..len), or NULL with e
 * set in client-go's words ("unable to load root certificates: ...").
 * Free with tlsstore_free(). */
struct x509_store_st *tlsstore_from_pem(const char *pem, size_t len, struct err *e);
/* A new store of the system roots as Go finds them (never NULL: an empty
 * store when nothing is found, which every server then fails against, as
 * Go's empty pool does). */
struct x509_store_st *tlsstore_system(void);
/* Certificates of pem[0..len) added to store, Go's AppendCertsFromPEM
 * way: the number added. */
int tlsstore_add_pem(struct x509_store_st *store, const char *pem, size_t len);
void tlsstore_free(struct x509_store_st *store);

#endif
