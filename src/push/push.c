/* The HTTP push of check --pushgateway (push.h).  One libcurl easy
 * handle per push: a run pushes once, so nothing is kept for reuse. */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

#include "push.h"
#include "util/safe.h"

static const char b64url[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/* RFC 4648 section 5 with padding, as the Pushgateway decodes it. */
static int base64url(char *out, size_t n, const char *s)
{
	size_t len = strlen(s), o = 0;

	if (!len)
		return n > 1 ? (out[0] = '=', out[1] = '\0', 0) : -1;
	if ((len + 2) / 3 * 4 + 1 > n)
		return -1;
	for (size_t i = 0; i < len; i += 3) {
		unsigned v = (unsigned char)s[i] << 16;
		if (i + 1 < len)
			v |= (unsigned char)s[i + 1] << 8;
		if (i + 2 < len)
			v |= (unsigned char)s[i + 2];
		out[o++] = b64url[(v >> 18) & 63];
		out[o++] = b64url[(v >> 12) & 63];
		out[o++] = i + 1 < len ? b64url[(v >> 6) & 63] : '=';
		out[o++] = i + 2 < len ? b64url[v & 63] : '=';
	}
	out[o] = '\0';
	return 0;
}

/* Characters a path segment carries as they are (RFC 3986 unreserved);
 * anything else takes the base64 form, so no escaping rule is needed. */
static int plain(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789-._~", *s))
			return 0;
	return 1;
}

int push_key_append(char *buf, size_t n, const char *label, const char *value)
{
	size_t used = strlen(buf);
	char enc[512];
	int w;

	if (used >= n)
		return -1;
	if (plain(value))
		w = snprintf(buf + used, n - used, "/%s/%s", label, value);
	else if (base64url(enc, sizeof(enc), value) == 0)
		w = snprintf(buf + used, n - used, "/%s@base64/%s", label, enc);
	else
		return -1;
	return w < 0 || (size_t)w >= n - used ? -1 : 0;
}

/* The answer's body is not ours to print (it is the peer's text); only
 * its status is reported. */
static size_t discard(char *p, size_t sz, size_t nm, void *arg)
{
	(void)p, (void)arg;
	return sz * nm;
}

static int setup(CURL *c, const char *url, const char *body, size_t len, long timeout_ms,
		 struct curl_slist *h)
{
	return curl_easy_setopt(c, CURLOPT_URL, url) ||
	       curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https") ||
	       curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "PUT") ||
	       curl_easy_setopt(c, CURLOPT_POSTFIELDS, body) ||
	       curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len) ||
	       curl_easy_setopt(c, CURLOPT_HTTPHEADER, h) ||
	       curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms) ||
	       curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L) ||
	       curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
}

int push_check_url(const char *base, struct err *e)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL, *query = NULL, *frag = NULL;
	int rc = -1;

	/* libcurl's own URL parser (curl_url_set, 7.62): what it refuses the
	 * push would refuse after the whole run. */
	if (!u)
		return err_set(e, ERR_OTHER, "--pushgateway: cannot parse the URL");
	if (strncmp(base, "http://", 7) && strncmp(base, "https://", 8))
		err_set(e, ERR_USAGE, "--pushgateway: not an http:// or https:// URL");
	else if (curl_url_set(u, CURLUPART_URL, base, 0) != CURLUE_OK ||
		 curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
		 curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK || !*host)
		err_set(e, ERR_USAGE, "--pushgateway: not a URL with a host (e.g. http://pushgateway:9091)");
	else if (curl_url_get(u, CURLUPART_QUERY, &query, 0) == CURLUE_OK ||
		 curl_url_get(u, CURLUPART_FRAGMENT, &frag, 0) == CURLUE_OK)
		err_set(e, ERR_USAGE, "--pushgateway: the URL takes no ?query or #fragment "
			"(the grouping key is added as its path)");
	else
		rc = 0;
	curl_free(scheme);
	curl_free(host);
	curl_free(query);
	curl_free(frag);
	curl_url_cleanup(u);
	return rc;
}

int push_put(const char *base, const char *path, const char *body, size_t len,
	     long timeout_ms, struct err *e)
{
	char url[2048];
	size_t bl = strlen(base);
	CURL *c;
	CURLcode cc;
	long status = 0;
	struct curl_slist *h;
	const char *shown;

	if (push_check_url(base, e) < 0)
		return -1;
	while (bl && base[bl - 1] == '/')
		bl--;
	if (snprintf(url, sizeof(url), "%.*s%s", (int)bl, base, path) >= (int)sizeof(url))
		return err_set(e, ERR_USAGE, "--pushgateway: URL too long");
	c = curl_easy_init();
	h = curl_slist_append(NULL, "Content-Type: text/plain; version=0.0.4");
	if (!c || !h || setup(c, url, body, len, timeout_ms, h)) {
		curl_slist_free_all(h);
		curl_easy_cleanup(c);
		return err_set(e, ERR_OTHER, "pushgateway: cannot set up the request");
	}
	/* Credentials in the URL (user:password@) are a secret: never shown. */
	shown = memchr(base, '@', bl) ? "(the --pushgateway URL)" : url;
	cc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	if (cc != CURLE_OK)
		return err_set(e, cc == CURLE_OPERATION_TIMEDOUT ? ERR_TIMEOUT : ERR_CONNECT,
			       "pushgateway %s: %s", safe_show(shown), curl_easy_strerror(cc));
	if (status < 200 || status > 299)
		return err_set(e, ERR_API, "pushgateway %s: HTTP %ld", safe_show(shown), status);
	return 0;
}
