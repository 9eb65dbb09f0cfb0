/* The env rule book (src/model/envrules.c) is wired to both paths: for
 * every rule of the table, a recipe (recipe_judge, what `env` prints) and a
 * running worker (check_pod on /proc/1/environ, what `check` prints) that
 * carry the rule's dangerous value are both flagged, with the same detail
 * and the same severity.  A rule only one path applies fails here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "check/env.h"
#include "kube/api/pods.h"
#include "model/envrules.h"
#include "probe/facts.h"
#include "recipe/recipe.h"
#include "t.h"

/* A disaggregated graph whose decode worker sets NAME=VALUE and requests
 * the fabric's device resource.  Each worker has 8 GPUs on 2 nodes: the
 * shape where every rule applies (issue 38 gates NCCL_IB_DISABLE on TP
 * leaving the pod and ^cuda_ipc on a GPU pair in it; the 1-GPU single-node
 * worker used before was a shape where those rules rightly stay silent). */
static void recipe_with(const struct envr_rule *r, struct recipe_set *s)
{
	char y[2048];
	const char *res = r->example_fabric & ENVR_FAB_EFA ? "vpc.amazonaws.com/efa" :
			  r->example_fabric & ENVR_FAB_IB ? "rdma/ib" : "nvidia.com/gpu";

	snprintf(y, sizeof y,
		 "apiVersion: nvidia.com/v1alpha1\n"
		 "kind: DynamoGraphDeployment\n"
		 "metadata: {name: g}\n"
		 "spec:\n"
		 "  services:\n"
		 "    prefill:\n"
		 "      componentType: worker\n      subComponentType: prefill\n"
		 "      multinode: {nodeCount: 2}\n"
		 "      resources: {limits: {gpu: \"8\", custom: {\"%s\": \"1\"}}}\n"
		 "    decode:\n"
		 "      componentType: worker\n      subComponentType: decode\n"
		 "      multinode: {nodeCount: 2}\n"
		 "      resources: {limits: {gpu: \"8\", custom: {\"%s\": \"1\"}}}\n"
		 "      extraPodSpec:\n"
		 "        mainContainer:\n"
		 "          env:\n"
		 "          - {name: %s, value: \"%s\"}\n",
		 res, res, r->var, r->example);
	memset(s, 0, sizeof *s);
	CHECK_INT(recipe_load_buffer("t.yaml", y, strlen(y), s), 0);
	recipe_judge(s);
}

static const struct recipe_component *decode_of(const struct recipe_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->comps[i].role, "decode"))
			return &s->comps[i];
	return NULL;
}

/* A running decode worker on the example's fabric with NAME=VALUE in its
 * process env; KV crosses pods. */
static struct probe_facts *live_with(const struct envr_rule *r, const char *value)
{
	struct probe_facts *f = probe_facts_new();
	struct probe_rdma_dev *d = probe_rdma_dev_add(&f->sysfs_ib);
	char line[512];
	int efa = (r->example_fabric & ENVR_FAB_EFA) != 0;

	f->sysfs_ib.src.status = PROBE_OK;
	snprintf(d->name, sizeof d->name, "%s", efa ? "rdmap16s27" : "mlx5_0");
	d->nports = 1;
	d->port[0].num = 1;
	d->port[0].state = PROBE_PORT_ACTIVE;
	d->port[0].link_layer = efa ? PROBE_LL_UNKNOWN : PROBE_LL_IB;
	snprintf(line, sizeof line, "%s=%s\n", r->var, value);
	f->env.src.status = PROBE_OK;
	probe_parse_env(line, strlen(line), &f->env);
	return f;
}

static const struct pod_spec_facts spec = {
	.gpus = 8, .rdma_devices = 1, .rdma_resource = "rdma/ib", .efa_devices = -1,
	.ipc_lock = 1, .shm_bytes = -1,
};

static void live_results(const struct envr_rule *r, const char *value, struct check_results *out)
{
	struct check_context ctx = {
		.node = "n1", .role = "decode", .kv_cross_pod = 1, .kv_cross_node = 1,
		.kv_known = 1, .npods = 2, .nodes = 2,
		/* EFA rules about UCX are about a worker whose NIXL uses UCX. */
		.nixl_backend = "UCX",
	};
	struct probe_facts *f = live_with(r, value);

	check_results_init(out);
	check_pod(f, &spec, &ctx, out);
	probe_facts_free(f);
}

static enum check_status as_check(enum recipe_status s)
{
	return s == RECIPE_FAIL ? CHECK_FAIL : s == RECIPE_WARN ? CHECK_WARN : CHECK_OK;
}

