/* Exec credential plugins and token files: tiny /bin/sh plugins written
 * into a mkdtemp directory, each behind a kubeconfig user, run through
 * kubeconfig_load() + auth_prepare() as the program does. */
#define _GNU_SOURCE
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kube/config/auth.h"
#include "kube/config/kubeconfig.h"
#include "t.h"

#define V1 "client.authentication.k8s.io/v1"
#define V1BETA1 "client.authentication.k8s.io/v1beta1"

static char g_dir[256];

static void write_at(const char *name, const char *content, int mode)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", g_dir, name);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(content, f);
	fclose(f);
	chmod(path, (mode_t)mode);
}

static void plugin(const char *name, const char *body)
{
	char *script = malloc(strlen(body) + 64);

	sprintf(script, "#!/bin/sh\nD='%s'\n%s", g_dir, body);
	write_at(name, script, 0755);
	free(script);
}

static char *slurp(const char *name)
{
	char path[512], *data;
	long n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", g_dir, name);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	data = calloc(1, (size_t)n + 1);
	if (fread(data, 1, (size_t)n, f) != (size_t)n)
		n = 0;
	fclose(f);
	return data;
}

/* A kubeconfig whose user u runs the exec block given. */
static int load(const char *exec_block, const char *extra_cluster,
		const struct kube_overrides *ovp, struct kube_config *cfg, struct err *e)
{
	struct kube_overrides ov = KUBE_OVERRIDES_INIT;
	char *conf = malloc(strlen(exec_block) + 1024), path[512];
	int rc;

	if (ovp)
		ov = *ovp;
	sprintf(conf, "current-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\n"
		"clusters:\n- name: k\n  cluster:\n    server: https://h:6443\n%s"
		"users:\n- name: u\n  user:\n    exec:\n%s",
		extra_cluster ? extra_cluster : "", exec_block);
	write_at("config", conf, 0644);
	free(conf);
	snprintf(path, sizeof(path), "%s/config", g_dir);
	ov.kubeconfig = path;
	err_clear(e);
	rc = kubeconfig_load(&ov, cfg, e);
	if (rc)
		fprintf(stderr, "load: %s\n", e->msg);
	return rc;
}

/* load + auth_prepare; returns auth_prepare's result (cfg released on -1). */
static int prepare(const char *exec_block, struct kube_config *cfg, struct err *e)
{
	if (load(exec_block, NULL, NULL, cfg, e) < 0)
		return -2;
	if (auth_prepare(cfg, e) < 0) {
		kubeconfig_release(cfg);
		return -1;
	}
	return 0;
}

#define CRED(ver, status) "echo '{\"apiVersion\":\"" ver "\",\"kind\":\"ExecCredential\"," \
	"\"status\":" status "}'\n"

