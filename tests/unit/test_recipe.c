/* src/recipe: every upstream recipe reads, the transport variables agree
 * with the PyYAML-made cross-check table, and hand-made edge cases (alias
 * bomb, deep nesting, 10 MB, binary, empty, duplicate keys, Secrets). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "recipe/recipe.h"
#include "recipe/ytree.h"
#include "t.h"
#include "util/buf.h"
#include "util/xalloc.h"

#include "recipe_fixture.h"
/* Run from the repository root (make test does); the fixtures live beside
 * it in tests/fixtures/recipes.  A missing tree is a failure, never a skip. */
static const char *fixtures(void)
{
	return t_fixtures("recipes");
}

/* ------------------------------------------------------------ fixtures */

struct rows {
	char **v;
	size_t n;
};

static void rows_add(struct rows *r, char *s)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i], s)) {
			free(s);
			return;
		}
	r->v = xrealloc(r->v, (r->n + 1) * sizeof *r->v);
	r->v[r->n++] = s;
}

static int rows_has(const struct rows *r, const char *s)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i], s))
			return 1;
	return 0;
}

static void rows_free(struct rows *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i]);
	free(r->v);
}

/* "file\tVAR\tvalue" of every env-list entry in the table. */
static void tsv_rows(const char *dir, struct rows *out)
{
	char *path = xasprintf("%s/transport-env-table.tsv", dir), line[8192];
	FILE *f = fopen(path, "r");

	CHECK(f != NULL);
	while (f && fgets(line, sizeof line, f)) {
		char *file = strtok(line, "\t\n"), *yp = strtok(NULL, "\t\n");
		char *var = strtok(NULL, "\t\n"), *val = strtok(NULL, "\n");

		if (!file || !yp || !var || *file == '#' || !strcmp(file, "file"))
			continue;
		/* Shell strings: the table greps VAR=... anywhere, including
		 * `echo "dynamic UCX_NET_DEVICES=${...}"`; we only take
		 * assignments at command position (checked below, by hand). */
		if (strstr(yp, "inline in shell"))
			continue;
		rows_add(out, xasprintf("%s\t%s\t%s", file, var, val ? val : ""));
	}
	if (f)
		fclose(f);
	free(path);
}

/* c's entries in the table's terms, as "file\tNAME\tvalue" rows. */
static void table_rows(const struct recipe_component *c, const char *file, struct rows *out)
{
	for (size_t j = 0; j < c->nenv; j++) {
		const struct recipe_env *v = &c->env[j];
		/* The table covers UCX_/NIXL_/NCCL_/FI_ only; we also keep the
		 * socket-interface and side-channel variables (GLOO_SOCKET_IFNAME,
		 * VLLM_NIXL_SIDE_CHANNEL_*), which it leaves out. */
		if (v->src != RECIPE_SRC_ARGS && (!strncmp(v->name, "UCX_", 4) ||
		    !strncmp(v->name, "NIXL_", 5) || !strncmp(v->name, "NCCL_", 5) ||
		    !strncmp(v->name, "FI_", 3)))
			rows_add(out, xasprintf("%s\t%s\t%s", file, v->name, v->value));
	}
}

