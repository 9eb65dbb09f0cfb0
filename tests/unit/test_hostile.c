/* Hostile kubeconfigs and servers (issue 12), the pieces that work on
 * values alone: header values, quantities, list bounds, proxy choice. */
#include <stdlib.h>
#include <string.h>

#include "kube/hdrcheck.h"
#include "kube/proxy.h"
#include "t.h"

static void test_header_values(void)
{
	struct kube_config cfg;
	struct err e;
	char *groups[] = { "ok", "evil\r\nX-Injected: 1", NULL };

	CHECK(hdrcheck_value_ok("Bearer abc.def-ghi_~+/="));
	CHECK(hdrcheck_value_ok("tab\tis allowed"));
	CHECK(hdrcheck_value_ok("obs-text \xc3\xa9"));
	CHECK(!hdrcheck_value_ok("abc\r\nDELETE /api/v1/namespaces/x/pods/y HTTP/1.1"));
	CHECK(!hdrcheck_value_ok("abc\n"));
	CHECK(!hdrcheck_value_ok("a\x7f"));
	CHECK(!hdrcheck_value_ok("a\x01"));
	CHECK(hdrcheck_name_ok("Impersonate-Extra-scopes"));
	CHECK(!hdrcheck_name_ok("bad name"));
	CHECK(!hdrcheck_name_ok(""));

	memset(&cfg, 0, sizeof(cfg));
	err_clear(&e);
	CHECK_INT(hdrcheck_config(&cfg, "Authorization: Bearer good", &e), 0);
	CHECK_INT(hdrcheck_config(&cfg, "Authorization: Bearer t\r\nX: y", &e), -1);
	CHECK_STR(e.msg, "Unable to connect to the server: net/http: invalid header field value "
		  "for \"Authorization\" (from the kubeconfig's users[].user.token: it holds a "
		  "control character such as CR, LF or NUL; nothing was sent)");
	CHECK(!strstr(e.msg, "X: y"));     /* the value is never quoted */
	cfg.token_from_flag = 1;
	hdrcheck_config(&cfg, "Authorization: Bearer t\nx", &e);
	CHECK_HAS(e.msg, "(from --token:");
	cfg.token_from_flag = 0;
	cfg.creds_from_exec = 1;
	hdrcheck_config(&cfg, "Authorization: Bearer t\nx", &e);
	CHECK_HAS(e.msg, "exec credential plugin");
	cfg.creds_from_exec = 0;

	cfg.impersonate_user = "alice\r\nImpersonate-Group: system:masters";
	CHECK_INT(hdrcheck_config(&cfg, NULL, &e), -1);
	CHECK_HAS(e.msg, "\"Impersonate-User\"");
	cfg.impersonate_user = "alice";
	cfg.impersonate_groups = groups;
	CHECK_INT(hdrcheck_config(&cfg, NULL, &e), -1);
	CHECK_HAS(e.msg, "\"Impersonate-Group\"");
	cfg.impersonate_groups = NULL;
	cfg.proxy_url = "http://user:pa\r\nss@proxy:3128";
	CHECK_INT(hdrcheck_config(&cfg, NULL, &e), -1);
	CHECK_HAS(e.msg, "proxy-url");
	CHECK_HAS(e.msg, "net/url: invalid control character in URL");
	cfg.proxy_url = "http://user:pass@proxy:3128";
	CHECK_INT(hdrcheck_config(&cfg, NULL, &e), 0);
}

/* proxy_for() against x/net/http/httpproxy's rules (proxy.h). */
static void want_proxy(const char *server, const char *kc, const struct proxy_env *env,
		       const char *want)
{
	char *got = proxy_for(server, kc, env);

	if (want)
		CHECK_STR(got, want);
	else
		CHECK(got == NULL);
	if (want == NULL && got)
		fprintf(stderr, "  %s: got proxy %s\n", server, got);
	free(got);
}