static void test_v1_argv_env_info(void)
{
	struct kube_config cfg;
	struct err e;
	char *args, *info;
	cJSON *j;

	plugin("p-v1", "for a in \"$@\"; do printf '%s|' \"$a\"; done > \"$D/args.out\"\n"
	       "printf '%s' \"$KUBERNETES_EXEC_INFO\" > \"$D/info.out\"\n"
	       "printf '%s' \"$PLUGIN_VAR/$PARENT_ONLY\" > \"$D/env.out\"\n"
	       CRED(V1, "{\"token\":\"tok-v1\"}"));
	setenv("PLUGIN_VAR", "from-parent", 1);
	setenv("PARENT_ONLY", "inherited", 1);
	CHECK_INT(load("      apiVersion: " V1 "\n      command: ./p-v1\n"
		       "      interactiveMode: Never\n      provideClusterInfo: true\n"
		       "      args: ['arg with space', \"it's\", '$HOME;x']\n"
		       "      env: [{name: PLUGIN_VAR, value: from-kubeconfig}]\n",
		       "    tls-server-name: api.internal\n"
		       "    certificate-authority-data: Q0EK\n"
		       "    extensions:\n    - name: client.authentication.k8s.io/exec\n"
		       "      extension: {audience: sts, n: 3}\n", NULL, &cfg, &e), 0);
	CHECK_INT(auth_prepare(&cfg, &e), 0);
	CHECK_STR(cfg.token, "tok-v1");
	CHECK_INT(cfg.creds_from_exec, 1);
	args = slurp("args.out");
	CHECK_STR(args, "arg with space|it's|$HOME;x|");
	free(args);
	info = slurp("env.out");
	CHECK_STR(info, "from-kubeconfig/inherited");
	free(info);
	CHECK_STR(getenv("PLUGIN_VAR"), "from-parent");   /* parent untouched */
	info = slurp("info.out");
	j = cJSON_Parse(info ? info : "");
	CHECK(j != NULL);
	if (j) {
		cJSON *spec = cJSON_GetObjectItem(j, "spec"), *cl = cJSON_GetObjectItem(spec, "cluster");
		CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(j, "kind")), "ExecCredential");
		CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(j, "apiVersion")), V1);
		CHECK(cJSON_IsFalse(cJSON_GetObjectItem(spec, "interactive")));
		CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(cl, "server")), "https://h:6443");
		CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(cl, "tls-server-name")),
			  "api.internal");
		CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(cl, "certificate-authority-data")),
			  "Q0EK");
		CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(cl, "config"),
								   "audience")), "sts");
		CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(cl, "config"),
							       "n")) == 3);
		cJSON_Delete(j);
	}
	free(info);
	kubeconfig_release(&cfg);
	unsetenv("PLUGIN_VAR");
	unsetenv("PARENT_ONLY");
}

