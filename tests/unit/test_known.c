/* The known-issues table (issue 43, check/known.h, docs/known-issues.md):
 * the file format (parse, errors with file, line and field, merge by id,
 * the round trip through known_table_write), and every row of
 * data/known-issues.yaml against a pod that triggers it and a near miss
 * one version or one setting away.  A row without both is a failure:
 * fixtures[] below must name every id of the table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "check/known.h"
#include "probe/facts.h"
#include "pod_fixture.h"
#include "t.h"
#include "util/err.h"

/* ---- pods ------------------------------------------------------------- */

static void ucx_ver(struct probe_facts *f, const char *v)
{
	set_ok(&f->ucx.v_src);
	snprintf(f->ucx.version, sizeof f->ucx.version, "%s", v);
	f->ucx.patch = 0;
	sscanf(v, "%d.%d.%d", &f->ucx.major, &f->ucx.minor, &f->ucx.patch);
}

static void add_tl(struct probe_facts *f, const char *tl, const char *dev)
{
	struct probe_ucx_tl_entry *e = probe_ucx_tl_add(&f->ucx);

	snprintf(e->name, sizeof e->name, "%s", tl);
	snprintf(e->device, sizeof e->device, "%s", dev);
}

static void nixl_ver(struct probe_facts *f, const char *cu12, const char *cu13)
{
	snprintf(f->nixl.dist_version[PROBE_NIXL_DIST_NIXL], 32, "%s", cu13 ? cu13 : cu12);
	snprintf(f->nixl.dist_version[PROBE_NIXL_DIST_CU12], 32, "%s", cu12 ? cu12 : "");
	snprintf(f->nixl.dist_version[PROBE_NIXL_DIST_CU13], 32, "%s", cu13 ? cu13 : "");
}

/* An InfiniBand decode pod that no row matches: UCX 1.17.0 with
 * ucx_info -d read, NIXL 0.9.0, x86_64. */
static struct probe_facts *base_pod(const char *dev, enum probe_link_layer ll, const char *e)
{
	struct probe_facts *f = fx_rdma_pod(dev, ll, 400, e);

	ucx_ver(f, "1.17.0");
	set_ok(&f->ucx.d_src);
	add_tl(f, "rc_mlx5", "mlx5_0:1");
	snprintf(f->nixl.python_version, 32, "0.9.0");
	f->vm.cpu_hypervisor = 0;
	return f;
}

/* ---- one fixture per row: hit 1 builds the pod the row names, hit 0
 * the near miss (one version or one setting away) ---------------------- */

typedef struct probe_facts *(*fixture)(int hit, struct check_context *c);

static struct probe_facts *fx_bond_ece(int hit, struct check_context *c)
{
	struct probe_facts *f = base_pod("mlx5_bond_0", PROBE_LL_ETH, "UCX_TLS=rc_verbs,cuda_copy\n");

	(void)c;
	ucx_ver(f, hit ? "1.22.0" : "1.21.1");
	return f;
}

static struct probe_facts *fx_gga_lag(int hit, struct check_context *c)
{
	struct probe_facts *f = base_pod("mlx5_bond_0", PROBE_LL_ETH,
					 hit ? "UCX_TLS=all\n" : "UCX_TLS=^gga_mlx5\n");

	(void)c;
	ucx_ver(f, "1.20.0");
	add_tl(f, "rc_mlx5", "mlx5_bond_0:1");
	add_tl(f, "gga_mlx5", "mlx5_bond_0:1");
	return f;
}

static struct probe_facts *fx_gga_unseen(int hit, struct check_context *c)
{
	struct probe_facts *f = base_pod("mlx5_bond_0", PROBE_LL_ETH, "UCX_TLS=all\n");

	(void)c;
	ucx_ver(f, hit ? "1.18.0" : "1.17.0");
	f->ucx.d_src.status = PROBE_ABSENT;
	return f;
}

static struct probe_facts *fx_telemetry(int hit, struct check_context *c)
{
	struct probe_facts *f = base_pod("mlx5_0", PROBE_LL_IB, "NIXL_TELEMETRY_ENABLE=n\n");

	(void)c;
	nixl_ver(f, NULL, hit ? "1.3.1" : "1.3.2");
	return f;
}