static void test_every_rule_both_paths(void)
{
	size_t n, value_rules = 0;
	const struct envr_rule *rules = envr_rules(&n);

	CHECK(n >= 25);
	for (size_t i = 0; i < n; i++) {
		const struct envr_rule *r = &rules[i];
		const struct recipe_component *c;
		const struct recipe_finding *rf = NULL;
		const struct check_result *lf = NULL;
		struct recipe_set s;
		struct check_results res;
		char ck[ENVR_CHECK_NAME_MAX];
		const char *name = envr_check_name(r->check, ck, sizeof ck);

		CHECK((int)r->check >= 0 && r->check < ENVR_CK__COUNT);
		CHECK(r->source && *r->source && r->remedy && *r->remedy);
		if (r->missing)
			continue;  /* test_missing_rules */
		value_rules++;
		recipe_with(r, &s);
		c = decode_of(&s);
		CHECK(c != NULL);
		for (size_t j = 0; c && j < c->nfindings; j++)
			if (c->findings[j].book == (int)r->check + 1 &&
			    !strcmp(c->findings[j].remedy, r->remedy))
				rf = &c->findings[j];
		if (!rf)
			fprintf(stderr, "rule %s %s=%s: no recipe finding\n", name, r->var, r->example);
		CHECK(rf != NULL);
		live_results(r, r->example, &res);
		for (size_t j = 0; rf && j < res.n; j++)
			if (!strcmp(res.v[j].name, name) && strstr(res.v[j].detail, rf->detail))
				lf = &res.v[j];
		if (rf && !lf)
			fprintf(stderr, "rule %s: recipe says \"%s\", the live pod does not\n",
				name, rf->detail);
		CHECK(lf != NULL);
		/* One result per check: the rule's finding leads it unless a
		 * worse one of the same check fired too. */
		if (rf && lf && !strncmp(lf->detail, rf->detail, strlen(rf->detail))) {
			CHECK_INT(lf->status, as_check(rf->status));
			CHECK_STR(lf->remedy, rf->remedy);
		} else if (rf && lf) {
			CHECK(lf->status >= as_check(rf->status));
		}
		for (size_t j = 0; j < res.n; j++)
			for (size_t k = j + 1; k < res.n; k++)
				CHECK(strcmp(res.v[j].name, res.v[k].name));
		check_results_release(&res);
		recipe_set_release(&s);
	}
	CHECK(value_rules >= 25);
}

/* Each check of the book is its table row, by name too (issue 40: the
 * names live in table.def; envr_check_name derives them from the ids). */
static void test_check_ids(void)
{
	char ck[ENVR_CHECK_NAME_MAX];

	for (int i = 0; i < ENVR_CK__COUNT; i++) {
		const struct check_def *d = check_def_of(check_env_row((enum envr_check)i));

		CHECK_STR(envr_check_name((enum envr_check)i, ck, sizeof ck), d->name);
		CHECK_INT(d->family, FAM_ENV);
	}
	CHECK_STR(envr_check_name(ENVR_CK_UCX_NET_DEVICES, ck, sizeof ck), "env-ucx-net-devices");
	CHECK_STR(envr_check_name(ENVR_CK_NCCL_P2P, ck, sizeof ck), "env-nccl-p2p");
}

