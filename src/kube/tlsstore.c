/* One parsed CA for every connection (tlsstore.h). */
#include "tlsstore.h"

#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

X509_STORE *tlsstore_from_pem(const char *pem, size_t len)
{
	BIO *bio;
	X509_STORE *store;
	X509 *x;
	int n = 0;

	if (!pem || !len || len > (size_t)1 << 28)
		return NULL;
	bio = BIO_new_mem_buf(pem, (int)len);
	store = bio ? X509_STORE_new() : NULL;
	if (!store) {
		BIO_free(bio);
		return NULL;
	}
	/* Every CERTIFICATE block, as curl's own loader takes them; other
	 * blocks between them are skipped by the PEM reader. */
	while ((x = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
		if (X509_STORE_add_cert(store, x) == 1)
			n++;
		X509_free(x);
	}
	BIO_free(bio);
	if (n == 0) {
		X509_STORE_free(store);
		return NULL;
	}
	/* What libcurl 7.88 sets on the store it builds (vtls/openssl.c,
	 * populate_x509_store): chains built from the trusted store first, and
	 * any certificate in it is an anchor (as Go's x509.CertPool is). */
	X509_STORE_set_flags(store, X509_V_FLAG_TRUSTED_FIRST | X509_V_FLAG_PARTIAL_CHAIN);
	return store;
}

void tlsstore_free(X509_STORE *store)
{
	X509_STORE_free(store);
}

CURLcode tlsstore_ssl_ctx(CURL *h, void *ssl_ctx, void *store)
{
	(void)h;
	SSL_CTX_set1_cert_store(ssl_ctx, store);
	return CURLE_OK;
}