static void test_fixtures(void)
{
	const char *dir = fixtures();
	struct recipe_set s;
	struct rows tsv = { 0 }, ours = { 0 };
	struct err e;
	size_t plen, missing = 0, extra = 0;
	clock_t t0;

	CHECK(dir != NULL);
	if (!dir)
		return;
	memset(&s, 0, sizeof s);
	t0 = clock();
	CHECK_INT(recipe_load_path(dir, &s, &e), 0);
	recipe_judge(&s);
	printf("ok fixtures: %zu files, %zu components in %.0f ms\n", s.files, s.n,
	       (double)(clock() - t0) * 1000.0 / CLOCKS_PER_SEC);
	for (size_t i = 0; i < s.nerrors; i++)
		fprintf(stderr, "fixture error: %s\n", s.errors[i]);
	CHECK_INT(s.nerrors, 0);
	CHECK(s.files >= 290);
	CHECK(s.n >= 350);

	plen = strlen(dir) + 1;
	/* The table is per file: a rendered overlay is not one (test_kust
	 * checks those); the files it reads are compared each read alone.
	 * The table is of the 2a6da14c tree (recipes/SOURCE.md): later
	 * snapshots (today-DATE/, test_recipes_today.py) are not in it. */
	for (size_t i = 0; i < s.n; i++)
		if (!strstr(s.comps[i].file, "kustomize/overlays/") &&
		    strncmp(s.comps[i].file + plen, "today-", 6))
			table_rows(&s.comps[i], s.comps[i].file + plen, &ours);
	tsv_rows(dir, &tsv);
	for (size_t i = 0; i < tsv.n; i++) {
		char *file = xstrndup(tsv.v[i], strcspn(tsv.v[i], "\t"));
		char *full = xasprintf("%s/%s", dir, file);
		struct recipe_set one;
		int seen = 0;

		for (size_t j = 0; j < ours.n && !seen; j++)
			seen = !strncmp(ours.v[j], file, strlen(file)) && ours.v[j][strlen(file)] == '\t';
		memset(&one, 0, sizeof one);
		if (strstr(file, "kustomize/") && !seen && recipe_load_path(full, &one, &e) == 0)
			for (size_t j = 0; j < one.n; j++)
				table_rows(&one.comps[j], file, &ours);
		recipe_set_release(&one);
		free(full), free(file);
	}
	CHECK(tsv.n > 300);
	/* Every entry of the table must come out.  The reverse holds too, except
	 * where an effective env cannot show an entry (a graph value overridden
	 * by the container: none in this tree, so the sets are equal). */
	for (size_t i = 0; i < tsv.n; i++)
		if (!rows_has(&ours, tsv.v[i])) {
			fprintf(stderr, "missing vs table: %s\n", tsv.v[i]);
			missing++;
		}
	for (size_t i = 0; i < ours.n; i++)
		if (!rows_has(&tsv, ours.v[i])) {
			fprintf(stderr, "extra vs table: %s\n", ours.v[i]);
			extra++;
		}
	CHECK_INT(missing, 0);
	CHECK_INT(extra, 0);
	rows_free(&tsv);
	rows_free(&ours);

	/* The table's shell rows, by hand: glm-5.2 computes UCX_NET_DEVICES
	 * with nvidia-smi in args and exports it (the table's second row per
	 * component is an echo, not an assignment). */
	for (size_t i = 0; i < s.n; i++)
		if (strstr(s.comps[i].file, "glm-5.2/sglang/disagg-h200-agentic") && s.comps[i].worker) {
			const struct recipe_env *v = env(&s.comps[i], "UCX_NET_DEVICES");
			CHECK(v && v->src == RECIPE_SRC_ARGS && v->dynamic);
		}
	recipe_set_release(&s);
}

/* ------------------------------------------------------------- schemas */

