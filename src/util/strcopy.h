/* Bounded string copies: what snprintf(dst, n, "%s", src) and "%.*s"
 * write, without formatting.  The judges and the parsers ran them ~2,000
 * times a pod (issue 46); one implementation for both layers. */
#ifndef UTIL_STRCOPY_H
#define UTIL_STRCOPY_H

#include <stddef.h>

/* src (NULL: "") into dst of n bytes, cut to fit, always terminated. */
void copy_str(char *dst, size_t n, const char *src);
/* The same of src's first max bytes at most: snprintf's "%.*s". */
void copy_strn(char *dst, size_t n, const char *src, size_t max);

#endif