static struct probe_facts *fx_trt_wrapper(int hit, struct check_context *c)
{
	static const char undef[] =
		"elf=/usr/local/lib/python3.12/dist-packages/tensorrt_llm/libs/libtensorrt_llm_nixl_wrapper.so\n"
		"ldd_rc=0\n"
		"ldd=undefined symbol: _ZN12nixlDescListI14nixlBasicDescEC1ERK10nixl_mem_tRKbi\t(x)\n";
	struct probe_facts *f = base_pod("mlx5_0", PROBE_LL_IB, "");

	(void)c;
	nixl_ver(f, hit ? "0.6.0" : "0.5.1", NULL);
	f->stack.src.status = PROBE_OK;
	probe_parse_nixl_stack(undef, strlen(undef), &f->stack);
	return f;
}

static struct probe_facts *fx_ucx_older(int hit, struct check_context *c)
{
	static const char line[] = "ucx v1.20.0 (openucx/ucx@v1.20.0)\n";
	struct probe_facts *f = base_pod("mlx5_0", PROBE_LL_IB, "");

	(void)c;
	nixl_ver(f, NULL, "0.10.0");
	probe_parse_nixl_versions(line, strlen(line), &f->nixl);
	ucx_ver(f, hit ? "1.19.0" : "1.20.0");
	return f;
}

static struct probe_facts *fx_cuda_builds(int hit, struct check_context *c)
{
	struct probe_facts *f = base_pod("mlx5_0", PROBE_LL_IB, "");

	(void)c;
	nixl_ver(f, hit ? "1.2.0" : "1.3.0", hit ? "1.2.0" : "1.3.0");
	return f;
}

/* An EFA pod of NIXL nixl with the recipe's backend (EFA's rdmap device,
 * fabric efa), on arm64 or x86_64. */
static struct probe_facts *efa_pod_env(const char *nixl, const char *backend, int arm64,
				       const char *env, struct check_context *c)
{
	struct probe_facts *f = base_pod("rdmap16s27", PROBE_LL_UNKNOWN, env);

	nixl_ver(f, NULL, nixl);
	f->vm.cpu_arm64 = arm64;
	f->vm.cpu_hypervisor = arm64 ? -1 : 0;
	c->nixl_backend = backend;
	return f;
}

static struct probe_facts *efa_pod(const char *nixl, const char *backend, int arm64,
				   struct check_context *c)
{
	return efa_pod_env(nixl, backend, arm64, "FI_PROVIDER=efa\n", c);
}

static struct probe_facts *fx_efa_cuda_mr(int hit, struct check_context *c)
{
	return efa_pod("1.2.0", "LIBFABRIC", hit, c);   /* near miss: x86_64 */
}

static struct probe_facts *fx_fi_more(int hit, struct check_context *c)
{
	return efa_pod(hit ? "1.3.1" : "1.2.0", "LIBFABRIC", 0, c);
}

static struct probe_facts *fx_small_write(int hit, struct check_context *c)
{
	return efa_pod("1.4.0", hit ? "LIBFABRIC" : "UCX", 0, c);
}

/* An EFA pod of the UCX backend with UCX 1.18.0 (hit) or 1.19.0 (near
 * miss, efa-ok's); test_checks.c test_efa: UCX 1.17.0 under LIBFABRIC is no hit. */
static struct probe_facts *fx_ucx_efa_old(int hit, struct check_context *c)
{
	struct probe_facts *f = efa_pod("0.9.0", "UCX", 0, c);

	ucx_ver(f, hit ? "1.18.0" : "1.19.0");
	return f;
}

/* A pod of Mooncake's transfer engine version v (A9's mooncake_dist). */
static struct probe_facts *mooncake_pod(const char *v, const char *dev, enum probe_link_layer ll,
					const char *env)
{
	struct probe_facts *f = base_pod(dev, ll, env);

	snprintf(f->mooncake.version, sizeof f->mooncake.version, "%s", v);
	return f;
}