static void test_proxy(void)
{
	struct proxy_env env = { "http://hp:3128", "http://sp:3128", NULL, 0 };
	struct proxy_env bare = { NULL, NULL, NULL, 0 };

	want_proxy("https://api.example.com:6443", NULL, &env, "http://sp:3128");
	want_proxy("http://api.example.com", NULL, &env, "http://hp:3128");
	/* https never falls back to HTTP_PROXY */
	env.https_proxy = NULL;
	want_proxy("https://api.example.com", NULL, &env, NULL);
	env.https_proxy = "sp:3128";   /* no scheme: http:// (parseProxy) */
	want_proxy("https://api.example.com", NULL, &env, "http://sp:3128");
	env.https_proxy = "socks5://s:1080";
	want_proxy("https://api.example.com", NULL, &env, "socks5h://s:1080");
	env.https_proxy = "http://sp:3128";
	/* loopback and localhost are never proxied (kind, k3d, kubectl proxy) */
	want_proxy("https://127.0.0.1:6443", NULL, &env, NULL);
	want_proxy("https://127.3.2.1:6443", NULL, &env, NULL);
	want_proxy("https://[::1]:6443", NULL, &env, NULL);
	want_proxy("https://LOCALHOST:6443", NULL, &env, NULL);
	want_proxy("https://localhost.example.com", NULL, &env, "http://sp:3128");
	/* CGI: HTTP_PROXY is not trusted */
	env.cgi = 1;
	want_proxy("http://api.example.com", NULL, &env, NULL);
	env.cgi = 0;
	/* NO_PROXY forms */
	env.no_proxy = "example.com";
	want_proxy("https://api.example.com", NULL, &env, NULL);
	want_proxy("https://example.com", NULL, &env, NULL);
	want_proxy("https://notexample.com", NULL, &env, "http://sp:3128");
	env.no_proxy = ".example.com";
	want_proxy("https://api.example.com", NULL, &env, NULL);
	want_proxy("https://example.com", NULL, &env, "http://sp:3128");
	env.no_proxy = " *.Example.COM ";
	want_proxy("https://api.example.com", NULL, &env, NULL);
	env.no_proxy = "api.example.com:443";
	want_proxy("https://api.example.com", NULL, &env, NULL);
	want_proxy("https://api.example.com:6443", NULL, &env, "http://sp:3128");
	env.no_proxy = "10.0.0.0/8,fd00::/8";
	want_proxy("https://10.1.2.3:6443", NULL, &env, NULL);
	want_proxy("https://11.1.2.3:6443", NULL, &env, "http://sp:3128");
	want_proxy("https://[fd00::5]:6443", NULL, &env, NULL);
	env.no_proxy = "192.0.2.7";
	want_proxy("https://192.0.2.7:6443", NULL, &env, NULL);
	env.no_proxy = "*";
	want_proxy("https://api.example.com", NULL, &env, NULL);
	/* kubeconfig proxy-url wins over the environment, NO_PROXY and loopback */
	want_proxy("https://api.example.com", "http://kp:8080", &env, "http://kp:8080");
	want_proxy("https://127.0.0.1:6443", "http://kp:8080", &bare, "http://kp:8080");
	want_proxy("https://api.example.com", NULL, &bare, NULL);
	CHECK(proxy_no_proxy_match("a.com, ,b.com", "x.b.com", "443"));
	CHECK(!proxy_no_proxy_match("", "x.b.com", "443"));
}

static void test_proxy_env(void)
{
	struct proxy_env env;

	setenv("HTTPS_PROXY", "http://upper:1", 1);
	setenv("https_proxy", "http://lower:1", 1);
	setenv("http_proxy", "http://lowerhttp:1", 1);
	unsetenv("HTTP_PROXY");
	setenv("ALL_PROXY", "http://all:1", 1);
	setenv("NO_PROXY", "", 1);
	setenv("no_proxy", "lower.example", 1);
	unsetenv("REQUEST_METHOD");
	proxy_env_get(&env);
	CHECK_STR(env.https_proxy, "http://upper:1");   /* upper case first */
	CHECK_STR(env.http_proxy, "http://lowerhttp:1");
	CHECK_STR(env.no_proxy, "lower.example");       /* empty is unset */
	CHECK(!env.cgi);
	setenv("HTTPS_PROXY", "", 1);
	proxy_env_get(&env);
	CHECK_STR(env.https_proxy, "http://lower:1");
	unsetenv("https_proxy");
	unsetenv("HTTPS_PROXY");
	proxy_env_get(&env);
	CHECK(env.https_proxy == NULL);                 /* ALL_PROXY is not read */
}

int main(void)
{
	test_header_values();
	test_proxy();
	test_proxy_env();
	return T_DONE("test_hostile");
}
