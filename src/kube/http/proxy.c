#include "proxy.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/xalloc.h"

/* Go's getEnvAny: the first name with a non-empty value. */
static const char *env_any(const char *upper, const char *lower)
{
	const char *v = getenv(upper);

	if (v && *v)
		return v;
	v = getenv(lower);
	return v && *v ? v : NULL;
}

void proxy_env_get(struct proxy_env *env)
{
	const char *rm = getenv("REQUEST_METHOD");

	env->http_proxy = env_any("HTTP_PROXY", "http_proxy");
	env->https_proxy = env_any("HTTPS_PROXY", "https_proxy");
	env->no_proxy = env_any("NO_PROXY", "no_proxy");
	env->cgi = rm && *rm;
}

/* An address: 16 bytes, IPv4 as ::ffff:a.b.c.d (Go's net.IP does so). */
struct ip {
	unsigned char b[16];
};

static int parse_ip(const char *s, struct ip *ip)
{
	unsigned char v4[4];

	memset(ip, 0, sizeof(*ip));
	if (inet_pton(AF_INET, s, v4) == 1) {
		ip->b[10] = ip->b[11] = 0xff;
		memcpy(ip->b + 12, v4, 4);
		return 1;
	}
	return inet_pton(AF_INET6, s, ip->b) == 1;
}

static int is_v4(const struct ip *ip)
{
	static const unsigned char pre[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return !memcmp(ip->b, pre, 12);
}

static int is_loopback(const struct ip *ip)
{
	static const unsigned char v6[16] = { [15] = 1 };

	return is_v4(ip) ? ip->b[12] == 127 : !memcmp(ip->b, v6, 16);
}

/* "a.b.c.d/n" or "x::/n": 1 with net and bits (counted on 128) set. */
static int parse_cidr(const char *s, struct ip *net, int *bits)
{
	const char *slash = strchr(s, '/');
	char addr[64], *end;
	long n;

	if (!slash || (size_t)(slash - s) >= sizeof(addr))
		return 0;
	memcpy(addr, s, (size_t)(slash - s));
	addr[slash - s] = '\0';
	n = strtol(slash + 1, &end, 10);
	if (end == slash + 1 || *end || !parse_ip(addr, net))
		return 0;
	if (n < 0 || n > (is_v4(net) && !strchr(addr, ':') ? 32 : 128))
		return 0;
	*bits = (int)n + (is_v4(net) && !strchr(addr, ':') ? 96 : 0);
	return 1;
}

static int in_cidr(const struct ip *ip, const struct ip *net, int bits)
{
	int i;

	for (i = 0; i < bits; i++) {
		int mask = 0x80 >> (i % 8);
		if ((ip->b[i / 8] & mask) != (net->b[i / 8] & mask))
			return 0;
	}
	return 1;
}

/* Splits "host:port", "[v6]:port", "[v6]" like net.SplitHostPort: 1 when
 * there was a port part (possibly empty), host without brackets. */
static int split_host_port(char *p, char **host, char **port)
{
	char *colon = strrchr(p, ':');

	if (*p == '[') {
		char *close = strchr(p, ']');
		if (!close || close[1] != ':')
			return 0;
		*close = '\0';
		*host = p + 1;
		*port = close + 2;
		return 1;
	}
	if (!colon || strchr(p, ':') != colon)
		return 0;   /* no port, or a bare IPv6 address */
	*colon = '\0';
	*host = p;
	*port = colon + 1;
	return 1;
}

static int suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && !strcmp(s + n - m, suf);
}

/* One NO_PROXY entry (lower case, trimmed, not empty), as httpproxy's
 * config.init builds its matchers and useProxy applies them. */
