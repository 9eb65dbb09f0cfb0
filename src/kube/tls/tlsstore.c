/* The trust store, parsed as Go parses it (tlsstore.h). */
#define _GNU_SOURCE
#include "tlsstore.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include "util/xalloc.h"

/* Go's crypto/x509/root_linux.go certFiles and certDirectories. */
static const char *const cert_files[] = {
	"/etc/ssl/certs/ca-certificates.crt",
	"/etc/pki/tls/certs/ca-bundle.crt",
	"/etc/ssl/ca-bundle.pem",
	"/etc/pki/tls/cacert.pem",
	"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
	"/etc/ssl/cert.pem",
};
static const char *const cert_dirs[] = { "/etc/ssl/certs", "/etc/pki/tls/certs" };

#define MAX_PEM_FILE ((size_t)16 << 20)

/* One PEM block as Go's encoding/pem Decode finds it: a "-----BEGIN T-----"
 * line at a line start, then the body, then "-----END T-----".  Returns
 * where to look for the next block; *body set (and *type) when complete,
 * NULL body for a block without its end (skipped, as Go skips it). */
struct block { const char *type, *body; size_t type_len, body_len; };

static const char *next_block(const char *p, const char *end, struct block *b)
{
	static const char begin[] = "-----BEGIN ";
	const char *t, *te, *q;
	char endline[128];
	size_t n;

	b->body = NULL;
	for (;;) {
		t = memmem(p, (size_t)(end - p), begin, sizeof(begin) - 1);
		if (!t)
			return NULL;
		if (t == p || t[-1] == '\n')
			break;
		p = t + 1;
	}
	t += sizeof(begin) - 1;
	te = memmem(t, (size_t)(end - t), "-----", 5);
	q = memchr(t, '\n', (size_t)(end - t));
	if (!te || !q || te > q || (size_t)(te - t) > 64)
		return q ? q + 1 : NULL;   /* not a BEGIN line: look further */
	b->type = t, b->type_len = (size_t)(te - t);
	n = (size_t)snprintf(endline, sizeof(endline), "\n-----END %.*s-----",
			     (int)b->type_len, b->type);
	t = memmem(q, (size_t)(end - q), endline, n);
	if (!t)
		return q + 1;
	b->body = q + 1;
	b->body_len = (size_t)(t + 1 - b->body);
	return t + n;
}

/* The DER of a body (base64 with line breaks), or -1: a body with
 * RFC 1421 headers ("Proc-Type: ...", which AppendCertsFromPEM skips)
 * or that does not decode. */
static long decode_body(const struct block *b, unsigned char **der)
{
	const char *nl = memchr(b->body, '\n', b->body_len);
	EVP_ENCODE_CTX *ctx;
	int n = 0, m = 0, ok;

	if (nl && memchr(b->body, ':', (size_t)(nl - b->body)))
		return -1;
	if (b->body_len > MAX_PEM_FILE)
		return -1;
	*der = xmalloc(b->body_len + 1);
	ctx = EVP_ENCODE_CTX_new();
	EVP_DecodeInit(ctx);
	ok = EVP_DecodeUpdate(ctx, *der, &n, (const unsigned char *)b->body,
			      (int)b->body_len) >= 0 &&
	     EVP_DecodeFinal(ctx, *der + n, &m) == 1;
	EVP_ENCODE_CTX_free(ctx);
	if (!ok) {
		free(*der);
		return -1;
	}
	return n + m;
}

/* A certificate whose DER parses in full (Go's ParseCertificate refuses
 * trailing data too), or NULL. */
static X509 *parse_der(const unsigned char *der, long len)
{
	const unsigned char *p = der;
	X509 *x = d2i_X509(NULL, &p, len);

	if (x && p != der + len) {
		X509_free(x);
		return NULL;
	}
	return x;
}

/* Walks the blocks; counts those added, and says why the first bad one
 * failed (client-go's createErrorParsingCAData). */