static const char v1alpha1[] =
	"apiVersion: nvidia.com/v1alpha1\n"
	"kind: DynamoGraphDeployment\n"
	"metadata: {name: g}\n"
	"spec:\n"
	"  backendFramework: vllm\n"
	"  envs:\n"
	"  - {name: UCX_TLS, value: tcp}\n"
	"  - name: NCCL_DEBUG\n"
	"    value: WARN\n"
	"  services:\n"
	"    Frontend: {componentType: frontend}\n"
	"    VllmPrefillWorker:\n"
	"      componentType: worker\n"
	"      envFromSecret: hf-token-secret\n"
	"      envs: [{name: UCX_TLS, value: rc}, {name: UCX_LOG_LEVEL, value: info}]\n"
	"      resources: {limits: {custom: {rdma/ib: \"4\"}}}\n"
	"      extraPodSpec:\n"
	"        mainContainer:\n"
	"          env:\n"
	"          - name: UCX_TLS\n"
	"            value: \"rc_x,rc,cuda_copy,cuda_ipc\"\n"
	"          - name: VLLM_NIXL_SIDE_CHANNEL_HOST\n"
	"            valueFrom: {fieldRef: {fieldPath: status.podIP}}\n"
	"          - name: UCX_NET_DEVICES\n"
	"            valueFrom: {secretKeyRef: {name: s1, key: k}}\n"
	"          - {name: HOME_DIR, value: \"${HOME}\"}\n"
	"          args:\n"
	"          - |\n"
	"            export UCX_RNDV_SCHEME=get_zcopy\n"
	"            echo \"UCX_RNDV_THRESH=7\"\n"
	"            python3 -m dynamo.vllm --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_connector_extra_config\":{\"backends\":[\"UCX\"]}}'\n";

static void test_v1alpha1(void)
{
	struct recipe_set s;
	const struct recipe_component *c;
	const struct recipe_env *v;

	CHECK_INT(load(v1alpha1, &s), 0);
	CHECK_INT(s.n, 2);
	c = comp(&s, "VllmPrefillWorker");
	CHECK(c != NULL);
	if (!c)
		goto out;
	/* The name says prefill; componentType says an aggregated worker. */
	CHECK_STR(c->role, "worker");
	CHECK(!comp(&s, "Frontend")->worker);
	CHECK_INT(c->fabric, RECIPE_FAB_IB);
	v = env(c, "UCX_TLS");
	CHECK(v && !strcmp(v->value, "rc_x,rc,cuda_copy,cuda_ipc") && v->src == RECIPE_SRC_CONTAINER);
	v = env(c, "UCX_LOG_LEVEL");
	CHECK(v && v->src == RECIPE_SRC_SERVICE);
	v = env(c, "NCCL_DEBUG");
	CHECK(v && v->src == RECIPE_SRC_GRAPH && !strcmp(v->value, "WARN"));
	CHECK_STR(recipe_env_get(c, "UCX_NET_DEVICES"), "<from secret s1>");
	CHECK(env(c, "HOME_DIR") == NULL);   /* not a transport variable */
	v = env(c, "UCX_RNDV_SCHEME");
	CHECK(v && v->src == RECIPE_SRC_ARGS && !strcmp(v->value, "get_zcopy"));
	CHECK(env(c, "UCX_RNDV_THRESH") == NULL);   /* echoed, not set */
	CHECK_INT(c->nsecrets, 1);
	CHECK_HAS(c->kv, "NixlConnector backends=UCX");
	/* The frontend gets the graph env too. */
	CHECK_STR(recipe_env_get(comp(&s, "Frontend"), "UCX_TLS"), "tcp");
out:
	recipe_set_release(&s);
}

static const char v1beta1[] =
	"apiVersion: nvidia.com/v1beta1\n"
	"kind: DynamoGraphDeployment\n"
	"metadata:\n  name: b\n"
	"spec:\n"
	"  env: [{name: NCCL_IB_DISABLE, value: \"1\"}]\n"
	"  components:\n"
	"  - name: VllmWorkerA\n"
	"    type: prefill\n"
	"    podTemplate:\n"
	"      spec:\n"
	"        containers:\n"
	"        - name: sidecar\n"
	"          env: [{name: UCX_TLS, value: all}]\n"
	"        - name: main\n"
	"          env: &rdma\n"
	"          - name: UCX_TLS\n"
	"            value: tcp,cuda_copy\n"
	"          - name: UCX_NET_DEVICES\n"
	"            value: mlx5_0:x\n"
	"          resources: {limits: {rdma/ib: \"8\"}}\n"
	"  - name: VllmWorkerB\n"
	"    type: decode\n"
	"    podTemplate:\n"
	"      spec:\n"
	"        containers:\n"
	"        - name: main\n"
	"          env: *rdma\n"
	"          args: [\"--disaggregation-transfer-backend\", \"nixl\"]\n"
	"          resources: {limits: {vpc.amazonaws.com/efa: \"4\"}}\n";