/* The three settings of issue 17 that `env` flagged and `check` did not. */
static void test_issue_settings(void)
{
	/* healthy: NCCL reads an empty value as its default (ncclLoadParam);
	 * UCX rejects it (ucs_config_sscanf_bool), so its healthy one is y. */
	static const struct { const char *var, *value, *check, *healthy; } cases[] = {
		{ "NCCL_SHM_DISABLE", "1", "env-nccl-shm", "" },
		{ "UCX_PROTO_ENABLE", "n", "env-ucx-proto", "y" },
		{ "NCCL_CUMEM_ENABLE", "0", "env-nccl-cumem", "" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct envr_rule r = { .var = cases[i].var, .example_fabric = ENVR_FAB_IB };
		struct check_results res;
		const struct check_result *x;

		live_results(&r, cases[i].value, &res);
		x = check_results_find(&res, cases[i].check);
		CHECK(x && x->status == CHECK_WARN);
		CHECK_HAS(x ? x->detail : NULL, cases[i].var);
		check_results_release(&res);
		/* ...and the healthy value is no finding. */
		live_results(&r, cases[i].healthy, &res);
		x = check_results_find(&res, cases[i].check);
		CHECK(x && x->status == CHECK_OK);
		check_results_release(&res);
	}
}

/* Missing-variable rules remind a recipe author; a running process's
 * unset variable is its default at work and is not reported. */
static void test_missing_rules(void)
{
	size_t n;
	const struct envr_rule *rules = envr_rules(&n);
	struct envr_ctx ctx = { ENVR_FAB_IB | ENVR_FAB_EFA | ENVR_FAB_MNNVL, 1, 1, 0, -1, -1, 0, 0, NULL, 0, NULL, 0, 0, 0, 0, 0, 0 };
	struct envr_view empty = { NULL, 0 };
	struct envr_finding *f;
	size_t nf, want = 0;

	for (size_t i = 0; i < n; i++)
		want += rules[i].missing == 1;  /* 2: live pods only */
	/* UCX_IB_ADDR_TYPE and UCX_CUDA_IPC_ENABLE_MNNVL left the table with
	 * issue 38 (deprecated since UCX 1.10; default try since UCX 1.18.0):
	 * FI_EFA_ENABLE_SHM_TRANSFER remains. */
	CHECK(want >= 1);
	nf = envr_eval(&empty, &ctx, &f);
	CHECK_INT(nf, want);
	free(f);
	ctx.process = 1;
	nf = envr_eval(&empty, &ctx, &f);
	CHECK_INT(nf, 0);
	free(f);
}

/* The view: the last value of a name wins; a run-time value is set but
 * judged by no value rule. */
static void test_view(void)
{
	struct envr_var v[] = {
		{ "NCCL_SHM_DISABLE", "1", ENVR_FROM_RECIPE, 0, NULL },
		{ "NCCL_SHM_DISABLE", "0", ENVR_FROM_PROCESS, 0, NULL },
		{ "UCX_TLS", "$(TLS)", ENVR_FROM_RECIPE, 1, NULL },
	};
	struct envr_view view = { v, 3 };
	struct envr_ctx ctx = { ENVR_FAB_IB, 1, 1, 0, -1, -1, 1, 0, NULL, 0, NULL, 0, 0, 0, 0, 0, 0 };
	struct envr_finding *f;

	CHECK_STR(envr_get(&view, "NCCL_SHM_DISABLE"), "0");
	CHECK(envr_get(&view, "UCX_TLS") == NULL);
	CHECK(envr_find(&view, "UCX_TLS") != NULL);
	CHECK_INT(envr_eval(&view, &ctx, &f), 0);
	free(f);
	CHECK(envr_tls_allowed("^cuda_ipc") & (1u << ENVR_TL_RC_MLX5));
	CHECK(!(envr_tls_allowed("^cuda_ipc") & (1u << ENVR_TL_CUDA_IPC)));
	CHECK(envr_tls_allowed("rc") & (1u << ENVR_TL_UD_MLX5));
	CHECK_INT(envr_tls_allowed("tcp,cuda_copy"), (1u << ENVR_TL_TCP) | (1u << ENVR_TL_CUDA_COPY));
	/* gga_mlx5: named by gga and ib (UCX 1.19+ ucp_tl_aliases), and all */
	CHECK(envr_tls_allowed(NULL) & (1u << ENVR_TL_GGA_MLX5));
	CHECK(envr_tls_allowed("ib") & (1u << ENVR_TL_GGA_MLX5));
	CHECK(envr_tls_allowed("rc_x,gga") & (1u << ENVR_TL_GGA_MLX5));
	CHECK(!(envr_tls_allowed("^gga") & (1u << ENVR_TL_GGA_MLX5)));
	CHECK(!(envr_tls_allowed("rc,cuda_copy") & (1u << ENVR_TL_GGA_MLX5)));
}

/* GID i of port p: RoCE v2 (v2), its IPv4 address (v4, 0: the link-local
 * fe80:: GID, 1: a global IPv6 one) and netdev (NULL: none). */
static void gid(struct envr_gid_port *p, int i, int v2, unsigned v4, const char *ndev)
{
	unsigned long long bit = 1ull << i;

	p->gids |= bit;
	if (v2)
		p->roce_v2 |= bit;
	if (v4 > 1)
		p->ipv4 |= bit;
	else if (!v4)
		p->link_local |= bit;
	envr_gid_ndev(p, i, ndev, v4 > 1 ? v4 : 0);
}

#define IP(a, b, c, d) ((unsigned)(a) << 24 | (b) << 16 | (c) << 8 | (d))

/* Mooncake's own GID choice (checks.md A9: rdma_gid_probe.h's tiers,
 * config.cpp's MC_GID_INDEX / NCCL_IB_GID_INDEX), on the GID tables of its
 * issues. */
static void test_mooncake_gid(void)
{
	struct envr_var none[] = { { "MC_TE_METRIC", "1", ENVR_FROM_PROCESS, 0, NULL } };
	struct envr_var pin[] = { { "MC_GID_INDEX", "3", ENVR_FROM_PROCESS, 0, NULL } };
	struct envr_var nccl[] = { { "NCCL_IB_GID_INDEX", "2", ENVR_FROM_PROCESS, 0, NULL } };
	struct envr_view v0 = { none, 1 }, vp = { pin, 1 }, vn = { nccl, 1 };
	struct envr_gid_port p;

	/* #2747: 0 link-local, 1 10.102.9.101, both on rdma0: the private IPv4 */
	p = (struct envr_gid_port){ .mc_version = "0.3.12" };
	gid(&p, 0, 1, 0, "rdma0");
	gid(&p, 1, 1, IP(10, 102, 9, 101), "rdma0");
	CHECK_INT(envr_gid_index_mooncake(&p, &v0), 1);
	/* #2729: the mlx5 layout (0/1 fe80:: v1/v2, 2/3 10.14.x v1/v2): 3 */
	p = (struct envr_gid_port){ .mc_version = "0.3.12" };
	gid(&p, 0, 0, 0, "ens16np0");
	gid(&p, 1, 1, 0, "ens16np0");
	gid(&p, 2, 0, IP(10, 14, 2, 72), "ens16np0");
	gid(&p, 3, 1, IP(10, 14, 2, 72), "ens16np0");
	CHECK_INT(envr_gid_index_mooncake(&p, &v0), 3);
	CHECK_INT(envr_gid_index_mooncake(&p, &vn), 2);   /* NCCL_IB_GID_INDEX as fallback */
	/* the IPv4 GIDs without a netdev: the netdev-backed link-local 1 wins */
	p = (struct envr_gid_port){ .mc_version = "0.3.12" };
	gid(&p, 0, 0, 0, "ens108np0");
	gid(&p, 1, 1, 0, "ens108np0");
	gid(&p, 2, 0, IP(10, 14, 0, 10), NULL);
	gid(&p, 3, 1, IP(10, 14, 0, 10), NULL);
	CHECK_INT(envr_gid_index_mooncake(&p, &v0), 1);
	CHECK_INT(envr_gid_index_mooncake(&p, &vp), 3);
	/* ...but a public IPv4 GID without one still beats it (tier 1 < 3) */
	p = (struct envr_gid_port){ .mc_version = "0.3.12" };
	gid(&p, 1, 1, 0, "ens108np0");
	gid(&p, 3, 1, IP(203, 0, 113, 10), NULL);
	CHECK_INT(envr_gid_index_mooncake(&p, &v0), 3);
	/* ROCm/ATOM#1748: 0 link-local, 1 a ULA: the routable IPv6 one */
	p = (struct envr_gid_port){ .mc_version = "0.3.12" };
	gid(&p, 0, 1, 0, "enp105s0");
	gid(&p, 1, 1, 1, "enp105s0");
	CHECK_INT(envr_gid_index_mooncake(&p, &v0), 1);
	/* an overlay netdev's IPv4 GID ranks below a physical one's */
	p = (struct envr_gid_port){ .mc_version = "0.3.12" };
	gid(&p, 1, 1, IP(172, 17, 0, 1), "docker0");
	gid(&p, 3, 1, IP(10, 0, 0, 5), "eth1");
	CHECK_INT(envr_gid_index_mooncake(&p, &v0), 3);
	/* RoCE v1 only: the first non-empty GID (kFallbackNonzero); none: -1 */
	p = (struct envr_gid_port){ .mc_version = "0.3.12" };
	gid(&p, 0, 0, 0, "eth1");
	gid(&p, 2, 0, IP(10, 0, 0, 5), "eth1");
	CHECK_INT(envr_gid_index_mooncake(&p, &v0), 0);
	p = (struct envr_gid_port){ .mc_version = "0.3.12" };
	CHECK_INT(envr_gid_index_mooncake(&p, &v0), -1);
	/* SGLang on Mooncake by its command line */
	CHECK(envr_args_mooncake("python3 -m dynamo.sglang --disaggregation-mode prefill "
				 "--disaggregation-transfer-backend mooncake --tp 8"));
	CHECK(envr_args_mooncake("python3 -m sglang.launch_server --disaggregation-mode decode"));
	CHECK(envr_args_mooncake("x --disaggregation-transfer-backend=mooncake"));
	CHECK(!envr_args_mooncake("python3 -m dynamo.sglang --disaggregation-mode prefill "
				  "--disaggregation-transfer-backend nixl"));
	CHECK(!envr_args_mooncake("x --disaggregation-transfer-backend mooncake_tcp"));
	CHECK(!envr_args_mooncake("python3 -m dynamo.vllm --is-prefill-worker"));
	CHECK(!envr_args_mooncake(NULL));
}

/* Up to 0.3.11 (rdma_context.cpp at v0.3.11.post1): the first RoCE v2 IPv4
 * GID with a netdev, else without, else IPv6 with, then without; the scan
 * ends at an empty slot.  Which one runs: the installed version; unknown,
 * both, and a disagreement is ENVR_GID_UNDECIDED. */
static void test_mooncake_versions(void)
{
	struct envr_var none[] = { { "MC_TE_METRIC", "1", ENVR_FROM_PROCESS, 0, NULL } };
	struct envr_var pin[] = { { "MC_GID_INDEX", "3", ENVR_FROM_PROCESS, 0, NULL } };
	struct envr_view v0 = { none, 1 }, vp = { pin, 1 };
	struct envr_gid_port p = { 0 };

	/* the IPv4 GIDs without a netdev (mooncake-gid-auto's rails) */
	gid(&p, 0, 0, 0, "ens108np0");
	gid(&p, 1, 1, 0, "ens108np0");
	gid(&p, 2, 0, IP(10, 14, 0, 10), NULL);
	gid(&p, 3, 1, IP(10, 14, 0, 10), NULL);
	CHECK_INT(envr_mooncake_auto_pre312(&p), 3);
	CHECK_INT(envr_mooncake_auto(&p), 1);
	p.mc_version = "0.3.9";
	CHECK_INT(envr_gid_index_mooncake(&p, &v0), 3);
	p.mc_version = "0.3.11.post1";
	CHECK_INT(envr_gid_index_mooncake(&p, &v0), 3);
	p.mc_version = "0.3.12.post1";
	CHECK_INT(envr_gid_index_mooncake(&p, &v0), 1);
	p.mc_version = NULL;
	CHECK_INT(envr_gid_index_mooncake(&p, &v0), ENVR_GID_UNDECIDED);
	CHECK_INT(envr_gid_index_mooncake(&p, &vp), 3);   /* pinned: no version needed */
	p.mc_version = "0.3.12rc1";
	CHECK_INT(envr_gid_index_mooncake(&p, &v0), ENVR_GID_UNDECIDED);
	/* the usual mlx5 layout (IPv4 GIDs with the netdev): both take 3 */
	p = (struct envr_gid_port){ 0 };
	gid(&p, 0, 0, 0, "ens16np0");
	gid(&p, 1, 1, 0, "ens16np0");
	gid(&p, 2, 0, IP(10, 14, 2, 72), "ens16np0");
	gid(&p, 3, 1, IP(10, 14, 2, 72), "ens16np0");
	CHECK_INT(envr_gid_index_mooncake(&p, &v0), 3);
	/* link-local only: both take the netdev-backed IPv6 GID 1 */
	p = (struct envr_gid_port){ 0 };
	gid(&p, 0, 0, 0, "eth1");
	gid(&p, 1, 1, 0, "eth1");
	CHECK_INT(envr_mooncake_auto_pre312(&p), 1);
	CHECK_INT(envr_gid_index_mooncake(&p, &v0), 1);
	/* the old scan stops at an empty slot; the tiers read on */
	p = (struct envr_gid_port){ 0 };
	gid(&p, 0, 1, 0, "eth1");
	gid(&p, 3, 1, IP(10, 0, 0, 5), "eth1");
	CHECK_INT(envr_mooncake_auto_pre312(&p), 0);
	CHECK_INT(envr_mooncake_auto(&p), 3);
	/* RoCE v1 only: the old code finds none, the new one falls back */
	p = (struct envr_gid_port){ 0 };
	gid(&p, 0, 0, 0, "eth1");
	CHECK_INT(envr_mooncake_auto_pre312(&p), -1);
	CHECK_INT(envr_mooncake_auto(&p), 0);
	/* private IPv4 with a netdev vs a public one without: 0.3.12 demotes
	 * the private range (PR #2741), the old scan takes the netdev's */
	p = (struct envr_gid_port){ 0 };
	gid(&p, 0, 1, IP(203, 0, 113, 7), NULL);
	gid(&p, 1, 1, IP(10, 0, 0, 5), "eth1");
	CHECK_INT(envr_mooncake_auto_pre312(&p), 1);
	CHECK_INT(envr_mooncake_auto(&p), 0);
	/* versions */
	CHECK_INT(envr_mooncake_tiered("0.3.12"), 1);
	CHECK_INT(envr_mooncake_tiered("0.3.12.post1"), 1);
	CHECK_INT(envr_mooncake_tiered("0.3.12+cu13"), 1);
	CHECK_INT(envr_mooncake_tiered("0.3.13"), 1);
	CHECK_INT(envr_mooncake_tiered("0.4.0"), 1);
	CHECK_INT(envr_mooncake_tiered("1.0"), 1);
	CHECK_INT(envr_mooncake_tiered("0.3.11.post1"), 0);
	CHECK_INT(envr_mooncake_tiered("0.3.7.post2"), 0);
	CHECK_INT(envr_mooncake_tiered("0.3.0b6"), 0);
	CHECK_INT(envr_mooncake_tiered("0.2.0"), 0);
	CHECK_INT(envr_mooncake_tiered("0.3.12rc1"), -1);
	CHECK_INT(envr_mooncake_tiered("0.3.12.dev3"), -1);
	CHECK_INT(envr_mooncake_tiered(""), -1);
	CHECK_INT(envr_mooncake_tiered(NULL), -1);
	CHECK_INT(envr_mooncake_tiered("x0.3.12"), -1);
	CHECK_INT(envr_mooncake_tiered("99999999999999999999.1"), -1);
}

/* The MC_GID_INDEX finding envr_eval makes on c: its severity and detail
 * into *detail (ENVR_OK and "" when none; more than one is a failure). */
static enum envr_sev mc_finding(const struct envr_view *v, const struct envr_ctx *c,
				char *detail, size_t dn)
{
	struct envr_finding *out = NULL;
	size_t n = envr_eval(v, c, &out);
	enum envr_sev sev = ENVR_OK;
	int seen = 0;

	detail[0] = 0;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(out[i].rule->var, "MC_GID_INDEX")) {
			seen++;
			sev = out[i].sev;
			snprintf(detail, dn, "%s", out[i].detail);
		}
	CHECK(seen <= 1);
	free(out);
	return sev;
}

