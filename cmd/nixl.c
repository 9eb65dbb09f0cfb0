/* `nixl --pod P`: the NIXL install of one worker and the exact next step,
 * a pairwise transfer test with a peer of the other role. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "report/install.h"
#include "report/report.h"
#include "run/nixl.h"
#include "run/transfer.h"
#include "verdict/verdict.h"

static const char *const help[] = {
	"Show a worker's NIXL install (package, plugins, tools, UCX) and the exact",
	"commands for a pairwise prefill-decode transfer test that fits what is",
	"installed. The commands are printed, not run: this tool stays read-only,",
	"unless --transfer (opt-in, NOT read-only) asks it to run that ucx_perftest",
	"now between --pod and its peer (--peer, or one found) and judge it.",
	"",
	"Examples:",
	"  kubectl dynamo-interconnect nixl --pod qwen-decode-0 -n dynamo",
	"  kubectl dynamo-interconnect nixl --pod qwen-prefill-0 --peer qwen-decode-0 --transfer",
	NULL,
};

/* The flags of one `nixl` run. */
struct nixl_flags {
	const char *pod_name;
	const char *peer;                     /* --peer */
	int transfer;                         /* --transfer */
	struct opt_duration transfer_timeout;
};

/* Prints what run/nixl.c found (report/install.h); returns the pod's
 * verdict's exit code. */
static int print(struct http_client *c, const struct nixl_flags *f, struct run_nixl *n)
{
	const struct run_pod *peer = run_nixl_peer(n);
	struct run_sink sink;
	int ran;

	report_print_install(stdout, run_nixl_self(n));
	if (peer)
		report_print_peer(stdout, peer->pod);
	if (f->transfer) {
		report_sink(&sink, stderr, 0);
		ran = run_nixl_transfer(c, n, f->transfer_timeout.ms, &sink);
		report_print_transfer(stdout, run_nixl_self(n), ran);
	} else {
		report_print_plan(stdout, buf_str(&n->plan));
	}
	return verdict_exit_code(verdict_pod(run_nixl_self(n)));
}

/* This run's flags: nixl_opts points into it; cmd_nixl resets it. */
static struct nixl_flags F;

/* The pipeline's body: find the pod, its peer and the plan; print. */
static int inspect(struct cmd_ctx *ctx, struct cmd_session *s, void *arg)
{
	struct run_nixl_query q = { 0 };
	struct run_nixl n;
	struct err e;
	int rc = EXIT_ERROR;

	(void)arg;
	err_clear(&e);
	q.namespace = s->cfg.namespace;
	q.pod = F.pod_name;
	q.peer = F.peer;
	q.container = ctx->g.container;
	if (run_nixl(s->client, &q, &n, &e) == 0)
		rc = print(s->client, &F, &n);
	if (rc == EXIT_ERROR && e.msg[0])
		cmd_fail(&e);
	run_nixl_release(&n);
	return rc;
}

static const struct opt nixl_opts[] = {
	{ "pod", 0, OPT_STRING, &F.pod_name, "POD", "The worker pod to inspect (required)", 0, 0 },
	{ "peer", 0, OPT_STRING, &F.peer, "POD", "The peer for the pairwise test (default: one of the other role)", 0, 0 },
	{ "transfer", 0, OPT_BOOL, &F.transfer, NULL, "Run the ucx_perftest with the peer now (not read-only)", 0, 0 },
	{ "transfer-timeout", 0, OPT_DURATION, &F.transfer_timeout, "DURATION", "Time limit of the transfer test (default 60s)", TRANSFER_MIN_LIMIT_MS, TRANSFER_MAX_LIMIT_MS },
	OPT_TABLE_END
};

static int cmd_nixl(struct cmd_ctx *ctx, int argc, char **argv)
{
	const struct nixl_flags defaults = { .transfer_timeout = { NULL, TRANSFER_DEFAULT_LIMIT_MS } };
	const struct cmd_pipeline p = { .needs = CMD_CANCEL_RUN, .body = inspect };
	int rc;

	F = defaults;
	rc = cmd_start(ctx, &cmd_nixl_entry, argc, argv, NULL);
	if (rc)
		return rc < 0 ? 0 : rc;
	return cmd_pipeline_run(ctx, &p);
}

static int pod_given(const struct cmd_ctx *ctx)
{
	if (F.pod_name)
		return 0;
	fprintf(stderr, "error: --pod is required\nSee '%s nixl -h' for help and examples\n",
		ctx->usage_name);
	return EXIT_ERROR;
}

const struct cmd_entry cmd_nixl_entry = {
	.name = "nixl", .summary = "Show a worker's NIXL install and the next pairwise transfer test",
	.help = help, .opts = nixl_opts, .run = cmd_nixl, .validate = pod_given,
};
