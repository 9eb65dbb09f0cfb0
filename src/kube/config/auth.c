/* Exec credential plugins and token files (kubeconfig.md §8, §9).
 *
 * The plugin runs with a real argv through posix_spawnp (PATH lookup for
 * bare names, as client-go's exec.Command does), never through a shell.
 * Its environment is built as a fresh envp: our environ, then the
 * configured env entries, then KUBERNETES_EXEC_INFO, later names replacing
 * earlier ones as Go's os/exec does.  The parent's environment is never
 * touched.  stderr passes through; stdout is captured with a cap and a
 * deadline.
 */
#define _GNU_SOURCE  /* pipe2, environ, timegm */
#include "auth.h"
#include "kubeconfig_model.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model/cancel.h"
#include "util/buf.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "kube/http/http.h"

extern char **environ;

#define EXEC_INFO_ENV "KUBERNETES_EXEC_INFO"
#define EXEC_GROUP "client.authentication.k8s.io"
#define MAX_PLUGIN_OUTPUT ((size_t)1 << 20)
#define DEFAULT_PLUGIN_TIMEOUT_MS 60000L

static long g_plugin_timeout_ms = DEFAULT_PLUGIN_TIMEOUT_MS;

void auth_set_plugin_timeout_ms(long ms)
{
	g_plugin_timeout_ms = ms > 0 ? ms : DEFAULT_PLUGIN_TIMEOUT_MS;
}

/* What the plugin gave us; every pointer owned. */
struct credential {
	char *token;
	char *cert;
	char *key;
	long long expiry;
};

static void credential_release(struct credential *c)
{
	if (c->token)
		kc_free_secret(c->token, strlen(c->token));
	free(c->cert);
	if (c->key)
		kc_free_secret(c->key, strlen(c->key));
	memset(c, 0, sizeof(*c));
}

