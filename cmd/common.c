#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "cmd.h"
#include "kube/config/auth.h"
#include "kube/http/http.h"
#include "kube/api/pods.h"
#include "report/report.h"
#include "util/log.h"
#include "util/safe.h"
#include "util/xalloc.h"

static struct globals G;  /* the tables below point into it; see cmd_parse */

const struct opt cmd_global_opts[] = {
	{ "namespace", 'n', OPT_STRING, &G.ov.namespace, "NS", "If present, the namespace scope for this CLI request", 0, 0 },
	{ "all-namespaces", 'A', OPT_BOOL, &G.all_namespaces, NULL, "If present, list across all namespaces", 0, 0 },
	{ "selector", 'l', OPT_STRING, &G.selector, "SELECTOR", "Label selector; replaces the default Dynamo worker selector", 0, 0 },
	{ "container", 'c', OPT_STRING, &G.container, "NAME", "Container to probe (default: main, else the default-container annotation, else the first)", 0, 0 },
	{ "output", 'o', OPT_STRING, &G.output, "FORMAT", "Output format", 0, 0 },
	{ "no-headers", 0, OPT_BOOL, &G.no_headers, NULL, "Don't print headers", 0, 0 },
	{ "chunk-size", 0, OPT_INT, &G.chunk_size, "N", "Return large lists in chunks of N pods (default 500)", 0, 0 },
	{ "color", 0, OPT_STRING, &G.color, "WHEN", "Colour status words: auto, always, never", 0, 0 },
	{ "kubeconfig", 0, OPT_STRING, &G.ov.kubeconfig, "FILE", "Path to the kubeconfig file to use", 0, 0 },
	{ "context", 0, OPT_STRING, &G.ov.context, "NAME", "The name of the kubeconfig context to use", 0, 0 },
	{ "cluster", 0, OPT_STRING, &G.ov.cluster, "NAME", "The name of the kubeconfig cluster to use", 0, 0 },
	{ "user", 0, OPT_STRING, &G.ov.user, "NAME", "The name of the kubeconfig user to use", 0, 0 },
	{ "server", 's', OPT_STRING, &G.ov.server, "URL", "The address and port of the Kubernetes API server", 0, 0 },
	{ "token", 0, OPT_STRING, &G.ov.token, "TOKEN", "Bearer token for authentication to the API server", 0, 0 },
	{ "username", 0, OPT_STRING, &G.ov.username, "NAME", "Username for basic authentication", 0, 0 },
	{ "password", 0, OPT_STRING, &G.ov.password, "PASS", "Password for basic authentication", 0, 0 },
	{ "certificate-authority", 0, OPT_STRING, &G.ov.certificate_authority, "FILE", "Path to a cert file for the certificate authority", 0, 0 },
	{ "client-certificate", 0, OPT_STRING, &G.ov.client_certificate, "FILE", "Path to a client certificate file for TLS", 0, 0 },
	{ "client-key", 0, OPT_STRING, &G.ov.client_key, "FILE", "Path to a client key file for TLS", 0, 0 },
	{ "tls-server-name", 0, OPT_STRING, &G.ov.tls_server_name, "NAME", "Server name to use for certificate validation", 0, 0 },
	{ "insecure-skip-tls-verify", 0, OPT_BOOL, &G.insecure, NULL, "Don't check the server's certificate (insecure)", 0, 0 },
	{ "as", 0, OPT_STRING, &G.ov.as, "USER", "Username to impersonate for the operation", 0, 0 },
	{ "as-group", 0, OPT_STRV, G.as_groups, "GROUP", "Group to impersonate for the operation, repeatable", 0, 0 },
	{ "as-uid", 0, OPT_STRING, &G.ov.as_uid, "UID", "UID to impersonate for the operation", 0, 0 },
	{ "request-timeout", 0, OPT_STRING, &G.request_timeout, "DURATION", "Time to wait per request, e.g. 5s, 1m (0: no limit)", 0, 0 },
	{ "v", 'v', OPT_INT, &G.verbosity, "N", "Log level: 6 URLs, 7 headers, 8 bodies (stderr)", 0, 0 },
	{ "help", 'h', OPT_BOOL, &G.help, NULL, "Help for this command", 0, 0 },
	OPT_TABLE_END
};

const char *const cmd_globals_local[] = { "help", NULL };
const char *const cmd_globals_output[] = { "output", "no-headers", "color", "help", NULL };

const char *const cmd_globals_version[] = { "output", "help", NULL };
/* node: the cluster flags for --pod, but it lists no set of pods. */
const char *const cmd_globals_one_pod[] = { "!", "selector", "all-namespaces", "chunk-size", NULL };

