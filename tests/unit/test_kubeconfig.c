/* kubeconfig loading: each case writes a small kubeconfig (and the files
 * it points at) into its own directory under a mkdtemp root and checks the
 * resolved struct kube_config or the exact error wording.  "@D" in any
 * string stands for the case's directory. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kube/config/kubeconfig.h"
#include "t.h"

#define NONE "<none>"  /* expectation: the field must be NULL */

static char g_root[256];

/* Owned copy of s with every "@D" replaced by dir; NULL in, NULL out. */
static char *expand(const char *s, const char *dir)
{
	size_t n = 0, dl = strlen(dir);
	const char *p;
	char *out, *o;

	if (!s)
		return NULL;
	for (p = s; (p = strstr(p, "@D")); p += 2)
		n++;
	out = o = malloc(strlen(s) + n * dl + 1);
	while (*s) {
		if (s[0] == '@' && s[1] == 'D') {
			memcpy(o, dir, dl);
			o += dl;
			s += 2;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
	return out;
}

static void mkdirs(const char *path)
{
	char tmp[512], *p;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(tmp, 0700);
		*p = '/';
	}
	mkdir(tmp, 0700);
}

static void write_file(const char *dir, const char *rel, const char *content)
{
	char path[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	mkdirs(path);
	*slash = '/';
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(content, f);
	fclose(f);
}

static char *case_dir(const char *name)
{
	char *dir = malloc(strlen(g_root) + strlen(name) + 2);

	sprintf(dir, "%s/%s", g_root, name);
	mkdirs(dir);
	return dir;
}

/* Variables that steer the loader; each test sets what it needs. */
static void clean_env(void)
{
	static const char *const vars[] = { "KUBECONFIG", "KUBERNETES_SERVICE_HOST",
		"KUBERNETES_SERVICE_PORT", "POD_NAMESPACE", "KUBERNETES_MASTER",
		KUBECONFIG_SA_DIR_ENV, NULL };
	const char *const *v;

	for (v = vars; *v; v++)
		unsetenv(*v);
	setenv("HOME", g_root, 1);   /* no .kube/config there */
}

/* Compares a field: NULL want = don't care, NONE = must be NULL. */
static void check_field(const char *tname, const char *what, const char *got,
			const char *want, const char *dir)
{
	char *w;

	if (!want)
		return;
	if (!strcmp(want, NONE)) {
		if (got)
			fprintf(stderr, "[%s] %s: want NULL, got \"%s\"\n", tname, what, got);
		CHECK(got == NULL);
		return;
	}
	w = expand(want, dir);
	if (!got || strcmp(got, w))
		fprintf(stderr, "[%s] %s:\n", tname, what);
	CHECK_STR(got, w);
	free(w);
}

/* ---- the table ---- */

struct file_spec {
	const char *name, *content;
};

struct ov_spec {
	const char *context, *cluster, *user, *ns, *server, *token, *ca, *cert, *key,
		*tls_name, *username, *as;
	int insecure;
};

struct kc_case {
	const char *name;
	const char *config;
	struct file_spec files[4];
	struct ov_spec ov;
	const char *err;          /* substring; NULL: must succeed */
	int err_prefixed;
	const char *server, *ns, *token, *token_file, *tls_name, *proxy, *ca, *cert,
		*key, *context, *exec_cmd, *username, *as;
	char insecure;            /* 'y' / 'n'; 0: don't check */
};

#define HEAD "apiVersion: v1\nkind: Config\ncurrent-context: c1\n" \
	"contexts:\n- name: c1\n  context: {cluster: cl, user: u1}\n"
#define CL(body) "clusters:\n- name: cl\n  cluster:\n" body
#define US(body) "users:\n- name: u1\n  user:\n" body
#define SRV "    server: https://h:6443\n"

static const struct kc_case cases[] = {
	{ "token", HEAD CL(SRV) US("    token: tok1\n"),
	  .server = "https://h:6443", .token = "tok1", .ns = "default", .context = "c1",
	  .token_file = NONE, .ca = NONE, .cert = NONE, .tls_name = NONE, .insecure = 'n' },
	{ "token-number", HEAD CL(SRV) US("    token: 12345\n"), .token = "12345" },
	{ "tokenfile-relative", HEAD CL(SRV) US("    tokenFile: sub/tok.txt\n"),
	  { { "sub/tok.txt", "  filetok\n" } },
	  .token = "filetok", .token_file = "@D/sub/tok.txt" },
	{ "tokenfile-missing", HEAD CL(SRV) US("    tokenFile: nope.txt\n"),
	  .err = "open @D/nope.txt: no such file or directory" },
	{ "token-beats-tokenfile", HEAD CL(SRV) US("    token: inline\n    tokenFile: t\n"),
	  { { "t", "fromfile" } }, .token = "inline" },
	{ "client-cert-files", HEAD CL(SRV)
	  US("    client-certificate: pki/c.pem\n    client-key: ./pki/k.pem\n"),
	  { { "pki/c.pem", "CERT-FILE" }, { "pki/k.pem", "KEY-FILE" } },
	  .cert = "CERT-FILE", .key = "KEY-FILE" },
	{ "client-cert-data", HEAD CL(SRV)
	  US("    client-certificate-data: |\n      Y2xpZW50LWNl\n      cnQtYnl0ZXMK\n"
	     "    client-key-data: Y2xpZW50LWtleS1ieXRlcwo=\n"),
	  .cert = "client-cert-bytes\n", .key = "client-key-bytes\n" },
	{ "bad-base64", HEAD CL(SRV) US("    client-certificate-data: '-----BEGIN'\n"),
	  .err = "error loading config file \"@D/config\": illegal base64 data at input byte 0" },
	{ "cert-without-key", HEAD CL(SRV) US("    client-certificate: c.pem\n"),
	  { { "c.pem", "C" } }, .err_prefixed = 1,
	  .err = "Error in configuration: client-key-data or client-key must be specified "
		 "for u1 to use the clientCert authentication method." },
	{ "ca-file", HEAD CL("    server: h:6443\n    certificate-authority: ca.crt\n")
	  US("    token: t\n"), { { "ca.crt", "CA-FILE" } },
	  .server = "https://h:6443", .ca = "CA-FILE" },
	{ "ca-file-missing", HEAD CL(SRV "    certificate-authority: /nonexistent/ca.crt\n")
	  US("    token: t\n"), .err_prefixed = 1,
	  .err = "Error in configuration: unable to read certificate-authority "
		 "/nonexistent/ca.crt for cl due to open /nonexistent/ca.crt: no such file or directory" },
	{ "ca-data", HEAD CL(SRV "    certificate-authority-data: Y2EtYnl0ZXMtZnJvbS1kYXRhCg==\n")
	  US("    token: t\n"), .ca = "ca-bytes-from-data\n" },
	{ "no-scheme-plain", HEAD CL("    server: h:8080\n") US("    token: t\n"),
	  .server = "http://h:8080" },
	{ "no-scheme-insecure", HEAD CL("    server: 10.0.0.1:6443/\n    insecure-skip-tls-verify: yes\n")
	  US("    token: t\n"), .server = "https://10.0.0.1:6443", .insecure = 'y' },
	{ "path-prefix", HEAD CL("    server: https://r.example/k8s/clusters/c-1/?x=1#f\n")
	  US("    token: t\n"), .server = "https://r.example/k8s/clusters/c-1" },
	{ "no-scheme-path", HEAD CL("    server: h:6443/prefix\n") US("    token: t\n"),
	  .err = "host must be a URL or a host:port pair" },
	{ "insecure-on", HEAD CL(SRV "    insecure-skip-tls-verify: On\n") US("    token: t\n"),
	  .insecure = 'y' },
	{ "insecure-bad", HEAD CL(SRV "    insecure-skip-tls-verify: maybe\n") US("    token: t\n"),
	  .err = "error loading config file \"@D/config\": json: cannot unmarshal string into "
		 "Go struct field Cluster.clusters.cluster.insecure-skip-tls-verify of type bool" },
	{ "ca-and-insecure", HEAD CL(SRV "    certificate-authority-data: bm90LWNsZWFyZWQK\n"
				     "    insecure-skip-tls-verify: true\n") US("    token: t\n"),
	  .err = "specifying a root certificates file with the insecure flag is not allowed" },
	{ "flag-insecure-clears-ca", HEAD CL(SRV "    certificate-authority-data: bm90LWNsZWFyZWQK\n")
	  US("    token: t\n"), .ov = { .insecure = 1 }, .insecure = 'y', .ca = NONE },
	{ "flag-ca-clears-insecure", HEAD CL(SRV "    insecure-skip-tls-verify: true\n"
					     "    certificate-authority-data: bm90LWNsZWFyZWQK\n")
	  US("    token: t\n"), { { "flag-ca.crt", "FLAG-CA" } },
	  .ov = { .ca = "@D/flag-ca.crt" }, .insecure = 'n', .ca = "FLAG-CA" },
	{ "tls-server-name", HEAD CL(SRV "    tls-server-name: api.internal\n") US("    token: t\n"),
	  .tls_name = "api.internal" },
	{ "flag-server-drops-tls-name", HEAD CL(SRV "    tls-server-name: api.internal\n")
	  US("    token: t\n"), .ov = { .server = "https://other:443/" },
	  .server = "https://other:443", .tls_name = NONE },
	{ "flag-server-and-tls-name", HEAD CL(SRV "    tls-server-name: api.internal\n")
	  US("    token: t\n"), .ov = { .server = "https://other", .tls_name = "flag.name" },
	  .tls_name = "flag.name" },
	{ "proxy-url", HEAD CL(SRV "    proxy-url: socks5://p:1080\n") US("    token: t\n"),
	  .proxy = "socks5://p:1080" },
	{ "proxy-url-bad", HEAD CL(SRV "    proxy-url: ftp://p\n") US("    token: t\n"),
	  .err_prefixed = 1,
	  .err = "Error in configuration: invalid 'proxy-url' \"ftp://p\" for cluster \"cl\": "
		 "unsupported scheme \"ftp\", must be http, https, or socks5" },
	{ "flag-cert-clears-data", HEAD CL(SRV)
	  US("    client-certificate-data: Y2xpZW50LWNlcnQtYnl0ZXMK\n"
	     "    client-key-data: Y2xpZW50LWtleS1ieXRlcwo=\n"),
	  { { "flag.pem", "FLAG-CERT" } }, .ov = { .cert = "@D/flag.pem" },
	  .cert = "FLAG-CERT", .key = "client-key-bytes\n" },
	{ "flag-token-beats-tokenfile", HEAD CL(SRV) US("    tokenFile: t\n"), { { "t", "filetok" } },
	  .ov = { .token = "flagtok" }, .token = "flagtok", .token_file = NONE },
	{ "flag-context-missing", HEAD CL(SRV) US("    token: t\n"), .ov = { .context = "nope" },
	  .err = "context \"nope\" does not exist" },
	{ "flag-cluster-missing", HEAD CL(SRV) US("    token: t\n"), .ov = { .cluster = "nope" },
	  .err = "cluster \"nope\" does not exist" },
	{ "flag-user-missing", HEAD CL(SRV) US("    token: t\n"), .ov = { .user = "nope" },
	  .err = "auth info \"nope\" does not exist" },
	{ "flag-user-before-context", HEAD CL(SRV) US("    token: t\n"),
	  .ov = { .user = "nope", .context = "nope2" }, .err = "auth info \"nope\" does not exist" },
	{ "current-context-nowhere", "current-context: ghost\n" CL(SRV) US("    token: t\n"),
	  .err_prefixed = 1,
	  .err = "Error in configuration:\n* context was not found for specified context: ghost\n"
		 "* cluster has no server defined" },
	{ "select-by-flags", HEAD CL(SRV)
	  "- name: cl2\n  cluster: {server: 'https://two'}\n"
	  "users:\n- name: u1\n  user: {token: t1}\n- name: u2\n  user: {token: t2}\n",
	  .ov = { .cluster = "cl2", .user = "u2" }, .server = "https://two", .token = "t2" },
	{ "other-context", HEAD "- name: c2\n  context: {cluster: cl, user: u1, namespace: team-b}\n"
	  CL(SRV) US("    token: t\n"), .ov = { .context = "c2" }, .context = "c2", .ns = "team-b" },
	{ "namespace-context", "current-context: c1\ncontexts:\n- name: c1\n  context:\n"
	  "    cluster: cl\n    user: u1\n    namespace: team-a\n" CL(SRV) US("    token: t\n"),
	  .ns = "team-a" },
	{ "namespace-flag-wins", "current-context: c1\ncontexts:\n- name: c1\n  context:\n"
	  "    cluster: cl\n    user: u1\n    namespace: team-a\n" CL(SRV) US("    token: t\n"),
	  .ov = { .ns = "from-flag" }, .ns = "from-flag" },
	{ "namespace-invalid", "current-context: c1\ncontexts:\n- name: c1\n  context:\n"
	  "    cluster: cl\n    user: u1\n    namespace: Team_A\n" CL(SRV) US("    token: t\n"),
	  .err_prefixed = 1,
	  .err = "Error in configuration: namespace \"Team_A\" for context \"c1\" does not "
		 "conform to the kubernetes DNS_LABEL rules" },
	{ "namespace-flag-invalid", HEAD CL(SRV) US("    token: t\n"), .ov = { .ns = "a/b" },
	  .err = "namespace \"a/b\" does not conform to the kubernetes DNS_LABEL rules" },
	{ "token-and-basic", HEAD CL(SRV) US("    token: t\n    username: bob\n    password: pw\n"),
	  .err_prefixed = 1,
	  .err = "Error in configuration: more than one authentication method found for u1; "
		 "found [token basicAuth], only one is allowed" },
	{ "basic", HEAD CL(SRV) US("    username: bob\n    password: pw\n"),
	  .username = "bob", .token = NONE },
	{ "duplicate-cluster", HEAD CL(SRV) "- name: cl\n  cluster: {server: 'https://dup'}\n"
	  US("    token: t\n"),
	  .err = "error loading config file \"@D/config\": error converting *[]NamedCluster "
		 "into *map[string]*api.Cluster: duplicate name \"cl\" in list" },
	{ "duplicate-user", HEAD CL(SRV) US("    token: t\n") "- name: u1\n  user: {token: x}\n",
	  .err = "duplicate name \"u1\" in list" },
	{ "broken-yaml", "clusters:\n- name: cl\n  cluster:\n    server: [unclosed\n",
	  .err = "error loading config file \"@D/config\": " },
	{ "broken-yaml-position", "a: b\n c: d: e\n", .err = "line 2" },
	{ "not-a-mapping", "- just\n- a list\n", .err = "error loading config file \"@D/config\": "
	  "couldn't get version/kind" },
	{ "wrong-kind", "apiVersion: v1\nkind: Pod\n", .err = "no kind \"Pod\" is registered" },
	{ "clusters-not-a-list", "clusters: {a: b}\n", .err = "cannot unmarshal object into Go "
	  "struct field Config.clusters of type []v1.NamedCluster" },
	{ "json", "{\"apiVersion\":\"v1\",\"kind\":\"Config\",\"current-context\":\"c1\","
	  "\"contexts\":[{\"name\":\"c1\",\"context\":{\"cluster\":\"cl\",\"user\":\"u1\"}}],"
	  "\"clusters\":[{\"name\":\"cl\",\"cluster\":{\"server\":\"https://j:1\","
	  "\"insecure-skip-tls-verify\":true}}],"
	  "\"users\":[{\"name\":\"u1\",\"user\":{\"token\":\"jt\"}}]}",
	  .server = "https://j:1", .token = "jt", .insecure = 'y' },
	{ "gcp", HEAD CL(SRV) US("    auth-provider: {name: gcp}\n"),
	  .err = "The gcp auth plugin has been removed. Please use the \"gke-gcloud-auth-plugin\"" },
	{ "azure", HEAD CL(SRV) US("    auth-provider: {name: azure}\n"),
	  .err = "The azure auth plugin has been removed. Please use the https://github.com/Azure/kubelogin" },
	{ "oidc-id-token", HEAD CL(SRV) US("    auth-provider:\n      name: oidc\n      config:\n"
					  "        id-token: eyJ.id.tok\n        client-id: x\n"),
	  .token = "eyJ.id.tok" },
	{ "oidc-no-id-token", HEAD CL(SRV) US("    auth-provider: {name: oidc, config: {client-id: x}}\n"),
	  .err = "kubelogin" },
	{ "auth-provider-unknown", HEAD CL(SRV) US("    auth-provider: {name: foo}\n"),
	  .err = "no Auth Provider found for name \"foo\"" },
	{ "exec-relative", HEAD CL(SRV) US("    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
					  "      command: ./bin/plugin\n      interactiveMode: Never\n"),
	  .exec_cmd = "@D/bin/plugin", .token = NONE },
	{ "exec-bare", HEAD CL(SRV) US("    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n"
				      "      command: aws\n      args: [eks, get-token]\n"),
	  .exec_cmd = "aws" },
	{ "exec-v1-needs-mode", HEAD CL(SRV) US("    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
					       "      command: aws\n"),
	  .err_prefixed = 1, .err = "Error in configuration: interactiveMode must be specified for "
	  "u1 to use exec authentication plugin" },
	{ "exec-no-command", HEAD CL(SRV) US("    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n"
					    "      env: [{value: x}]\n"),
	  .err_prefixed = 1, .err = "command must be specified for u1 to use exec authentication plugin\n"
	  "* env variable name must be specified for u1" },
	{ "impersonation", HEAD CL(SRV) US("    token: t\n    as: alice\n    as-groups: [g1, g2]\n"),
	  .as = "alice" },
	{ "impersonation-flag", HEAD CL(SRV) US("    token: t\n    as: alice\n"),
	  .ov = { .as = "bob" }, .as = "bob" },
	{ "impersonation-groups-only", HEAD CL(SRV) US("    token: t\n    as-groups: [g1]\n"),
	  .err_prefixed = 1, .err = "requesting uid, groups or user-extra for u1 without "
	  "impersonating a user" },
	{ "no-server", HEAD "clusters:\n- name: cl\n  cluster: {insecure-skip-tls-verify: true}\n"
	  US("    token: t\n"), .err_prefixed = 1,
	  .err = "Error in configuration: no server found for cluster \"cl\"" },
	{ "empty-file", "", .err = "invalid configuration: no configuration has been provided, "
	  "try setting KUBERNETES_MASTER environment variable" },
	{ "comments-only", "# nothing\n---\n", .err = "invalid configuration: no configuration" },
	{ "contexts-but-no-current", "contexts:\n- name: c1\n  context: {cluster: cl}\n" CL(SRV),
	  .err = "invalid configuration: no configuration has been provided" },
	{ "server-flag-only", "", .ov = { .server = "https://s:1" }, .server = "https://s:1",
	  .ns = "default", .context = "" },
};

static void build_overrides(const struct ov_spec *o, const char *dir,
			    struct kube_overrides *ov, char **owned)
{
	int i = 0;

#define X(field, src) ov->field = owned[i++] = expand(o->src, dir)
	X(context, context);
	X(cluster, cluster);
	X(user, user);
	X(namespace, ns);
	X(server, server);
	X(token, token);
	X(certificate_authority, ca);
	X(client_certificate, cert);
	X(client_key, key);
	X(tls_server_name, tls_name);
	X(username, username);
	X(as, as);
#undef X
	ov->insecure_skip_tls_verify = o->insecure ? 1 : -1;
}

static void check_blob(const char *tname, const char *what, const char *got, size_t len,
		       const char *want, const char *dir)
{
	if (want && strcmp(want, NONE) && got && strlen(got) != len) {
		fprintf(stderr, "[%s] %s: length %zu vs strlen %zu\n", tname, what, len,
			strlen(got));
		CHECK(0);
	}
	check_field(tname, what, got, want, dir);
}

static void check_config(const struct kc_case *c, const struct kube_config *cfg,
			 const char *dir)
{
	check_field(c->name, "server", cfg->server, c->server, dir);
	check_field(c->name, "namespace", cfg->namespace, c->ns, dir);
	check_field(c->name, "token", cfg->token, c->token, dir);
	check_field(c->name, "token_file", cfg->token_file, c->token_file, dir);
	check_field(c->name, "tls_server_name", cfg->tls_server_name, c->tls_name, dir);
	check_field(c->name, "proxy_url", cfg->proxy_url, c->proxy, dir);
	check_field(c->name, "context", cfg->context_name, c->context, dir);
	check_field(c->name, "username", cfg->username, c->username, dir);
	check_field(c->name, "as", cfg->impersonate_user, c->as, dir);
	check_field(c->name, "exec.command", cfg->exec ? cfg->exec->command : NULL,
		    c->exec_cmd, dir);
	check_blob(c->name, "ca", cfg->ca_pem, cfg->ca_pem_len, c->ca, dir);
	check_blob(c->name, "cert", cfg->client_cert_pem, cfg->client_cert_pem_len, c->cert, dir);
	check_blob(c->name, "key", cfg->client_key_pem, cfg->client_key_pem_len, c->key, dir);
	if (c->insecure)
		CHECK_INT(cfg->insecure, c->insecure == 'y');
}

/* err.c turns newlines into spaces; so do we for the wanted text. */
static char *flat(char *s)
{
	char *p;

	for (p = s; *p; p++)
		if (*p == '\n')
			*p = ' ';
	return s;
}

static void run_case(const struct kc_case *c)
{
	char *dir = case_dir(c->name), *owned[16] = { NULL }, path[600];
	struct kube_overrides ov = KUBE_OVERRIDES_INIT;
	struct kube_config cfg;
	struct err e;
	int i, rc;

	write_file(dir, "config", c->config);
	for (i = 0; i < 4 && c->files[i].name; i++)
		write_file(dir, c->files[i].name, c->files[i].content);
	build_overrides(&c->ov, dir, &ov, owned);
	snprintf(path, sizeof(path), "%s/config", dir);
	ov.kubeconfig = path;
	err_clear(&e);
	rc = kubeconfig_load(&ov, &cfg, &e);
	if (c->err) {
		char *want = flat(expand(c->err, dir));
		if (rc == 0 || !strstr(e.msg, want))
			fprintf(stderr, "[%s] rc=%d\n", c->name, rc);
		CHECK_INT(rc, -1);
		CHECK_HAS(e.msg, want);
		CHECK_INT(e.prefixed, c->err_prefixed);
		free(want);
	} else {
		if (rc)
			fprintf(stderr, "[%s] unexpected error: %s\n", c->name, e.msg);
		CHECK_INT(rc, 0);
		if (rc == 0) {
			check_config(c, &cfg, dir);
			kubeconfig_release(&cfg);
		}
	}
	for (i = 0; i < 16; i++)
		free(owned[i]);
	free(dir);
}

static void test_table(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		clean_env();
		run_case(&cases[i]);
	}
}

/* ---- file discovery and merging ---- */

static int load_env(struct kube_config *cfg, struct err *e, const struct kube_overrides *ov)
{
	struct kube_overrides none = KUBE_OVERRIDES_INIT;

	err_clear(e);
	return kubeconfig_load(ov ? ov : &none, cfg, e);
}

static void test_kubeconfig_flag_missing(void)
{
	struct kube_overrides ov = KUBE_OVERRIDES_INIT;
	struct kube_config cfg;
	struct err e;
	char path[512], *want;

	clean_env();
	snprintf(path, sizeof(path), "%s/does-not-exist", g_root);
	ov.kubeconfig = path;
	CHECK_INT(load_env(&cfg, &e, &ov), -1);
	want = expand("stat @D/does-not-exist: no such file or directory", g_root);
	CHECK_STR(e.msg, want);
	free(want);
	/* the flag is one file, never a list */
	ov.kubeconfig = "/a:/b";
	CHECK_INT(load_env(&cfg, &e, &ov), -1);
	CHECK_STR(e.msg, "stat /a:/b: no such file or directory");
}

static void test_merge(void)
{
	char *a = case_dir("merge/a"), *b = case_dir("merge/b"), list[2048];
	struct kube_overrides ov = KUBE_OVERRIDES_INIT;
	struct kube_config cfg;
	struct err e;

	clean_env();
	write_file(a, "config", "current-context: ctx-a\n"
		   "contexts:\n- name: ctx-a\n  context: {cluster: shared, user: ua}\n"
		   "clusters:\n- name: shared\n  cluster: {server: 'https://from-a'}\n"
		   "users:\n- name: ua\n  user: {token: token-a}\n");
	write_file(b, "config", "current-context: ctx-b\n"
		   "contexts:\n- name: ctx-b\n  context: {cluster: only-b, user: ub}\n"
		   "- name: ctx-a\n  context: {cluster: only-b, user: ub}\n"
		   "clusters:\n- name: shared\n  cluster: {server: 'https://from-b', "
		   "tls-server-name: b.name}\n"
		   "- name: only-b\n  cluster: {server: 'https://only-b'}\n"
		   "users:\n- name: ub\n  user: {tokenFile: tok}\n- name: ua\n  user: {token: token-b}\n");
	write_file(b, "tok", "token-from-b-dir\n");
	/* duplicates and empty entries are ignored; a missing file is skipped */
	snprintf(list, sizeof(list), "%s/config::%s/missing:%s/config:%s/config", a, a, a, b);
	setenv("KUBECONFIG", list, 1);

	CHECK_INT(load_env(&cfg, &e, NULL), 0);
	CHECK_STR(cfg.context_name, "ctx-a");          /* first file's current-context */
	CHECK_STR(cfg.server, "https://from-a");       /* first file's cluster */
	CHECK(cfg.tls_server_name == NULL);            /* whole entry from file a */
	CHECK_STR(cfg.token, "token-a");
	kubeconfig_release(&cfg);

	ov.context = "ctx-b";
	CHECK_INT(load_env(&cfg, &e, &ov), 0);
	CHECK_STR(cfg.server, "https://only-b");
	CHECK_STR(cfg.token, "token-from-b-dir");      /* relative to b's directory */
	kubeconfig_release(&cfg);

	/* a later file's current-context counts when earlier ones have none */
	write_file(a, "config", "clusters:\n- name: shared\n  cluster: {server: 'https://from-a'}\n");
	CHECK_INT(load_env(&cfg, &e, NULL), 0);
	CHECK_STR(cfg.context_name, "ctx-b");
	kubeconfig_release(&cfg);

	/* a broken later file fails the whole load, naming the file */
	write_file(b, "config", "clusters: [\n");
	CHECK_INT(load_env(&cfg, &e, NULL), -1);
	CHECK_HAS(e.msg, "error loading config file \"");
	CHECK_HAS(e.msg, "/merge/b/config\": ");
	free(a);
	free(b);
}

static void test_home_fallback(void)
{
	char *home = case_dir("home");
	struct kube_config cfg;
	struct err e;

	clean_env();
	write_file(home, ".kube/config", HEAD CL("    server: https://home\n") US("    token: t\n"));
	setenv("HOME", home, 1);
	CHECK_INT(load_env(&cfg, &e, NULL), 0);
	CHECK_STR(cfg.server, "https://home");
	kubeconfig_release(&cfg);
	/* $KUBECONFIG naming only missing files: the home file is not used */
	setenv("KUBECONFIG", "/nonexistent/x", 1);
	CHECK_INT(load_env(&cfg, &e, NULL), -1);
	CHECK_HAS(e.msg, "no configuration has been provided");
	free(home);
}

/* ---- in-cluster ---- */

static char *setup_sa(const char *name, const char *ns)
{
	char *sa = case_dir(name);

	write_file(sa, "token", "sa-token\n");
	write_file(sa, "ca.crt", "SA-CA");
	if (ns)
		write_file(sa, "namespace", ns);
	clean_env();
	setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
	setenv("KUBERNETES_SERVICE_PORT", "443", 1);
	setenv(KUBECONFIG_SA_DIR_ENV, sa, 1);
	setenv("KUBECONFIG", "/nonexistent/kubeconfig", 1);
	return sa;
}

static void test_in_cluster(void)
{
	struct kube_overrides ov = KUBE_OVERRIDES_INIT;
	struct kube_config cfg;
	struct err e;
	char *sa = setup_sa("sa", "ns-from-file\n"), tokpath[512];

	CHECK_INT(load_env(&cfg, &e, NULL), 0);
	CHECK_INT(cfg.in_cluster, 1);
	CHECK_STR(cfg.server, "https://10.96.0.1:443");
	CHECK_STR(cfg.token, "sa-token");
	snprintf(tokpath, sizeof(tokpath), "%s/token", sa);
	CHECK_STR(cfg.token_file, tokpath);
	CHECK(cfg.ca_pem && !strcmp(cfg.ca_pem, "SA-CA"));
	CHECK_STR(cfg.namespace, "ns-from-file");
	kubeconfig_release(&cfg);

	setenv("POD_NAMESPACE", "pod-ns", 1);
	setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
	CHECK_INT(load_env(&cfg, &e, NULL), 0);
	CHECK_STR(cfg.namespace, "pod-ns");
	CHECK_STR(cfg.server, "https://[fd00::1]:443");
	kubeconfig_release(&cfg);

	/* --server is a configuration of its own: the pod's token stays home */
	ov.server = "https://elsewhere:6443";
	CHECK_INT(load_env(&cfg, &e, &ov), 0);
	CHECK_INT(cfg.in_cluster, 0);
	CHECK_STR(cfg.server, "https://elsewhere:6443");
	CHECK(cfg.token == NULL);
	kubeconfig_release(&cfg);

	/* only --token and --certificate-authority apply */
	ov.server = NULL;
	ov.token = "flag-token";
	ov.certificate_authority = tokpath;   /* any readable file */
	ov.insecure_skip_tls_verify = 1;
	ov.tls_server_name = "ignored";
	ov.namespace = "flag-ns";
	CHECK_INT(load_env(&cfg, &e, &ov), 0);
	CHECK_INT(cfg.in_cluster, 1);
	CHECK_STR(cfg.server, "https://[fd00::1]:443");
	CHECK_STR(cfg.token, "flag-token");
	CHECK(cfg.token_file == NULL);
	CHECK_INT(cfg.token_from_flag, 1);
	CHECK(cfg.ca_pem && !strcmp(cfg.ca_pem, "sa-token\n"));
	CHECK_INT(cfg.insecure, 0);
	CHECK(cfg.tls_server_name == NULL);
	CHECK_STR(cfg.namespace, "flag-ns");
	kubeconfig_release(&cfg);
	free(sa);
}

static void test_in_cluster_edges(void)
{
	char *sa = setup_sa("sa2", NULL), *kc = case_dir("sa2-kc"), path[512];
	struct kube_config cfg;
	struct err e;

	/* no namespace file, no POD_NAMESPACE: default */
	CHECK_INT(load_env(&cfg, &e, NULL), 0);
	CHECK_STR(cfg.namespace, "default");
	kubeconfig_release(&cfg);

	/* a real kubeconfig wins, but its namespace-less context takes the pod's */
	write_file(kc, "config", HEAD CL(SRV) US("    token: t\n"));
	snprintf(path, sizeof(path), "%s/config", kc);
	setenv("KUBECONFIG", path, 1);
	setenv("POD_NAMESPACE", "pod-ns", 1);
	CHECK_INT(load_env(&cfg, &e, NULL), 0);
	CHECK_INT(cfg.in_cluster, 0);
	CHECK_STR(cfg.server, "https://h:6443");
	CHECK_STR(cfg.namespace, "pod-ns");
	kubeconfig_release(&cfg);

	/* the token file missing: in-cluster is not possible */
	setenv("KUBECONFIG", "/nonexistent/kubeconfig", 1);
	snprintf(path, sizeof(path), "%s/token", sa);
	unlink(path);
	CHECK_INT(load_env(&cfg, &e, NULL), -1);
	CHECK_STR(e.msg, "invalid configuration: no configuration has been provided, try "
		  "setting KUBERNETES_MASTER environment variable");
	CHECK_INT(e.prefixed, 0);

	/* ... and KUBERNETES_MASTER is the last resort */
	setenv("KUBERNETES_MASTER", "http://master:8080", 1);
	CHECK_INT(load_env(&cfg, &e, NULL), 0);
	CHECK_STR(cfg.server, "http://master:8080");
	kubeconfig_release(&cfg);
	free(sa);
	free(kc);
}

/* ---- --request-timeout ---- */

static void test_timeouts(void)
{
	static const struct { const char *in; long ms; int ok; } t[] = {
		{ "0", 0, 1 }, { "5", 5000, 1 }, { "5s", 5000, 1 }, { "2m", 120000, 1 },
		{ "3h", 10800000, 1 }, { "1h30m", 5400000, 1 }, { "500ms", 500, 1 },
		{ "1.5s", 1500, 1 }, { "1m30s", 90000, 1 }, { "abc", 0, 0 }, { "", 0, 0 },
		{ "-5", 0, 0 }, { "5x", 0, 0 }, { "s", 0, 0 }, { "1h30", 0, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		long ms = -1;
		struct err e;
		int rc;

		err_clear(&e);
		rc = kubeconfig_parse_timeout(t[i].in, &ms, &e);
		if (rc != (t[i].ok ? 0 : -1) || (t[i].ok && ms != t[i].ms))
			fprintf(stderr, "timeout \"%s\": rc %d ms %ld\n", t[i].in, rc, ms);
		CHECK_INT(rc, t[i].ok ? 0 : -1);
		if (t[i].ok)
			CHECK_INT(ms, t[i].ms);
		else
			CHECK_STR(e.msg, "Invalid timeout value. Timeout must be a single integer "
				  "in seconds, or an integer followed by a corresponding time unit "
				  "(e.g. 1s | 2m | 3h)");
	}
}

static void test_request_timeout_passes_through(void)
{
	char *dir = case_dir("timeout");
	struct kube_overrides ov = KUBE_OVERRIDES_INIT;
	struct kube_config cfg;
	struct err e;
	char path[512];

	clean_env();
	write_file(dir, "config", HEAD CL(SRV) US("    token: t\n"));
	snprintf(path, sizeof(path), "%s/config", dir);
	ov.kubeconfig = path;
	ov.request_timeout_ms = 7000;
	CHECK_INT(load_env(&cfg, &e, &ov), 0);
	CHECK_INT(cfg.timeout_ms, 7000);
	kubeconfig_release(&cfg);
	free(dir);
}

static void test_load_buffer(void)
{
	static const char conf[] = HEAD CL(SRV) US("    tokenFile: tok\n");
	struct kube_overrides ov = KUBE_OVERRIDES_INIT;
	struct kube_config cfg;
	struct err e;
	char *dir = case_dir("buffer"), path[512];

	clean_env();
	write_file(dir, "tok", "buffer-token");
	snprintf(path, sizeof(path), "%s/virtual-config", dir);
	err_clear(&e);
	CHECK_INT(kubeconfig_load_buffer(conf, sizeof(conf) - 1, path, &ov, &cfg, &e), 0);
	CHECK_STR(cfg.token, "buffer-token");
	kubeconfig_release(&cfg);
	free(dir);
}

int main(void)
{
	if (t_mkdtemp(g_root, sizeof(g_root), "test_kubeconfig") < 0)
		return 2;
	test_table();
	test_kubeconfig_flag_missing();
	test_merge();
	test_home_fallback();
	test_in_cluster();
	test_in_cluster_edges();
	test_timeouts();
	test_request_timeout_passes_through();
	test_load_buffer();
	t_rm_rf(g_root);
	return T_DONE("test_kubeconfig");
}