/* Expandable segments on Mooncake 0.3.12.post1 (hit) or 0.3.13 (near miss). */
static struct probe_facts *fx_mc_expandable(int hit, struct check_context *c)
{
	(void)c;
	return mooncake_pod(hit ? "0.3.12.post1" : "0.3.13", "mlx5_0", PROBE_LL_IB,
			    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n");
}

/* MC_IB_PCI_RELAXED_ORDERING=0 on RoCE (hit) or =1 (near miss). */
static struct probe_facts *fx_mc_relaxed(int hit, struct check_context *c)
{
	(void)c;
	return mooncake_pod("0.3.12", "mlx5_0", PROBE_LL_ETH, hit ? "MC_IB_PCI_RELAXED_ORDERING=0\n" :
			    "MC_IB_PCI_RELAXED_ORDERING=1\n");
}

/* Mooncake 0.3.13 (after the #2511 fix) on EFA with expandable segments
 * (hit) or without (near miss). */
static struct probe_facts *fx_mc_efa_vmm(int hit, struct check_context *c)
{
	struct probe_facts *f = efa_pod_env("0.9.0", "UCX", 0, hit ?
		"PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n" :
		"PYTORCH_CUDA_ALLOC_CONF=expandable_segments:False\n", c);

	snprintf(f->mooncake.version, sizeof f->mooncake.version, "0.3.13");
	return f;
}

/* A RoCE LAG bond with MC_GID_INDEX unset (hit) or set (near miss). */
static struct probe_facts *fx_mc_bond_gid(int hit, struct check_context *c)
{
	(void)c;
	return mooncake_pod("0.3.12", "mlx5_bond_0", PROBE_LL_ETH, hit ? "" : "MC_GID_INDEX=3\n");
}

/* An EFA pod of the PyPI wheel (hit) or the EFA build (near miss). */
static struct probe_facts *fx_mc_wheel_efa(int hit, struct check_context *c)
{
	struct probe_facts *f = efa_pod("0.9.0", "UCX", 0, c);

	snprintf(f->mooncake.dist, sizeof f->mooncake.dist, "%s",
		 hit ? "mooncake_transfer_engine_cuda13-0.3.10.post2.dist-info" :
		 "mooncake_transfer_engine_efa_cuda13-0.3.10.post2.dist-info");
	snprintf(f->mooncake.version, sizeof f->mooncake.version, "0.3.10.post2");
	f->mooncake.ndists = 1;
	return f;
}

/* Prefill and decode on one node (hit) or two (near miss). */
static struct probe_facts *fx_concurrent_agents(int hit, struct check_context *c)
{
	struct probe_facts *f = base_pod("mlx5_0", PROBE_LL_IB, "");

	nixl_ver(f, NULL, "0.10.1");
	c->nixl_backend = "UCX";
	c->kv_cross_node = !hit;
	return f;
}

/* TensorRT-LLM's KVCacheManagerV2 on x86_64 with prefill and decode on
 * one node: UCX 1.21.1 (hit) or 1.22.0 (near miss, PR #18347's UCX). */
static struct probe_facts *fx_trt_kv_v2(int hit, struct check_context *c)
{
	struct probe_facts *f = base_pod("mlx5_0", PROBE_LL_IB, "");

	ucx_ver(f, hit ? "1.21.1" : "1.22.0");
	set_ok(&f->trtllm_engine.src);
	f->trtllm_engine.state = PROBE_ENGINE_OK;
	f->trtllm_engine.kv_manager_v2 = 1;
	c->kv_cross_node = 0;
	return f;
}

/* Mooncake on a GB200 tray (/proc/cpuinfo's Features) without (hit) or with (near
 * miss) a custom topology file. */
static struct probe_facts *fx_mc_gb200_numa(int hit, struct check_context *c)
{
	struct probe_facts *f = mooncake_pod("0.3.12", "mlx5_0", PROBE_LL_IB,
					     hit ? "" : "MC_CUSTOM_TOPO_JSON=/etc/mooncake/topo.json\n");

	(void)c;
	f->vm.cpu_arm64 = 1;
	f->vm.cpu_hypervisor = -1;
	return f;
}

/* An EFA pod on kernel 5.10 with the modules read: efa_nv_peermem not
 * loaded (hit) or loaded (near miss); nvidia_peermem not loaded. */
static struct probe_facts *fx_efa_old_kernel(int hit, struct check_context *c)
{
	struct probe_facts *f = efa_pod("1.2.0", "LIBFABRIC", 0, c);

