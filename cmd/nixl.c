/* `nixl --pod P`: the NIXL install of one worker and the exact next step,
 * a pairwise transfer test with a peer of the other role. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/pairtest.h"
#include "cmd.h"
#include "report/install.h"
#include "run/run.h"
#include "run/transfer.h"
#include "util/safe.h"
#include "util/xalloc.h"
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

struct side {
	struct pod_list list;
	struct run run;
	int listed;
};

/* Lists pod `name` (any labels) and probes it. */
static int probe_one(struct cmd_ctx *ctx, struct http_client *c, const char *ns,
		     const char *name, struct side *s, struct err *e)
{
	struct pods_query q = { 0 };
	struct run_options o = { .parallel = 1, .timeout_ms = RUN_PROBE_TIMEOUT_MS };

	q.namespace = ns;
	q.name = name;
	q.any_component = 1;
	q.container = ctx->g.container;
	if (pods_list(c, &q, &s->list, e) < 0)
		return -1;
	s->listed = 1;
	if (s->list.n == 0)
		return err_setp(e, ERR_API, "Error from server (NotFound): pods \"%s\" not found", name);
	run_init(&s->run, &s->list);
	s->run.keep_facts = 1;
	run_pods(&s->run, c, &o);
	return 0;
}

static void side_release(struct side *s)
{
	if (s->run.pods)
		run_release(&s->run);
	if (s->listed)
		pod_list_release(&s->list);
}

static const char *opposite(const char *role)
{
	return !strcmp(role, "prefill") ? "decode" : !strcmp(role, "decode") ? "prefill" : NULL;
}

/* A Running worker to pair with: the other role (same graph first), or for
 * an aggregated worker another worker on another node.  Owned copy or NULL. */
static char *find_peer(struct http_client *c, const struct pod_info *self, struct err *e)
{
	struct pods_query q = { 0 };
	const char *want = opposite(self->role);
	struct pod_list l;
	char *name = NULL;
	int pass;
	size_t i;

	q.namespace = self->namespace;
	if (pods_list(c, &q, &l, e) < 0)
		return NULL;
	for (pass = 0; pass < 2 && !name; pass++)
		for (i = 0; i < l.n && !name; i++) {
			const struct pod_info *p = &l.items[i];
			int role_ok = want ? !strcmp(p->role, want)
					   : strcmp(p->name, self->name) && strcmp(p->node, self->node);
			if (p->probe && role_ok && (pass || !strcmp(p->graph, self->graph)))
				name = xstrdup(p->name);
		}
	pod_list_release(&l);
	return name;
}

static void side_view(const struct side *s, struct pairtest_side *v)
{
	const struct pod_info *p = &s->list.items[0];

	v->namespace = p->namespace;
	v->pod = p->name;
	v->container = p->container;
	v->ip = p->pod_ip;
	v->role = p->role;
	v->f = s->run.pod[0].facts;
}

/* A block of lines whose pieces come from pods (the transfer plan). */
static void print_text(const char *s)
{
	char *t = safe_term_text(s);

	printf("\n%s", t);
	free(t);
}

/* --transfer: the prefill side is the client; prints the result. */
static void run_transfer(struct http_client *c, struct side *self, struct side *peer,
			 long limit_ms)
{
	struct transfer_side a, b;
	const struct check_result *r;
	int self_client;

	if (!peer || !peer->run.pod[0].probed) {
		printf("\nTransfer: skipped (no probed peer pod to test with)\n");
		check_results_add_def(&self->run.pod[0].results, "transfer", CHECK_SKIPPED,
				      "no probed prefill/decode peer to test a transfer with", NULL);
		return;
	}
	a.pod = &self->list.items[0], a.f = self->run.pod[0].facts, a.results = &self->run.pod[0].results;
	b.pod = &peer->list.items[0], b.f = peer->run.pod[0].facts, b.results = &peer->run.pod[0].results;
	self_client = strcmp(a.pod->role, "decode") != 0;
	run_transfer_pair(c, self_client ? &a : &b, self_client ? &b : &a, limit_ms);
	r = check_results_find(&self->run.pod[0].results, "transfer");
	if (r)
		printf("\nTransfer: %s  %s\n%s%s%s", check_status_name(r->status), safe_show(r->detail),
		       r->remedy ? "  fix: " : "", r->remedy ? safe_show(r->remedy) : "",
		       r->remedy ? "\n" : "");
}

static int run(struct cmd_ctx *ctx, const struct nixl_flags *f)
{
	struct kube_config cfg;
	struct http_client *c;
	struct side self = { 0 }, peer = { 0 };
	struct pairtest_side sv, pv;
	struct buf plan = BUF_INIT(1 << 16);
	struct err e;
	char *peer_name = NULL;
	int rc = EXIT_ERROR;

	if (cmd_connect(ctx, &cfg, &c) < 0)
		return EXIT_ERROR;
	/* Ctrl-C must not kill us before --transfer's cleanup has run. */
	cmd_cancel_arm(0);
	err_clear(&e);
	if (probe_one(ctx, c, cfg.namespace, f->pod_name, &self, &e) < 0)
		goto out;
	peer_name = f->peer ? xstrdup(f->peer) : find_peer(c, &self.list.items[0], &e);
	if (peer_name && probe_one(ctx, c, cfg.namespace, peer_name, &peer, &e) < 0)
		goto out;
	report_print_install(stdout, &self.run.pod[0]);
	if (peer_name)
		printf("Peer:     %s (role %s, node %s, IP %s)\n", safe_show(peer_name),
		       safe_show(peer.list.items[0].role), safe_show(peer.list.items[0].node),
		       safe_show(peer.list.items[0].pod_ip));
	side_view(&self, &sv);
	if (peer_name)
		side_view(&peer, &pv);
	pairtest_plan(&sv, peer_name ? &pv : NULL,
		      self.run.pod[0].results.fabric == FABRIC_EFA, &plan);
	if (f->transfer)
		run_transfer(c, &self, peer_name ? &peer : NULL, f->transfer_timeout.ms);
	else
		print_text(buf_str(&plan));
	rc = verdict_exit_code(verdict_pod(&self.run.pod[0]));
out:
	if (rc == EXIT_ERROR && e.msg[0])
		cmd_fail(&e);
	buf_release(&plan);
	free(peer_name);
	side_release(&self);
	side_release(&peer);
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