/* kubectl wraps every plugin failure in this prefix. */
static int cred_error(struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int cred_error(struct err *e, const char *fmt, ...)
{
	char msg[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_set(e, ERR_AUTH, "getting credentials: %s", msg);
}

/* ---- the child's environment ---- */

static int same_name(const char *a, const char *b)
{
	size_t na = strcspn(a, "="), nb = strcspn(b, "=");
	return na == nb && !memcmp(a, b, na);
}

static int overridden(const char *entry, char *const *later, const char *info)
{
	for (; later && *later; later++)
		if (same_name(entry, *later))
			return 1;
	return same_name(entry, info);
}

/* Owned strv: environ + plugin env + KUBERNETES_EXEC_INFO, last wins. */
static char **build_env(const struct kube_exec_plugin *x, const char *info)
{
	size_t n = 0, i = 0;
	char **p, **envp;

	for (p = environ; p && *p; p++)
		n++;
	for (p = x->env; p && *p; p++)
		n++;
	envp = xcalloc(n + 2, sizeof(*envp));
	for (p = environ; p && *p; p++)
		if (!overridden(*p, x->env, info))
			envp[i++] = xstrdup(*p);
	for (p = x->env; p && *p; p++)
		if (!overridden(*p, p + 1, info))
			envp[i++] = xstrdup(*p);
	envp[i] = xstrdup(info);
	return envp;
}

/* clientauthentication v1 Cluster, in the order Go marshals it. */
static void add_cluster_info(cJSON *spec, const struct kube_config *cfg)
{
	cJSON *c = cJSON_AddObjectToObject(spec, "cluster");

	cJSON_AddStringToObject(c, "server", cfg->server ? cfg->server : "");
	if (cfg->tls_server_name)
		cJSON_AddStringToObject(c, "tls-server-name", cfg->tls_server_name);
	if (cfg->insecure)
		cJSON_AddBoolToObject(c, "insecure-skip-tls-verify", 1);
	if (cfg->ca_pem && cfg->ca_pem_len < (size_t)1 << 28) {
		char *b64 = xmalloc(4 * ((cfg->ca_pem_len + 2) / 3) + 1);
		EVP_EncodeBlock((unsigned char *)b64, (const unsigned char *)cfg->ca_pem,
				(int)cfg->ca_pem_len);
		cJSON_AddStringToObject(c, "certificate-authority-data", b64);
		free(b64);
	}
	if (cfg->proxy_url)
		cJSON_AddStringToObject(c, "proxy-url", cfg->proxy_url);
	if (cfg->disable_compression)
		cJSON_AddBoolToObject(c, "disable-compression", 1);
	if (cfg->exec->cluster_config_json) {
		cJSON *conf = cJSON_Parse(cfg->exec->cluster_config_json);
		if (conf)
			cJSON_AddItemToObject(c, "config", conf);
	}
}

/* "KUBERNETES_EXEC_INFO=<json>", owned by the caller. */
static char *exec_info(const struct kube_config *cfg, int interactive)
{
	cJSON *root = cJSON_CreateObject(), *spec;
	char *json, *entry;

	cJSON_AddStringToObject(root, "kind", "ExecCredential");
	cJSON_AddStringToObject(root, "apiVersion", cfg->exec->api_version);
	spec = cJSON_AddObjectToObject(root, "spec");
	if (cfg->exec->provide_cluster_info)
		add_cluster_info(spec, cfg);
	cJSON_AddBoolToObject(spec, "interactive", interactive);
	json = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	if (!json)
		xalloc_die();
	entry = xasprintf("%s=%s", EXEC_INFO_ENV, json);
	cJSON_free(json);
	return entry;
}

/* ---- running the plugin ---- */

struct child {
	pid_t pid;
	int out_fd;
	int own_group;   /* killed as a process group on timeout */
};

/* 0, or an errno value from the spawn. */
static int spawn_plugin(const struct kube_exec_plugin *x, char **envp, int interactive,
			struct child *ch)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, dfl;
	char **argv;
	size_t n = 0, i;
	int fds[2], rc;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return errno;
	while (x->args && x->args[n])
		n++;
	argv = xcalloc(n + 2, sizeof(*argv));
	argv[0] = x->command;
	for (i = 0; i < n; i++)
		argv[i + 1] = x->args[i];
	posix_spawn_file_actions_init(&fa);
	if (!interactive)
		posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	posix_spawnattr_init(&attr);
	/* The plugin should not inherit our SIGPIPE disposition or mask. */
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	/* Its own process group so a timeout kills its children too; not when
	 * interactive, where it must stay in the terminal's foreground group. */
	ch->own_group = !interactive;
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
				 (interactive ? 0 : POSIX_SPAWN_SETPGROUP));
	rc = posix_spawnp(&ch->pid, x->command, &fa, &attr, argv, envp);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	free(argv);
	close(fds[1]);
	if (rc)
		close(fds[0]);
	else
		ch->out_fd = fds[0];
	return rc;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

enum run_end { RUN_EXITED, RUN_TIMEOUT, RUN_TOO_BIG, RUN_IO_ERROR, RUN_CANCELLED };

/* Reads stdout until EOF, the cap, or the deadline. */
static enum run_end read_output(int fd, long long deadline, struct buf *out)
{
	char chunk[16384];

	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		long long left = deadline - now_ms();
		ssize_t n;
		int r;

		if (left <= 0)
			return RUN_TIMEOUT;
		/* Ctrl-C or check's --timeout end a hung plugin too. */
		if (cancel_why())
			return RUN_CANCELLED;
		r = poll(&pfd, 1, left > 100 ? 100 : (int)left);
		if (r < 0 && errno != EINTR)
			return RUN_IO_ERROR;
		if (r <= 0)
			continue;
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return RUN_IO_ERROR;
		if (n == 0)
			return RUN_EXITED;
		if (buf_append(out, chunk, (size_t)n) < 0)
			return RUN_TOO_BIG;
	}
}

/* Waits for the child until the deadline; a child that closed stdout but
 * lingers is still bounded. */
static enum run_end wait_child(const struct child *ch, long long deadline, int *status)
{
	for (;;) {
		pid_t r = waitpid(ch->pid, status, WNOHANG);
		struct timespec pause = { 0, 10 * 1000 * 1000 };

		if (r == ch->pid)
			return RUN_EXITED;
		if (r < 0 && errno != EINTR)
			return RUN_IO_ERROR;
		if (now_ms() >= deadline)
			return RUN_TIMEOUT;
		if (cancel_why())
			return RUN_CANCELLED;
		nanosleep(&pause, NULL);
	}
}

static void kill_child(const struct child *ch)
{
	int status;

	kill(ch->own_group ? -ch->pid : ch->pid, SIGKILL);
	while (waitpid(ch->pid, &status, 0) < 0 && errno == EINTR)
		;
}

static int run_error(const struct kube_exec_plugin *x, enum run_end end, int status,
		     struct err *e)
{
	long ms = g_plugin_timeout_ms;