/* Whether cmd takes the global flag name: all when globals is NULL; a set
 * starting with "!" names the ones it does not take. */
static int takes(const char *const *globals, const char *name)
{
	int except = globals && globals[0] && !strcmp(globals[0], "!");

	if (!globals)
		return 1;
	for (globals += except; *globals; globals++)
		if (!strcmp(*globals, name))
			return !except;
	return except;
}

/* kubectl's words for -o: "Output format. One of: (json, yaml)." */
static void output_help(const char *v, char buf[CMD_OUTPUT_HELP_MAX])
{
	size_t k = (size_t)snprintf(buf, CMD_OUTPUT_HELP_MAX, "Output format. One of: (");

	for (; *v && k + 5 < CMD_OUTPUT_HELP_MAX; v++) {
		if (*v == ',')
			buf[k++] = ',', buf[k++] = ' ';
		else
			buf[k++] = *v;
	}
	snprintf(buf + k, CMD_OUTPUT_HELP_MAX - k, ").");
}

void cmd_globals(const struct cmd_entry *cmd, struct opt out[CMD_MAX_GLOBALS],
		 char ohelp[CMD_OUTPUT_HELP_MAX])
{
	const struct opt end = OPT_TABLE_END;
	size_t n = 0;

	for (const struct opt *o = cmd_global_opts; o->name && n + 1 < CMD_MAX_GLOBALS; o++) {
		if (!takes(cmd->globals, o->name))
			continue;
		out[n] = *o;
		if (!strcmp(o->name, "output")) {
			output_help(cmd->outputs ? cmd->outputs : "table", ohelp);
			out[n].help = ohelp;
		}
		n++;
	}
	out[n] = end;
}

int cmd_flush_stdout(void)
{
	/* Said once (main() flushes again after the command); only the
	 * main thread writes stdout, so per thread is per process. */
	static _Thread_local int reported;
	char why[128];
	int err;

	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	err = errno ? errno : EIO;
	if (reported++ || err == EPIPE)
		return -1;
	snprintf(why, sizeof(why), "%s", strerror(err));
	why[0] = (char)tolower((unsigned char)why[0]);   /* Go's errno text */
	fprintf(stderr, "error: write /dev/stdout: %s\n", why);
	return -1;
}

int cmd_fail(const struct err *e)
{
	/* Messages quote the server, a pod or a kubeconfig: the terminal rule. */
	char *msg = safe_term(e->msg);

	fprintf(stderr, "%s%s\n", err_prefix(e), msg);
	free(msg);
	/* A 403 is almost always missing RBAC: say what to grant. */
	if (e->http_status == 403) {
		char grant[512];
		char *shown;

		report_rbac_command(grant, sizeof(grant), e->denied.user, e->denied.ns);
		shown = safe_term(grant);
		fprintf(stderr, "hint: the plugin needs get/list on pods, get on pods/log and "
			"get/create on pods/exec; grant them with: %s (the roles of deploy/rbac.yaml)\n", shown);
		free(shown);
	}
	return EXIT_ERROR;
}

static void print_help(const struct cmd_ctx *ctx, const struct cmd_entry *cmd)
{
	struct opt globals[CMD_MAX_GLOBALS];
	char ohelp[CMD_OUTPUT_HELP_MAX];
	const struct opt *tables[3] = { cmd->opts ? cmd->opts : globals,
					cmd->opts ? globals : NULL, NULL };
	const char *const *line;

	cmd_globals(cmd, globals, ohelp);

	for (line = cmd->help; line && *line; line++)
		printf("%s\n", *line);
	printf("\nOptions:\n");
	opts_print_help(tables, stdout);
	printf("\nUsage:\n  %s %s [options]\n", ctx->usage_name, cmd->name);
}