/* A9 through the rule book: version unknown, the releases disagree and one
 * pick is good: warn naming both; both bad (link-local either way): fail. */
static void test_mooncake_undecided_rule(void)
{
	struct envr_var none[] = { { "MC_TE_METRIC", "1", ENVR_FROM_PROCESS, 0, NULL } };
	struct envr_view v0 = { none, 1 };
	struct envr_gid_port p = { 0 };
	char note[320], d[320];
	struct envr_ctx c = { 0 };

	p.name = "mlx5_0:1";
	gid(&p, 0, 0, 0, "ens108np0");
	gid(&p, 1, 1, 0, "ens108np0");
	gid(&p, 2, 0, IP(10, 14, 0, 10), NULL);
	gid(&p, 3, 1, IP(10, 14, 0, 10), NULL);
	c.kv_cross = c.rdma_needed = c.process = c.mooncake = 1;
	c.gid_ports = &p;
	c.n_gid_ports = 1;
	c.note = note;
	c.note_n = sizeof note;
	CHECK_INT(mc_finding(&v0, &c, d, sizeof d), ENVR_WARN);
	CHECK_HAS(d, ">= 0.3.12 picks GID 1, <= 0.3.11 GID 3");
	CHECK_HAS(d, "the installed version decides");
	/* 0.3.9 installed: GID 3, nothing to say; 0.3.12: GID 1 fails */
	p.mc_version = "0.3.9";
	CHECK_INT(mc_finding(&v0, &c, d, sizeof d), ENVR_OK);
	/* 0.3.12: the link-local GID 1, which one pod cannot judge (its
	 * peer's segment is the pair rule's, issue 39 item 4): warn */
	p.mc_version = "0.3.12";
	CHECK_INT(mc_finding(&v0, &c, d, sizeof d), ENVR_WARN);
	CHECK_HAS(d, "Mooncake uses GID 1 on mlx5_0:1");
	/* no IPv4 GID: the old scan stops at empty 1 (the ndev-less GID 0), the
	 * tiers take the netdev's link-local 2; unknown version, the two
	 * differ but are bad either way: fail */
	p = (struct envr_gid_port){ 0 };
	p.name = "mlx5_0:1";
	gid(&p, 0, 1, 0, NULL);
	gid(&p, 2, 1, 0, "ens108np0");
	CHECK_INT(envr_gid_index_mooncake(&p, &v0), ENVR_GID_UNDECIDED);
	CHECK_INT(mc_finding(&v0, &c, d, sizeof d), ENVR_WARN);
	CHECK_HAS(d, "link-local");
	/* an empty GID fails whatever the segment: MC_GID_INDEX at slot 1 */
	{
		struct envr_var pin[] = { { "MC_GID_INDEX", "1", ENVR_FROM_PROCESS, 0, NULL } };
		struct envr_view v1 = { pin, 1 };

		CHECK_INT(mc_finding(&v1, &c, d, sizeof d), ENVR_FAIL);
		CHECK_HAS(d, "empty");
	}
}