static void test_v1beta1(void)
{
	struct recipe_set s;
	const struct recipe_component *a, *b;

	CHECK_INT(load(v1beta1, &s), 0);
	a = comp(&s, "VllmWorkerA"), b = comp(&s, "VllmWorkerB");
	CHECK(a && b);
	if (!a || !b)
		goto out;
	CHECK_STR(a->role, "prefill");
	CHECK_STR(b->role, "decode");
	CHECK(a->disagg && b->disagg);
	CHECK_STR(recipe_env_get(a, "UCX_TLS"), "tcp,cuda_copy");   /* main, not the sidecar */
	CHECK_STR(recipe_env_get(b, "UCX_TLS"), "tcp,cuda_copy");   /* through the alias */
	CHECK_STR(recipe_env_get(b, "NCCL_IB_DISABLE"), "1");
	CHECK(has_finding(a, RECIPE_FAIL, "allows no InfiniBand"));
	CHECK(has_finding(a, RECIPE_FAIL, "NCCL_IB_DISABLE=1"));
	CHECK(has_finding(a, RECIPE_FAIL, "not a device list"));
	CHECK(has_finding(a, RECIPE_WARN, "excludes cuda_ipc"));
	/* UCX_IB_ADDR_TYPE unset is right (issue 38: deprecated since UCX
	 * 1.10, src/uct/ib/base/ib_iface.c; RoCE always global): no finding. */
	CHECK(!has_finding(a, RECIPE_WARN, "UCX_IB_ADDR_TYPE"));
	CHECK_INT(b->fabric, RECIPE_FAB_EFA);
	CHECK(has_finding(b, RECIPE_FAIL, "allows no EFA transport"));
	CHECK(has_finding(b, RECIPE_WARN, "FI_EFA_ENABLE_SHM_TRANSFER not set"));
	CHECK_HAS(b->kv, "sglang transfer-backend=nixl");
	CHECK(recipe_worst(&s) == RECIPE_FAIL);
out:
	recipe_set_release(&s);
}

static void test_tls_rules(void)
{
	static const char *const yaml =
		"kind: DynamoGraphDeployment\nmetadata: {name: x}\nspec:\n  services:\n"
		"    w:\n      componentType: worker\n      subComponentType: decode\n"
		"      resources: {limits: {custom: {rdma/ib: '1'}}}\n"
		"      extraPodSpec: {mainContainer: {env: [\n"
		"        {name: UCX_TLS, value: '^cuda_ipc'}, {name: UCX_IB_ADDR_TYPE, value: eth},\n"
		"        {name: UCX_NET_DEVICES, value: eth0}, {name: FI_EFA_USE_DEVICE_RDMA, value: '0'}]}}\n"
		"    p: {componentType: worker, subComponentType: prefill, resources: {limits: {custom: {rdma/ib: '1'}}},\n"
		"        extraPodSpec: {mainContainer: {env: [{name: UCX_IB_ADDR_TYPE, value: eth}]}}}\n";
	struct recipe_set s;
	const struct recipe_component *w;

	CHECK_INT(load(yaml, &s), 0);
	w = comp(&s, "w");
	CHECK(w != NULL);
	CHECK(!has_finding(w, RECIPE_FAIL, "allows no"));      /* ^ keeps rc */
	CHECK(has_finding(w, RECIPE_WARN, "excludes cuda_ipc"));
	CHECK(has_finding(w, RECIPE_FAIL, "names only network interfaces"));
	CHECK(!has_finding(w, RECIPE_FAIL, "FI_EFA_USE_DEVICE_RDMA"));  /* not on EFA */
	CHECK(!has_finding(w, RECIPE_WARN, "UCX_IB_ADDR_TYPE"));
	CHECK(has_finding(w, RECIPE_WARN, "UCX_TLS differs"));
	recipe_set_release(&s);
}

