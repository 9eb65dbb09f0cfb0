/* Recipe files -> DynamoGraphDeployment components with their effective
 * transport env (dynamo.md §1.3-1.6).  Both schemas, merged in the
 * operator's order: graph < service < main container < shell exports. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/role.h"
#include "model/vocab.h"
#include "recipe/internal.h"
#include "recipe/recipe.h"
#include "recipe/ytree.h"
#include "util/buf.h"
#include "util/xalloc.h"

#define MAX_DIR_DEPTH 32

/* ------------------------------------------------------------------ env */

static int transport_name(const char *name)
{
	return name && model_env_allowed(name, strlen(name));
}

/* valueFrom as where it comes from; never the referenced data. */
static void value_from(const struct ynode *vf, char *out, size_t n)
{
	const struct ynode *r;

	if ((r = ynode_get(vf, "secretKeyRef")))
		snprintf(out, n, "<from secret %s>", ynode_str(r, "name") ? ynode_str(r, "name") : "?");
	else if ((r = ynode_get(vf, "configMapKeyRef")))
		snprintf(out, n, "<from configmap %s>", ynode_str(r, "name") ? ynode_str(r, "name") : "?");
	else if ((r = ynode_get(vf, "fieldRef")))
		snprintf(out, n, "<field %s>", ynode_str(r, "fieldPath") ? ynode_str(r, "fieldPath") : "?");
	else if ((r = ynode_get(vf, "resourceFieldRef")))
		snprintf(out, n, "<resource %s>", ynode_str(r, "resource") ? ynode_str(r, "resource") : "?");
	else
		snprintf(out, n, "<valueFrom>");
}

/* Framework switches that live in env but are not transport-prefixed. */
static void env_kv_hint(struct recipe_component *c, const char *name, const char *value)
{
	if (!value)
		return;
	if (!strcmp(name, "SGLANG_DISAGGREGATION_NIXL_BACKEND"))
		recipe_kv_add(c, "sglang nixl backend=%s", value);
	else if (!strcmp(name, "TRTLLM_NIXL_KVCACHE_BACKEND"))
		recipe_kv_add(c, "trtllm nixl backend=%s", value);
	else if (!strcmp(name, "SGLANG_MOONCAKE_CUSTOM_MEM_POOL"))
		recipe_kv_add(c, "sglang mooncake mem-pool=%s", value);
	else if (!strncmp(name, "DYN_KVBM_NIXL_BACKEND_", 22) && strcmp(value, "false") &&
		 strcmp(value, "0"))
		recipe_kv_add(c, "kvbm backend=%s", name + 22);
}

static void env_list(struct recipe_component *c, const struct ynode *list,
		     enum recipe_src src)
{
	char buf[300];

	if (!list || list->kind != YNODE_SEQ)
		return;
	for (size_t i = 0; i < list->n; i++) {
		const struct ynode *it = list->kids[i];
		const char *name = ynode_str(it, "name"), *v = ynode_str(it, "value");
		const struct ynode *vf = ynode_get(it, "valueFrom");

		if (!name)
			continue;
		env_kv_hint(c, name, v);
		if (v && !vf && c->nplain < 4096) {
			ALLOC_GROW(c->plain, c->nplain + 1, c->plain_alloc);
			c->plain[c->nplain++] = xasprintf("%s=%s", name, v);
		}
		if (!transport_name(name))
			continue;
		if (vf && vf->kind == YNODE_MAP) {
			value_from(vf, buf, sizeof buf);
			recipe_env_set(c, name, buf, src, 1);
		} else {
			recipe_env_set(c, name, v ? v : "", src, 0);
		}
	}
}

static void secret_add(struct recipe_component *c, const char *name)
{
	if (!name)
		return;
	for (size_t i = 0; i < c->nsecrets; i++)
		if (!strcmp(c->secrets[i], name))
			return;
	ALLOC_GROW(c->secrets, c->nsecrets + 1, c->secrets_alloc);
	c->secrets[c->nsecrets++] = xstrdup(name);
}

static void env_from(struct recipe_component *c, const struct ynode *list)
{
	if (!list || list->kind != YNODE_SEQ)
		return;
	for (size_t i = 0; i < list->n; i++)
		secret_add(c, ynode_str(ynode_get(list->kids[i], "secretRef"), "name"));
}

static int env_cmp(const void *a, const void *b)
{
	return strcmp(((const struct recipe_env *)a)->name, ((const struct recipe_env *)b)->name);
}

