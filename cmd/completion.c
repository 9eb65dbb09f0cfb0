/* Shell completion: the kubectl_complete-dynamo_interconnect helper that
 * kubectl runs (kubectl conventions §2), `__complete` for the scripts, and
 * `completion bash|zsh|fish`, which prints those scripts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "complete/complete.h"
#include "kube/config/auth.h"
#include "kube/config/kubeconfig_model.h"
#include "util/buf.h"
#include "util/xalloc.h"

#define HELPER_NAME "kubectl_complete-dynamo_interconnect"
/* Completion runs while the user waits at the prompt. */
#define LOOKUP_TIMEOUT_MS 2000

/* completions/kubectl-dynamo_interconnect.{bash,zsh,fish}, embedded by the
 * Makefile (tests/tools/embed.sh); `make install` installs the same files. */
extern const char completion_bash[], completion_zsh[], completion_fish[];

static const char *const help[] = {
	"Print a shell completion script for kubectl-dynamo_interconnect run directly.",
	"",
	"Through kubectl, completion comes from the kubectl_complete-dynamo_interconnect",
	"helper installed beside the plugin: nothing to source.",
	"",
	"Examples:",
	"  # bash, this shell",
	"  source <(kubectl-dynamo_interconnect completion bash)",
	"",
	"  # zsh, every shell",
	"  kubectl-dynamo_interconnect completion zsh > \"${fpath[1]}/_kubectl-dynamo_interconnect\"",
	"",
	"  # fish",
	"  kubectl-dynamo_interconnect completion fish > ~/.config/fish/completions/kubectl-dynamo_interconnect.fish",
	NULL,
};

static const char *const shells[] = { "bash", "zsh", "fish", NULL };

int cmd_complete_requested(int argc, char **argv)
{
	const char *base;

	if (argc < 1)
		return 0;
	base = strrchr(argv[0], '/');
	base = base ? base + 1 : argv[0];
	if (!strcmp(base, HELPER_NAME))
		return 1;
	return argc > 1 && !strcmp(argv[1], "__complete");
}

/* The table for complete_plan(), read from the command entries: their
 * own flag tables and -o values are what the commands parse and accept. */
struct sub_globals {
	struct opt opts[CMD_MAX_GLOBALS];
	char ohelp[CMD_OUTPUT_HELP_MAX];
};

/* subs and each sub's global flags (g[i], as cmd_parse reads them). */
static struct complete_sub *make_subs(const struct cmd_entry *const *cmds, size_t n,
				      struct sub_globals *g)
{
	struct complete_sub *subs = xcalloc(n, sizeof(*subs));

	for (size_t i = 0; i < n; i++) {
		cmd_globals(cmds[i], g[i].opts, g[i].ohelp);
		subs[i].globals = g[i].opts;
		subs[i].name = cmds[i]->name;
		subs[i].summary = cmds[i]->summary;
		subs[i].opts = cmds[i]->opts;
		subs[i].outputs = cmds[i]->outputs;
		subs[i].args = cmds[i]->args;
		subs[i].file_args = cmds[i]->file_args;
	}
	return subs;
}

static const char *word_flag(int nwords, char **words, const char *name)
{
	const struct opt *o;

	for (o = cmd_global_opts; o->name; o++)
		if (!strcmp(o->name, name))
			return complete_flag_value(nwords, words, o);
	return NULL;
}

/* The connection flags typed so far, as the command would read them. */
static void typed_overrides(int nwords, char **words, struct kube_overrides *ov)
{
	const char *insecure = word_flag(nwords, words, "insecure-skip-tls-verify");

	memset(ov, 0, sizeof(*ov));
	ov->insecure_skip_tls_verify = insecure ? strcmp(insecure, "false") != 0 : -1;
	ov->kubeconfig = word_flag(nwords, words, "kubeconfig");
	ov->context = word_flag(nwords, words, "context");
	ov->cluster = word_flag(nwords, words, "cluster");
	ov->user = word_flag(nwords, words, "user");
	ov->namespace = word_flag(nwords, words, "namespace");
	ov->server = word_flag(nwords, words, "server");
	ov->token = word_flag(nwords, words, "token");
	ov->certificate_authority = word_flag(nwords, words, "certificate-authority");
	ov->client_certificate = word_flag(nwords, words, "client-certificate");
	ov->client_key = word_flag(nwords, words, "client-key");
	ov->tls_server_name = word_flag(nwords, words, "tls-server-name");
	ov->request_timeout_ms = LOOKUP_TIMEOUT_MS;
}

static int all_namespaces(int nwords, char **words)
{
	int i;

	for (i = 0; i < nwords - 1; i++)
		if (!strcmp(words[i], "-A") || !strcmp(words[i], "--all-namespaces") ||
		    !strcmp(words[i], "--all-namespaces=true"))
			return 1;
	return 0;
}

/* The pod list, or with pod the one pod (for its containers). */
static char *pods_path(const struct kube_config *cfg, int all_ns, const char *pod)
{
	char *ns, *name, *path;
	size_t len;

	if (all_ns && !pod)
		return xstrdup("/api/v1/pods");
	ns = http_escape(cfg->namespace);
	name = http_escape(pod ? pod : "");
	len = strlen(ns) + strlen(name) + 40;
	path = xcalloc(1, len);
	snprintf(path, len, "/api/v1/namespaces/%s/pods%s%s", ns, pod ? "/" : "", name);
	free(ns);
	free(name);
	return path;
}

/* The --pod typed so far (node, nixl): -c completes its containers. */
static const char *typed_pod(int nwords, char **words)
{
	static const struct opt pod = { "pod", 0, OPT_STRING, NULL, "POD", NULL, 0, 0 };
	const char *v = complete_flag_value(nwords, words, &pod);

	return v && *v ? v : NULL;
}