/* ---------------------------------------------------------- edge cases */

static void test_alias_bomb(void)
{
	static const char bomb[] =
		"a: &a [x, x, x, x, x, x, x, x, x]\n"
		"b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
		"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
		"d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
		"e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
		"f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
		"g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
		"h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n"
		"kind: DynamoGraphDeployment\n";
	struct recipe_set s;

	CHECK_INT(load(bomb, &s), -1);
	CHECK_INT(s.nerrors, 1);
	if (s.nerrors)
		CHECK_HAS(s.errors[0], "t.yaml:7:");   /* where it passed the cap */
	if (s.nerrors)
		CHECK_HAS(s.errors[0], "alias");
	recipe_set_release(&s);
	/* An alias to its own (open) anchor would be a cycle: refused. */
	CHECK_INT(load("a: &x [1, *x]\n", &s), -1);
	recipe_set_release(&s);
}

static void test_deep(void)
{
	struct buf b = BUF_INIT(1u << 20);
	struct recipe_set s;

	for (int i = 0; i < 5000; i++)
		buf_appends(&b, "- ");
	buf_appends(&b, "x\n");
	CHECK_INT(load(buf_str(&b), &s), -1);
	if (s.nerrors)
		CHECK_HAS(s.errors[0], "nesting");
	recipe_set_release(&s);
	buf_reset(&b);
	for (int i = 0; i < 5000; i++)
		buf_appends(&b, "[");
	CHECK_INT(load(buf_str(&b), &s), -1);
	recipe_set_release(&s);
	buf_release(&b);
}

/* 10 MB: a real DGD after a ConfigMap with a big block literal, and a long
 * env list; must read whole and quickly. */
static void test_big(void)
{
	struct buf b = BUF_INIT(32u << 20);
	struct recipe_set s;
	clock_t t0;

	buf_appends(&b, "kind: ConfigMap\nmetadata: {name: big}\ndata:\n  cfg: |\n");
	while (b.len < (9u << 20))
		buf_appends(&b, "    cache_transceiver_config: {backend: UCX} # filler filler filler\n");
	buf_appends(&b, "---\nkind: DynamoGraphDeployment\nmetadata: {name: big}\nspec:\n  services:\n"
		     "    w:\n      componentType: worker\n      volumes: [{configMap: {name: big}}]\n"
		     "      extraPodSpec:\n        mainContainer:\n          env:\n");
	for (int i = 0; b.len < (10u << 20); i++)
		buf_appendf(&b, "          - {name: NCCL_X%d, value: \"%d\"}\n", i, i);
	CHECK(b.len >= (10u << 20));
	t0 = clock();
	CHECK_INT(load(buf_str(&b), &s), 0);
	printf("ok 10 MB file in %.0f ms\n", (double)(clock() - t0) * 1000.0 / CLOCKS_PER_SEC);
	CHECK_INT(s.n, 1);
	if (s.n) {
		CHECK_INT(s.comps[0].nenv, RECIPE_MAX_ENV);
		CHECK_HAS(s.comps[0].kv, "cache_transceiver backend=UCX");
	}
	recipe_set_release(&s);
	buf_release(&b);
}

static void test_garbage(void)
{
	unsigned char junk[4096];
	struct recipe_set s;
	unsigned x = 12345;

	for (size_t i = 0; i < sizeof junk; i++)
		junk[i] = (unsigned char)((x = x * 1103515245u + 12345u) >> 16);
	memset(&s, 0, sizeof s);
	CHECK_INT(recipe_load_buffer("bin.yaml", (const char *)junk, sizeof junk, &s), -1);
	CHECK_INT(s.nerrors, 1);
	if (s.nerrors)
		CHECK_HAS(s.errors[0], "bin.yaml:");
	recipe_set_release(&s);
	/* Without NULs libyaml itself must say where. */
	CHECK_INT(load("a: [1, 2\nb: {\n", &s), -1);
	if (s.nerrors)
		CHECK_HAS(s.errors[0], "t.yaml:");
	recipe_set_release(&s);
	CHECK_INT(load("\xff\xfe\x80garbage: [", &s), -1);
	recipe_set_release(&s);
}