static int entry_match(char *p, const char *host, const struct ip *hip, int host_is_ip,
		       const char *port)
{
	struct ip eip;
	char *ph = p, *pp = "", dom[512];
	int bits;

	if (!strcmp(p, "*"))
		return 1;
	if (parse_cidr(p, &eip, &bits))
		return host_is_ip && in_cidr(hip, &eip, bits);
	if (!split_host_port(p, &ph, &pp))
		ph = p, pp = "";
	if (parse_ip(ph, &eip))
		return host_is_ip && !memcmp(eip.b, hip->b, 16) && (!*pp || !strcmp(pp, port));
	if (!*ph || strlen(ph) + 2 > sizeof(dom))
		return 0;
	if (!strncmp(ph, "*.", 2))
		ph++;
	/* "x" matches x and its subdomains, ".x" only subdomains */
	snprintf(dom, sizeof(dom), "%s%s", *ph == '.' ? "" : ".", ph);
	if (suffix(host, dom) || (*ph != '.' && !strcmp(host, dom + 1)))
		return !*pp || !strcmp(pp, port);
	return 0;
}

int proxy_no_proxy_match(const char *no_proxy, const char *host, const char *port)
{
	char *list, *tok, *save = NULL;
	struct ip hip;
	int ip = parse_ip(host, &hip), hit = 0;

	if (!no_proxy)
		return 0;
	list = xstrdup(no_proxy);
	for (tok = strtok_r(list, ",", &save); tok && !hit; tok = strtok_r(NULL, ",", &save)) {
		char *e = tok, *end;
		while (isspace((unsigned char)*e))
			e++;
		end = e + strlen(e);
		while (end > e && isspace((unsigned char)end[-1]))
			*--end = '\0';
		for (char *c = e; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		if (*e)
			hit = entry_match(e, host, &hip, ip, port);
	}
	free(list);
	return hit;
}

/* The server's host (lower case, unbracketed) and port (default by
 * scheme), like Go's canonicalAddr; 0 when the URL has no host. */
static int server_addr(const char *server, int *https, char *host, size_t hn,
		       char *port, size_t pn)
{
	const char *p = strstr(server, "://"), *h, *end, *colon;

	*https = !p || strncasecmp(server, "http://", 7);
	h = p ? p + 3 : server;
	end = h + strcspn(h, "/?#");
	if (strchr(h, '@') && strchr(h, '@') < end)
		h = strchr(h, '@') + 1;
	if (*h == '[') {
		const char *close = memchr(h, ']', (size_t)(end - h));
		if (!close)
			return 0;
		snprintf(host, hn, "%.*s", (int)(close - h - 1), h + 1);
		colon = close[1] == ':' ? close + 1 : NULL;
	} else {
		colon = memchr(h, ':', (size_t)(end - h));
		snprintf(host, hn, "%.*s", (int)((colon ? colon : end) - h), h);
	}
	if (colon && colon + 1 < end)
		snprintf(port, pn, "%.*s", (int)(end - colon - 1), colon + 1);
	else
		snprintf(port, pn, "%s", *https ? "443" : "80");
	for (char *c = host; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	return *host != '\0';
}

/* parseProxy: no scheme means http://; curl's socks5h is Go's socks5. */
static char *normalise(const char *proxy)
{
	if (!strstr(proxy, "://"))
		return xasprintf("http://%s", proxy);
	if (!strncasecmp(proxy, "socks5://", 9))
		return xasprintf("socks5h://%s", proxy + 9);
	return xstrdup(proxy);
}

char *proxy_for(const char *server, const char *kubeconfig_proxy,
		const struct proxy_env *env)
{
	char host[256], port[16];
	const char *proxy;
	struct ip ip;
	int https;

	if (kubeconfig_proxy && *kubeconfig_proxy)
		return normalise(kubeconfig_proxy);
	if (!server_addr(server, &https, host, sizeof(host), port, sizeof(port)))
		return NULL;
	/* proxyForURL: https only ever takes HTTPS_PROXY; HTTP_PROXY under
	 * CGI is refused there (we go direct). */
	proxy = https ? env->https_proxy : env->cgi ? NULL : env->http_proxy;
	if (!proxy || !*proxy)
		return NULL;
	if (!strcmp(host, "localhost") || (parse_ip(host, &ip) && is_loopback(&ip)))
		return NULL;
	if (proxy_no_proxy_match(env->no_proxy, host, port))
		return NULL;
	return normalise(proxy);
}
