/* `check`: probe every Dynamo worker pod, judge the fast path, one verdict. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "check/known.h"
#include "cmd.h"
#include "engine/engine.h"
#include "push/push.h"
#include "recipe/recipe.h"
#include "run/session.h"
#include "run/transfer.h"

static const char *const help[] = {
	"Check that the KV-transfer fast path of a Dynamo deployment can be trusted.",
	"",
	"Finds the Dynamo worker pods (prefill, decode, worker) by label, runs one fixed",
	"read-only probe in each through the API server's exec endpoint (in parallel),",
	"and judges RDMA, GPUDirect RDMA, GDRCopy, NVLink, UCX, NIXL, libfabric/EFA, the",
	"transport environment and the container limits. Prints one row per pod, the",
	"findings worst first, and one verdict:",
	"  READY        every worker has fast-path evidence and no check failed (exit 0)",
	"  NOT READY    a check failed; \"Fix first\" names the most fundamental one (exit 2)",
	"  UNVERIFIED   nothing failed, but the fast path could not be proven (exit 3)",
	"Errors (flags, kubeconfig, API server, no pods) exit 1. Skipped is never a pass.",
	"",
	"It also reads the tail of each probed worker's log (GET pods/log; --logs=false",
	"to skip) and quotes, masked, the line that shows which NIXL backend and UCX/NCCL",
	"transport were chosen or refused (LOGS column). An unreadable or silent log is a",
	"skip that does not lower the verdict.",
	"",
	"--timeout bounds the whole run; Ctrl-C (SIGINT) or SIGTERM stops it early. Either",
	"way no new probe starts, probes in flight end at once, and the report of what",
	"finished is printed: unfinished pods are error rows (\"not finished: interrupted\"),",
	"so the exit code is 2 or 3, never 0. A second Ctrl-C exits at once (no report).",
	"If the pod list itself did not finish, the run is an error (exit 1).",
	"",
	"--transfer (opt-in, NOT read-only) then runs a real ucx_perftest between one",
	"prefill and one decode pod per node pair, with the workers' UCX settings, and",
	"adds a TRANSFER result: fail on TCP or error, ok near the RDMA port rate. It",
	"says what it runs before running it and stops it in both pods afterwards.",
	"",
	"--suggest-env adds, after the table, each pod's suggested variables (e.g. the",
	"UCX_NET_DEVICES of the rails nearest its GPUs) as an env list for its worker",
	"container; in JSON they are each check's suggestedEnv.",
	"",
	"Examples:",
	"  # Check the workers in namespace dynamo",
	"  kubectl dynamo-interconnect check -n dynamo",
	"",
	"  # One graph, JSON for CI",
	"  kubectl dynamo-interconnect check -n dynamo -l nvidia.com/dynamo-graph-deployment-name=qwen -o json",
	NULL,
};

/* The flags of one `check` run (the table below points into it). */
struct check_flags {
	int parallel;
	struct opt_duration probe_timeout;
	struct opt_duration run_timeout;      /* ms 0: none */
	const char *recipe_dir;               /* --recipe */
	const char *known_file;               /* --known-issues */
	int read_logs;                        /* --logs */
	int log_tail;                         /* --log-tail */
	int transfer;                         /* --transfer */
	struct opt_duration transfer_timeout;
	int by_node;                          /* --by-node */
	int suggest_env;                      /* --suggest-env */
	const char *pushgateway;              /* --pushgateway URL */
	const char *dgd;                      /* --dgd NAME */
	struct opt_duration observe;          /* --observe: the counter window; ms 0: none */
};

#define MAX_LOG_TAIL 1000000

/* This run's flags: check_opts points into it; cmd_check resets it. */
static struct check_flags F;

/* What one run hands the pipeline's body. */
struct check_run {
	struct run_plan plan;
	struct cmd_print how;
	char selector[512];     /* --dgd: the query points here for the run */
};

/* --dgd NAME: the pods of that DGD, by the operator's label. */
static void dgd_shape(const struct cmd_ctx *ctx, struct pods_query *q, void *arg)
{
	struct check_run *cr = arg;

	(void)ctx;
	if (!F.dgd || q->selector)
		return;
	snprintf(cr->selector, sizeof(cr->selector),
		 "nvidia.com/dynamo-graph-deployment-name=%.200s,%s", F.dgd, PODS_DEFAULT_SELECTOR);
	q->selector = cr->selector;
}

/* The pipeline's body: the session (the pods listed first), the report. */
static int probe_and_report(struct cmd_ctx *ctx, struct cmd_session *cs, void *arg)
{
	struct check_run *cr = arg;
	struct pods_query q;
	struct run_sink sink;
	struct run_session s;
	struct cmd_source src;
	int rc;

	/* A progress line only on a terminal, and only when it has time to show. */
	report_sink(&sink, stderr, isatty(2));
	cr->plan.probe.sink = &sink, cr->plan.progress_min = 4;
	if (!(rc = cmd_run_session(ctx, cs, &q, &cr->plan, &s))) {
		if (s.interrupted)
			fprintf(stderr, "warning: %s: the report covers what finished\n", s.interrupted);
		cmd_report_source(cs, &src);
		s.report.source = &src.src;
		rc = cmd_print_session(ctx, &cr->how, &s);
	}
	run_session_release(&s);
	return rc;
}