/* ------------------------------------------------------------- context */

/* What a document's neighbours in the same file contribute. */
struct file_ctx {
	const char *file;
	const struct ytree_doc *docs;
	size_t ndocs;
};

static const char *doc_kind(const struct ynode *root)
{
	return ynode_str(root, "kind");
}

/* A ConfigMap of this file named name, or NULL. */
static const struct ynode *configmap(const struct file_ctx *f, const char *name)
{
	for (size_t i = 0; i < f->ndocs; i++) {
		const struct ynode *r = f->docs[i].root;
		const char *k = doc_kind(r), *n = ynode_str(ynode_get(r, "metadata"), "name");

		if (k && n && !strcmp(k, "ConfigMap") && !strcmp(n, name))
			return r;
	}
	return NULL;
}

/* The claim-template name of a ComputeDomain of this file. */
static int computedomain_template(const struct file_ctx *f, const char *name)
{
	for (size_t i = 0; i < f->ndocs; i++) {
		const struct ynode *r = f->docs[i].root;
		const char *k = doc_kind(r);
		const char *t = ynode_str(ynode_path(r, "spec.channel.resourceClaimTemplate"), "name");

		if (k && !strcmp(k, "ComputeDomain") && t && !strcmp(t, name))
			return 1;
	}
	return 0;
}

/* ------------------------------------------------------ subtree walks */

struct walk {
	const struct file_ctx *f;
	struct recipe_component *c;
	const struct ynode **cms;       /* ConfigMaps referenced by the component */
	size_t ncms, cms_alloc;
};

static void fabric_key(struct walk *w, const char *key, const struct ynode *val)
{
	const char *v = val->kind == YNODE_SCALAR ? val->value : NULL;

	/* RDMA verbs devices, InfiniBand or RoCE alike; GKE's GPU RDMA
	 * networks (networking.gke.io.networks/rdma-N) are RoCE v2: Google
	 * Cloud's RDMA network profile (cloud.google.com/vpc/docs/
	 * rdma-network-profiles: MRDMA ConnectX-7 NICs, "RDMA over converged
	 * ethernet v2 (RoCE v2)"). */
	if (model_rdma_resource_name(key))
		w->c->fabric |= RECIPE_FAB_IB |
			(!strncmp(key, "networking.gke.io.networks/", 27) ? RECIPE_FAB_ROCE : 0);
	else if (!strcmp(key, "vpc.amazonaws.com/efa"))
		w->c->fabric |= RECIPE_FAB_EFA;
	else if (!strcmp(key, "nvidia.com/gpu.product") && v && (strstr(v, "GB200") || strstr(v, "GB300")))
		w->c->node_gpus = 4;
	else if ((!strcmp(key, "nvidia.com/gpu") || !strcmp(key, "gpu")) && v) {
		/* the GPUs of one pod, for tensor parallelism (checks.md J7) */
		char *end;
		long g = strtol(v, &end, 10);

		if (!*end && g > w->c->gpus && g < 1024)
			w->c->gpus = g;
	}
	else if (v && (!strcmp(key, "resourceClaimTemplateName") || !strcmp(key, "deviceClassName"))) {
		if (strstr(v, "compute-domain") || strstr(v, "cd-channel") ||
		    computedomain_template(w->f, v)) {
			w->c->fabric |= RECIPE_FAB_MNNVL;
			if (!w->c->cd)
				w->c->cd = xstrdup(v);
		}
		else if (strstr(v, "rdma"))
			w->c->fabric |= RECIPE_FAB_IB;   /* DRA RDMA claim (dranet) */
	}
}

static void cm_ref(struct walk *w, const char *s)
{
	const struct ynode *cm = configmap(w->f, s);

	if (!cm)
		return;
	for (size_t i = 0; i < w->ncms; i++)
		if (w->cms[i] == cm)
			return;
	ALLOC_GROW(w->cms, w->ncms + 1, w->cms_alloc);
	w->cms[w->ncms++] = cm;
}

/* An NVLink clique pinned: a node-affinity key or nodeSelector key, or a
 * podAffinity topologyKey (GPU Feature Discovery's nvidia.com/gpu.clique). */
static void clique_word(struct walk *w, const char *s)
{
	if (!strcmp(s, "nvidia.com/gpu.clique"))
		w->c->clique = 1;
}

/* Depth is bounded by the parser's cap and size by the alias-expansion
 * cap, so plain recursion is safe here. */
