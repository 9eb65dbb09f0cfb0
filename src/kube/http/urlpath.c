/* Server URL paths as client-go joins them (urlpath.h). */
#include "urlpath.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static int hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* net/url's unescape in encodePath mode: "%XX" decoded, '+' kept.  A '%'
 * that starts no valid escape is kept literally (net/url would refuse the
 * whole URL; kubeconfig loading has accepted it by now). */
static char *unescape(const char *s, size_t n)
{
	char *out = xmalloc(n + 1);
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		int hi, lo;

		if (s[i] == '%' && i + 2 < n &&
		    (hi = hexval((unsigned char)s[i + 1])) >= 0 &&
		    (lo = hexval((unsigned char)s[i + 2])) >= 0) {
			out[o++] = (char)(hi * 16 + lo);
			i += 2;
		} else {
			out[o++] = s[i];
		}
	}
	out[o] = '\0';
	return out;
}

/* net/url shouldEscape(c, encodePath): unreserved characters and
 * "$&+,/:;=@" stay, everything else becomes %XX. */
static int path_keeps(unsigned char ch)
{
	return isalnum(ch) || strchr("-_.~$&+,/:;=@", ch) != NULL;
}

char *urlpath_escape(const char *s, size_t n, int (*keep)(unsigned char))
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i, o = 0;
	char *out = xmalloc(3 * n + 1);

	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch && keep(ch)) {
			out[o++] = (char)ch;
		} else {
			out[o++] = '%';
			out[o++] = hex[ch >> 4];
			out[o++] = hex[ch & 15];
		}
	}
	out[o] = '\0';
	return out;
}

void urlpath_clean(char *p)
{
	/* Go's path.Clean for a rooted path, reading at r and writing at w
	 * (w <= r, so one buffer serves both, as Go's lazybuf does). */
	size_t n = strlen(p), r = 1, w = 1;

	if (p[0] != '/')
		return;   /* callers pass rooted paths only */
	while (r < n) {
		if (p[r] == '/') {
			r++;
		} else if (p[r] == '.' && (r + 1 == n || p[r + 1] == '/')) {
			r++;
		} else if (p[r] == '.' && p[r + 1] == '.' &&
			   (r + 2 == n || p[r + 2] == '/')) {
			r += 2;
			if (w > 1) {
				w--;
				while (w > 1 && p[w] != '/')
					w--;
			}
		} else {
			if (w != 1)
				p[w++] = '/';
			while (r < n && p[r] != '/')
				p[w++] = p[r++];
		}
	}
	p[w] = '\0';
}

char *urlpath_prefix(const char *server)
{
	const char *h = strstr(server, "://");
	const char *path, *end;
	char *raw, *dec, *out;

	h = h ? h + 3 : server;
	path = strchr(h, '/');
	if (!path)
		return xstrdup("");
	/* A query or fragment in the server URL is not part of the path. */
	end = path + strcspn(path, "?#");
	dec = unescape(path, (size_t)(end - path));
	raw = xasprintf("/%s", dec);
	free(dec);
	urlpath_clean(raw);
	out = raw[1] ? urlpath_escape(raw, strlen(raw), path_keeps) : xstrdup("");
	free(raw);
	return out;
}
