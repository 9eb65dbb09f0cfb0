/* SHA-256 in hex (sha256.h). */
#include "util/sha256.h"

#include <openssl/evp.h>

void sha256_hex(const void *s, size_t n, char out[SHA256_HEX_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0, i;

	out[0] = 0;
	if (!EVP_Digest(s, n, md, &len, EVP_sha256(), NULL) || len * 2 != SHA256_HEX_LEN)
		return;
	for (i = 0; i < len; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[2 * len] = 0;
}