static void walk(struct walk *w, const struct ynode *n)
{
	if (n->kind == YNODE_SCALAR) {
		clique_word(w, n->value);
		if (*n->value && strlen(n->value) < 254)
			cm_ref(w, n->value);
		return;
	}
	for (size_t i = 0; i < n->n; i++) {
		if (n->kind == YNODE_MAP && i % 2 == 0) {
			if (n->kids[i]->kind == YNODE_SCALAR && i + 1 < n->n) {
				clique_word(w, n->kids[i]->value);
				fabric_key(w, n->kids[i]->value, n->kids[i + 1]);
			}
			continue;
		}
		walk(w, n->kids[i]);
	}
}

/* Shell text of command/args: exports and KV backend flags. */
/* One scalar of command/args as `sh -c` reads it: comments are no words
 * (a commented-out connector is no connector). */
static void scan_word(struct recipe_component *c, const char *text)
{
	char *t = model_shell_uncomment(text);

	recipe_scan_shell(c, t);
	recipe_scan_kv(c, t);
	recipe_scan_kv_vars(c, t);
	free(t);
}

static void scan_cmdline(struct recipe_component *c, const struct ynode *n)
{
	if (!n)
		return;
	if (n->kind == YNODE_SCALAR) {
		scan_word(c, n->value);
		return;
	}
	if (n->kind == YNODE_SEQ)
		for (size_t i = 0; i < n->n; i++)
			if (n->kids[i]->kind == YNODE_SCALAR)
				scan_word(c, n->kids[i]->value);
	/* An argv split as "--flag" "value" is joined for the flag scans;
	 * each element read as scan_word reads it. */
	if (n->kind == YNODE_SEQ) {
		struct buf b = BUF_INIT(1u << 20);

		for (size_t i = 0; i < n->n && !b.overflowed; i++)
			if (n->kids[i]->kind == YNODE_SCALAR) {
				char *t = model_shell_uncomment(n->kids[i]->value);

				buf_appends(&b, t);
				buf_appends(&b, " ");
				free(t);
			}
		if (!b.overflowed) {
			recipe_scan_kv(c, buf_str(&b));
			recipe_scan_kv_vars(c, buf_str(&b));
		}
		buf_release(&b);
	}
}

static void scan_configmaps(struct walk *w)
{
	for (size_t i = 0; i < w->ncms; i++) {
		const struct ynode *d = ynode_get(w->cms[i], "data");

		for (size_t j = 1; d && d->kind == YNODE_MAP && j < d->n; j += 2)
			if (d->kids[j]->kind == YNODE_SCALAR)
				recipe_scan_kv(w->c, d->kids[j]->value);
	}
}

/* --------------------------------------------------------- components */

static struct recipe_component *comp_new(struct recipe_set *s, const struct file_ctx *f,
					 const char *graph, const char *name, int line)
{
	struct recipe_component *c;

	ALLOC_GROW(s->comps, s->n + 1, s->comps_alloc);
	c = &s->comps[s->n++];
	memset(c, 0, sizeof *c);
	c->file = xstrdup(f->file);
	c->graph = xstrdup(graph ? graph : "-");
	c->name = xstrdup(name ? name : "-");
	c->line = line;
	c->nodes = 1;
	return c;
}

/* The main container's command and args, blank-joined (caller frees). */
static char *cmd_text(const struct ynode *main_ctr)
{
	static const char *const keys[] = { "command", "args" };
	struct buf b = BUF_INIT(1u << 20);

	for (size_t k = 0; k < 2; k++) {
		const struct ynode *n = ynode_get(main_ctr, keys[k]);

		if (n && n->kind == YNODE_SCALAR)
			buf_appendf(&b, "%s ", n->value);
		for (size_t i = 0; n && n->kind == YNODE_SEQ && i < n->n; i++)
			if (n->kids[i]->kind == YNODE_SCALAR)
				buf_appendf(&b, "%s ", n->kids[i]->value);
	}
	return buf_detach(&b, NULL);
}

/* The role as Dynamo decides it (model/role.h): type and sub-type, else
 * the worker's own command. */
static void set_role(struct recipe_component *c, const char *type, const char *sub,
		     const struct ynode *main_ctr)
{
	char *cmd = cmd_text(main_ctr);

	c->role = xstrdup(model_role(type, sub, cmd));
	free(cmd);
	c->worker = !strcmp(c->role, "worker") || !strcmp(c->role, "prefill") ||
		    !strcmp(c->role, "decode") || !strcmp(c->role, "-");
}