/* The one GID rule (issue 39 item 4): an L2-only GID fails only where the
 * pair is known apart, warns where it cannot be told; empty always fails. */
static void test_gid_l2_rule(void)
{
	CHECK_INT(envr_gid_l2_rule(ENVR_GIDC_ROUTABLE, ENVR_L2_APART), ENVR_OK);
	CHECK_INT(envr_gid_l2_rule(ENVR_GIDC_L2_ONLY, ENVR_L2_SAME), ENVR_OK);
	CHECK_INT(envr_gid_l2_rule(ENVR_GIDC_L2_ONLY, ENVR_L2_UNKNOWN), ENVR_WARN);
	CHECK_INT(envr_gid_l2_rule(ENVR_GIDC_L2_ONLY, ENVR_L2_APART), ENVR_FAIL);
	CHECK_INT(envr_gid_l2_rule(ENVR_GIDC_EMPTY, ENVR_L2_SAME), ENVR_FAIL);
	CHECK_INT(envr_gid_l2_rule(ENVR_GIDC_EMPTY, ENVR_L2_UNKNOWN), ENVR_FAIL);
}

/* Issue 38 point d: env-ucx-roce judges UCX_IB_ROCE_LOCAL_SUBNET; its ok
 * line names that, never the removed rule's UCX_IB_ADDR_TYPE (deprecated
 * since UCX 1.10, ib_iface.c), even when a pod sets it. */