	if (end == RUN_TIMEOUT)
		return cred_error(e, "exec: executable %s did not finish within %ld%s",
				  x->command, ms % 1000 ? ms : ms / 1000, ms % 1000 ? "ms" : "s");
	if (end == RUN_TOO_BIG)
		return cred_error(e, "exec: executable %s wrote more than %zu bytes to stdout",
				  x->command, MAX_PLUGIN_OUTPUT);
	if (end == RUN_CANCELLED)
		return cred_error(e, "exec: executable %s did not finish: %s", x->command,
				  cancel_why());
	if (end == RUN_IO_ERROR)
		return cred_error(e, "exec: reading the output of %s: %s", x->command,
				  strerror(errno));
	/* Go's ExitCode() is -1 for a signal. */
	return cred_error(e, "exec: executable %s failed with exit code %d", x->command,
			  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* client-go's installHintVerboseHelp, on one line. */
static int not_found_error(const struct kube_exec_plugin *x, struct err *e)
{
	return cred_error(e, "exec: executable %s not found\n\nIt looks like you are trying "
			  "to use a client-go credential plugin that is not installed.\n\nTo "
			  "learn more about this feature, consult the documentation available "
			  "at:\n      https://kubernetes.io/docs/reference/access-authn-authz/"
			  "authentication/#client-go-credential-plugins%s%s", x->command,
			  x->install_hint ? "\n\n" : "", x->install_hint ? x->install_hint : "");
}

/* Runs the plugin; out holds its stdout on success. */
static int run_plugin(const struct kube_config *cfg, int interactive, struct buf *out,
		      struct err *e)
{
	const struct kube_exec_plugin *x = cfg->exec;
	/* client-go puts no limit on the plugin: a device-code or browser
	 * login takes as long as the person needs.  Interactive runs get none
	 * either (Ctrl-C and check's --timeout still end them, through
	 * cancel_why); a non-interactive one, with nobody to finish a
	 * login, is bounded so that a CI job cannot hang on it. */
	long long deadline = interactive ? LLONG_MAX / 2 : now_ms() + g_plugin_timeout_ms;
	char *info = exec_info(cfg, interactive);
	char **envp = build_env(x, info);
	struct child ch = { 0, -1, 0 };
	enum run_end end;
	int rc, status = 0;

	rc = spawn_plugin(x, envp, interactive, &ch);
	kc_strv_free(envp);
	free(info);
	if (rc == ENOENT || rc == EACCES || rc == ENOTDIR)
		return not_found_error(x, e);
	if (rc)
		return cred_error(e, "exec: %s", strerror(rc));
	log_at(4, "exec plugin %s started (pid %ld)", x->command, (long)ch.pid);
	end = read_output(ch.out_fd, deadline, out);
	close(ch.out_fd);
	if (end == RUN_EXITED)
		end = wait_child(&ch, deadline, &status);
	if (end != RUN_EXITED)
		kill_child(&ch);
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	return run_error(x, end, status, e);
}

/* ---- the ExecCredential ---- */

/* RFC 3339 as Go's time.RFC3339 parses it, to Unix seconds. */
static int parse_rfc3339(const char *s, long long *out)
{
	struct tm tm;
	int off_h = 0, off_m = 0, n = 0, sign = 0;
	const char *p;

	memset(&tm, 0, sizeof(tm));
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
		   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) != 6 || n != 19)
		return -1;
	p = s + n;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	if (*p == 'Z' || *p == 'z')
		p++;
	else if ((*p == '+' || *p == '-') &&
		 sscanf(p + 1, "%2d:%2d%n", &off_h, &off_m, &n) == 2 && n == 5)
		sign = *p == '-' ? -1 : 1, p += 6;
	else
		return -1;
	if (*p || tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	*out = (long long)timegm(&tm) - sign * (off_h * 3600LL + off_m * 60LL);
	return 0;
}

static int get_string(const cJSON *obj, const char *key, const char **out, struct err *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	*out = NULL;
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v))
		return cred_error(e, "decoding stdout: json: cannot unmarshal %s into Go "
				  "struct field of type string", cJSON_IsObject(v) ? "object" :
				  cJSON_IsArray(v) ? "array" : "number");
	*out = *v->valuestring ? v->valuestring : NULL;
	return 0;
}

