/* libFuzzer target: the server URL's path as a request prefix
 * (urlpath_prefix, urlpath_clean) from a kubeconfig's `server:`.  Checks
 * the promises of urlpath.h: "" or "/..." with no empty, "." or ".."
 * segment and no trailing slash; only path-safe bytes unescaped; and a
 * clean path stays unchanged by another clean. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kube/http/urlpath.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_prefix(const char *p)
{
	size_t n = strlen(p), i;
	char *again;

	if (n == 0)
		return;
	if (p[0] != '/' || p[n - 1] == '/' || strstr(p, "//") ||
	    strstr(p, "/./") || strstr(p, "/../"))
		abort();
	if ((n >= 2 && !strcmp(p + n - 2, "/.")) || (n >= 3 && !strcmp(p + n - 3, "/..")))
		abort();
	for (i = 0; i < n; i++)
		if ((unsigned char)p[i] <= 0x20 || (unsigned char)p[i] >= 0x7f ||
		    strchr("?#\"<>\\^`{|}", p[i]))
			abort();
	again = strdup(p);
	urlpath_clean(again);
	if (strcmp(again, p) && strchr(p, '%') == NULL)
		abort();
	free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 10), *p;

	memcpy(s, "https://h", 9);
	memcpy(s + 9, data, size);
	s[size + 9] = '\0';
	p = urlpath_prefix(s);
	check_prefix(p);
	free(p);
	/* the clean alone, on a rooted copy */
	s[8] = '/';
	urlpath_clean(s + 8);
	if (s[8] != '/')
		abort();
	free(s);
	return 0;
}