static void test_roce_detail(void)
{
	const struct envr_rule r = { .var = "UCX_IB_ADDR_TYPE", .example_fabric = ENVR_FAB_IB };
	struct check_results res;
	int seen = 0;

	live_results(&r, "eth", &res);
	for (size_t j = 0; j < res.n; j++)
		if (!strcmp(res.v[j].name, "env-ucx-roce")) {
			seen = 1;
			CHECK(!strstr(res.v[j].detail, "UCX_IB_ADDR_TYPE"));
			CHECK(strstr(res.v[j].detail, "UCX_IB_ROCE_LOCAL_SUBNET") != NULL);
		}
	CHECK(seen);
	check_results_release(&res);
}

/* The env-ucx-tls result of a live SGLang decode on InfiniBand with
 * UCX_TLS=tcp,cuda_copy (no RDMA transport: a fail where UCX carries KV),
 * its --config file's section body cfg (NULL: none). */
static enum check_status sglang_tls(const char *cfg)
{
	const struct envr_rule r = { .var = "UCX_TLS", .example_fabric = ENVR_FAB_IB };
	struct check_context ctx = {
		.node = "n1", .role = "decode", .kv_cross_pod = 1, .kv_cross_node = 1,
		.kv_known = 1, .npods = 2, .nodes = 1,
		.args = "python3 -m dynamo.sglang --config /etc/sgl/decode.yaml",
	};
	struct probe_facts *f = live_with(&r, "tcp,cuda_copy");
	struct check_results res;
	enum check_status st = CHECK_SKIPPED;

	if (cfg) {
		probe_parse_sglang_config(cfg, strlen(cfg), &f->sglang_config);
		f->sglang_config.src.status = PROBE_OK;
	}
	check_results_init(&res);
	check_pod(f, &spec, &ctx, &res);
	for (size_t j = 0; j < res.n; j++)
		if (!strcmp(res.v[j].name, "env-ucx-tls"))
			st = res.v[j].status;
	check_results_release(&res);
	probe_facts_free(f);
	return st;
}

/* Issue 38 point c: SGLang's backend only in its --config YAML (probe
 * section sglang_config): Mooncake there (or no backend and a
 * disaggregated mode: SGLang's default) keeps the UCX rules off. */
static void test_sglang_config_backend(void)
{
	CHECK_INT(sglang_tls(NULL), CHECK_FAIL);
	CHECK_INT(sglang_tls("state=ok\ndisaggregation-transfer-backend=mooncake\n"), CHECK_OK);
	CHECK_INT(sglang_tls("state=ok\ndisaggregation-mode=decode\n"), CHECK_OK);
	CHECK_INT(sglang_tls("state=ok\ndisaggregation-transfer-backend=nixl\ndisaggregation-mode=decode\n"),
		  CHECK_FAIL);
	CHECK_INT(sglang_tls("state=absent\n"), CHECK_FAIL);
}

/* The worst severity envr_eval gives NAME=VALUE on fabric fab, KV leaving
 * the pod (cross) or not. */
/* The findings of the book on NAME=VALUE alone, on fab, KV across pods
 * or not; the caller frees *f. */
static size_t eval_one(const char *name, const char *value, unsigned fab, int cross,
		       struct envr_finding **f)
{
	struct envr_var v = { name, value, ENVR_FROM_RECIPE, 0, NULL };
	struct envr_view view = { &v, 1 };
	struct envr_ctx ctx = { fab, cross, cross, 0, -1, -1, 0, 0, NULL, 0, NULL, 0, 0, 0, 0, 0, 0 };

	return envr_eval(&view, &ctx, f);
}

static enum envr_sev sev_of(const char *name, const char *value, unsigned fab, int cross)
{
	struct envr_finding *f;
	size_t nf = eval_one(name, value, fab, cross, &f);
	enum envr_sev worst = ENVR_OK;

	for (size_t i = 0; i < nf; i++)
		if (!strcmp(f[i].rule->var, name) && f[i].sev > worst)
			worst = f[i].sev;
	free(f);
	return worst;
}

