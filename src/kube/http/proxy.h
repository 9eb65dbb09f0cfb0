/* Which proxy a request takes, decided the way kubectl decides it.
 *
 * client-go uses the kubeconfig's proxy-url for every request when it is
 * set (transport.go: http.ProxyURL), and otherwise Go's
 * http.ProxyFromEnvironment, i.e. golang.org/x/net/http/httpproxy:
 *  - HTTPS_PROXY/https_proxy for https:// servers (never HTTP_PROXY),
 *    HTTP_PROXY/http_proxy for http:// ones, the upper-case name first
 *    (getEnvAny), an empty
 *    value as unset; HTTP_PROXY is ignored when REQUEST_METHOD is set (CGI);
 *  - ALL_PROXY is not read at all;
 *  - "localhost" and loopback addresses (127/8, ::1) never use a proxy;
 *  - NO_PROXY/no_proxy: "*", CIDRs, IPs and domains (".x", "*.x", "x"
 *    also matching subdomains), each optionally with a port.
 * libcurl's own rules differ on every point (it reads ALL_PROXY, ignores
 * upper-case HTTP_PROXY, tunnels loopback, lets NO_PROXY bypass an
 * explicit proxy), so http.c sets the result explicitly and turns curl's
 * environment lookup off.
 */
#ifndef KUBE_PROXY_H
#define KUBE_PROXY_H

struct proxy_env {
	const char *http_proxy;   /* NULL or "": unset */
	const char *https_proxy;
	const char *no_proxy;
	int cgi;                  /* REQUEST_METHOD is set */
};

/* From the process environment (pointers into it). */
void proxy_env_get(struct proxy_env *env);

/* The proxy URL for requests to server ("scheme://host[:port]/..."),
 * owned by the caller, or NULL to go direct.  kubeconfig_proxy (proxy-url)
 * wins when set.  A URL without a scheme gets "http://" (parseProxy);
 * socks5:// becomes socks5h:// since Go lets the proxy resolve names. */
char *proxy_for(const char *server, const char *kubeconfig_proxy,
		const struct proxy_env *env);

/* 1 when NO_PROXY (no_proxy) exempts host (lower case, no brackets) at
 * port; exposed for tests. */
int proxy_no_proxy_match(const char *no_proxy, const char *host, const char *port);

#endif
