/* The server URL's path, joined to API paths the way client-go joins them.
 *
 * client-go (rest/request.go NewRequest, Request.URL) builds every request
 * path as path.Join("/", base.Path, "/api/v1", ...): base.Path is the URL
 * path already percent-decoded by net/url (so "%2F" is a plain "/"), and
 * path.Join cleans the result (no trailing slash, "//" and "." collapsed,
 * ".." resolved).  The final URL's path is then re-escaped by
 * url.URL.EscapedPath, because the decoded path no longer matches RawPath.
 * urlpath_prefix() does the same to the prefix alone; the API paths we
 * append are already clean.
 */
#ifndef KUBE_URLPATH_H
#define KUBE_URLPATH_H

#include <stddef.h>

/* The request-path prefix for a server URL ("scheme://host[:port][/path]"):
 * "" when the URL has no path or only "/", else "/a/b" (decoded, cleaned,
 * re-escaped; never a trailing slash).  Caller frees. */
char *urlpath_prefix(const char *server);

/* Percent-encodes (%XX, upper-case hex) every byte of s[0..n) that keep()
 * rejects; NUL is always encoded.  Caller frees. */
char *urlpath_escape(const char *s, size_t n, int (*keep)(unsigned char));

/* Go's path.Clean on a rooted path, in place (the result starts with '/'). */
void urlpath_clean(char *p);

#endif