/* Issue 38 point b, rules re-read against their sources (2026-12-07). */
static void test_reread_sources(void)
{
	/* Dynamo disagg-communication-guide.md (AWS EFA): "Using get_zcopy or
	 * threshold 0 will cause remote invalid RD request errors and worker
	 * crashes": both fail alike. */
	CHECK_INT(sev_of("UCX_RNDV_SCHEME", "get_zcopy", ENVR_FAB_EFA, 1), ENVR_FAIL);
	CHECK_INT(sev_of("UCX_RNDV_THRESH", "0", ENVR_FAB_EFA, 1), ENVR_FAIL);
	CHECK_INT(sev_of("UCX_RNDV_THRESH", "8192", ENVR_FAB_EFA, 1), ENVR_OK);
	CHECK_INT(sev_of("UCX_RNDV_THRESH", "0", ENVR_FAB_IB, 1), ENVR_OK);
	/* ucp_context.c ucp_is_resource_in_device_list: strcmp against the
	 * resource's "mlx5_0:1", so a port-less HCA selects no RDMA device:
	 * KV between pods has no RDMA lane. */
	CHECK_INT(sev_of("UCX_NET_DEVICES", "mlx5_0", ENVR_FAB_IB, 1), ENVR_FAIL);
	CHECK_INT(sev_of("UCX_NET_DEVICES", "mlx5_0", ENVR_FAB_IB, 0), ENVR_WARN);
	/* ...where another entry names its port, that one still carries KV:
	 * a rail lost, a warning. */
	CHECK_INT(sev_of("UCX_NET_DEVICES", "mlx5_0:1,mlx5_1", ENVR_FAB_IB, 1), ENVR_WARN);
	CHECK_INT(sev_of("UCX_NET_DEVICES", "mlx5_0:1", ENVR_FAB_IB, 1), ENVR_OK);
	/* NVIDIA/nccl 2.30 src/misc/param.cc ncclLoadParam: NCCL_PARAM values
	 * are strtoll(str, NULL, 0), so "yes" is 0 and "2" is 2;
	 * net_ib/init.cc disables IB on any nonzero value. */
	CHECK_INT(sev_of("NCCL_IB_DISABLE", "yes", ENVR_FAB_IB, 1), ENVR_OK);
	CHECK_INT(sev_of("NCCL_IB_DISABLE", "2", ENVR_FAB_IB, 1), ENVR_FAIL);
	CHECK_INT(sev_of("NCCL_IB_DISABLE", "1", ENVR_FAB_IB, 1), ENVR_FAIL);
	/* init.cc: DMA-BUF off when ncclParamDmaBufEnable() == 0 ("no" is 0). */
	CHECK_INT(sev_of("NCCL_DMABUF_ENABLE", "no", ENVR_FAB_IB, 1), ENVR_WARN);
	CHECK_INT(sev_of("NCCL_DMABUF_ENABLE", "1", ENVR_FAB_IB, 1), ENVR_OK);
	CHECK_INT(sev_of("NCCL_SHM_DISABLE", "0x1", ENVR_FAB_IB, 1), ENVR_WARN);
	/* graph/paths.cc ncclGetLevel: NCCL_P2P_DISABLE is strtol(...) == 1;
	 * levels match topoPathTypeStr with strcmp (case matters) or the old
	 * numbers (0 is LOC); anything else is ignored. */
	CHECK_INT(sev_of("NCCL_P2P_DISABLE", "yes", ENVR_FAB_IB, 1), ENVR_OK);
	CHECK_INT(sev_of("NCCL_P2P_DISABLE", "1", ENVR_FAB_IB, 1) != ENVR_OK, 1);
	CHECK_INT(sev_of("NCCL_P2P_LEVEL", "loc", ENVR_FAB_IB, 1), ENVR_OK);
	CHECK_INT(sev_of("NCCL_P2P_LEVEL", "LOC", ENVR_FAB_IB, 1), ENVR_WARN);
	CHECK_INT(sev_of("NCCL_NET_GDR_LEVEL", "loc", ENVR_FAB_IB, 1), ENVR_OK);
	CHECK_INT(sev_of("NCCL_NET_GDR_LEVEL", "0", ENVR_FAB_IB, 1), ENVR_WARN);
	/* ofiwg/libfabric 2.7 src/fabric.c ofi_create_filter/ofi_find_name:
	 * FI_PROVIDER is a comma list of whole names (strcasecmp), ^ negates. */
	CHECK_INT(sev_of("FI_PROVIDER", "EFA", ENVR_FAB_EFA, 1), ENVR_OK);
	CHECK_INT(sev_of("FI_PROVIDER", "shm,efa", ENVR_FAB_EFA, 1), ENVR_OK);
	CHECK_INT(sev_of("FI_PROVIDER", "^EFA", ENVR_FAB_EFA, 1), ENVR_FAIL);
	CHECK_INT(sev_of("FI_PROVIDER", "^tcp", ENVR_FAB_EFA, 1), ENVR_OK);
	CHECK_INT(sev_of("FI_PROVIDER", "tcp", ENVR_FAB_EFA, 1), ENVR_FAIL);
	/* src/var.c fi_parse_bool: false is 0/false/no/off; "n" is invalid
	 * and leaves the default (device RDMA where the hardware has it). */
	CHECK_INT(sev_of("FI_EFA_USE_DEVICE_RDMA", "n", ENVR_FAB_EFA, 1), ENVR_OK);
	CHECK_INT(sev_of("FI_EFA_USE_DEVICE_RDMA", "off", ENVR_FAB_EFA, 1), ENVR_FAIL);
	/* prov/efa/src/efa_env.c: enable_shm_transfer is FI_PARAM_INT, read
	 * with strtol(v, NULL, 0) (src/var.c): "no" is 0, shm off. */
	CHECK_INT(sev_of("FI_EFA_ENABLE_SHM_TRANSFER", "no", ENVR_FAB_EFA, 1), ENVR_OK);
	CHECK_INT(sev_of("FI_EFA_ENABLE_SHM_TRANSFER", "1", ENVR_FAB_EFA, 1), ENVR_FAIL);
}

