/* Bounded string copies (strcopy.h). */
#include "util/strcopy.h"

#include <string.h>

void copy_strn(char *dst, size_t n, const char *src, size_t max)
{
	size_t k;

	if (!n)
		return;
	k = src ? strnlen(src, max < n - 1 ? max : n - 1) : 0;
	if (k)
		memcpy(dst, src, k);
	dst[k] = '\0';
}

void copy_str(char *dst, size_t n, const char *src)
{
	copy_strn(dst, n, src, (size_t)-1);
}