	set_ok(&f->kernel.src);
	snprintf(f->kernel.release, sizeof f->kernel.release, "5.10.230-223.885.amzn2.x86_64");
	f->kernel.major = 5;
	f->kernel.minor = 10;
	set_ok(&f->modules.proc_src);
	f->modules.loaded[PROBE_MOD_EFA] = 1;
	set_ok(&f->versions.src);
	f->versions.efa_nv_peermem = hit ? PROBE_MODSTATE_ABSENT : PROBE_MODSTATE_LOADED;
	return f;
}

static const struct { const char *id; fixture fx; } fixtures[] = {
	{ "nixl-1668-ucx120-concurrent-agents", fx_concurrent_agents },
	{ "libfabric-12019-efa-cuda-mr-aarch64", fx_efa_cuda_mr },
	{ "nixl-1921-efa-fi-more-deadlock", fx_fi_more },
	{ "nixl-1862-efa-small-write-hang", fx_small_write },
	{ "ucx-11955-bond-rc-verbs-ece", fx_bond_ece },
	{ "ucx-11709-gga-lag", fx_gga_lag },
	{ "ucx-11709-gga-lag-unseen", fx_gga_unseen },
	{ "nixl-2266-telemetry-off", fx_telemetry },
	{ "trtllm-9752-nixl-wrapper-api", fx_trt_wrapper },
	{ "nixl-386-ucx-older-than-build", fx_ucx_older },
	{ "nixl-1705-both-cuda-builds", fx_cuda_builds },
	{ "nixl-166-ucx-before-119-efa", fx_ucx_efa_old },
	{ "mooncake-2511-expandable-segments", fx_mc_expandable },
	{ "mooncake-3205-relaxed-ordering-off", fx_mc_relaxed },
	{ "mooncake-efa-expandable-segments", fx_mc_efa_vmm },
	{ "mooncake-bond-gid-auto", fx_mc_bond_gid },
	{ "mooncake-2070-wheel-without-efa", fx_mc_wheel_efa },
	{ "trtllm-17241-kv-v2-no-fabric", fx_trt_kv_v2 },
	{ "mooncake-1974-gb200-nic-per-numa", fx_mc_gb200_numa },
	{ "efa-gpudirect-old-kernel-no-peermem", fx_efa_old_kernel },
};

static fixture fixture_of(const char *id)
{
	for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++)
		if (!strcmp(fixtures[i].id, id))
			return fixtures[i].fx;
	return NULL;
}

/* The column's result on the pod fixture fx builds (hit or near miss),
 * its detail into why. */
static int judge(fixture fx, int hit, const char *column, char *why, size_t n)
{
	struct check_context c = { .node = "gpu-a2", .role = "decode", .kv_cross_pod = 1,
				   .kv_cross_node = 1, .kv_known = 1, .npods = 2 };
	struct probe_facts *f = fx(hit, &c);
	struct check_results r;
	const struct check_result *res;
	int st;

	check_results_init(&r);
	check_pod(f, NULL, &c, &r);
	res = check_results_find(&r, column);
	st = res ? (int)res->status : -1;
	snprintf(why, n, "%s", res ? res->detail : "(none)");
	check_results_release(&r);
	probe_facts_free(f);
	return st;
}

/* The trigger fires exactly row r (status, effect, source); the near
 * miss fires none. */
static int row_fires(fixture fx, const struct known_row *r, const char *col)
{
	int before = t_fail;
	char why[1024];

	CHECK_INT(judge(fx, 1, col, why, sizeof why), r->fail ? CHECK_FAIL : CHECK_WARN);
	CHECK_HAS(why, r->effect);
	CHECK_HAS(why, r->source);
	CHECK_INT(judge(fx, 0, col, why, sizeof why), CHECK_OK);
	return t_fail == before;
}

static void test_every_row(void)
{
	const struct known_table *t = known_builtin();

	CHECK(t->n >= 20);   /* issue 43's done: at least 20 rows */
	/* and no fixture for a row the table lost */
	for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
		size_t j = 0;

		while (j < t->n && strcmp(t->row[j].id, fixtures[i].id))
			j++;
		if (j == t->n)
			fprintf(stderr, "fixture %s: no such row\n", fixtures[i].id);
		CHECK(j < t->n);
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct known_row *r = &t->row[i];
		fixture fx = fixture_of(r->id);
		const char *col = known_column_name(r->column);

		if (!fx) {
			fprintf(stderr, "row %s: no trigger / near-miss fixture\n", r->id);
			CHECK(fx != NULL);
			continue;
		}
		if (!row_fires(fx, r, col))
			fprintf(stderr, "row %s: its trigger or its near miss judged wrong\n", r->id);
	}
}