static int add_pem(X509_STORE *store, const char *pem, size_t len, const char **why)
{
	const char *p = pem, *end = pem + len;
	struct block b;
	int added = 0;

	*why = NULL;
	while (p && p < end) {
		unsigned char *der;
		long n;
		X509 *x;

		p = next_block(p, end, &b);
		if (!b.body) {
			if (!*why && !added)
				*why = "unable to parse bytes as PEM block";
			continue;
		}
		if (b.type_len != 11 || memcmp(b.type, "CERTIFICATE", 11))
			continue;
		n = decode_body(&b, &der);
		if (n < 0) {
			if (!*why)
				*why = "unable to parse bytes as PEM block";
			continue;
		}
		x = parse_der(der, n);
		free(der);
		if (!x) {
			if (!*why)
				*why = "failed to parse certificate: x509: malformed certificate";
			continue;
		}
		if (X509_STORE_add_cert(store, x) == 1)
			added++;
		X509_free(x);
	}
	ERR_clear_error();
	return added;
}

int tlsstore_add_pem(X509_STORE *store, const char *pem, size_t len)
{
	const char *why;

	return pem && len ? add_pem(store, pem, len, &why) : 0;
}

/* Any certificate in the store is an anchor (Go's CertPool: a pooled
 * intermediate ends a chain too: X509_V_FLAG_PARTIAL_CHAIN), and chains
 * are built from it first, as curl set it. */
static X509_STORE *store_new(void)
{
	X509_STORE *s = X509_STORE_new();

	if (!s)
		abort();
	X509_STORE_set_flags(s, X509_V_FLAG_TRUSTED_FIRST | X509_V_FLAG_PARTIAL_CHAIN);
	return s;
}

X509_STORE *tlsstore_from_pem(const char *pem, size_t len, struct err *e)
{
	X509_STORE *s = store_new();
	const char *why = NULL;

	if (len > MAX_PEM_FILE || add_pem(s, pem, len, &why) == 0) {
		X509_STORE_free(s);
		err_setp(e, ERR_CONFIG, "unable to load root certificates: %s",
			 why ? why : "no valid certificate authority data seen");
		return NULL;
	}
	return s;
}

/* A whole regular file's contents, or NULL. */
static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	char *data = NULL;

	if (!f)
		return NULL;
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
	    (size_t)st.st_size <= MAX_PEM_FILE) {
		data = xmalloc((size_t)st.st_size + 1);
		*len = fread(data, 1, (size_t)st.st_size, f);
	}
	fclose(f);
	return data;
}

static int add_file(X509_STORE *s, const char *path)
{
	size_t len = 0;
	char *data = read_file(path, &len);

	if (!data)
		return -1;
	tlsstore_add_pem(s, data, len);
	free(data);
	return 0;
}

/* Go's readUniqueDirectoryEntries: every entry but symlinks to a file of
 * the same directory (the hash links of c_rehash). */
static int same_dir_link(const char *dir, const char *name)
{
	char path[4096], target[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return 0;
	target[n] = '\0';
	return !strchr(target, '/');
}

static void add_dir(X509_STORE *s, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[4096];

	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' && (!de->d_name[1] ||
		    (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		if (same_dir_link(dir, de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		add_file(s, path);
	}
	closedir(d);
}

X509_STORE *tlsstore_system(void)
{
	X509_STORE *s = store_new();
	const char *f = getenv("SSL_CERT_FILE"), *d = getenv("SSL_CERT_DIR");
	size_t i;

	if (f && *f)
		add_file(s, f);
	else
		for (i = 0; i < sizeof(cert_files) / sizeof(*cert_files); i++)
			if (add_file(s, cert_files[i]) == 0)
				break;
	if (d && *d) {
		char *list = xstrdup(d), *save = NULL, *one;

		for (one = strtok_r(list, ":", &save); one; one = strtok_r(NULL, ":", &save))
			add_dir(s, one);
		free(list);
	} else {
		for (i = 0; i < sizeof(cert_dirs) / sizeof(*cert_dirs); i++)
			add_dir(s, cert_dirs[i]);
	}
	return s;
}

void tlsstore_free(X509_STORE *store)
{
	X509_STORE_free(store);
}
