/* What the subcommands share: the global flags, the exit codes, and the
 * path from flags to a connected client.  Only cmd/ prints and exits. */
#ifndef CMD_CMD_H
#define CMD_CMD_H

#include <stdio.h>

#include "kube/http/http.h"
#include "kube/config/kubeconfig.h"
#include "report/report.h"
#include "util/err.h"
#include "util/opts.h"

/* product.md "Exit codes". */
enum exit_code {
	EXIT_READY = 0,
	EXIT_ERROR = 1,
	EXIT_NOT_READY = 2,
	EXIT_UNVERIFIED = 3,
	EXIT_PUSH = 4,        /* check --pushgateway: the verdict was made, the push failed */
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

/* One subcommand, declared once (in the spirit of tmux's cmd_entry and
 * git's command table): main.c dispatches on it, cmd_parse parses and
 * prints -h from it, cmd_output_format checks -o against it, completion
 * reads its flags and -o values from it.  Each command file defines its
 * entry; its flag table is static, pointing into the command's own
 * (static) flag struct, which the command resets before parsing. */
struct cmd_entry {
	const char *name;
	const char *summary;
	const char *const *help;        /* -h text above "Options:" */
	const struct opt *opts;         /* its own flags; NULL: the globals alone */
	const char *outputs;            /* -o values, ","-joined; NULL: -o unused */
	const char *default_output;     /* -o when not given; NULL: "table" */
	/* The global flags it takes, by name (cmd_global_opts), NULL-ended;
	 * NULL: all of them.  -h lists, completion offers and the parser
	 * accepts only these (a local command takes no cluster flags). */
	const char *const *globals;
	const char *const *args;        /* positional values completion offers, or NULL */
	int file_args;                  /* its positional is a file or directory */
	int (*run)(struct cmd_ctx *ctx, int argc, char **argv);
	/* After parsing, before -o and the flags' ranges are checked: what
	 * the table cannot say (nixl: --pod is required).  0 to go on, else
	 * the exit code after reporting.  May be NULL. */
	int (*validate)(const struct cmd_ctx *ctx);
};

extern const struct cmd_entry cmd_check_entry, cmd_env_entry, cmd_completion_entry,
	cmd_nixl_entry, cmd_node_entry, cmd_pods_entry, cmd_probe_script_entry,
	cmd_rbac_entry, cmd_version_entry, cmd_known_issues_entry;

/* The kubectl flags a subcommand may accept (struct cmd_entry.globals). */
extern const struct opt cmd_global_opts[];

/* Sets of cmd_global_opts names for cmd_entry.globals. */
extern const char *const cmd_globals_local[];   /* help only */
extern const char *const cmd_globals_output[];  /* -o, --no-headers, --color, help */
extern const char *const cmd_globals_version[]; /* -o, help */
extern const char *const cmd_globals_one_pod[]; /* all but -l, -A, --chunk-size */

#define CMD_MAX_GLOBALS 40
#define CMD_OUTPUT_HELP_MAX 160

/* The global flags cmd takes, in cmd_global_opts order, into out (ended by
 * OPT_TABLE_END); -o's help names cmd's -o values, written into ohelp. */
void cmd_globals(const struct cmd_entry *cmd, struct opt out[CMD_MAX_GLOBALS],
		 char ohelp[CMD_OUTPUT_HELP_MAX]);

/* Parses argv (after the subcommand name) against the globals plus the
 * entry's own table.  Returns 0 to go on, -1 when help was printed
 * (exit 0), or EXIT_ERROR after reporting a bad flag. */
int cmd_parse(struct cmd_ctx *ctx, const struct cmd_entry *cmd, int argc, char **argv,
	      char **pos, int *npos);

/* cmd_parse for subcommands that take no positional argument: one is
 * reported as unexpected (EXIT_ERROR).  Same return values. */
int cmd_parse_flags(struct cmd_ctx *ctx, const struct cmd_entry *cmd, int argc, char **argv);

/* The start every flags-only command shares: cmd_parse_flags, the entry's
 * validate, -o against its outputs (*format; when it has outputs) and its
 * flags' ranges (opts_check).  0 to go on, -1 when help was printed
 * (exit 0), else the exit code after reporting. */
int cmd_start(struct cmd_ctx *ctx, const struct cmd_entry *cmd, int argc, char **argv,
	      const char **format);

/* The one pipeline the commands that reach a cluster share: connect,
 * list, run, judge, report.  A command declares what it needs; the stages
 * it does not need are skipped, and each stage's failure is reported and
 * mapped to an exit code here, once. */
enum cmd_need {
	CMD_NEED_LIST = 1,      /* the pod list (query: from the flags, or shape()) */
	CMD_NEED_CLAIMS = 2,    /* DRA claims resolved on a non-empty list */
	CMD_CANCEL_CONNECT = 4, /* Ctrl-C/SIGTERM/timeout_ms cancel from before connecting */
	CMD_CANCEL_RUN = 8,     /* ... from after connecting (nixl: its --transfer cleanup) */
};

/* What the stages hand the command's own part (run, judge, report). */
struct cmd_session {
	const struct cmd_pipeline *pipeline;   /* the one running */
	struct kube_config cfg;
	struct http_client *client;
	/* CMD_NEED_LIST or cmd_run_session: the query the list answered */
	struct pods_query *query;
	struct pod_list *pods;          /* ... and the list; else NULL */
};

struct cmd_pipeline {
	unsigned needs;                 /* enum cmd_need bits */
	long timeout_ms;                /* CMD_CANCEL_CONNECT: the run's deadline; 0: none */
	/* The list's (CMD_NEED_LIST, or the session's: cmd_run_session):
	 * adjusts the flags' query (node --pod); may be NULL. */
	void (*shape)(const struct cmd_ctx *ctx, struct pods_query *q, void *arg);
	/* ... the exit code for an empty list; NULL: body gets it (the
	 * session's: EXIT_ERROR). */
	int (*empty)(const struct cmd_ctx *ctx, const struct cmd_session *s, void *arg);
	/* Run, judge and report; returns the exit code. */
	int (*body)(struct cmd_ctx *ctx, struct cmd_session *s, void *arg);
	void *arg;
};

/* Runs p's stages in order; returns the exit code. */
int cmd_pipeline_run(struct cmd_ctx *ctx, const struct cmd_pipeline *p);
/* A body's run session (run/session.h) whose first stage lists the pods:
 * the flags' query into *q, shaped by the pipeline's shape, -c and (with
 * CMD_NEED_CLAIMS) the DRA claims on plan; cs->query and cs->pods point
 * at them.  0 with s finished for the body to print; else the exit code,
 * the error or the pipeline's empty() already said.  Either way
 * run_session_release(s) after. */
struct run_plan;
struct run_session;
int cmd_run_session(struct cmd_ctx *ctx, struct cmd_session *cs, struct pods_query *q,
		    struct run_plan *plan, struct run_session *s);
/* A cmd_pipeline's empty for the worker list: an error with what was
 * asked, and kubectl-like where such pods are (pipeline.c); EXIT_ERROR. */
int cmd_no_workers(const struct cmd_ctx *ctx, const struct cmd_session *s, void *arg);

/* Where a report comes from (report.h struct report_source), as cmd/
 * fills it: its buffers, and the source pointing in. */
struct cmd_source {
	char generated[32], sha[65], server[1024];
	struct report_source src;
};
void cmd_report_source(const struct cmd_session *s, struct cmd_source *cs);

struct pods_query;
struct pod_list;

/* kubeconfig -> credentials -> client.  On failure prints the error and
 * returns -1.  Release with cmd_disconnect(). */
int cmd_connect(struct cmd_ctx *ctx, struct kube_config *cfg,
		struct http_client **client);
void cmd_disconnect(struct kube_config *cfg, struct http_client *client);
/* The pod query the flags ask for (-n/-A, -l, -c, --chunk-size). */
void cmd_pods_query(const struct cmd_ctx *ctx, const struct kube_config *cfg,
		    struct pods_query *q);

/* From arm to disarm, Ctrl-C, SIGTERM and (timeout_ms > 0) a whole-run
 * deadline cancel every request in flight (cancel_run) instead of killing
 * the plugin: it reports what finished.  A second Ctrl-C kills at once. */
void cmd_cancel_arm(long timeout_ms);
void cmd_cancel_disarm(void);

/* The sha256 (64 hex digits) of what `probe-script` prints: the exact
 * stdin of every probe exec (version.c). */
void cmd_probe_sha256(char out[65]);

/* Prints "error: ..." (or kubectl's own prefix) to stderr; returns EXIT_ERROR. */
int cmd_fail(const struct err *e);
/* Flushes stdout; a failed write is reported once, as kubectl words it
 * ("error: write /dev/stdout: no space left on device"), EPIPE silently.
 * 0, or -1 when something never reached stdout. */
int cmd_flush_stdout(void);

/* -o: 0 and *format set when it is one of cmd->outputs, else prints
 * kubectl's error and returns -1.  Default: "table". */
int cmd_output_format(const struct cmd_ctx *ctx, const struct cmd_entry *cmd,
		      const char **format);
/* The documents a report can be printed as (json, yaml, junit, html): one
 * table from -o value to printer.  1 when format is one of them (printed,
 * *rc the printer's 0 or -1), 0 when it is a table format for the command
 * to draw itself. */
struct report;
int cmd_print_document(const char *format, const struct report *r, int *rc);
/* How `check` prints a finished session (pipeline.c): format, --by-node,
 * --suggest-env, --pushgateway (NULL: no push), --recipe (NULL: none). */
struct cmd_print {
	const struct report_format *format;
	int by_node, suggest_env;
	const char *pushgateway, *recipe_path;
};
/* The report in how->format, the push, then what the document has no
 * place for (the DGD part on stderr, the access note) and the drift
 * table; the exit code (EXIT_ERROR when stdout failed). */
struct run_session;
int cmd_print_session(const struct cmd_ctx *ctx, const struct cmd_print *how,
		      const struct run_session *s);
/* --color auto|always|never, NO_COLOR, and whether out is a terminal. */
int cmd_use_color(const struct cmd_ctx *ctx, FILE *out);
/* Columns of the terminal out is, for wrapping findings; 0 (no wrap) when
 * out is not a terminal. */
size_t cmd_term_width(FILE *out);

/* check --recipe (env.c).  Load: reads the recipe once into s (released
 * by the caller with recipe_set_release()); 0, or EXIT_ERROR after
 * reporting a file that cannot be read.  Judging is run_drift_judge()
 * (run/drift.h), printing report_print_drift() (report/drift.h). */
struct recipe_set;
int cmd_env_drift_load(const char *recipe, struct recipe_set *s);
struct known_table;
/* check's files, read before any request: --known-issues into k (zeroed
 * without one) and --recipe into r (untouched without one).  0, or
 * EXIT_ERROR with the error printed and nothing left to release. */
int cmd_inputs_load(const char *known_path, struct known_table *k, const char *recipe,
		    struct recipe_set *r);
/* Gives back what cmd_inputs_load read; r NULL: no recipe was read. */
void cmd_inputs_release(struct known_table *k, struct recipe_set *r);
/* --known-issues FILE (knownissues.c): the built-in rows with FILE's
 * merged by id into t (released by the caller with known_table_release);
 * 0, or EXIT_ERROR after reporting a file that cannot be read or is not
 * the format, in one line naming file, line and field. */
struct known_table;
int cmd_known_load(const char *file, struct known_table *t);
/* Run as kubectl_complete-dynamo_interconnect, or `__complete ...` (the
 * scripts `completion` prints): print candidates for the words typed. */
int cmd_complete_requested(int argc, char **argv);
int cmd_complete(struct cmd_ctx *ctx, const struct cmd_entry *const *cmds, size_t n,
		 int argc, char **argv);

#endif