/* Text cut by a YAML comment (an unquoted " #" in data/known-issues.yaml)
 * leaves a parenthesis open. */
static int balanced(const char *s)
{
	int depth = 0;

	for (; *s; s++)
		depth += (*s == '(') - (*s == ')');
	return depth == 0;
}

static void test_texts_whole(void)
{
	const struct known_table *t = known_builtin();

	for (size_t i = 0; i < t->n; i++) {
		CHECK(balanced(t->row[i].effect));
		CHECK(balanced(t->row[i].fix));
		CHECK(balanced(t->row[i].source));
	}
}

/* ---- the file format -------------------------------------------------- */

static const char one_row[] =
	"version: 1\n"
	"issues:\n"
	"  - id: my-row\n"
	"    check: nixl-known-bad\n"
	"    versions: {nixl: \"0.9.0-0.9.1\"}\n"
	"    when:\n"
	"      - env-equals: UCX_RNDV_THRESH=0\n"
	"    severity: warn\n"
	"    effect: a local effect\n"
	"    fix: a local fix\n"
	"    paste: UCX_RNDV_THRESH=8192\n"
	"    source: example/repo#1\n"
	"    url: https://example.com/1\n";

static int parse(struct known_table *t, const char *text, char *msg, size_t n)
{
	struct err e;
	int rc;

	err_clear(&e);
	rc = known_table_parse(t, text, strlen(text), "rows.yaml", &e);
	snprintf(msg, n, "%s", rc < 0 ? e.msg : "");
	return rc;
}

static void test_parse_and_merge(void)
{
	struct known_table t = { 0 };
	size_t base;
	char msg[1024];

	known_table_copy_builtin(&t);
	base = t.n;
	CHECK_INT(parse(&t, one_row, msg, sizeof msg), 0);
	CHECK_INT((int)t.n, (int)base + 1);
	CHECK_STR(t.row[base].cond[0].arg, "UCX_RNDV_THRESH=0");
	CHECK_INT(t.row[base].line, 3);
	/* the same id again replaces it */
	CHECK_INT(parse(&t, one_row, msg, sizeof msg), 0);
	CHECK_INT((int)t.n, (int)base + 1);
	known_table_release(&t);
}

/* text with one line replaced: field, line and the words of the error */
static void bad(const char *from, const char *to, const char *want)
{
	struct known_table t = { 0 };
	char text[2048], msg[1024];
	const char *at = strstr(one_row, from);

	CHECK(at != NULL);
	if (!at)
		return;
	snprintf(text, sizeof text, "%.*s%s%s", (int)(at - one_row), one_row, to, at + strlen(from));
	CHECK_INT(parse(&t, text, msg, sizeof msg), -1);
	CHECK_HAS(msg, want);
	CHECK_INT((int)t.n, 0);
	known_table_release(&t);
}

static void test_errors(void)
{
	bad("severity: warn", "severity: bad", "rows.yaml:8: issues[0] (id my-row) severity: must be fail or warn");
	bad("    severity: warn\n", "", "rows.yaml:3: issues[0] (id my-row) severity: missing");
	bad("check: nixl-known-bad", "check: ucx-known-bad", "versions: must give the ucx range");
	bad("{nixl: \"0.9.0-0.9.1\"}", "{nixl: \"latest\"}", "rows.yaml:5: issues[0] (id my-row) versions: ranges must read");
	bad("{nixl:", "{nxl:", "versions: unknown component");
	bad("env-equals: UCX_RNDV_THRESH=0", "env-equal: UCX_RNDV_THRESH=0", "rows.yaml:7: issues[0] (id my-row) when: unknown condition");
	bad("env-equals: UCX_RNDV_THRESH=0", "env-equals: UCX_RNDV_THRESH", "when: malformed argument");
	bad("env-equals: UCX_RNDV_THRESH=0", "case: no-such-case", "when: malformed argument");
	bad("url: https://example.com/1", "url: http://example.com/1", "url: must start with https://");
	bad("    fix: a local fix\n", "    fix: a local fix\n    colour: red\n", "rows.yaml:11: issues[0] (id my-row) colour: unknown field");
	bad("paste: UCX_RNDV_THRESH=8192", "paste: [x]", "rows.yaml:11: issues[0] (id my-row) paste: must be a string");
	bad(one_row + 11, "issues: 3\n", "rows.yaml:2: issues: must be a list");
	bad(one_row, "issues: []\nextra: 1\n", "rows.yaml:2: extra: unknown top-level field");
	bad("    effect: a local effect\n", "    effect: \"a\\u0007b\"\n", "effect: contains a control character");
	bad("  - id: my-row\n", "  - id: \"my row\"\n", "id: only a-z");
	bad("version: 1\n", "version: 1\n  x: [\n", "rows.yaml:2:");
}