static void set_nodes(struct recipe_component *c, const struct ynode *comp)
{
	const char *nc = ynode_str(ynode_get(comp, "multinode"), "nodeCount");
	char *end;
	long n;

	if (!nc)
		return;
	n = strtol(nc, &end, 10);
	if (end != nc && *end == '\0' && n > 1 && n < 100000)
		c->nodes = (int)n;
}

/* Fabric, referenced ConfigMaps, shell args, KV flags: common to both schemas. */
static void finish(const struct file_ctx *f, struct recipe_component *c,
		   const struct ynode *comp, const struct ynode *main_ctr, const char *fw)
{
	struct walk w = { f, c, NULL, 0, 0 };

	walk(&w, comp);
	if (main_ctr) {
		scan_cmdline(c, ynode_get(main_ctr, "command"));
		scan_cmdline(c, ynode_get(main_ctr, "args"));
	}
	scan_configmaps(&w);
	free(w.cms);
	for (size_t i = 0; i < c->nplain; i++)
		free(c->plain[i]);
	free(c->plain);
	c->plain = NULL, c->nplain = c->plain_alloc = 0;
	c->framework = xstrdup(fw);
	if (c->nenv > 1)
		qsort(c->env, c->nenv, sizeof *c->env, env_cmp);
}

static void dgd_v1alpha1(struct recipe_set *s, const struct file_ctx *f,
			 const struct ynode *root, const char *graph)
{
	const struct ynode *spec = ynode_get(root, "spec");
	const struct ynode *svcs = ynode_get(spec, "services");
	const char *fw = ynode_str(spec, "backendFramework");

	for (size_t i = 0; svcs && svcs->kind == YNODE_MAP && i + 1 < svcs->n; i += 2) {
		const struct ynode *k = svcs->kids[i], *sv = svcs->kids[i + 1];
		const struct ynode *mc = ynode_path(sv, "extraPodSpec.mainContainer");
		struct recipe_component *c;

		if (k->kind != YNODE_SCALAR || sv->kind != YNODE_MAP)
			continue;
		c = comp_new(s, f, graph, k->value, k->line);
		set_role(c, ynode_str(sv, "componentType"), ynode_str(sv, "subComponentType"), mc);
		set_nodes(c, sv);
		env_list(c, ynode_get(spec, "envs"), RECIPE_SRC_GRAPH);
		env_list(c, ynode_get(sv, "envs"), RECIPE_SRC_SERVICE);
		env_list(c, ynode_get(mc, "env"), RECIPE_SRC_CONTAINER);
		secret_add(c, ynode_str(sv, "envFromSecret"));
		env_from(c, ynode_get(mc, "envFrom"));
		finish(f, c, sv, mc, fw);
	}
}

/* containers[name=main], else the only container there is. */
static const struct ynode *main_container(const struct ynode *pod_spec)
{
	const struct ynode *cs = ynode_get(pod_spec, "containers");

	if (!cs || cs->kind != YNODE_SEQ || cs->n == 0)
		return NULL;
	for (size_t i = 0; i < cs->n; i++) {
		const char *n = ynode_str(cs->kids[i], "name");

		if (n && !strcmp(n, "main"))
			return cs->kids[i];
	}
	return cs->n == 1 ? cs->kids[0] : NULL;
}

static void dgd_v1beta1(struct recipe_set *s, const struct file_ctx *f,
			const struct ynode *root, const char *graph)
{
	const struct ynode *spec = ynode_get(root, "spec");
	const struct ynode *comps = ynode_get(spec, "components");
	const char *fw = ynode_str(spec, "backendFramework");

	for (size_t i = 0; comps && comps->kind == YNODE_SEQ && i < comps->n; i++) {
		const struct ynode *cp = comps->kids[i];
		const struct ynode *mc = main_container(ynode_path(cp, "podTemplate.spec"));
		struct recipe_component *c;

		if (cp->kind != YNODE_MAP)
			continue;
		c = comp_new(s, f, graph, ynode_str(cp, "name"), cp->line);
		set_role(c, ynode_str(cp, "type"), NULL, mc);
		set_nodes(c, cp);
		env_list(c, ynode_get(spec, "env"), RECIPE_SRC_GRAPH);
		env_list(c, ynode_get(mc, "env"), RECIPE_SRC_CONTAINER);
		env_from(c, ynode_get(mc, "envFrom"));
		finish(f, c, cp, mc, fw);
	}
}