/* Namespaces or pods from the API server; silent on any failure. */
static void lookup_api(struct complete_result *res, int nwords, char **words)
{
	struct kube_overrides ov;
	struct kube_config cfg;
	struct http_client *c;
	struct http_response r;
	struct err e;
	char *path;

	typed_overrides(nwords, words, &ov);
	err_clear(&e);
	if (kubeconfig_load(&ov, &cfg, &e) < 0)
		return;
	if (auth_prepare(&cfg, &e) < 0) {
		kubeconfig_release(&cfg);
		return;
	}
	c = http_client_new(&cfg);
	if (res->lookup == LOOKUP_PODS)
		path = pods_path(&cfg, all_namespaces(nwords, words), NULL);
	else if (res->lookup == LOOKUP_CONTAINERS)
		path = pods_path(&cfg, all_namespaces(nwords, words), typed_pod(nwords, words));
	else
		path = xstrdup("/api/v1/namespaces");
	memset(&r, 0, sizeof(r));
	if (http_get(c, path, &r, &e) == 0 && r.status == 200) {
		if (res->lookup == LOOKUP_PODS)
			complete_add_pods_json(res, buf_str(&r.body));
		else if (res->lookup == LOOKUP_CONTAINERS)
			complete_add_containers_json(res, buf_str(&r.body));
		else
			complete_add_names_json(res, buf_str(&r.body));
	}
	http_response_release(&r);
	free(path);
	cmd_disconnect(&cfg, c);
}

static int seen(const struct complete_result *res, size_t upto, const char *name)
{
	size_t i;

	for (i = 0; i < upto; i++)
		if (!strcmp(res->items[i], name))
			return 1;
	return 0;
}

static void add_unique(struct complete_result *res, const char *name)
{
	size_t before = res->n;

	complete_add(res, name, NULL);
	if (res->n > before && seen(res, before, res->items[before])) {
		free(res->items[before]);
		res->n = before;
	}
}

/* Contexts, clusters or users: names across the kubeconfig files. */
static void lookup_kubeconfig(struct complete_result *res, int nwords, char **words)
{
	struct kube_overrides ov;
	struct kc_set set;
	struct err e;
	size_t i, j;

	typed_overrides(nwords, words, &ov);
	memset(&set, 0, sizeof(set));
	err_clear(&e);
	if (kc_set_load(&ov, &set, &e) < 0)
		return;
	for (i = 0; i < set.n; i++) {
		const struct kc_file *f = &set.files[i];
		if (res->lookup == LOOKUP_CONTEXTS)
			for (j = 0; j < f->n_contexts; j++)
				add_unique(res, f->contexts[j].name);
		else if (res->lookup == LOOKUP_CLUSTERS)
			for (j = 0; j < f->n_clusters; j++)
				add_unique(res, f->clusters[j].name);
		else
			for (j = 0; j < f->n_users; j++)
				add_unique(res, f->users[j].name);
	}
	kc_set_release(&set);
}

int cmd_complete(struct cmd_ctx *ctx, const struct cmd_entry *const *cmds, size_t n,
		 int argc, char **argv)
{
	struct complete_sub *subs;
	struct sub_globals *g;
	struct complete_result res;
	/* The helper gets the words after the program name; __complete after itself. */
	int skip = argc > 1 && !strcmp(argv[1], "__complete") ? 2 : 1;
	char *empty[1] = { "" };
	int nwords = argc - skip;
	char **words = nwords > 0 ? argv + skip : empty;
	size_t i;

	if (nwords < 1)
		nwords = 1;
	(void)ctx;
	g = xcalloc(n, sizeof(*g));
	subs = make_subs(cmds, n, g);
	complete_plan(nwords, words, subs, n, cmd_global_opts, &res);
	if (res.lookup == LOOKUP_NAMESPACES || res.lookup == LOOKUP_PODS ||
	    res.lookup == LOOKUP_CONTAINERS)
		lookup_api(&res, nwords, words);
	else if (res.lookup != LOOKUP_NONE)
		lookup_kubeconfig(&res, nwords, words);
	for (i = 0; i < res.n; i++)
		printf("%s\n", res.items[i]);
	printf(":%d\n", res.directive);
	complete_release(&res);
	free(subs);
	free(g);
	return 0;
}

static int cmd_completion(struct cmd_ctx *ctx, int argc, char **argv)
{
	char **pos = xcalloc((size_t)argc + 1, sizeof(char *));
	const char *script = NULL;
	int npos, rc;

	rc = cmd_parse(ctx, &cmd_completion_entry, argc, argv, pos, &npos);
	if (rc == 0 && npos == 1)
		script = !strcmp(pos[0], "bash") ? completion_bash : !strcmp(pos[0], "zsh") ?
			 completion_zsh : !strcmp(pos[0], "fish") ? completion_fish : NULL;
	if (rc == 0 && !script) {
		if (npos == 1)
			fprintf(stderr, "error: unsupported shell \"%s\": must be bash, zsh or fish\n", pos[0]);
		else
			fprintf(stderr, "error: exactly one argument is required: bash, zsh or fish\n");
		fprintf(stderr, "See '%s completion -h' for help and examples\n", ctx->usage_name);
		rc = EXIT_ERROR;
	}
	free(pos);
	if (rc)
		return rc < 0 ? 0 : rc;
	fputs(script, stdout);
	return 0;
}

const struct cmd_entry cmd_completion_entry = {
	.name = "completion", .summary = "Print a shell completion script (bash, zsh, fish)",
	.help = help, .args = shells, .run = cmd_completion, .globals = cmd_globals_local,
};