static void test_v1beta1_cert_and_expiry(void)
{
	struct kube_config cfg;
	struct err e;

	plugin("p-cert", "printf '%s' \"$KUBERNETES_EXEC_INFO\" > \"$D/info2.out\"\n"
	       CRED(V1BETA1, "{\"clientCertificateData\":\"-----BEGIN CERTIFICATE-----\\nMIIB\\n"
		    "-----END CERTIFICATE-----\\n\",\"clientKeyData\":\"-----BEGIN PRIVATE KEY-----"
		    "\\nMC4\\n-----END PRIVATE KEY-----\\n\","
		    "\"expirationTimestamp\":\"2023-11-14T22:13:20Z\"}"));
	CHECK_INT(prepare("      apiVersion: " V1BETA1 "\n      command: ./p-cert\n", &cfg, &e), 0);
	CHECK_STR(cfg.client_cert_pem, "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
	CHECK_INT(cfg.client_cert_pem_len, strlen(cfg.client_cert_pem ? cfg.client_cert_pem : ""));
	CHECK_STR(cfg.client_key_pem, "-----BEGIN PRIVATE KEY-----\nMC4\n-----END PRIVATE KEY-----\n");
	CHECK(cfg.token == NULL);
	CHECK_INT(cfg.exec_expiry, 1700000000LL);
	kubeconfig_release(&cfg);
	{
		char *info = slurp("info2.out");
		/* no provideClusterInfo: no spec.cluster */
		CHECK_HAS(info, "\"apiVersion\":\"" V1BETA1 "\"");
		CHECK(info && !strstr(info, "\"cluster\""));
		free(info);
	}
}

/* Each failing plugin and the message kubectl would print. */
static void test_plugin_errors(void)
{
	static const struct { const char *name, *body, *version, *want; } t[] = {
		{ "p-exit3", "echo '(expected: plugin stderr passes through)' >&2\nexit 3\n", V1,
		  "getting credentials: exec: executable @/p-exit3 failed with exit code 3" },
		{ "p-garbage", "echo 'this is not json'\n", V1,
		  "getting credentials: decoding stdout: couldn't get version/kind" },
		{ "p-version", CRED(V1BETA1, "{\"token\":\"x\"}"), V1,
		  "getting credentials: exec plugin is configured to use API version "
		  V1 ", plugin returned version " V1BETA1 },
		{ "p-nostatus", "echo '{\"apiVersion\":\"" V1 "\",\"kind\":\"ExecCredential\"}'\n", V1,
		  "getting credentials: exec plugin didn't return a status field" },
		{ "p-empty", CRED(V1, "{}"), V1,
		  "getting credentials: exec plugin didn't return a token or cert/key pair" },
		{ "p-halfcert", CRED(V1, "{\"clientCertificateData\":\"C\"}"), V1,
		  "getting credentials: exec plugin returned only certificate or key, not both" },
		{ "p-nokind", "echo '{\"apiVersion\":\"" V1 "\",\"status\":{\"token\":\"x\"}}'\n", V1,
		  "getting credentials: decoding stdout: Object 'Kind' is missing" },
		{ "p-badtime", CRED(V1, "{\"token\":\"x\",\"expirationTimestamp\":\"soon\"}"), V1,
		  "getting credentials: decoding stdout: parsing time \"soon\"" },
		{ "p-alpha", "exit 0\n", "client.authentication.k8s.io/v1alpha1",
		  "exec plugin: invalid apiVersion \"client.authentication.k8s.io/v1alpha1\"" },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct kube_config cfg;
		struct err e;
		char block[512], want[512], *at;

		plugin(t[i].name, t[i].body);
		snprintf(block, sizeof(block), "      apiVersion: %s\n      command: ./%s\n"
			 "      interactiveMode: IfAvailable\n", t[i].version, t[i].name);
		snprintf(want, sizeof(want), "%s", t[i].want);
		if ((at = strstr(want, "@/"))) {
			char rest[512];
			snprintf(rest, sizeof(rest), "%s", at + 1);
			snprintf(at, sizeof(want) - (size_t)(at - want), "%s%s", g_dir, rest);
		}
		if (prepare(block, &cfg, &e) != -1 || !strstr(e.msg, want))
			fprintf(stderr, "[%s] got: %s\n", t[i].name, e.msg);
		CHECK_HAS(e.msg, want);
	}
}

static void test_not_found(void)
{
	struct kube_config cfg;
	struct err e;
	char want[512];

	CHECK_INT(prepare("      apiVersion: " V1 "\n      command: ./no-such-plugin\n"
			  "      interactiveMode: Never\n      installHint: install it with brew\n",
			  &cfg, &e), -1);
	snprintf(want, sizeof(want), "getting credentials: exec: executable %s/no-such-plugin "
		 "not found", g_dir);
	CHECK_HAS(e.msg, want);
	CHECK_HAS(e.msg, "It looks like you are trying to use a client-go credential plugin "
		  "that is not installed.");
	CHECK_HAS(e.msg, "install it with brew");
	CHECK_INT(e.kind, ERR_AUTH);

	CHECK_INT(prepare("      apiVersion: " V1 "\n      command: di-no-such-plugin-xyz\n"
			  "      interactiveMode: Never\n", &cfg, &e), -1);
	CHECK_HAS(e.msg, "exec: executable di-no-such-plugin-xyz not found");
}

static void test_path_lookup(void)
{
	struct kube_config cfg;
	struct err e;
	char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL, path[1024];

	plugin("di-test-plugin", CRED(V1, "{\"token\":\"from-path\"}"));
	snprintf(path, sizeof(path), "%s:%s", g_dir, old ? old : "/usr/bin:/bin");
	setenv("PATH", path, 1);
	CHECK_INT(prepare("      apiVersion: " V1 "\n      command: di-test-plugin\n"
			  "      interactiveMode: Never\n", &cfg, &e), 0);
	CHECK_STR(cfg.exec ? cfg.exec->command : NULL, "di-test-plugin");
	CHECK_STR(cfg.token, "from-path");
	kubeconfig_release(&cfg);
	if (old)
		setenv("PATH", old, 1);
	free(old);
}

static void test_timeout(void)
{
	struct kube_config cfg;
	struct err e;
	struct timespec t0, t1;
	double secs;

	/* the sleep is a child of sh: killing the process group gets both */
	plugin("p-hang", "sleep 30\n" CRED(V1, "{\"token\":\"late\"}"));
	auth_set_plugin_timeout_ms(300);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_INT(prepare("      apiVersion: " V1 "\n      command: ./p-hang\n"
			  "      interactiveMode: Never\n", &cfg, &e), -1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	auth_set_plugin_timeout_ms(0);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	CHECK(secs < 5);
	CHECK_HAS(e.msg, "/p-hang did not finish within 300ms");
	CHECK_HAS(e.msg, "getting credentials: exec: executable ");
}

static void test_output_cap(void)
{
	struct kube_config cfg;
	struct err e;

	plugin("p-big", "yes xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n");
	CHECK_INT(prepare("      apiVersion: " V1 "\n      command: ./p-big\n"
			  "      interactiveMode: Never\n", &cfg, &e), -1);
	CHECK_HAS(e.msg, "wrote more than 1048576 bytes to stdout");
}

static void test_token_flag_skips_plugin(void)
{
	struct kube_overrides ov = KUBE_OVERRIDES_INIT;
	struct kube_config cfg;
	struct err e;
	char marker[512];

	plugin("p-marker", "touch \"$D/ran.marker\"\n" CRED(V1, "{\"token\":\"plugin\"}"));
	ov.token = "flag-token";
	CHECK_INT(load("      apiVersion: " V1 "\n      command: ./p-marker\n"
		       "      interactiveMode: Never\n", NULL, &ov, &cfg, &e), 0);
	CHECK_INT(auth_prepare(&cfg, &e), 0);
	CHECK_STR(cfg.token, "flag-token");
	snprintf(marker, sizeof(marker), "%s/ran.marker", g_dir);
	CHECK(access(marker, F_OK) != 0);
	CHECK_INT(auth_refresh(&cfg, &e), -1);   /* nothing to refresh: the flag was rejected */
	CHECK(access(marker, F_OK) != 0);
	kubeconfig_release(&cfg);
}

static void test_refresh_reruns_plugin(void)
{
	struct kube_config cfg;
	struct err e;

	plugin("p-count", "n=$(cat \"$D/count\" 2>/dev/null || echo 0)\nn=$((n+1))\n"
	       "echo $n > \"$D/count\"\n"
	       "echo \"{\\\"apiVersion\\\":\\\"" V1 "\\\",\\\"kind\\\":\\\"ExecCredential\\\","
	       "\\\"status\\\":{\\\"token\\\":\\\"tok-$n\\\"}}\"\n");
	CHECK_INT(prepare("      apiVersion: " V1 "\n      command: ./p-count\n"
			  "      interactiveMode: Never\n", &cfg, &e), 0);
	CHECK_STR(cfg.token, "tok-1");
	CHECK_INT(auth_refresh(&cfg, &e), 0);
	CHECK_STR(cfg.token, "tok-2");
	CHECK_INT(auth_refresh(&cfg, &e), 0);
	CHECK_STR(cfg.token, "tok-3");
	kubeconfig_release(&cfg);
}

/* PREFIX-config: a kubeconfig whose user has tokenFile PREFIX-token, which
 * holds token; the config's path in path. */
static void token_file_config(const char *prefix, const char *token, char *path, size_t n)
{
	char conf[512], name[64];

	snprintf(conf, sizeof(conf), "current-context: c\ncontexts:\n- name: c\n  context: "
		 "{cluster: k, user: u}\nclusters:\n- name: k\n  cluster: {server: 'https://h'}\n"
		 "users:\n- name: u\n  user: {tokenFile: %s-token}\n", prefix);
	snprintf(name, sizeof(name), "%s-config", prefix);
	write_at(name, conf, 0644);
	snprintf(name, sizeof(name), "%s-token", prefix);
	write_at(name, token, 0600);
	snprintf(path, n, "%s/%s-config", g_dir, prefix);
}

static void test_refresh_token_file(void)
{
	struct kube_overrides ov = KUBE_OVERRIDES_INIT;
	struct kube_config cfg;
	struct err e;
	char path[512];

	token_file_config("tf", "first\n", path, sizeof(path));
	ov.kubeconfig = path;
	err_clear(&e);
	CHECK_INT(kubeconfig_load(&ov, &cfg, &e), 0);
	CHECK_INT(auth_prepare(&cfg, &e), 0);
	CHECK_STR(cfg.token, "first");
	CHECK_INT(auth_refresh(&cfg, &e), -1);    /* unchanged: retrying is pointless */
	write_at("tf-token", "second\n", 0600);
	CHECK_INT(auth_refresh(&cfg, &e), 0);
	CHECK_STR(cfg.token, "second");
	kubeconfig_release(&cfg);

	/* a static token with nothing behind it */
	write_at("tf-config", "current-context: c\ncontexts:\n- name: c\n  context: {cluster: k, "
		 "user: u}\nclusters:\n- name: k\n  cluster: {server: 'https://h'}\n"
		 "users:\n- name: u\n  user: {token: static}\n", 0644);
	CHECK_INT(kubeconfig_load(&ov, &cfg, &e), 0);
	CHECK_INT(auth_refresh(&cfg, &e), -1);
	CHECK_STR(cfg.token, "static");
	kubeconfig_release(&cfg);
}

/* The token file is re-read on client-go's period even without a 401
 * (kubelet rotates bound tokens in place); a failed read keeps the token. */
static void test_token_file_period(void)
{
	struct kube_overrides ov = KUBE_OVERRIDES_INIT;
	struct timespec pause = { 0, 5 * 1000000L };
	struct kube_config cfg;
	struct err e;
	char path[512];

	token_file_config("tp", "one\n", path, sizeof(path));
	ov.kubeconfig = path;
	err_clear(&e);
	auth_set_token_period_ms(3600 * 1000L);
	CHECK_INT(kubeconfig_load(&ov, &cfg, &e), 0);
	CHECK_INT(auth_prepare(&cfg, &e), 0);
	CHECK_INT(auth_token_stale(&cfg), 0);      /* just read */
	auth_set_token_period_ms(1);
	nanosleep(&pause, NULL);
	CHECK_INT(auth_token_stale(&cfg), 1);
	CHECK_INT(auth_reread_token(&cfg, &e), 0); /* same token: no change */
	auth_set_token_period_ms(3600 * 1000L);
	CHECK_INT(auth_token_stale(&cfg), 0);      /* the read restarted the period */
	write_at("tp-token", "two\n", 0600);
	CHECK_INT(auth_reread_token(&cfg, &e), 1);
	CHECK_STR(cfg.token, "two");
	snprintf(path, sizeof(path), "%s/tp-token", g_dir);
	unlink(path);
	CHECK_INT(auth_reread_token(&cfg, &e), -1);
	CHECK_STR(cfg.token, "two");
	auth_set_token_period_ms(1);
	nanosleep(&pause, NULL);
	CHECK_INT(auth_token_stale(&cfg), 1);      /* tried again next time */
	kubeconfig_release(&cfg);

	/* --token: the file is never consulted */
	write_at("tp-token", "three\n", 0600);
	snprintf(path, sizeof(path), "%s/tp-config", g_dir);
	ov.token = "flag";
	CHECK_INT(kubeconfig_load(&ov, &cfg, &e), 0);
	CHECK_INT(auth_prepare(&cfg, &e), 0);
	nanosleep(&pause, NULL);
	CHECK_INT(auth_token_stale(&cfg), 0);
	kubeconfig_release(&cfg);
	auth_set_token_period_ms(0);
}

static void test_interactive_always(void)
{
	struct kube_config cfg;
	struct err e;

	if (isatty(STDIN_FILENO))
		return;   /* only meaningful without a terminal */
	plugin("p-always", CRED(V1, "{\"token\":\"x\"}"));
	CHECK_INT(prepare("      apiVersion: " V1 "\n      command: ./p-always\n"
			  "      interactiveMode: Always\n", &cfg, &e), -1);
	CHECK_STR(e.msg, "getting credentials: exec plugin cannot support interactive mode: "
		  "standard input is not a terminal");
}

/* client-go: no time limit on an interactive plugin (a device-code login
 * takes what it takes).  A pty on stdin makes the run interactive; the
 * plugin outlives the (test-shortened) non-interactive limit. */
static void test_interactive_no_limit(void)
{
	struct kube_config cfg;
	struct err e;
	int saved = dup(STDIN_FILENO), m = posix_openpt(O_RDWR | O_NOCTTY), sl;

	if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0 ||
	    (sl = open(ptsname(m), O_RDWR | O_NOCTTY)) < 0) {
		CHECK(!"no pty for the interactive plugin test");
		return;
	}
	dup2(sl, STDIN_FILENO);
	plugin("p-slow-login", "sleep 1\n" CRED(V1, "{\"token\":\"after-login\"}"));
	auth_set_plugin_timeout_ms(300);
	CHECK_INT(prepare("      apiVersion: " V1 "\n      command: ./p-slow-login\n"
			  "      interactiveMode: IfAvailable\n", &cfg, &e), 0);
	auth_set_plugin_timeout_ms(0);
	CHECK_STR(cfg.token, "after-login");
	kubeconfig_release(&cfg);
	dup2(saved, STDIN_FILENO);
	close(saved);
	close(sl);
	close(m);
}

/* exec.go credsExpired: past expirationTimestamp the credential is stale. */
static void test_expiry(void)
{
	struct kube_config cfg;
	struct err e;

	plugin("p-old", CRED(V1, "{\"token\":\"t\",\"expirationTimestamp\":\"2001-02-03T04:05:06Z\"}"));
	CHECK_INT(prepare("      apiVersion: " V1 "\n      command: ./p-old\n"
			  "      interactiveMode: Never\n", &cfg, &e), 0);
	CHECK(auth_expired(&cfg));
	kubeconfig_release(&cfg);
	plugin("p-new", CRED(V1, "{\"token\":\"t\",\"expirationTimestamp\":\"2999-02-03T04:05:06Z\"}"));
	CHECK_INT(prepare("      apiVersion: " V1 "\n      command: ./p-new\n"
			  "      interactiveMode: Never\n", &cfg, &e), 0);
	CHECK(!auth_expired(&cfg));
	kubeconfig_release(&cfg);
	plugin("p-none", CRED(V1, "{\"token\":\"t\"}"));
	CHECK_INT(prepare("      apiVersion: " V1 "\n      command: ./p-none\n"
			  "      interactiveMode: Never\n", &cfg, &e), 0);
	CHECK(!auth_expired(&cfg));
	kubeconfig_release(&cfg);
}

/* UpdateTransportConfig: a client certificate (or basic auth) set means
 * the plugin is never run. */
static void test_cert_skips_plugin(void)
{
	struct kube_overrides ov = KUBE_OVERRIDES_INIT;
	struct kube_config cfg;
	struct err e;
	char marker[512], crt[512], key[512];

	write_at("c.crt", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", 0644);
	write_at("c.key", "-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n", 0600);
	snprintf(crt, sizeof(crt), "%s/c.crt", g_dir);
	snprintf(key, sizeof(key), "%s/c.key", g_dir);
	ov.client_certificate = crt;
	ov.client_key = key;
	plugin("p-cert-marker", "touch \"$D/cert.marker\"\n" CRED(V1, "{\"token\":\"plugin\"}"));
	CHECK_INT(load("      apiVersion: " V1 "\n      command: ./p-cert-marker\n"
		       "      interactiveMode: Never\n", NULL, &ov, &cfg, &e), 0);
	CHECK_INT(auth_prepare(&cfg, &e), 0);
	CHECK(cfg.token == NULL);
	snprintf(marker, sizeof(marker), "%s/cert.marker", g_dir);
	CHECK(access(marker, F_OK) != 0);
	kubeconfig_release(&cfg);
}

int main(void)
{
	if (t_mkdtemp(g_dir, sizeof(g_dir), "test_auth") < 0)
		return 2;
	unsetenv("KUBECONFIG");
	test_v1_argv_env_info();
	test_v1beta1_cert_and_expiry();
	test_plugin_errors();
	test_not_found();
	test_path_lookup();
	test_timeout();
	test_output_cap();
	test_token_flag_skips_plugin();
	test_refresh_reruns_plugin();
	test_refresh_token_file();
	test_token_file_period();
	test_interactive_always();
	test_interactive_no_limit();
	test_expiry();
	test_cert_skips_plugin();
	t_rm_rf(g_dir);
	return T_DONE("test_auth");
}