/* Whether a and b may hand each other KV: other roles, or a role not
 * known (a plain "worker"). */
static int kv_peers(const struct recipe_component *a, const struct recipe_component *b)
{
	int ka = !strcmp(a->role, "prefill") || !strcmp(a->role, "decode");
	int kb = !strcmp(b->role, "prefill") || !strcmp(b->role, "decode");

	return !ka || !kb || strcmp(a->role, b->role);
}

/* KV rides a ComputeDomain only between pods of that one domain: an IMEX
 * channel imports memory exported by its own domain's nodes (NVIDIA
 * dra-driver-nvidia-gpu: one IMEX domain per ComputeDomain).  A prefill
 * and a decode claiming different ComputeDomains (Dynamo's kimi-k3
 * disagg-gb200 recipe: one per role, for NCCL inside the role) move KV
 * over their RDMA NICs, never over NVLink. */
static void mark_cd(struct recipe_set *s, size_t from)
{
	for (size_t i = from; i < s->n; i++)
		for (size_t j = from; j < s->n && s->comps[i].cd; j++)
			if (j != i && s->comps[j].cd && !strcmp(s->comps[i].cd, s->comps[j].cd) &&
			    kv_peers(&s->comps[i], &s->comps[j]))
				s->comps[i].cd_kv = 1;
}

/* prefill + decode in one graph: KV moves between pods. */
static void mark_disagg(struct recipe_set *s, size_t from)
{
	int pre = 0, dec = 0;

	for (size_t i = from; i < s->n; i++) {
		pre |= !strcmp(s->comps[i].role, "prefill");
		dec |= !strcmp(s->comps[i].role, "decode");
	}
	for (size_t i = from; i < s->n; i++)
		s->comps[i].disagg = pre && dec;
	mark_cd(s, from);
}

static void read_doc(struct recipe_set *s, const struct file_ctx *f, const struct ynode *root)
{
	const char *kind = doc_kind(root);
	const char *graph = ynode_str(ynode_get(root, "metadata"), "name");
	const struct ynode *spec = ynode_get(root, "spec");
	size_t from = s->n;

	if (!kind || strcmp(kind, "DynamoGraphDeployment"))
		return;   /* ConfigMap, Job, PVC, ComputeDomain, kustomize: context only */
	/* The shape, not apiVersion, decides: patches may omit it. */
	if (ynode_get(spec, "components"))
		dgd_v1beta1(s, f, root, graph);
	else
		dgd_v1alpha1(s, f, root, graph);
	mark_disagg(s, from);
}

/* --------------------------------------------------------------- files */

int recipe_load_buffer(const char *name, const char *data, size_t len,
		       struct recipe_set *s)
{
	struct ytree_docs d;
	char msg[256];
	int line = 0, col = 0;

	s->files++;
	if (memchr(data, 0, len)) {
		/* libyaml would stop at the NUL; say where it is instead. */
		const char *z = memchr(data, 0, len);
		int l = 1, cc = 1;

		for (const char *p = data; p < z; p++)
			*p == '\n' ? (l++, cc = 1) : cc++;
		recipe_add_error(s, name, l, cc, "control characters are not allowed (binary file?)");
		return -1;
	}
	if (ytree_parse(data, len, &d, &line, &col, msg, sizeof msg) < 0) {
		recipe_add_error(s, name, line, col, msg);
		return -1;
	}
	recipe_read_docs(s, name, d.docs, d.n, NULL, 0);
	ytree_docs_free(&d);
	return 0;
}

void recipe_read_docs(struct recipe_set *s, const char *name, const struct ytree_doc *docs,
		      size_t n, char *const *notes, size_t nnotes)
{
	struct file_ctx f = { name, docs, n };
	size_t from = s->n;

	for (size_t i = 0; i < n; i++)
		if (docs[i].root)
			read_doc(s, &f, docs[i].root);
	for (size_t i = from; i < s->n; i++) {
		struct recipe_component *c = &s->comps[i];

		c->notes = xcalloc(nnotes ? nnotes : 1, sizeof *c->notes);
		for (size_t j = 0; j < nnotes; j++)
			c->notes[c->nnotes++] = xstrdup(notes[j]);
	}
	/* No graph to hang them on: what was not applied is still said. */
	for (size_t j = 0; from == s->n && j < nnotes; j++)
		recipe_add_error(s, name, 1, 1, notes[j]);
}