/* -o json and -o yaml write what parses back to the same rows. */
static void round_trip(int yaml)
{
	struct known_table a = { 0 }, b = { 0 };
	char *t1 = NULL, *t2 = NULL;
	size_t n1 = 0, n2 = 0;
	FILE *f;
	struct err e;

	known_table_copy_builtin(&a);
	f = open_memstream(&t1, &n1);
	CHECK_INT(known_table_write(f, &a, yaml), 0);
	fclose(f);
	err_clear(&e);
	CHECK_INT(known_table_parse(&b, t1, n1, "-", &e), 0);
	CHECK_INT((int)b.n, (int)a.n);
	f = open_memstream(&t2, &n2);
	CHECK_INT(known_table_write(f, &b, yaml), 0);
	fclose(f);
	CHECK_STR(t2, t1);
	free(t1), free(t2);
	known_table_release(&a), known_table_release(&b);
}

static void test_round_trip(void)
{
	round_trip(0);
	round_trip(1);
}

/* ---- the conditions on the versions section and the engine file ------ */

/* One user row of the nixl-known-bad column (NIXL 1.3.1 matches) with
 * extra versions and one condition, judged on f: the column's status. */
static int user_row(struct probe_facts *f, const char *versions, const char *when)
{
	struct known_table t = { 0 };
	struct check_context c = { .node = "gpu-a2", .role = "decode", .kv_cross_pod = 1,
				   .kv_cross_node = 1, .kv_known = 1, .npods = 2 };
	struct check_results r;
	const struct check_result *res;
	char text[1024], msg[512];
	int st;

	snprintf(text, sizeof text, "version: 1\nissues:\n  - id: u\n    check: nixl-known-bad\n"
		 "    versions: {nixl: \"1.3.0-\"%s}\n    when:\n      - %s\n    severity: fail\n"
		 "    effect: e\n    fix: f\n    source: s/r#1\n    url: https://example.com/1\n",
		 versions, when);
	if (parse(&t, text, msg, sizeof msg) < 0) {
		fprintf(stderr, "user row: %s\n", msg);
		probe_facts_free(f);
		return -2;
	}
	c.known = &t;
	nixl_ver(f, NULL, "1.3.1");
	check_results_init(&r);
	check_pod(f, NULL, &c, &r);
	res = check_results_find(&r, "nixl-known-bad");
	st = res ? (int)res->status : -1;
	check_results_release(&r);
	probe_facts_free(f);
	known_table_release(&t);
	return st;
}

static struct probe_facts *ver_pod(const char *lf, const char *inst, const char *arch, int peermem)
{
	struct probe_facts *f = base_pod("mlx5_0", PROBE_LL_IB, "");

	set_ok(&f->versions.src);
	snprintf(f->versions.libfabric, sizeof f->versions.libfabric, "%s", lf);
	snprintf(f->versions.efa_installer, sizeof f->versions.efa_installer, "%s", inst);
	snprintf(f->versions.arch, sizeof f->versions.arch, "%s", arch);
	f->versions.efa_nv_peermem = (enum probe_modstate)peermem;
	return f;
}

/* /proc/cpuinfo not read. */
static struct probe_facts *unread_cpu(struct probe_facts *f)
{
	f->vm.cpu_hypervisor = -1;
	f->vm.cpu_arm64 = 0;
	return f;
}