/* apiVersion and kind, as the universal decoder checks them. */
static int check_type(const cJSON *root, const char *want, struct err *e)
{
	const char *kind, *version;

	if (get_string(root, "kind", &kind, e) || get_string(root, "apiVersion", &version, e))
		return -1;
	if (!kind)
		return cred_error(e, "decoding stdout: Object 'Kind' is missing");
	if (!version)
		return cred_error(e, "decoding stdout: Object 'apiVersion' is missing");
	if (strcmp(version, want))
		return cred_error(e, "exec plugin is configured to use API version %s, "
				  "plugin returned version %s", want, version);
	if (strcmp(kind, "ExecCredential"))
		return cred_error(e, "decoding stdout: no kind \"%s\" is registered for "
				  "version \"%s\"", kind, version);
	return 0;
}

static int read_status(const cJSON *status, struct credential *c, struct err *e)
{
	const char *token, *cert, *key, *exp;

	if (get_string(status, "token", &token, e) ||
	    get_string(status, "clientCertificateData", &cert, e) ||
	    get_string(status, "clientKeyData", &key, e) ||
	    get_string(status, "expirationTimestamp", &exp, e))
		return -1;
	if (!token && !cert && !key)
		return cred_error(e, "exec plugin didn't return a token or cert/key pair");
	if (!cert != !key)
		return cred_error(e, "exec plugin returned only certificate or key, not both");
	if (exp && parse_rfc3339(exp, &c->expiry) < 0)
		return cred_error(e, "decoding stdout: parsing time \"%s\" as "
				  "\"2006-01-02T15:04:05Z07:00\": cannot parse", exp);
	c->token = xstrdup(token);
	c->cert = xstrdup(cert);
	c->key = xstrdup(key);
	return 0;
}

static int parse_credential(const char *want, const struct buf *out, struct credential *c,
			    struct err *e)
{
	cJSON *root = cJSON_ParseWithLength(buf_str(out), out->len);
	const cJSON *status;
	int rc;

	memset(c, 0, sizeof(*c));
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return cred_error(e, "decoding stdout: couldn't get version/kind; json parse "
				  "error: the plugin did not print a JSON object");
	}
	rc = check_type(root, want, e);
	status = cJSON_GetObjectItemCaseSensitive(root, "status");
	if (!rc && (!status || cJSON_IsNull(status)))
		rc = cred_error(e, "exec plugin didn't return a status field");
	else if (!rc && !cJSON_IsObject(status))
		rc = cred_error(e, "decoding stdout: json: cannot unmarshal non-object into "
				"Go struct field ExecCredential.status");
	else if (!rc)
		rc = read_status(status, c, e);
	cJSON_Delete(root);
	return rc;
}

/* ---- public ---- */

/* For tests and fuzzing: an ExecCredential document (the plugin's stdout)
 * of apiVersion want, parsed and thrown away. */
int auth_parse_credential(const char *want, const char *json, size_t len, struct err *e)
{
	struct buf out = BUF_INIT(len + 1);
	struct credential c;
	int rc;

	buf_append(&out, json, len);
	rc = parse_credential(want, &out, &c, e);
	if (rc == 0)
		credential_release(&c);
	buf_release(&out);
	return rc;
}

static int valid_api_version(const char *v)
{
	return v && (!strcmp(v, EXEC_GROUP "/v1") || !strcmp(v, EXEC_GROUP "/v1beta1"));
}

static int decide_interactive(const struct kube_exec_plugin *x, int *interactive,
			      struct err *e)
{
	const char *mode = x->interactive_mode ? x->interactive_mode : "IfAvailable";
	int tty = isatty(STDIN_FILENO);

	*interactive = 0;
	if (!strcmp(mode, "Never"))
		return 0;
	if (!strcmp(mode, "Always") && !tty)
		return cred_error(e, "exec plugin cannot support interactive mode: standard "
				  "input is not a terminal");
	*interactive = tty;
	return 0;
}

static void replace_secret(char **dst, size_t *dst_len, char **src)
{
	if (*dst)
		kc_free_secret(*dst, dst_len ? *dst_len : strlen(*dst));
	*dst = *src;
	if (dst_len)
		*dst_len = *src ? strlen(*src) : 0;
	*src = NULL;
}

static void apply_credential(struct kube_config *cfg, struct credential *c)
{
	if (c->token)
		replace_secret(&cfg->token, NULL, &c->token);
	if (c->cert) {
		replace_secret(&cfg->client_cert_pem, &cfg->client_cert_pem_len, &c->cert);
		replace_secret(&cfg->client_key_pem, &cfg->client_key_pem_len, &c->key);
	}
	cfg->exec_expiry = c->expiry;
	cfg->creds_from_exec = 1;
}

