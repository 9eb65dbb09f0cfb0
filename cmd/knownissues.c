/* `known-issues`: the rows of the known-issues table in force
 * (docs/known-issues.md), and the --known-issues FILE that check, node
 * and env share: the built-in rows with FILE's added or replaced by id. */
#include <stdio.h>
#include <string.h>

#include "check/known.h"
#include "cmd.h"
#include "report/known.h"
#include "util/err.h"

int cmd_known_load(const char *file, struct known_table *t)
{
	struct err e;

	memset(t, 0, sizeof(*t));
	known_table_copy_builtin(t);
	err_clear(&e);
	if (known_table_load(t, file, &e) == 0)
		return 0;
	known_table_release(t);
	return cmd_fail(&e);
}

static const char *const help[] = {
	"List the known-issues table: the combinations of component versions with a",
	"setting or topology that public reports show broken, which check and node judge",
	"every pod against (ucx-known-bad, nixl-known-bad, mooncake-known-bad). No",
	"cluster is contacted.",
	"",
	"-o yaml and -o json print the rows in the format --known-issues FILE reads, so",
	"the output is a valid file: copy a row, change it, pass it to check --known-issues.",
	"",
	"Examples:",
	"  # The built-in rows",
	"  kubectl dynamo-interconnect known-issues",
	"",
	"  # The rows check would use with a file of your own, as a file",
	"  kubectl dynamo-interconnect known-issues --known-issues my-rows.yaml -o yaml",
	NULL,
};

static const char *known_file;   /* --known-issues */

static const struct opt known_opts[] = {
	{ "known-issues", 0, OPT_STRING, &known_file, "FILE", "Add or override known-issues rows by id from this file (docs/known-issues.md)", 0, 0 },
	OPT_TABLE_END
};

static int cmd_known_issues(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct known_table t = { 0 };
	const char *format;
	int rc;

	known_file = NULL;
	rc = cmd_start(ctx, &cmd_known_issues_entry, argc, argv, &format);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (known_file && cmd_known_load(known_file, &t))
		return EXIT_ERROR;
	if (!known_file)
		known_table_copy_builtin(&t);
	if (!strcmp(format, "table"))
		report_print_known(stdout, &t, ctx->g.no_headers);
	else
		rc = known_table_write(stdout, &t, !strcmp(format, "yaml")) < 0;
	known_table_release(&t);
	return cmd_flush_stdout() == 0 && !rc ? 0 : EXIT_ERROR;
}

const struct cmd_entry cmd_known_issues_entry = {
	.name = "known-issues", .summary = "List the known-issues rows check judges pods against",
	.help = help, .opts = known_opts, .outputs = "table,json,yaml", .run = cmd_known_issues,
	.globals = cmd_globals_output, .file_args = 0,
};
