/* SHA-256 in hex (OpenSSL's libcrypto): lets a check compare a value that
 * may not be kept or shown (a Secret's) against another without holding
 * it (checks.md P3). */
#ifndef UTIL_SHA256_H
#define UTIL_SHA256_H

#include <stddef.h>

#define SHA256_HEX_LEN 64

/* The digest of s[0..n) as 64 lowercase hex digits and a NUL into out;
 * "" when libcrypto fails. */
void sha256_hex(const void *s, size_t n, char out[SHA256_HEX_LEN + 1]);

#endif