static void test_empty_dup(void)
{
	struct recipe_set s;

	CHECK_INT(load("", &s), 0);
	CHECK_INT(s.n, 0);
	recipe_set_release(&s);
	CHECK_INT(load("---\n---\n# only comments\n...\n", &s), 0);
	CHECK_INT(s.n, 0);
	recipe_set_release(&s);
	/* Duplicate keys: the last wins, as with PyYAML and kubectl's decoder. */
	CHECK_INT(load("kind: Job\nkind: DynamoGraphDeployment\nspec:\n  services:\n"
		       "    w: {componentType: frontend, componentType: worker,\n"
		       "        envs: [{name: UCX_TLS, value: tcp, value: rc}]}\n", &s), 0);
	CHECK_INT(s.n, 1);
	if (s.n) {
		CHECK_STR(s.comps[0].role, "worker");
		CHECK_STR(recipe_env_get(&s.comps[0], "UCX_TLS"), "rc");
	}
	recipe_set_release(&s);
}

#define CANARY "CANARY-d41d8cd98f00b204"

static void test_secret(void)
{
	static const char yaml[] =
		"apiVersion: v1\nkind: Secret\nmetadata: {name: hf}\n"
		"data: {HF_TOKEN: " CANARY "}\nstringData: {UCX_TLS: " CANARY "}\n"
		"---\nkind: DynamoGraphDeployment\nmetadata: {name: g}\nspec:\n  services:\n"
		"    w:\n      componentType: worker\n      envFromSecret: hf\n"
		"      extraPodSpec:\n        mainContainer:\n          env:\n"
		"          - {name: HF_TOKEN, value: " CANARY "}\n"
		"          - {name: NCCL_TOKEN, valueFrom: {secretKeyRef: {name: hf, key: UCX_TLS}}}\n";
	struct recipe_set s;

	CHECK_INT(load(yaml, &s), 0);
	CHECK_INT(s.n, 1);
	for (size_t i = 0; i < s.n; i++) {
		for (size_t j = 0; j < s.comps[i].nenv; j++)
			CHECK(!strstr(s.comps[i].env[j].value, CANARY));
		CHECK(!s.comps[i].kv || !strstr(s.comps[i].kv, CANARY));
		CHECK_STR(recipe_env_get(&s.comps[i], "NCCL_TOKEN"), "<from secret hf>");
	}
	recipe_set_release(&s);
}

static void test_ytree(void)
{
	struct ytree_docs d;
	char msg[128];
	int line, col;

	static const char two[] = "a: {b: [1, \"2\", '3']}\n---\nx: |\n  y\n";

	CHECK_INT(ytree_parse(two, strlen(two), &d, &line, &col,
			      msg, sizeof msg), 0);
	CHECK_INT(d.n, 2);
	if (d.n == 2) {
		CHECK_STR(ynode_path(d.docs[0].root, "a.b")->kids[1]->value, "2");
		CHECK(!ynode_path(d.docs[0].root, "a.b")->kids[1]->plain);
		CHECK_STR(ynode_str(d.docs[1].root, "x"), "y\n");
	}
	ytree_docs_free(&d);
	CHECK_INT(ytree_parse("a: b\n c: d: e\n", 14, &d, &line, &col, msg, sizeof msg), -1);
	CHECK_INT(line, 2);
	CHECK(col > 0);
}