static int exec_credentials(struct kube_config *cfg, struct err *e)
{
	struct buf out = BUF_INIT(MAX_PLUGIN_OUTPUT);
	struct credential c;
	int interactive, rc;

	if (!valid_api_version(cfg->exec->api_version))
		return err_set(e, ERR_AUTH, "exec plugin: invalid apiVersion \"%s\"",
			       cfg->exec->api_version ? cfg->exec->api_version : "");
	if (decide_interactive(cfg->exec, &interactive, e) < 0)
		return -1;
	rc = run_plugin(cfg, interactive, &out, e);
	if (!rc)
		rc = parse_credential(cfg->exec->api_version, &out, &c, e);
	if (out.data)
		kc_free_secret(out.data, out.len);
	if (rc)
		return -1;
	apply_credential(cfg, &c);
	credential_release(&c);
	log_at(4, "exec plugin %s returned credentials", cfg->exec->command);
	return 0;
}

/* client-go: period 1 min minus leeway 10 s (token_source.go). */
#define TOKEN_PERIOD_DEFAULT_MS 50000L
static long token_period_ms;

void auth_set_token_period_ms(long ms)
{
	token_period_ms = ms > 0 ? ms : 0;
}

static long token_period(void)
{
	const char *env = getenv(AUTH_TOKEN_PERIOD_ENV);
	char *end;
	long ms;

	if (token_period_ms > 0)
		return token_period_ms;
	if (env && *env) {
		ms = strtol(env, &end, 10);
		if (!*end && ms > 0)
			return ms;
	}
	return TOKEN_PERIOD_DEFAULT_MS;
}

int auth_token_stale(const struct kube_config *cfg)
{
	if (!cfg->token_file || cfg->token_from_flag || cfg->creds_from_exec)
		return 0;
	return now_ms() - cfg->token_read_ms >= token_period();
}

int auth_reread_token(struct kube_config *cfg, struct err *e)
{
	char *token, why[512];
	int changed;

	if (kc_read_trimmed(cfg->token_file, &token, why, sizeof(why)) < 0)
		return err_set(e, ERR_AUTH, "%s", why);
	cfg->token_read_ms = now_ms();
	changed = !cfg->token || strcmp(cfg->token, token);
	if (changed)
		replace_secret(&cfg->token, NULL, &token);
	else
		kc_free_secret(token, strlen(token));
	return changed;
}

int auth_prepare(struct kube_config *cfg, struct err *e)
{
	if (cfg->token_file)
		cfg->token_read_ms = now_ms();
	/* Credentials already set win over the plugin: a token (--token, the
	 * kubeconfig, its tokenFile), basic auth or a client certificate
	 * (client-go plugin/pkg/client/auth/exec/exec.go UpdateTransportConfig:
	 * HasTokenAuth || HasBasicAuth || HasCertAuth -> the plugin is not
	 * installed). */
	if (!cfg->exec || cfg->token_from_flag || cfg->token)
		return 0;
	if (cfg->username && *cfg->username)
		return 0;
	if (cfg->client_cert_pem && cfg->client_key_pem)
		return 0;
	return exec_credentials(cfg, e);
}

int auth_expired(const struct kube_config *cfg)
{
	/* exec.go credsExpired: a.now().After(a.exp), no skew; a credential
	 * without expirationTimestamp is kept until a 401. */
	return cfg->exec && cfg->creds_from_exec && cfg->exec_expiry > 0 &&
	       (long long)time(NULL) > cfg->exec_expiry;
}

/* After a 401: a token that has not changed would be refused again. */
static int reread_token_file(struct kube_config *cfg, struct err *e)
{
	int rc = auth_reread_token(cfg, e);

	if (rc == 0)
		return err_set(e, ERR_AUTH, "the token in %s has not changed",
			       cfg->token_file);
	return rc < 0 ? -1 : 0;
}

int auth_refresh(struct kube_config *cfg, struct err *e)
{
	if (cfg->token_from_flag)
		return err_set(e, ERR_AUTH, "the token given with --token was rejected");
	if (cfg->exec && cfg->creds_from_exec)
		return exec_credentials(cfg, e);
	if (cfg->token_file)
		return reread_token_file(cfg, e);
	return err_set(e, ERR_AUTH, "no credentials to refresh");
}