static const struct opt check_opts[] = {
	{ "parallel", 0, OPT_INT, &F.parallel, "N", "Pods probed at once (default 32); with --observe, also metrics read at once", 1, ENGINE_MAX_PARALLEL },
	{ "probe-timeout", 0, OPT_DURATION, &F.probe_timeout, "DURATION", "Deadline of one pod's probe (default 60s)", 1, 0 },
	{ "timeout", 0, OPT_DURATION, &F.run_timeout, "DURATION", "Deadline of the whole run; report what finished (default: none)", 1, 0 },
	{ "recipe", 0, OPT_STRING, &F.recipe_dir, "PATH", "Compare each pod's transport env with this recipe (file or directory)", 0, 0 },
	{ "logs", 0, OPT_BOOL, &F.read_logs, NULL, "Read each worker's log for the transport it chose (LOGS column; default true)", 0, 0 },
	{ "log-tail", 0, OPT_INT, &F.log_tail, "N", "Lines of each worker's log to read (default 5000)", 1, MAX_LOG_TAIL },
	{ "transfer", 0, OPT_BOOL, &F.transfer, NULL, "Also run a real ucx_perftest prefill -> decode (not read-only)", 0, 0 },
	{ "suggest-env", 0, OPT_BOOL, &F.suggest_env, NULL, "Also print the env the findings suggest (UCX_NET_DEVICES, ...) as a container env list to paste; JSON has it as suggestedEnv", 0, 0 },
	{ "by-node", 0, OPT_BOOL, &F.by_node, NULL, "One row per node: each family's worst status among its pods", 0, 0 },
	{ "transfer-timeout", 0, OPT_DURATION, &F.transfer_timeout, "DURATION", "Time limit of one transfer test (default 60s)", TRANSFER_MIN_LIMIT_MS, TRANSFER_MAX_LIMIT_MS },
	{ "pushgateway", 0, OPT_STRING, &F.pushgateway, "URL", "Also push the -o prometheus metrics to this Pushgateway (job dynamo_interconnect); exit 4 when the push fails", 0, 0 },
	{ "known-issues", 0, OPT_STRING, &F.known_file, "FILE", "Add or override known-issues rows by id from this file (docs/known-issues.md)", 0, 0 },
	{ "dgd", 0, OPT_STRING, &F.dgd, "NAME", "Only the pods of this DynamoGraphDeployment, and compare them with it (generation, components, env)", 0, 0 },
	{ "observe", 0, OPT_DURATION, &F.observe, "DURATION", "Also sample every RDMA port's counters this far apart (1s to 10m; the probe's deadline grows by it) and judge what moved (OBSERVED)", OBSERVE_MIN_S * 1000, OBSERVE_MAX_S * 1000 },
	OPT_TABLE_END
};

static int cmd_check(struct cmd_ctx *ctx, int argc, char **argv)
{
	const struct check_flags defaults = {
		.probe_timeout = { NULL, RUN_PROBE_TIMEOUT_MS },
		.read_logs = 1,
		.transfer_timeout = { NULL, TRANSFER_DEFAULT_LIMIT_MS },
	};
	struct recipe_set recipe; struct known_table known;
	struct check_run cr = { 0 }; const char *format;
	struct cmd_pipeline p = {
		.needs = CMD_NEED_CLAIMS | CMD_CANCEL_CONNECT,
		.empty = cmd_no_workers, .shape = dgd_shape, .body = probe_and_report, .arg = &cr,
	};
	int rc;

	F = defaults;
	clock_gettime(CLOCK_MONOTONIC, &cr.plan.started);
	rc = cmd_start(ctx, &cmd_check_entry, argc, argv, &format);
	if (rc)
		return rc < 0 ? 0 : rc;
	cr.how = (struct cmd_print){ report_format(format), F.by_node, F.suggest_env, F.pushgateway,
				     F.recipe_dir };
	cr.plan.probe = (struct run_options){ .parallel = F.parallel, .timeout_ms = F.probe_timeout.ms,
					      .logs = F.read_logs, .log_tail = F.log_tail, .observe_s = F.observe.ms / 1000 };
	cr.plan.dgds = 1, cr.plan.dgd = F.dgd;
	cr.plan.transfer = F.transfer, cr.plan.transfer_timeout_ms = F.transfer_timeout.ms;
	p.timeout_ms = F.run_timeout.ms;
	/* Files are read before any cluster request: a bad one costs none. */
	if (cmd_inputs_load(F.known_file, &known, F.recipe_dir, &recipe))
		return EXIT_ERROR;
	cr.plan.known = F.known_file ? &known : NULL, cr.plan.recipe = F.recipe_dir ? &recipe : NULL;
	cr.plan.recipe_path = F.recipe_dir;
	rc = cmd_pipeline_run(ctx, &p);
	cmd_inputs_release(&known, F.recipe_dir ? &recipe : NULL);
	return rc;
}

/* Flags that would fail only after the whole run are refused before it. */
static int check_validate(const struct cmd_ctx *ctx)
{
	struct err e;

	(void)ctx;
	err_clear(&e);
	if (F.pushgateway && push_check_url(F.pushgateway, &e) < 0)
		return cmd_fail(&e);
	return 0;
}

const struct cmd_entry cmd_check_entry = {
	.name = "check", .summary = "Probe every Dynamo worker pod and judge the KV-transfer fast path",
	.help = help, .opts = check_opts, .outputs = "table,wide,json,yaml,junit,html,prometheus", .run = cmd_check,
	.validate = check_validate,
};