static void test_drift(void)
{
	static const char yaml[] =
		"kind: DynamoGraphDeployment\nmetadata: {name: g}\nspec:\n  services:\n"
		"    w:\n      componentType: worker\n      extraPodSpec: {mainContainer: {env: [\n"
		"        {name: UCX_TLS, value: 'rc,cuda_copy'}, {name: NIXL_TELEMETRY_ENABLE, value: y},\n"
		"        {name: UCX_LOG_LEVEL, value: info}],\n"
		"        args: ['UCX_NET_DEVICES=$(pick) && exec run']}}\n";
	static const struct recipe_kv spec[] = {
		{ "UCX_TLS", "rc,cuda_copy" }, { "UCX_LOG_LEVEL", "info" },
		{ "NIXL_TELEMETRY_ENABLE", "n" },   /* operator default: expected */
	};
	static const struct recipe_kv proc[] = {
		{ "UCX_TLS", "tcp" }, { "NIXL_TELEMETRY_EXPORTER", "prometheus" },
		{ "UCX_NET_DEVICES", "mlx5_3:1" },  /* set at run time: not drift */
		{ "NCCL_IB_DISABLE", "1" },
	};
	struct recipe_set s;
	struct recipe_finding *f = NULL;
	size_t n = 0;

	CHECK_INT(load(yaml, &s), 0);
	CHECK_INT(s.n, 1);
	if (!s.n)
		return;
	recipe_drift(&s.comps[0], spec, 3, 1, proc, 4, 1, &f, &n);
	/* spec agrees; the process has tcp, lacks UCX_LOG_LEVEL, adds NCCL_IB_DISABLE */
	CHECK_INT(n, 3);
	for (size_t i = 0; i < n; i++)
		CHECK(!strstr(f[i].detail, "NIXL_TELEMETRY") && !strstr(f[i].detail, "UCX_NET_DEVICES"));
	if (n == 3) {
		CHECK_HAS(f[1].detail, "recipe sets UCX_TLS=rc,cuda_copy, the running process has tcp");
		CHECK_HAS(f[0].detail, "UCX_LOG_LEVEL=info, the running process has it unset");
		CHECK_HAS(f[2].detail, "NCCL_IB_DISABLE=1, which the recipe does not set");
		/* The env rule book says why a drifted value matters, by the
		 * component's fabric: no IB requested, so NCCL_IB_DISABLE is
		 * no danger here, while tcp without cuda_copy is. */
		CHECK_HAS(f[1].detail, "; the rule book: UCX_TLS=tcp lacks cuda_copy");
		CHECK_HAS(f[1].detail, "(env-ucx-tls)");
		CHECK(!strstr(f[2].detail, "rule book"));
	}
	recipe_findings_free(f, n);
	recipe_set_release(&s);
}

/* GKE's RoCE NICs (networking.gke.io.networks/rdma-N) make the workers
 * RDMA ones, as rdma/ib does. */
static void test_gke_rdma(void)
{
	const char *dir = fixtures();
	char *path = dir ? xasprintf("%s/qwen3-32b/vllm/cloud-providers/deploy-gke-roce.yaml", dir) : NULL;
	struct recipe_set s;
	struct err e;
	size_t workers = 0;

	CHECK(path != NULL);
	if (!path)
		return;
	memset(&s, 0, sizeof s);
	err_clear(&e);
	CHECK_INT(recipe_load_path(path, &s, &e), 0);
	for (size_t i = 0; i < s.n; i++) {
		if (!s.comps[i].worker)
			continue;
		workers++;
		CHECK(s.comps[i].fabric & RECIPE_FAB_IB);
	}
	CHECK_INT(workers, 2);
	recipe_set_release(&s);
	free(path);
}

int main(void)
{
	test_drift();
	test_ytree();
	test_fixtures();
	test_gke_rdma();
	test_v1alpha1();
	test_v1beta1();
	test_tls_rules();
	test_alias_bomb();
	test_deep();
	test_big();
	test_garbage();
	test_empty_dup();
	test_secret();
	return T_DONE("test_recipe");
}