/* The detail of name's last finding for value (IB, KV across pods). */
static void detail_of(const char *name, const char *value, char *d, size_t dn)
{
	struct envr_finding *f;
	size_t nf = eval_one(name, value, ENVR_FAB_IB, 1, &f);

	d[0] = 0;
	for (size_t i = 0; i < nf; i++)
		if (!strcmp(f[i].rule->var, name))
			snprintf(d, dn, "%s", f[i].detail);
	free(f);
}

/* openucx/ucx src/ucs/config/parser.c ucs_config_sscanf_bool: y/yes/n/no
 * in any case, 1/0, and since 1.16.0 on/off in lower case only; anything
 * else is invalid.  ucs_config_parser_parse_field logs "Invalid value";
 * ucp_config_read (ignore_errors 0) then fails, so NIXL's UCX backend is
 * never created (nixl src/plugins/ucx/config.cpp "Failed to create UCX
 * config"); the global options (ucs_global_opts_init, ignore_errors 1)
 * keep their default instead. */
static void test_ucx_bool(void)
{
	char d[320];

	static const struct { const char *v; int want; } b[] = {
		{ "Y", 1 }, { "yes", 1 }, { "on", 1 }, { "1", 1 },
		{ "NO", 0 }, { "off", 0 }, { "0", 0 },
		{ "OFF", -1 }, { "false", -1 }, { "true", -1 }, { "", -1 }, { NULL, -1 },
	};

	for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
		CHECK_INT(envr_ucx_bool(b[i].v), b[i].want);
	static const struct { const char *var, *v; enum envr_sev want; const char *says; } r[] = {
		{ "UCX_PROTO_ENABLE", "n", ENVR_WARN, NULL },
		{ "UCX_PROTO_ENABLE", "off", ENVR_WARN, NULL },
		{ "UCX_PROTO_ENABLE", "on", ENVR_OK, NULL },
		{ "UCX_PROTO_ENABLE", "false", ENVR_FAIL, "ucp_config_read fails" },
		{ "UCX_PROTO_ENABLE", "Off", ENVR_FAIL, "ucp_config_read fails" },
		{ "UCX_WARN_UNUSED_ENV_VARS", "no", ENVR_WARN, NULL },
		{ "UCX_WARN_UNUSED_ENV_VARS", "yes", ENVR_OK, NULL },
		{ "UCX_WARN_UNUSED_ENV_VARS", "false", ENVR_WARN, "keeps the default" },
	};

	for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
		CHECK_INT(sev_of(r[i].var, r[i].v, ENVR_FAB_IB, 1), r[i].want);
		if (!r[i].says)
			continue;
		detail_of(r[i].var, r[i].v, d, sizeof d);
		CHECK_HAS(d, "not a value UCX reads");
		CHECK_HAS(d, r[i].says);
	}
}

/* The UCX_TLS finding about cuda_ipc envr_eval makes for tls in c (ENVR_OK
 * and "" when none). */
static enum envr_sev ipc_finding(const char *tls, const struct envr_ctx *c, char *d, size_t dn)
{
	struct envr_var var[] = { { "UCX_TLS", tls, ENVR_FROM_PROCESS, 0, NULL } };
	struct envr_view v = { var, 1 };
	struct envr_finding *out = NULL;
	size_t n = envr_eval(&v, c, &out);
	enum envr_sev sev = ENVR_OK;

	d[0] = 0;
	for (size_t i = 0; i < n; i++)
		if (strstr(out[i].rule->why, "cuda_ipc")) {
			sev = out[i].sev;
			snprintf(d, dn, "%s", out[i].detail);
		}
	free(out);
	return sev;
}

/* Issue 39 item 5's other half: prefill and decode on one node, the pod
 * in the host's IPC namespace (cuda_ipc reaches the peer's GPUs, UCX PR
 * #4137 even where CUDA_VISIBLE_DEVICES masks them): without cuda_ipc and
 * with no RDMA transport, cuda_ipc was the only GPU path: fail.  With an
 * RDMA transport and rails, the KV loops through the NIC: a cost, warn. */
static void test_tls_ipc_same_node(void)
{
	struct envr_ctx c = { 0 };
	char d[320];

	c.kv_cross = c.process = c.peer_ipc = 1;
	CHECK_INT(ipc_finding("^cuda_ipc", &c, d, sizeof d), ENVR_FAIL);
	CHECK_HAS(d, "only GPU path");
	CHECK_HAS(d, "same node");
	c.one_gpu = 1;          /* masked peer GPUs are still reached */
	CHECK_INT(ipc_finding("^cuda_ipc", &c, d, sizeof d), ENVR_FAIL);
	c.fabric = ENVR_FAB_IB;
	CHECK_INT(ipc_finding("^cuda_ipc,ib", &c, d, sizeof d), ENVR_FAIL);
	c.one_gpu = 0;
	CHECK_INT(ipc_finding("^cuda_ipc", &c, d, sizeof d), ENVR_WARN);
	CHECK_INT(ipc_finding("rc,cuda_copy,cuda_ipc", &c, d, sizeof d), ENVR_OK);
	/* no IPC namespace shared with the peer: unchanged, warn */
	c.fabric = 0;
	c.peer_ipc = 0;
	CHECK_INT(ipc_finding("^cuda_ipc", &c, d, sizeof d), ENVR_WARN);
}

int main(void)
{
	test_check_ids();
	test_reread_sources();
	test_ucx_bool();
	test_roce_detail();
	test_sglang_config_backend();
	test_every_rule_both_paths();
	test_issue_settings();
	test_missing_rules();
	test_view();
	test_mooncake_gid();
	test_mooncake_versions();
	test_mooncake_undecided_rule();
	test_gid_l2_rule();
	test_tls_ipc_same_node();
	printf("test_envrules: %d passed, %d failed\n", t_pass, t_fail);
	return t_fail ? 1 : 0;
}