static void load_file(const char *path, struct recipe_set *s)
{
	struct buf b = BUF_INIT(RECIPE_MAX_FILE);
	struct err e;

	err_clear(&e);
	if (recipe_read_file(path, &b, &e) < 0) {
		s->files++;
		ALLOC_GROW(s->errors, s->nerrors + 1, s->errors_alloc);
		s->errors[s->nerrors++] = xstrdup(e.msg);
	} else {
		recipe_load_buffer(path, buf_str(&b), b.len, s);
	}
	buf_release(&b);
}

static int is_yaml(const char *name)
{
	size_t n = strlen(name);

	return (n > 5 && !strcmp(name + n - 5, ".yaml")) || (n > 4 && !strcmp(name + n - 4, ".yml"));
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* `kustomize build dir` into s: its graphs named dir; what could not be
 * applied is a warning on each of its workers. */
static void kust_render(const char *dir, struct recipe_set *s)
{
	struct ytree_docs d;
	char **notes;
	size_t nnotes;

	if (recipe_kust_build(dir, s, &d, &notes, &nnotes) == 0)
		recipe_read_docs(s, dir, d.docs, d.n, notes, nnotes);
	ytree_docs_free(&d);
	for (size_t i = 0; i < nnotes; i++)
		free(notes[i]);
	free(notes);
}

static void load_dir(const char *dir, struct recipe_set *s, int depth,
		     const struct recipe_kust_tree *kt);

static void load_entry(const char *path, const char *name, struct recipe_set *s, int depth,
		       const struct recipe_kust_tree *kt)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return;
	if (S_ISDIR(st.st_mode))
		load_dir(path, s, depth + 1, kt);
	else if (is_yaml(name) && (S_ISREG(st.st_mode) ||
				   (S_ISLNK(st.st_mode) && stat(path, &st) == 0 && S_ISREG(st.st_mode)))) {
		if (recipe_kust_is_used(kt, path))
			s->files++;   /* read, as part of its kustomization's graph */
		else
			load_file(path, s);
	}
}

static void load_dir(const char *dir, struct recipe_set *s, int depth,
		     const struct recipe_kust_tree *kt)
{
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, alloc = 0;

	if (depth > MAX_DIR_DEPTH || !(d = opendir(dir)))
		return;
	if (recipe_kust_is_entry(kt, dir))
		kust_render(dir, s);
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		ALLOC_GROW(names, n + 1, alloc);
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof *names, name_cmp);
	for (size_t i = 0; i < n; i++) {
		size_t dl = strlen(dir);
		char *p = xasprintf("%s%s%s", dir, dl && dir[dl - 1] == '/' ? "" : "/", names[i]);

		load_entry(p, names[i], s, depth, kt);
		free(p);
		free(names[i]);
	}
	free(names);
}

int recipe_load_path(const char *path, struct recipe_set *s, struct err *e)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return err_set(e, ERR_USAGE, "the path \"%s\" does not exist", path);
	if (S_ISDIR(st.st_mode)) {
		struct recipe_kust_tree *kt = recipe_kust_scan(path);

		load_dir(path, s, 0, kt);
		recipe_kust_tree_free(kt);
	} else
		load_file(path, s);
	return 0;
}

const char *recipe_src_name(enum recipe_src s)
{
	static const char *const n[] = { "graph", "service", "container", "args" };

	return n[s];
}

const char *recipe_status_name(enum recipe_status s)
{
	return s == RECIPE_FAIL ? "fail" : s == RECIPE_WARN ? "warn" : "ok";
}

const char *recipe_fabric_name(unsigned fab, char *out, size_t n)
{
	snprintf(out, n, "%s%s%s%s%s",
		 fab & RECIPE_FAB_IB ? (fab & RECIPE_FAB_ROCE ? "roce" : "infiniband") : "",
		 (fab & RECIPE_FAB_IB) && (fab & ~RECIPE_FAB_IB & 7) ? "+" : "",
		 fab & RECIPE_FAB_EFA ? "efa" : "",
		 (fab & RECIPE_FAB_EFA) && (fab & RECIPE_FAB_MNNVL) ? "+" : "",
		 fab & RECIPE_FAB_MNNVL ? "mnnvl" : "");
	if (!fab)
		snprintf(out, n, "none");
	return out;
}
