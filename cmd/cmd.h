/* What the subcommands share: the global flags, the exit codes, and the
 * path from flags to a connected client.  Only cmd/ prints and exits. */
#ifndef CMD_CMD_H
#define CMD_CMD_H

#include <stdio.h>

#include "kube/http.h"
#include "kube/kubeconfig.h"
#include "util/err.h"
#include "util/opts.h"

/* product.md "Exit codes". */
enum exit_code {
	EXIT_READY = 0,
	EXIT_ERROR = 1,
	EXIT_NOT_READY = 2,
	EXIT_UNVERIFIED = 3,
};

struct globals {
	struct kube_overrides ov;
	const char *request_timeout;
	const char *selector;
	const char *container;
	const char *output;
	const char *color;
	int all_namespaces;
	int no_headers;
	int verbosity;
	int chunk_size;         /* --chunk-size: pods per list page */
	int help;
	int insecure;           /* --insecure-skip-tls-verify, -1 unset */
	const char *as_groups[OPT_STRV_MAX + 1];  /* --as-group, repeatable */
};

struct cmd_ctx {
	const char *usage_name; /* "kubectl dynamo-interconnect" or argv[0] */
	struct globals g;
};

struct subcommand {
	const char *name;
	const char *summary;
	int (*run)(struct cmd_ctx *ctx, int argc, char **argv);
};

/* The kubectl flags every subcommand accepts. */
extern const struct opt cmd_global_opts[];

/* Parses argv (after the subcommand name) against the globals plus the
 * subcommand's own table (may be NULL).  Returns 0 to go on, -1 when help
 * was printed (exit 0), or EXIT_ERROR after reporting a bad flag. */
int cmd_parse(struct cmd_ctx *ctx, const char *sub, const struct opt *own,
	      const char *const *help_text, int argc, char **argv,
	      char **pos, int *npos);

/* cmd_parse for subcommands that take no positional argument: one is
 * reported as unexpected (EXIT_ERROR).  Same return values. */
int cmd_parse_flags(struct cmd_ctx *ctx, const char *sub, const struct opt *own,
		    const char *const *help_text, int argc, char **argv);

/* kubeconfig -> credentials -> client.  On failure prints the error and
 * returns -1.  Release with cmd_disconnect(). */
int cmd_connect(struct cmd_ctx *ctx, struct kube_config *cfg,
		struct http_client **client);
void cmd_disconnect(struct kube_config *cfg, struct http_client *client);
/* The pod query the flags ask for (-n/-A, -l, -c, --chunk-size). */
struct pods_query;
void cmd_pods_query(const struct cmd_ctx *ctx, const struct kube_config *cfg,
		    struct pods_query *q);

/* From arm to disarm, Ctrl-C, SIGTERM and (timeout_ms > 0) a whole-run
 * deadline cancel every request in flight (cancel_run) instead of killing
 * the plugin: it reports what finished.  A second Ctrl-C kills at once. */
void cmd_cancel_arm(long timeout_ms);
void cmd_cancel_disarm(void);

/* Prints "error: ..." (or kubectl's own prefix) to stderr; returns EXIT_ERROR. */
int cmd_fail(const struct err *e);
/* Flushes stdout; a failed write is reported once, as kubectl words it
 * ("error: write /dev/stdout: no space left on device"), EPIPE silently.
 * 0, or -1 when something never reached stdout. */
int cmd_flush_stdout(void);

/* -o: 0 and *format set when it is one of allowed ("table,wide,json"),
 * else prints kubectl's error and returns -1.  Default: "table". */
int cmd_output_format(const struct cmd_ctx *ctx, const char *allowed,
		      const char **format);
/* Each command's -o values: the command checks -o against them and
 * completion offers exactly them. */
#define CHECK_OUTPUTS "table,wide,json,yaml,junit,html"
#define PODS_OUTPUTS "table,wide,json,yaml"
#define NODE_OUTPUTS "table,json,yaml"
#define ENV_OUTPUTS "table,json,yaml"
#define VERSION_OUTPUTS "table,json,yaml"
/* --color auto|always|never, NO_COLOR, and whether out is a terminal. */
int cmd_use_color(const struct cmd_ctx *ctx, FILE *out);
/* Columns of the terminal out is, for wrapping findings; 0 (no wrap) when
 * out is not a terminal. */
size_t cmd_term_width(FILE *out);

int cmd_check(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_env(struct cmd_ctx *ctx, int argc, char **argv);
/* check --recipe (env.c).  Load: reads the recipe once into s (released
 * by the caller with recipe_set_release()); 0, or EXIT_ERROR after
 * reporting a file that cannot be read.  Judging is run_drift_judge()
 * (run/drift.h), printing report_print_drift() (report/drift.h). */
struct recipe_set;
int cmd_env_drift_load(const char *recipe, struct recipe_set *s);
int cmd_completion(struct cmd_ctx *ctx, int argc, char **argv);
/* Run as kubectl_complete-dynamo_interconnect, or `__complete ...` (the
 * scripts `completion` prints): print candidates for the words typed. */
int cmd_complete_requested(int argc, char **argv);
int cmd_complete(struct cmd_ctx *ctx, const struct subcommand *cmds, size_t n,
		 int argc, char **argv);
int cmd_nixl(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_node(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_pods(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_version(struct cmd_ctx *ctx, int argc, char **argv);

#endif