static void test_version_conditions(void)
{
	/* libfabric: fi_info --version's, never fi_info -p's provider "version:" */
	struct probe_facts *f = ver_pod("", "", "", 0);

	f->fi.nentries = 1;
	snprintf(f->fi.entry[0].version, sizeof f->fi.entry[0].version, "122.0");
	CHECK_INT(user_row(f, ", libfabric: \"0-\"", "env-unset: NONE_SUCH"), CHECK_OK);
	CHECK_INT(user_row(ver_pod("1.22.0amzn4.0", "", "", 0), ", libfabric: \"1.22.0-2.0.0\"",
			   "env-unset: NONE_SUCH"), CHECK_FAIL);
	CHECK_INT(user_row(ver_pod("2.0.0", "", "", 0), ", libfabric: \"1.22.0-2.0.0\"",
			   "env-unset: NONE_SUCH"), CHECK_OK);
	/* efa-installer */
	CHECK_INT(user_row(ver_pod("", "1.38.0", "", 0), ", efa-installer: \"1.38.0-1.38.1\"",
			   "env-unset: NONE_SUCH"), CHECK_FAIL);
	CHECK_INT(user_row(ver_pod("", "1.38.1", "", 0), ", efa-installer: \"1.38.0-1.38.1\"",
			   "env-unset: NONE_SUCH"), CHECK_OK);
	CHECK_INT(user_row(ver_pod("", "", "", 0), ", efa-installer: \"0-\"",
			   "env-unset: NONE_SUCH"), CHECK_OK);
	/* arch: /proc/cpuinfo where it was read (ver_pod's is x86), else uname -m */
	CHECK_INT(user_row(unread_cpu(ver_pod("", "", "aarch64", 0)), "", "arch: aarch64"), CHECK_FAIL);
	CHECK_INT(user_row(unread_cpu(ver_pod("", "", "aarch64", 0)), "", "arch: arm64"), CHECK_FAIL);
	CHECK_INT(user_row(unread_cpu(ver_pod("", "", "x86_64", 0)), "", "arch: aarch64"), CHECK_OK);
	CHECK_INT(user_row(unread_cpu(ver_pod("", "", "", 0)), "", "arch: x86_64"), CHECK_OK);
	CHECK_INT(user_row(ver_pod("", "", "aarch64", 0), "", "arch: x86_64"), CHECK_FAIL);
	CHECK_INT(user_row(ver_pod("", "", "aarch64", 0), "", "arch: aarch64"), CHECK_OK);
	/* efa_nv_peermem: loaded, read and not loaded, not read */
	CHECK_INT(user_row(ver_pod("", "", "", PROBE_MODSTATE_LOADED), "", "module: efa_nv_peermem"), CHECK_FAIL);
	CHECK_INT(user_row(ver_pod("", "", "", PROBE_MODSTATE_ABSENT), "", "module: efa_nv_peermem"), CHECK_OK);
	CHECK_INT(user_row(ver_pod("", "", "", PROBE_MODSTATE_ABSENT), "", "module-absent: efa_nv_peermem"), CHECK_FAIL);
	CHECK_INT(user_row(ver_pod("", "", "", PROBE_MODSTATE_UNKNOWN), "", "module-absent: efa_nv_peermem"), CHECK_OK);
}

static struct probe_facts *engine_pod(int v2, const char *backend)
{
	struct probe_facts *f = base_pod("mlx5_0", PROBE_LL_IB, "");

	set_ok(&f->trtllm_engine.src);
	f->trtllm_engine.state = PROBE_ENGINE_OK;
	f->trtllm_engine.kv_manager_v2 = v2;
	snprintf(f->trtllm_engine.backend, sizeof f->trtllm_engine.backend, "%s", backend);
	return f;
}

static void test_engine_equals(void)
{
	const char *v2 = "engine-equals: kv_cache_config.use_kv_cache_manager_v2=true";

	CHECK_INT(user_row(engine_pod(1, ""), "", v2), CHECK_FAIL);
	CHECK_INT(user_row(engine_pod(0, ""), "", v2), CHECK_OK);
	CHECK_INT(user_row(engine_pod(-1, ""), "", v2), CHECK_OK);
	CHECK_INT(user_row(engine_pod(0, ""), "",
			   "engine-equals: kv_cache_config.use_kv_cache_manager_v2=false"), CHECK_FAIL);
	CHECK_INT(user_row(engine_pod(-1, "NIXL"), "",
			   "engine-equals: cache_transceiver_config.backend=nixl"), CHECK_FAIL);
	bad("env-equals: UCX_RNDV_THRESH=0", "engine-equals: max_batch_size=8", "when: malformed argument");
	bad("env-equals: UCX_RNDV_THRESH=0", "module: efa_nv_peermemx", "when: malformed argument");
}

int main(void)
{
	test_every_row();
	test_texts_whole();
	test_parse_and_merge();
	test_errors();
	test_round_trip();
	test_version_conditions();
	test_engine_equals();
	return T_DONE("test_known");
}
