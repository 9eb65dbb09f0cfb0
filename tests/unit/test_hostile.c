/* Hostile kubeconfigs and servers (issue 12), the pieces that work on
 * values alone: header values, quantities, list bounds, proxy choice. */
#include <stdlib.h>
#include <string.h>

#include "kube/http/hdrcheck.h"
#include "kube/config/kubeconfig.h"
#include "kube/api/listguard.h"
#include "kube/api/pods.h"
#include "kube/http/proxy.h"
#include "util/xalloc.h"
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

/* One pod whose main container has limits LIMITS (a JSON object body). */
static struct pod_spec_facts spec_of(const char *limits)
{
	char *page = xasprintf(
		"{\"kind\":\"PodList\",\"metadata\":{},\"items\":[{\"metadata\":{\"name\":\"p\","
		"\"namespace\":\"n\",\"labels\":{\"nvidia.com/dynamo-component-type\":\"prefill\"}},"
		"\"spec\":{\"nodeName\":\"a\",\"containers\":[{\"name\":\"main\",\"resources\":{"
		"\"limits\":{%s}}}]},\"status\":{\"phase\":\"Running\"}}]}", limits);
	struct pods_query q = { 0 };
	struct pod_list l = { 0 };
	struct pod_spec_facts f;
	char *next = NULL;
	struct err e;

	memset(&f, 0, sizeof(f));
	f.gpus = f.rdma_devices = -2;
	q.namespace = "n";
	if (pods_parse_page(page, strlen(page), &q, &l, &next, &e) == 0 && l.n == 1)
		f = *l.items[0].spec;
	free(next);
	free(page);
	pod_list_release(&l);
	return f;
}

static void test_quantities(void)
{
	/* two 9e18 requests summed: saturate, never wrap to "none" */
	CHECK(spec_of("\"rdma/ib\":\"9000000000000000000\",\"rdma/hca\":\"9000000000000000000\"")
		      .rdma_devices > 0);
	CHECK(spec_of("\"rdma/ib\":9e18,\"rdma/hca\":9e18").rdma_devices > 0);
	/* a double outside long long is not a quantity (was UB) */
	CHECK_INT(spec_of("\"nvidia.com/gpu\":1e300").gpus, -1);
	CHECK_INT(spec_of("\"nvidia.com/gpu\":-1e300").gpus, -1);
	/* strtoll overflow is not LLONG_MAX GPUs */
	CHECK_INT(spec_of("\"nvidia.com/gpu\":\"99999999999999999999999\"").gpus, -1);
	CHECK_INT(spec_of("\"nvidia.com/gpu\":\"8\"").gpus, 8);
	CHECK_INT(spec_of("\"rdma/ib\":\"2\",\"rdma/x\":1").rdma_devices, 3);
}

static void test_list_guard(void)
{
	struct listguard g;
	struct err e;
	int i, rc = 0;

	/* tokens A, B, A: the third page is refused (the old guard compared
	 * with the previous token only) */
	listguard_init(&g);
	CHECK_INT(listguard_page(&g, 10, 0, "A", &e), 0);
	CHECK_INT(listguard_page(&g, 10, 0, "B", &e), 0);
	CHECK_INT(listguard_page(&g, 10, 0, "A", &e), -1);
	CHECK_HAS(e.msg, "continue token it had already returned (page 3)");
	listguard_release(&g);

	listguard_init(&g);
	CHECK_INT(listguard_page(&g, 10, LISTGUARD_MAX_ITEMS + 1, "x", &e), -1);
	CHECK_HAS(e.msg, "passed 50000 pods");
	listguard_release(&g);

	listguard_init(&g);
	CHECK_INT(listguard_page(&g, LISTGUARD_MAX_BYTES, 1, "x", &e), 0);
	CHECK_INT(listguard_page(&g, 1, 1, "y", &e), -1);
	CHECK_HAS(e.msg, "passed 1024 MiB in 2 pages");
	listguard_release(&g);

	listguard_init(&g);
	for (i = 0; i < LISTGUARD_MAX_PAGES + 5 && rc == 0; i++) {
		char tok[16];
		snprintf(tok, sizeof(tok), "t%d", i);
		rc = listguard_page(&g, 1, 1, tok, &e);
	}
	CHECK_INT(rc, -1);
	CHECK_INT(i, LISTGUARD_MAX_PAGES);
	CHECK_HAS(e.msg, "did not end after 2000 pages");
	CHECK_INT(listguard_page(&g, 1, 1, NULL, &e), 0);   /* the end is always fine */
	listguard_release(&g);
}

static int load(const char *yaml, struct kube_config *cfg, struct err *e)
{
	struct kube_overrides ov = KUBE_OVERRIDES_INIT;

	err_clear(e);
	memset(cfg, 0, sizeof(*cfg));
	return kubeconfig_load_buffer(yaml, strlen(yaml), "/tmp/kc", &ov, cfg, e);
}

static void test_kubeconfig_yaml(void)
{
	static const char merge[] =
		"apiVersion: v1\nkind: Config\ncurrent-context: c\n"
		"base: &base\n  server: https://a.example:6443\n  insecure-skip-tls-verify: true\n"
		"ubase: &ubase {token: abc}\n"
		"clusters:\n- name: c\n  cluster:\n    <<: *base\n    server: https://b.example:6443\n"
		"- name: d\n  cluster:\n    <<: [*base]\n"
		"users:\n- name: u\n  user:\n    <<: *ubase\n"
		"contexts:\n- name: c\n  context: {cluster: c, user: u}\n";
	static const char self[] =
		"apiVersion: v1\nkind: Config\ncurrent-context: c\n"
		"loop: &l\n  <<: *l\n  server: https://a.example\n"
		"clusters:\n- name: c\n  cluster: &c\n    <<: [*c, *c]\n    server: https://c.example\n"
		"users:\n- name: u\n  user: {token: t}\n"
		"contexts:\n- name: c\n  context: {cluster: c, user: u}\n";
	struct kube_config cfg;
	struct err e;
	char *deep;
	size_t i, n = 100000;

	/* merge keys: the mapping's own keys win, merged ones fill in */
	CHECK_INT(load(merge, &cfg, &e), 0);
	CHECK_STR(cfg.server, "https://b.example:6443");
	CHECK_INT(cfg.insecure, 1);
	CHECK_STR(cfg.token, "abc");
	kubeconfig_release(&cfg);
	/* a merge that reaches itself neither loops nor crashes */
	CHECK_INT(load(self, &cfg, &e), 0);
	CHECK_STR(cfg.server, "https://c.example");
	kubeconfig_release(&cfg);
	/* deep nesting is refused at 128 levels, before libyaml's loader */
	deep = xmalloc(2 * n + 64);
	i = (size_t)sprintf(deep, "apiVersion: v1\nkind: Config\nx: ");
	memset(deep + i, '[', n);
	memset(deep + i + n, ']', n);
	deep[i + 2 * n] = '\0';
	CHECK_INT(load(deep, &cfg, &e), -1);
	CHECK_HAS(e.msg, "nesting deeper than the limit of 128 levels");
	free(deep);
}

int main(void)
{
	test_kubeconfig_yaml();
	test_quantities();
	test_list_guard();
	test_header_values();
	test_proxy();
	test_proxy_env();
	return T_DONE("test_hostile");
}
