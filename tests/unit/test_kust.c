/* src/recipe/kust.c: kustomize overlays rendered as `kustomize build`
 * would for what the recipes use.  The merge on hand-made documents (maps,
 * scalars, null, lists merged by name, other lists replaced), the real
 * cloud-provider overlays of the fixtures (image, EFA resources, env added
 * per service), target selection, a missing component, a cycle. */
#define _XOPEN_SOURCE 700   /* mkdtemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "recipe/internal.h"
#include "recipe/recipe.h"
#include "recipe/ytree.h"
#include "t.h"
#include "util/xalloc.h"

static char g_root[256];

static const char *fixtures(void)
{
	return t_fixtures("recipes");
}

/* Writes text to g_root/rel, making its directories. */
static void put(const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", g_root, rel);
	FILE *f;

	for (char *s = p + strlen(g_root) + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		mkdir(p, 0755);
		*s = '/';
	}
	f = fopen(p, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(p);
}

static const char *str_at(const struct ynode *n, const char *dotted)
{
	const char *dot = strrchr(dotted, '.');
	char *parent;
	const char *v;

	if (!dot)
		return ynode_str(n, dotted);
	parent = xstrndup(dotted, (size_t)(dot - dotted));
	v = ynode_str(ynode_path(n, parent), dot + 1);
	free(parent);
	return v;
}

/* The item of a list named name. */
static const struct ynode *named(const struct ynode *list, const char *name)
{
	for (size_t i = 0; list && list->kind == YNODE_SEQ && i < list->n; i++) {
		const char *n = ynode_str(list->kids[i], "name");

		if (n && !strcmp(n, name))
			return list->kids[i];
	}
	return NULL;
}

static const char *BASE =
	"apiVersion: nvidia.com/v1alpha1\n"
	"kind: DynamoGraphDeployment\n"
	"metadata: {name: g, namespace: ns}\n"
	"spec:\n"
	"  services:\n"
	"    W:\n"
	"      replicas: 1\n"
	"      keep: yes\n"
	"      drop: me\n"
	"      envs: &e\n"
	"        - {name: A, value: '1'}\n"
	"        - {name: B, value: '2'}\n"
	"      extraPodSpec:\n"
	"        mainContainer:\n"
	"          args: [x, y]\n"
	"          env: *e\n"
	"---\n"
	"apiVersion: nvidia.com/v1beta1\n"
	"kind: DynamoGraphDeployment\n"
	"metadata: {name: h}\n"
	"spec:\n"
	"  components:\n"
	"    - name: prefill\n"
	"      type: prefill\n"
	"      podTemplate:\n"
	"        spec:\n"
	"          containers:\n"
	"            - {name: main, image: a, env: [{name: X, value: '1'}]}\n"
	"    - {name: decode, type: decode}\n";

static const char *PATCH =
	"apiVersion: nvidia.com/v1alpha1\n"
	"kind: DynamoGraphDeployment\n"
	"metadata: {name: g}\n"
	"spec:\n"
	"  services:\n"
	"    W:\n"
	"      replicas: 2\n"
	"      drop: null\n"
	"      envs: [{name: B, value: '3'}, {name: C, value: '4'}]\n"
	"      extraPodSpec: {mainContainer: {args: [z]}}\n"
	"---\n"
	"kind: DynamoGraphDeployment\n"
	"metadata: {name: h}\n"
	"spec:\n"
	"  components:\n"
	"    - name: prefill\n"
	"      podTemplate:\n"
	"        spec:\n"
	"          containers: [{name: main, env: [{name: UCX_TLS, value: rc}]}]\n";

static void test_merge(void)
{
	struct ytree_docs d;
	const struct ynode *g, *h, *w, *envs, *args, *cs, *main_c;

	CHECK_INT(recipe_kust_patch_text(BASE, strlen(BASE), PATCH, strlen(PATCH), &d), 0);
	CHECK_INT((int)d.n, 2);
	if (d.n != 2)
		goto out;
	g = d.docs[0].root, h = d.docs[1].root;
	w = ynode_path(g, "spec.services.W");
	CHECK_STR(ynode_str(w, "replicas"), "2");           /* scalar replaced */
	CHECK_STR(ynode_str(w, "keep"), "yes");              /* map merged */
	CHECK(ynode_get(w, "drop") == NULL);                 /* null deletes */
	CHECK_STR(str_at(g, "metadata.namespace"), "ns");
	envs = ynode_get(w, "envs");                         /* named: merged */
	CHECK_INT((int)envs->n, 3);
	CHECK_STR(ynode_str(named(envs, "A"), "value"), "1");
	CHECK_STR(ynode_str(named(envs, "B"), "value"), "3");
	CHECK_STR(ynode_str(named(envs, "C"), "value"), "4");
	/* the alias was expanded: the container's copy is untouched */
	CHECK_INT((int)ynode_get(ynode_path(w, "extraPodSpec.mainContainer"), "env")->n, 2);
	args = ynode_get(ynode_path(w, "extraPodSpec.mainContainer"), "args");
	CHECK_INT((int)args->n, 1);                          /* unnamed: replaced */
	CHECK_STR(args->kids[0]->value, "z");
	/* v1beta1 components[] and containers[] merge by name */
	cs = ynode_get(ynode_get(h, "spec"), "components");
	CHECK_INT((int)cs->n, 2);
	CHECK_STR(ynode_str(named(cs, "prefill"), "type"), "prefill");
	main_c = named(ynode_path(named(cs, "prefill"), "podTemplate.spec"), "main");
	main_c = named(ynode_get(ynode_path(named(cs, "prefill"), "podTemplate.spec"),
				 "containers"), "main");
	CHECK_STR(ynode_str(main_c, "image"), "a");
	CHECK(named(ynode_get(main_c, "env"), "X") != NULL);
	CHECK_STR(ynode_str(named(ynode_get(main_c, "env"), "UCX_TLS"), "value"), "rc");
	CHECK_STR(ynode_str(named(cs, "decode"), "type"), "decode");
out:
	ytree_docs_free(&d);
	CHECK_INT(recipe_kust_patch_text("a: [", 4, "", 0, &d), -1);
}

static const struct recipe_component *comp(const struct recipe_set *s, const char *file_end,
					   const char *name)
{
	for (size_t i = 0; i < s->n; i++) {
		size_t fl = strlen(s->comps[i].file), el = strlen(file_end);

		if (fl >= el && !strcmp(s->comps[i].file + fl - el, file_end) &&
		    !strcmp(s->comps[i].name, name))
			return &s->comps[i];
	}
	return NULL;
}

static void test_fixture_overlays(void)
{
	const char *fx = fixtures();
	char *dir, **notes = NULL;
	size_t nnotes = 0;
	struct recipe_set s;
	struct ytree_docs d;
	struct err e;
	const struct ynode *dgd = NULL, *pw;
	const struct recipe_component *c;

	CHECK(fx != NULL);
	if (!fx)
		return;
	dir = xasprintf("%s/qwen3-32b/vllm/cloud-providers/kustomize/overlays/aws-p5.48xlarge", fx);
	memset(&s, 0, sizeof s);
	CHECK_INT(recipe_kust_build(dir, &s, &d, &notes, &nnotes), 0);
	CHECK_INT((int)nnotes, 0);
	CHECK_INT((int)s.nerrors, 0);
	for (size_t i = 0; i < d.n; i++)
		if (d.docs[i].root && ynode_str(d.docs[i].root, "kind") &&
		    !strcmp(ynode_str(d.docs[i].root, "kind"), "DynamoGraphDeployment"))
			dgd = d.docs[i].root;
	CHECK(dgd != NULL);
	/* the patches carry their own metadata.name; the resource keeps its */
	CHECK_STR(str_at(dgd, "metadata.name"), "q32b-1p1d-cloud-provider");
	pw = ynode_path(dgd, "spec.services.PrefillWorker");
	/* vllm-efa-runtime swaps the image */
	CHECK_STR(str_at(pw, "extraPodSpec.mainContainer.image"),
		  "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.1.1-efa-amd64");
	/* aws-efa-p16d16 (outside the recipe, under recipes/kustomize) adds EFA */
	CHECK_STR(ynode_str(ynode_path(pw, "resources.limits.custom"), "vpc.amazonaws.com/efa"),
		  "16");
	ytree_docs_free(&d);
	free(notes);
	recipe_set_release(&s);
	free(dir);

	/* The whole cloud-providers kustomize dir: one FILE per overlay. */
	dir = xasprintf("%s/qwen3-32b/vllm/cloud-providers/kustomize", fx);
	memset(&s, 0, sizeof s);
	err_clear(&e);
	CHECK_INT(recipe_load_path(dir, &s, &e), 0);
	recipe_judge(&s);
	CHECK_INT((int)s.nerrors, 0);
	CHECK_INT((int)s.n, 15);   /* 5 overlays x Frontend, PrefillWorker, DecodeWorker */
	for (size_t i = 0; i < s.n; i++) {
		CHECK(strstr(s.comps[i].file, "/overlays/") != NULL);
		CHECK(strstr(s.comps[i].file, "patch-dgd") == NULL);
		CHECK_STR(s.comps[i].graph, "q32b-1p1d-cloud-provider");
	}
	c = comp(&s, "overlays/aws-p5.48xlarge", "DecodeWorker");
	CHECK(c && c->fabric == RECIPE_FAB_EFA);
	CHECK_STR(c ? recipe_env_get(c, "FI_PROVIDER") : NULL, "efa");
	/* nebius-ib: UCX_RNDV_THRESH on DecodeWorker only (the base's env
	 * anchor is not shared after the patch) */
	c = comp(&s, "overlays/nebius-ib", "DecodeWorker");
	CHECK_STR(c ? recipe_env_get(c, "UCX_RNDV_THRESH") : NULL, "8192");
	CHECK(c && c->fabric == RECIPE_FAB_IB);
	c = comp(&s, "overlays/nebius-ib", "PrefillWorker");
	CHECK(c && recipe_env_get(c, "UCX_RNDV_THRESH") == NULL);
	/* nscale-ib: the shared component's devices and the local
	 * nscale-gpu-memory entry, merged into one env list */
	c = comp(&s, "overlays/nscale-ib", "PrefillWorker");
	CHECK_STR(c ? recipe_env_get(c, "UCX_NET_DEVICES") : NULL,
		  "mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_10:1,mlx5_11:1");
	CHECK(c && c->fabric == RECIPE_FAB_IB);
	recipe_set_release(&s);
	free(dir);
}

static int has_finding(const struct recipe_component *c, const char *text)
{
	for (size_t i = 0; c && i < c->nfindings; i++)
		if (c->findings[i].status == RECIPE_WARN && strstr(c->findings[i].detail, text) &&
		    c->findings[i].remedy)
			return 1;
	return 0;
}

static const char *DGD2 =
	"apiVersion: nvidia.com/v1alpha1\n"
	"kind: DynamoGraphDeployment\n"
	"metadata: {name: one}\n"
	"spec: {services: {W: {componentType: worker, envs: [{name: UCX_TLS, value: rc}]}}}\n"
	"---\n"
	"apiVersion: nvidia.com/v1alpha1\n"
	"kind: DynamoGraphDeployment\n"
	"metadata: {name: two}\n"
	"spec: {services: {W: {componentType: worker, envs: [{name: UCX_TLS, value: rc}]}}}\n";

static void test_targets(void)
{
	char *dir;
	struct recipe_set s;
	struct err e;
	const struct recipe_component *c1 = NULL, *c2 = NULL;

	put("t/base/kustomization.yaml", "resources: [deploy.yaml]\n");
	put("t/base/deploy.yaml", DGD2);
	put("t/ov/kustomization.yaml",
	    "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
	    "resources: [../base]\n"
	    "components: [../comp, ../../nowhere/aws-efa]\n"
	    "patches:\n"
	    "  - path: p-one.yaml\n"
	    "    target: {group: nvidia.com, version: v1alpha1, kind: DynamoGraphDeployment, name: one}\n"
	    "  - path: p-two.yaml\n"
	    "  - path: missing.yaml\n"
	    "  - path: p-two.yaml\n    target: {labelSelector: app=x}\n"
	    "  - patch: |\n"
	    "      kind: DynamoGraphDeployment\n"
	    "      metadata: {name: one}\n"
	    "      spec: {services: {W: {envs: [{name: NIXL_LOG_LEVEL, value: DEBUG}]}}}\n");
	put("t/ov/p-one.yaml", "kind: DynamoGraphDeployment\nmetadata: {name: other}\n"
	    "spec: {services: {W: {envs: [{name: UCX_TLS, value: tcp}]}}}\n");
	put("t/ov/p-two.yaml", "kind: DynamoGraphDeployment\nmetadata: {name: two}\n"
	    "spec: {services: {W: {envs: [{name: UCX_NET_DEVICES, value: mlx5_0:1}]}}}\n");
	put("t/comp/kustomization.yaml", "kind: Component\npatches:\n"
	    "  - target: {kind: Dynamo.*, name: 't.o'}\n    path: p.yaml\n");
	put("t/comp/p.yaml", "kind: DynamoGraphDeployment\nmetadata: {name: x}\n"
	    "spec: {services: {W: {envs: [{name: UCX_IB_ADDR_TYPE, value: ib_global}]}}}\n");
	dir = xasprintf("%s/t", g_root);
	memset(&s, 0, sizeof s);
	err_clear(&e);
	CHECK_INT(recipe_load_path(dir, &s, &e), 0);
	recipe_judge(&s);
	CHECK_INT((int)s.nerrors, 0);
	CHECK_INT((int)s.n, 2);   /* base and comp are included: not entries */
	for (size_t i = 0; i < s.n; i++) {
		CHECK(strstr(s.comps[i].file, "/t/ov") != NULL);
		if (!strcmp(s.comps[i].graph, "one"))
			c1 = &s.comps[i];
		if (!strcmp(s.comps[i].graph, "two"))
			c2 = &s.comps[i];
	}
	CHECK_STR(c1 ? recipe_env_get(c1, "UCX_TLS") : NULL, "tcp");   /* target name */
	CHECK(c1 && recipe_env_get(c1, "UCX_NET_DEVICES") == NULL);
	CHECK(c1 && recipe_env_get(c1, "UCX_IB_ADDR_TYPE") == NULL);   /* regex t.o */
	CHECK_STR(c2 ? recipe_env_get(c2, "UCX_TLS") : NULL, "rc");
	CHECK_STR(c2 ? recipe_env_get(c2, "UCX_NET_DEVICES") : NULL, "mlx5_0:1"); /* own name */
	CHECK_STR(c2 ? recipe_env_get(c2, "UCX_IB_ADDR_TYPE") : NULL, "ib_global");
	CHECK(has_finding(c1, "component ../../nowhere/aws-efa not found: its patches are not applied"));
	CHECK(has_finding(c2, "patch missing.yaml not found"));
	CHECK(has_finding(c2, "patch p-two.yaml: a target by label or annotation selector"));
	CHECK_STR(c1 ? recipe_env_get(c1, "NIXL_LOG_LEVEL") : NULL, "DEBUG");   /* inline */
	CHECK(c2 && recipe_env_get(c2, "NIXL_LOG_LEVEL") == NULL);
	recipe_set_release(&s);
	free(dir);
}

static void test_cycle(void)
{
	char *dir;
	struct recipe_set s;
	struct err e;
	int said = 0;

	put("c/a/kustomization.yaml", "resources: [../b, d.yaml]\n");
	put("c/a/d.yaml", DGD2);
	put("c/b/kustomization.yaml", "resources: [../a]\n");
	put("c/top/kustomization.yaml", "resources: [../a]\n");
	put("c/self/kustomization.yaml", "components: [.]\nkind: Kustomization\n");
	dir = xasprintf("%s/c", g_root);
	memset(&s, 0, sizeof s);
	err_clear(&e);
	CHECK_INT(recipe_load_path(dir, &s, &e), 0);
	for (size_t i = 0; i < s.nerrors; i++)
		said += strstr(s.errors[i], "kustomization cycle") != NULL;
	for (size_t i = 0; said < 2 && i < s.nerrors; i++)
		fprintf(stderr, "%s\n", s.errors[i]);
	CHECK(said >= 2);   /* top -> a -> b -> a, and self */
	CHECK_INT((int)s.n, 0);
	recipe_set_release(&s);
	free(dir);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(g_root, sizeof g_root, "%s/test_kust.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(g_root)) {
		perror("mkdtemp");
		return 2;
	}
	test_merge();
	test_fixture_overlays();
	test_targets();
	test_cycle();
	{
		/* test cleanup only; the library never shells out */
		char *cmd = xasprintf("rm -rf '%s'", g_root);

		if (system(cmd) != 0)
			fprintf(stderr, "cleanup of %s failed\n", g_root);
		free(cmd);
	}
	return T_DONE("test_kust");
}
