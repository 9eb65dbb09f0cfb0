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

static int run(struct cmd_ctx *ctx, const struct nixl_flags *f)
{
	struct kube_config cfg;
	struct http_client *c;
	struct run_nixl_query q = { 0 };
	struct run_nixl n;
	struct err e;
	int rc = EXIT_ERROR;

	if (cmd_connect(ctx, &cfg, &c) < 0)
		return EXIT_ERROR;
	/* Ctrl-C must not kill us before --transfer's cleanup has run. */
	cmd_cancel_arm(0);
	err_clear(&e);
	q.namespace = cfg.namespace;
	q.pod = f->pod_name;
	q.peer = f->peer;
	q.container = ctx->g.container;
	if (run_nixl(c, &q, &n, &e) == 0)
		rc = print(c, f, &n);
	if (rc == EXIT_ERROR && e.msg[0])
		cmd_fail(&e);
	run_nixl_release(&n);
	cmd_disconnect(&cfg, c);
	cmd_cancel_disarm();
	return rc;
}

int cmd_nixl(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct nixl_flags f = { .transfer_timeout = { NULL, TRANSFER_DEFAULT_LIMIT_MS } };
	const struct opt nixl_opts[] = {
		{ "pod", 0, OPT_STRING, &f.pod_name, "POD", "The worker pod to inspect (required)", 0, 0 },
		{ "peer", 0, OPT_STRING, &f.peer, "POD", "The peer for the pairwise test (default: one of the other role)", 0, 0 },
		{ "transfer", 0, OPT_BOOL, &f.transfer, NULL, "Run the ucx_perftest with the peer now (not read-only)", 0, 0 },
		{ "transfer-timeout", 0, OPT_DURATION, &f.transfer_timeout, "DURATION", "Time limit of the transfer test (default 60s)", TRANSFER_MIN_LIMIT_MS, TRANSFER_MAX_LIMIT_MS },
		OPT_TABLE_END
	};
	struct err e;
	int rc;

	rc = cmd_parse_flags(ctx, "nixl", nixl_opts, help, argc, argv);
	if (rc == 0 && !f.pod_name) {
		fprintf(stderr, "error: --pod is required\nSee '%s nixl -h' for help and examples\n",
			ctx->usage_name);
		rc = EXIT_ERROR;
	}
	if (rc)
		return rc < 0 ? 0 : rc;
	err_clear(&e);
	if (opts_check(nixl_opts, &e) < 0) {
		fprintf(stderr, "error: %s\n", e.msg);
		return EXIT_ERROR;
	}
	return run(ctx, &f);
}