int cmd_parse(struct cmd_ctx *ctx, const struct cmd_entry *cmd, int argc, char **argv,
	      char **pos, int *npos)
{
	struct opt globals[CMD_MAX_GLOBALS];
	char ohelp[CMD_OUTPUT_HELP_MAX];
	const struct opt *tables[3] = { globals, cmd->opts, NULL };
	const char *sub = cmd->name;
	struct err e;
	long ms = 0;

	cmd_globals(cmd, globals, ohelp);
	memset(&G, 0, sizeof(G));
	G.insecure = -1;
	G.ov.insecure_skip_tls_verify = -1;
	err_clear(&e);
	if (opts_parse(argc, argv, tables, pos, npos, &e) < 0) {
		fprintf(stderr, "error: %s\nSee '%s %s -h' for help and examples\n",
			e.msg, ctx->usage_name, sub);
		return EXIT_ERROR;
	}
	if (G.help) {
		print_help(ctx, cmd);
		return -1;
	}
	if (G.request_timeout &&
	    kubeconfig_parse_timeout(G.request_timeout, &ms, &e) < 0)
		return cmd_fail(&e);
	G.ov.request_timeout_ms = ms;
	if (G.color && strcmp(G.color, "auto") && strcmp(G.color, "always") &&
	    strcmp(G.color, "never")) {
		fprintf(stderr, "error: invalid argument \"%s\" for \"--color\" flag: must be "
			"auto, always or never\nSee '%s %s -h' for help and examples\n",
			G.color, ctx->usage_name, sub);
		return EXIT_ERROR;
	}
	if (G.chunk_size < 0) {
		fprintf(stderr, "error: --chunk-size must be 0 or more\n");
		return EXIT_ERROR;
	}
	G.ov.insecure_skip_tls_verify = G.insecure;
	if (G.as_groups[0])
		G.ov.as_groups = G.as_groups;
	log_set_level(G.verbosity);
	ctx->g = G;
	return 0;
}

int cmd_connect(struct cmd_ctx *ctx, struct kube_config *cfg,
		struct http_client **client)
{
	struct err e;

	err_clear(&e);
	*client = NULL;
	if (kubeconfig_load(&ctx->g.ov, cfg, &e) < 0)
		return cmd_fail(&e), -1;
	if (auth_prepare(cfg, &e) < 0) {
		kubeconfig_release(cfg);
		return cmd_fail(&e), -1;
	}
	*client = http_client_new(cfg);
	return 0;
}

void cmd_pods_query(const struct cmd_ctx *ctx, const struct kube_config *cfg,
		    struct pods_query *q)
{
	memset(q, 0, sizeof(*q));
	q->namespace = cfg->namespace;
	q->all_namespaces = ctx->g.all_namespaces;
	q->selector = ctx->g.selector;
	q->container = ctx->g.container;
	q->page_size = ctx->g.chunk_size;
}

void cmd_disconnect(struct kube_config *cfg, struct http_client *client)
{
	http_client_free(client);
	kubeconfig_release(cfg);
}

int cmd_parse_flags(struct cmd_ctx *ctx, const struct cmd_entry *cmd, int argc, char **argv)
{
	char **pos = xcalloc((size_t)argc + 1, sizeof(char *));
	int npos, rc;

	rc = cmd_parse(ctx, cmd, argc, argv, pos, &npos);
	if (rc == 0 && npos > 0) {
		fprintf(stderr, "error: unexpected argument \"%s\"\nSee '%s %s -h' for help and examples\n",
			pos[0], ctx->usage_name, cmd->name);
		rc = EXIT_ERROR;
	}
	free(pos);
	return rc;
}

int cmd_start(struct cmd_ctx *ctx, const struct cmd_entry *cmd, int argc, char **argv,
	      const char **format)
{
	struct err e;
	int rc = cmd_parse_flags(ctx, cmd, argc, argv);

	if (rc == 0 && cmd->validate)
		rc = cmd->validate(ctx);
	if (rc)
		return rc;
	if (cmd->outputs && cmd_output_format(ctx, cmd, format) < 0)
		return EXIT_ERROR;
	err_clear(&e);
	if (cmd->opts && opts_check(cmd->opts, &e) < 0) {
		fprintf(stderr, "error: %s\n", e.msg);
		return EXIT_ERROR;
	}
	return 0;
}

/* Ctrl-C, SIGTERM and the run's --timeout (SIGALRM) all cancel the same
 * way: cancel_run() only stores a pointer (async-signal-safe) and every
 * transfer in flight notices within a poll slice, so the command still
 * prints what finished (and check --transfer still cleans up).
 * SA_RESETHAND: a second Ctrl-C kills at once. */
static void on_cancel_signal(int sig)
{
	cancel_run(sig == SIGALRM ? "the run's --timeout passed" :
		    sig == SIGTERM ? "terminated (SIGTERM)" : "interrupted");
}

void cmd_cancel_arm(long timeout_ms)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_cancel_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (timeout_ms > 0) {
		struct itimerval it;

		memset(&it, 0, sizeof(it));
		it.it_value.tv_sec = timeout_ms / 1000;
		it.it_value.tv_usec = (timeout_ms % 1000) * 1000;
		sa.sa_flags = 0;
		sigaction(SIGALRM, &sa, NULL);
		setitimer(ITIMER_REAL, &it, NULL);
	}
}

void cmd_cancel_disarm(void)
{
	struct itimerval off;

	memset(&off, 0, sizeof(off));
	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
}
