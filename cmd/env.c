/* `env`: the transport variables of a recipe (file or directory tree),
 * per worker component, with what is missing or dangerous (issue 4). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/known.h"
#include "cmd.h"
#include "report/drift.h"
#include "recipe/recipe.h"
#include "report/report.h"
#include "util/safe.h"
#include "util/xalloc.h"

static const char *const help[] = {
	"Show the transport variables (UCX_, NIXL_, NCCL_, FI_, socket interfaces) that a",
	"Dynamo recipe sets for each worker, the ones it lacks for the fabric it requests,",
	"and the values that push KV transfer off RDMA/NVLink. No cluster is contacted.",
	"",
	"RECIPE_PATH is a YAML file or a directory searched for *.yaml/*.yml. Both",
	"DynamoGraphDeployment schemas (v1alpha1, v1beta1) are read and merged in the",
	"operator's order (graph < service < main container < shell exports in args).",
	"Values from valueFrom show where they come from; Secret data is never read.",
	"Missing variables are warnings (the image may set them); dangerous values fail.",
	"A directory with kustomizations is rendered as `kustomize build` would: each",
	"overlay is one FILE; what it names but cannot be applied is a warning.",
	"",
	"Exit status: 0 nothing to fix, 2 a dangerous value, 3 warnings only, 1 errors",
	"(a file that is not YAML is reported as error: FILE:LINE:COLUMN and the rest read).",
	"",
	"Examples:",
	"  # One recipe",
	"  kubectl dynamo-interconnect env recipes/qwen3-32b-fp8/vllm/disagg/deploy.yaml",
	"",
	"  # Every recipe of a tree, as JSON",
	"  kubectl dynamo-interconnect env recipes/ -o json",
	NULL,
};

static const char *known_file;   /* --known-issues */

static const struct opt env_opts[] = {
	{ "known-issues", 0, OPT_STRING, &known_file, "FILE", "Check a known-issues file as check would read it (a recipe has no pod to judge)", 0, 0 },
	OPT_TABLE_END
};

/* --known-issues: refused as check would refuse it, before any file of
 * the recipe is read; its rows judge pods, which a recipe has none of. */
static int known_ok(void)
{
	struct known_table t;

	if (!known_file)
		return 0;
	if (cmd_known_load(known_file, &t))
		return EXIT_ERROR;
	known_table_release(&t);
	return 0;
}

static int load_all(char **pos, int npos, struct recipe_set *s)
{
	int rc = 0;

	for (int i = 0; i < npos; i++) {
		struct err e;

		err_clear(&e);
		if (recipe_load_path(pos[i], s, &e) < 0) {
			cmd_fail(&e);
			rc = -1;
		}
	}
	return rc;
}

static int cmd_env(struct cmd_ctx *ctx, int argc, char **argv)
{
	char **pos = xcalloc((size_t)argc + 1, sizeof(char *));
	struct recipe_set s;
	struct recipe_verdict v;
	const char *fmt;
	int npos, rc, bad;

	known_file = NULL;
	rc = cmd_parse(ctx, &cmd_env_entry, argc, argv, pos, &npos);
	if (rc == 0 && npos == 0) {
		fprintf(stderr, "error: RECIPE_PATH is required\nSee '%s env -h' for help and examples\n",
			ctx->usage_name);
		rc = EXIT_ERROR;
	}
	if (rc == 0 && cmd_output_format(ctx, &cmd_env_entry, &fmt) < 0)
		rc = EXIT_ERROR;
	if (rc == 0)
		rc = known_ok();
	if (rc) {
		free(pos);
		return rc < 0 ? 0 : rc;
	}
	memset(&s, 0, sizeof s);
	bad = load_all(pos, npos, &s) < 0;
	recipe_judge(&s);
	for (size_t i = 0; i < s.nerrors; i++)
		fprintf(stderr, "error: %s\n", safe_show(s.errors[i]));
	recipe_verdict(&s, &v);
	if (!strcmp(fmt, "table")) {
		/* An error is exit 1 with no verdict, as check words it. */
		const struct recipe_print how = { ctx->g.no_headers, bad || s.nerrors, pos, npos };

		report_print_recipe(stdout, &s, &v, &how);
	} else if (report_print_recipe_doc(stdout, &s, &v, EXIT_ERROR, !strcmp(fmt, "yaml")) < 0)
		bad = 1;
	rc = bad || s.nerrors ? EXIT_ERROR : v.code;
	free(pos);
	recipe_set_release(&s);
	return cmd_flush_stdout() == 0 ? rc : EXIT_ERROR;
}

const struct cmd_entry cmd_env_entry = {
	.name = "env", .summary = "Show the transport variables of a recipe and what they risk",
	.help = help, .opts = env_opts, .outputs = "table,json,yaml", .file_args = 1, .run = cmd_env,
	.globals = cmd_globals_output,
};

/* ------------------------------------------------- check --recipe */

int cmd_env_drift_load(const char *recipe, struct recipe_set *s)
{
	struct err e;

	memset(s, 0, sizeof(*s));
	err_clear(&e);
	if (recipe_load_path(recipe, s, &e) < 0) {
		recipe_set_release(s);
		return cmd_fail(&e);
	}
	for (size_t i = 0; i < s->nerrors; i++)
		fprintf(stderr, "error: %s\n", safe_show(s->errors[i]));
	if (s->nerrors) {
		recipe_set_release(s);
		return EXIT_ERROR;
	}
	return 0;
}

int cmd_inputs_load(const char *known_path, struct known_table *k, const char *recipe,
		    struct recipe_set *r)
{
	memset(k, 0, sizeof(*k));
	if (known_path && cmd_known_load(known_path, k))
		return EXIT_ERROR;
	if (recipe && cmd_env_drift_load(recipe, r)) {
		known_table_release(k);
		return EXIT_ERROR;
	}
	return 0;
}

void cmd_inputs_release(struct known_table *k, struct recipe_set *r)
{
	known_table_release(k);
	if (r)
		recipe_set_release(r);
}
