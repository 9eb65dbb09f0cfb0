/* Kustomize overlays, rendered the way `kustomize build` does for what the
 * Dynamo recipes use (dynamo.md §1.1): resources (files, or directories
 * with a kustomization), components, and strategic-merge patches (path or
 * inline, with an optional target), applied in kustomize's order: a
 * kustomization's resources, then its components in order, then its own
 * patches.
 *
 * The merge follows kyaml (kustomize >= 4) for a kind it has no schema for,
 * which is what a DynamoGraphDeployment is without the CRD's OpenAPI file:
 * maps merge key by key, scalars are replaced, a null deletes the key, a
 * list whose items carry `name` (env, containers, v1beta1 components[])
 * merges item by item on it (new items appended), and any other list is
 * replaced whole (kyaml AssociativeSequenceKeys: "Only infer name as a
 * merge key").  `openapi:`, generators, JSON 6902 patches, remote bases
 * and name prefixes are not applied; JSON 6902 and remote ones are said so.
 *
 * Everything rendered lives in one arena (a struct ytree_docs) per entry
 * point and is freed with it.
 */
#define _XOPEN_SOURCE 700   /* realpath */
#include <dirent.h>
#include <limits.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "recipe/internal.h"
#include "recipe/ytree.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/xalloc.h"

#define KUST_MAX_DEPTH 16          /* kustomizations nested in one render */
#define KUST_MAX_FILES 512         /* files read for one entry point */
#define KUST_MAX_NODES 2000000u    /* nodes copied into one arena */
#define KUST_MAX_TREE 1000         /* kustomizations looked at under a path */

struct strset {
	char **v;
	size_t n, alloc;
};

static int strset_has(const struct strset *s, const char *x)
{
	for (size_t i = 0; x && i < s->n; i++)
		if (!strcmp(s->v[i], x))
			return 1;
	return 0;
}

static void strset_add(struct strset *s, const char *x)
{
	if (!x || strset_has(s, x))
		return;
	ALLOC_GROW(s->v, s->n + 1, s->alloc);
	s->v[s->n++] = xstrdup(x);
}

static void strset_free(struct strset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof *s);
}

/* ---------------------------------------------------------------- merge */

struct arena {
	struct ytree_docs d;    /* one document that owns every copied node */
	int full;               /* KUST_MAX_NODES passed: stop copying */
	int directives;         /* a $patch / $retainKeys ... was skipped */
};

static void arena_init(struct arena *a)
{
	memset(a, 0, sizeof *a);
	a->d.docs = xcalloc(1, sizeof *a->d.docs);
	a->d.n = 1;
}

static struct ynode *arena_node(struct arena *a, const struct ynode *like)
{
	struct ytree_doc *d = &a->d.docs[0];
	struct ynode *n = xcalloc(1, sizeof *n);

	n->kind = like->kind;
	n->plain = like->plain;
	n->line = like->line, n->col = like->col;
	n->weight = 1;
	if (like->kind == YNODE_SCALAR)
		n->value = xstrdup(like->value ? like->value : "");
	ALLOC_GROW(d->all, d->nall + 1, d->capall);
	d->all[d->nall++] = n;
	return n;
}

static void kid_add(struct ynode *p, struct ynode *k)
{
	ALLOC_GROW(p->kids, p->n + 1, p->cap);
	p->kids[p->n++] = k;
}

/* A private, mutable copy of n (aliases expanded); NULL once the arena is
 * full.  Depth is bounded by the parser's cap, size by the weight check. */
static struct ynode *copy(struct arena *a, const struct ynode *n)
{
	struct ynode *c;

	if (a->full || a->d.docs[0].nall + n->weight > KUST_MAX_NODES) {
		a->full = 1;
		return NULL;
	}
	c = arena_node(a, n);
	for (size_t i = 0; i < n->n; i++) {
		struct ynode *k = copy(a, n->kids[i]);

		if (!k)
			return NULL;
		kid_add(c, k);
	}
	c->weight = n->weight;
	return c;
}

static int is_null(const struct ynode *n)
{
	const char *v = n->value;

	return n->kind == YNODE_SCALAR && n->plain &&
	       (!*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
		!strcmp(v, "NULL"));
}

/* Index of key's value in a MAP, or 0 (index 0 is always a key). */
static size_t map_find(const struct ynode *m, const char *key)
{
	for (size_t i = 0; i + 1 < m->n; i += 2)
		if (m->kids[i]->kind == YNODE_SCALAR && !strcmp(m->kids[i]->value, key))
			return i + 1;
	return 0;
}

/* kyaml's inference: a list is merged by name when its items carry one. */
static int named_list(const struct ynode *l)
{
	for (size_t i = 0; i < l->n; i++)
		if (ynode_str(l->kids[i], "name"))
			return 1;
	return 0;
}

static void merge(struct arena *a, struct ynode *dst, const struct ynode *patch);

static void merge_list(struct arena *a, struct ynode *dst, const struct ynode *patch)
{
	for (size_t i = 0; i < patch->n; i++) {
		const struct ynode *pe = patch->kids[i];
		const char *name = ynode_str(pe, "name");
		struct ynode *de = NULL, *c;

		for (size_t j = 0; name && j < dst->n; j++) {
			const char *dn = ynode_str(dst->kids[j], "name");

			if (dn && !strcmp(dn, name))
				de = dst->kids[j];
		}
		if (de && de->kind == YNODE_MAP && pe->kind == YNODE_MAP)
			merge(a, de, pe);
		else if ((c = copy(a, pe)))
			kid_add(dst, c);
	}
}

static void merge(struct arena *a, struct ynode *dst, const struct ynode *patch)
{
	for (size_t i = 0; i + 1 < patch->n && !a->full; i += 2) {
		const struct ynode *k = patch->kids[i], *pv = patch->kids[i + 1];
		size_t at;
		struct ynode *dv, *c;

		if (k->kind != YNODE_SCALAR)
			continue;
		if (k->value[0] == '$') {   /* SMP directives: said, not applied */
			a->directives |= strncmp(k->value, "$setElementOrder", 16) != 0;
			continue;
		}
		at = map_find(dst, k->value);
		dv = at ? dst->kids[at] : NULL;
		if (is_null(pv)) {
			if (at) {
				memmove(&dst->kids[at - 1], &dst->kids[at + 1],
					(dst->n - at - 1) * sizeof *dst->kids);
				dst->n -= 2;
			}
		} else if (dv && dv->kind == YNODE_MAP && pv->kind == YNODE_MAP) {
			merge(a, dv, pv);
		} else if (dv && dv->kind == YNODE_SEQ && pv->kind == YNODE_SEQ && named_list(pv)) {
			merge_list(a, dv, pv);
		} else if ((c = copy(a, pv))) {
			if (at) {
				dst->kids[at] = c;
			} else {
				struct ynode *kc = copy(a, k);

				if (kc)
					kid_add(dst, kc), kid_add(dst, c);
			}
		}
	}
}

/* key: value in map, replacing what is there; value NULL removes it. */
static void set_scalar(struct arena *a, struct ynode *map, const char *key, const char *value)
{
	struct ynode like = { .kind = YNODE_SCALAR, .plain = 0 };
	struct ynode *k, *v;
	size_t at;

	if (!map || map->kind != YNODE_MAP)
		return;
	at = map_find(map, key);
	if (!value) {
		if (at) {
			memmove(&map->kids[at - 1], &map->kids[at + 1],
				(map->n - at - 1) * sizeof *map->kids);
			map->n -= 2;
		}
		return;
	}
	like.value = (char *)value;
	v = arena_node(a, &like);
	if (at) {
		map->kids[at] = v;
		return;
	}
	like.value = (char *)key;
	k = arena_node(a, &like);
	kid_add(map, k), kid_add(map, v);
}

/* kustomize's Resource.ApplySmPatch: a patch never renames its resource
 * nor changes its kind or namespace (a targeted patch often carries
 * another name: the component's own). */
static void merge_resource(struct arena *a, struct ynode *res, const struct ynode *patch)
{
	char *kind = ynode_str(res, "kind") ? xstrdup(ynode_str(res, "kind")) : NULL;
	const struct ynode *md = ynode_get(res, "metadata");
	char *name = ynode_str(md, "name") ? xstrdup(ynode_str(md, "name")) : NULL;
	char *ns = ynode_str(md, "namespace") ? xstrdup(ynode_str(md, "namespace")) : NULL;
	struct ynode *m;

	merge(a, res, patch);
	set_scalar(a, res, "kind", kind);
	m = map_find(res, "metadata") ? res->kids[map_find(res, "metadata")] : NULL;
	set_scalar(a, m, "name", name);
	set_scalar(a, m, "namespace", ns);
	free(kind), free(name), free(ns);
}

/* ------------------------------------------------------------- targets */

/* kustomize's target fields are anchored regular expressions. */
static int field_match(const char *want, const char *have)
{
	regex_t re;
	char *pat;
	int ok;

	if (!want || !*want)
		return 1;
	if (!have)
		return 0;
	pat = xasprintf("^(%s)$", want);
	ok = regcomp(&re, pat, REG_EXTENDED | REG_NOSUB) == 0;
	free(pat);
	if (!ok)
		return !strcmp(want, have);
	ok = regexec(&re, have, 0, NULL, 0) == 0;
	regfree(&re);
	return ok;
}

static int target_match(const struct ynode *t, const struct ynode *res)
{
	const char *av = ynode_str(res, "apiVersion"), *slash = av ? strchr(av, '/') : NULL;
	char group[256] = "";
	const char *version = slash ? slash + 1 : av;

	if (slash)
		snprintf(group, sizeof group, "%.*s", (int)(slash - av), av);
	return field_match(ynode_str(t, "kind"), ynode_str(res, "kind")) &&
	       field_match(ynode_str(t, "name"), ynode_str(ynode_get(res, "metadata"), "name")) &&
	       field_match(ynode_str(t, "namespace"),
			   ynode_str(ynode_get(res, "metadata"), "namespace")) &&
	       field_match(ynode_str(t, "group"), group) &&
	       field_match(ynode_str(t, "version"), version);
}

/* A patch without target names its resource by kind and metadata.name. */
static int self_match(const struct ynode *patch, const struct ynode *res)
{
	const char *pk = ynode_str(patch, "kind"), *rk = ynode_str(res, "kind");
	const char *pn = ynode_str(ynode_get(patch, "metadata"), "name");
	const char *rn = ynode_str(ynode_get(res, "metadata"), "name");

	return pk && rk && pn && rn && !strcmp(pk, rk) && !strcmp(pn, rn);
}

/* ------------------------------------------------------------- render */

struct kctx {
	struct recipe_set *s;
	struct arena a;
	struct ynode **res;     /* rendered resources, in kustomize's order */
	size_t nres, res_alloc;
	struct strset stack;    /* kustomization dirs being rendered (cycles) */
	struct strset notes;    /* what could not be applied */
	int files;
	int failed;             /* an error went to s->errors */
};

static void note(struct kctx *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(struct kctx *k, const char *fmt, ...)
{
	char n[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(n, sizeof n, fmt, ap);
	va_end(ap);
	strset_add(&k->notes, n);
}

/* kustomization.yaml, .yml or Kustomization in dir, or NULL (caller frees). */
static char *kust_file(const char *dir)
{
	static const char *const names[] = { "kustomization.yaml", "kustomization.yml",
					     "Kustomization" };
	struct stat st;

	for (size_t i = 0; i < 3; i++) {
		char *p = xasprintf("%s/%s", dir, names[i]);

		if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
			return p;
		free(p);
	}
	return NULL;
}

/* Parses path; -1 with the error in s->errors. */
static int parse_file(struct kctx *k, const char *path, struct ytree_docs *out)
{
	struct buf b = BUF_INIT(64u << 20);
	struct err e;
	char msg[256];
	int line = 0, col = 0, rc = 0;

	err_clear(&e);
	memset(out, 0, sizeof *out);
	if (++k->files > KUST_MAX_FILES) {
		recipe_add_error(k->s, path, 1, 1, "more than 512 files in one kustomize build");
		rc = -1;
	} else if (recipe_read_file(path, &b, &e) < 0) {
		recipe_add_error(k->s, path, 1, 1, e.msg);
		rc = -1;
	} else if (memchr(buf_str(&b), 0, b.len) ||
		   ytree_parse(buf_str(&b), b.len, out, &line, &col, msg, sizeof msg) < 0) {
		recipe_add_error(k->s, path, line ? line : 1, col ? col : 1,
				 line ? msg : "control characters are not allowed (binary file?)");
		rc = -1;
	}
	buf_release(&b);
	k->failed |= rc < 0;
	return rc;
}

static void add_res(struct kctx *k, const struct ynode *root)
{
	struct ynode *c;

	if (!root || root->kind != YNODE_MAP || !(c = copy(&k->a, root)))
		return;
	ALLOC_GROW(k->res, k->nres + 1, k->res_alloc);
	k->res[k->nres++] = c;
}

static void apply_patch_docs(struct kctx *k, const struct ytree_docs *d, const struct ynode *target,
			     size_t from, const char *label)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct ynode *p = d->docs[i].root;
		int hit = 0;

		if (!p)
			continue;
		if (p->kind == YNODE_SEQ) {
			note(k, "JSON 6902 patch %s is not applied", label);
			continue;
		}
		for (size_t r = from; p->kind == YNODE_MAP && r < k->nres; r++)
			if (target ? target_match(target, k->res[r]) : self_match(p, k->res[r])) {
				merge_resource(&k->a, k->res[r], p);
				hit = 1;
			}
		if (!hit && !target)
			note(k, "patch %s matches no resource: not applied", label);
		if (k->a.directives)
			note(k, "patch %s: its $patch directives are not applied", label);
		k->a.directives = 0;
	}
}

static void apply_patch(struct kctx *k, const char *dir, const struct ynode *entry, size_t from)
{
	const struct ynode *target = ynode_get(entry, "target");
	const char *path = entry->kind == YNODE_SCALAR ? entry->value : ynode_str(entry, "path");
	const char *inl = ynode_str(entry, "patch");
	struct ytree_docs d;
	char msg[256];
	int line, col;

	if (target && target->kind != YNODE_MAP)
		target = NULL;
	if (ynode_get(target, "labelSelector") || ynode_get(target, "annotationSelector")) {
		note(k, "patch %s: a target by label or annotation selector is not applied",
		     path ? path : "(inline)");
		return;
	}
	if (path && strchr(path, '\n'))
		inl = path, path = NULL;   /* patchesStrategicMerge: an inline patch */
	if (path) {
		char *full = xasprintf("%s/%s", dir, path);
		struct stat st;

		if (stat(full, &st) < 0 || !S_ISREG(st.st_mode))
			note(k, "patch %s not found: not applied", path);
		else if (parse_file(k, full, &d) == 0) {
			apply_patch_docs(k, &d, target, from, path);
			ytree_docs_free(&d);
		}
		free(full);
	} else if (inl) {
		if (ytree_parse(inl, strlen(inl), &d, &line, &col, msg, sizeof msg) < 0) {
			note(k, "inline patch is not YAML (%s): not applied", msg);
			return;
		}
		apply_patch_docs(k, &d, target, from, "(inline)");
		ytree_docs_free(&d);
	}
}

static int remote(const char *p)
{
	return strstr(p, "://") || !strncmp(p, "github.com/", 11) || !strncmp(p, "git@", 4);
}

static void render(struct kctx *k, const char *dir, size_t from, int depth);

/* One resources: or components: entry of the kustomization in dir. */
static void render_ref(struct kctx *k, const char *dir, const char *p, const char *what,
		       size_t from, int depth)
{
	char *full;
	char *kf;
	struct stat st;
	struct ytree_docs d;

	if (remote(p)) {
		note(k, "remote %s %s is not fetched: its contents are not applied", what, p);
		return;
	}
	full = xasprintf("%s/%s", dir, p);
	if (stat(full, &st) < 0) {
		if (!strcmp(what, "component"))
			note(k, "component %s not found: its patches are not applied", p);
		else
			note(k, "resource %s not found: not included", p);
	} else if (S_ISDIR(st.st_mode)) {
		if ((kf = kust_file(full))) {
			free(kf);
			render(k, full, !strcmp(what, "component") ? from : k->nres, depth + 1);
		} else {
			note(k, "%s %s has no kustomization.yaml: not applied", what, p);
		}
	} else if (parse_file(k, full, &d) == 0) {
		for (size_t i = 0; i < d.n; i++)
			add_res(k, d.docs[i].root);
		ytree_docs_free(&d);
	}
	free(full);
}

static void render_list(struct kctx *k, const char *dir, const struct ynode *l,
			const char *what, size_t from, int depth)
{
	for (size_t i = 0; l && l->kind == YNODE_SEQ && i < l->n && !k->failed; i++)
		if (l->kids[i]->kind == YNODE_SCALAR)
			render_ref(k, dir, l->kids[i]->value, what, from, depth);
}

/* Renders the kustomization in dir into k->res; its patches (and its
 * components' when it is one) touch k->res[from..] only. */
static void render(struct kctx *k, const char *dir, size_t from, int depth)
{
	char real[PATH_MAX], *kf = kust_file(dir);
	struct ytree_docs d;
	const struct ynode *root, *l;
	const char *kind;

	if (!kf || !realpath(dir, real)) {
		free(kf);
		return;
	}
	if (strset_has(&k->stack, real) || depth > KUST_MAX_DEPTH) {
		recipe_add_error(k->s, kf, 1, 1, depth > KUST_MAX_DEPTH ?
				 "kustomizations nested deeper than 16" :
				 "kustomization cycle: this directory includes itself");
		k->failed = 1;
		free(kf);
		return;
	}
	if (parse_file(k, kf, &d) < 0) {
		free(kf);
		return;
	}
	free(kf);
	strset_add(&k->stack, real);
	root = d.n ? d.docs[0].root : NULL;
	kind = ynode_str(root, "kind");
	if (!kind || strcmp(kind, "Component"))
		from = k->nres;
	render_list(k, dir, ynode_get(root, "resources"), "resource", from, depth);
	render_list(k, dir, ynode_get(root, "bases"), "resource", from, depth);
	render_list(k, dir, ynode_get(root, "components"), "component", from, depth);
	for (size_t j = 0; j < 2; j++) {
		l = ynode_get(root, j ? "patches" : "patchesStrategicMerge");
		for (size_t i = 0; l && l->kind == YNODE_SEQ && i < l->n; i++)
			apply_patch(k, dir, l->kids[i], from);
	}
	if (ynode_get(root, "patchesJson6902"))
		note(k, "patchesJson6902 in %s is not applied", dir);
	ytree_docs_free(&d);
	k->stack.n--;
	free(k->stack.v[k->stack.n]);
}

/* k's resources as documents: docs[0] owns the arena, the rest share it. */
static void take(struct kctx *k, struct ytree_docs *out)
{
	size_t n = k->nres ? k->nres : 1;

	out->docs = xcalloc(n, sizeof *out->docs);
	out->n = k->nres;
	out->docs[0] = k->a.d.docs[0];
	out->docs[0].root = k->nres ? k->res[0] : NULL;
	for (size_t i = 1; i < k->nres; i++)
		out->docs[i].root = k->res[i];
	free(k->a.d.docs);
	memset(&k->a, 0, sizeof k->a);
	if (!k->nres)
		out->n = 1;   /* an empty document still owns the arena */
}

static void kctx_free(struct kctx *k)
{
	free(k->res);
	strset_free(&k->stack);
	strset_free(&k->notes);
	ytree_docs_free(&k->a.d);
}

static int build(struct kctx *k, const char *dir, struct recipe_set *s)
{
	memset(k, 0, sizeof *k);
	k->s = s;
	arena_init(&k->a);
	render(k, dir, 0, 0);
	if (k->a.full) {
		recipe_add_error(s, dir, 1, 1, "kustomize build is larger than 2000000 nodes");
		k->failed = 1;
	}
	return k->failed ? -1 : 0;
}

int recipe_kust_build(const char *dir, struct recipe_set *s, struct ytree_docs *out,
		      char ***notes, size_t *nnotes)
{
	struct kctx k;
	int rc = build(&k, dir, s);

	take(&k, out);
	*notes = k.notes.v, *nnotes = k.notes.n;
	memset(&k.notes, 0, sizeof k.notes);
	kctx_free(&k);
	return rc;
}

void recipe_kust_render(const char *dir, struct recipe_set *s)
{
	struct kctx k;

	if (build(&k, dir, s) == 0) {
		struct ytree_docs d;

		take(&k, &d);
		recipe_read_docs(s, dir, d.docs, k.nres, k.notes.v, k.notes.n);
		ytree_docs_free(&d);
	}
	kctx_free(&k);
}

int recipe_kust_patch_text(const char *base, size_t blen, const char *patch, size_t plen,
			   struct ytree_docs *out)
{
	struct ytree_docs b, p;
	struct kctx k;
	char msg[256];
	int line, col;

	memset(&k, 0, sizeof k);
	arena_init(&k.a);
	if (ytree_parse(base, blen, &b, &line, &col, msg, sizeof msg) < 0) {
		kctx_free(&k);
		return -1;
	}
	if (ytree_parse(patch, plen, &p, &line, &col, msg, sizeof msg) < 0) {
		ytree_docs_free(&b);
		kctx_free(&k);
		return -1;
	}
	for (size_t i = 0; i < b.n; i++)
		add_res(&k, b.docs[i].root);
	apply_patch_docs(&k, &p, NULL, 0, "(text)");
	ytree_docs_free(&b);
	ytree_docs_free(&p);
	take(&k, out);
	kctx_free(&k);
	return 0;
}

/* ---------------------------------------------------------- the tree */

/* What the kustomizations under a directory say about its files. */
struct recipe_kust_tree {
	struct strset entries;  /* kustomization dirs nobody under path includes */
	struct strset used;     /* files read only through a kustomization */
	struct strset kdirs;    /* every kustomization dir (realpath) */
	struct strset refd;     /* dirs included as resource or component */
	struct strset from, to; /* edges: from[i] includes to[i] */
};

static void mark(struct strset *set, const char *dir, const char *rel)
{
	char real[PATH_MAX], *full;

	if (!rel || remote(rel))
		return;
	full = xasprintf("%s/%s", dir, rel);
	if (realpath(full, real))
		strset_add(set, real);
	free(full);
}

/* Edges are kept apart from the sets: the same pair twice is harmless. */
static void edge(struct recipe_kust_tree *t, const char *dir, const char *rel)
{
	char real[PATH_MAX], to[PATH_MAX], *full;

	if (!rel || remote(rel) || !realpath(dir, real))
		return;
	full = xasprintf("%s/%s", dir, rel);
	if (realpath(full, to) && strcmp(real, to)) {
		ALLOC_GROW(t->from.v, t->from.n + 1, t->from.alloc);
		ALLOC_GROW(t->to.v, t->to.n + 1, t->to.alloc);
		t->from.v[t->from.n++] = xstrdup(real);
		t->to.v[t->to.n++] = xstrdup(to);
	}
	free(full);
}

/* A kustomization that does not parse is left to the plain reader, which
 * reports it, so errors here go to a scratch set. */
static void scan_refs(struct recipe_kust_tree *t, const char *dir, const char *kf)
{
	static const char *const lists[] = { "resources", "bases", "components" };
	struct kctx k;
	struct ytree_docs d;
	const struct ynode *root, *l;
	char real[PATH_MAX];

	struct recipe_set scratch;
	int rc;

	memset(&k, 0, sizeof k);
	memset(&scratch, 0, sizeof scratch);
	k.s = &scratch;
	rc = parse_file(&k, kf, &d);
	recipe_set_release(&scratch);
	if (rc < 0)
		return;
	root = d.n ? d.docs[0].root : NULL;
	mark(&t->used, dir, strrchr(kf, '/') + 1);
	for (size_t j = 0; j < 3; j++) {
		l = ynode_get(root, lists[j]);
		for (size_t i = 0; l && l->kind == YNODE_SEQ && i < l->n; i++) {
			edge(t, dir, l->kids[i]->value);
			mark(&t->used, dir, l->kids[i]->value);
		}
	}
	for (size_t j = 0; j < 2; j++) {
		l = ynode_get(root, j ? "patches" : "patchesStrategicMerge");
		for (size_t i = 0; l && l->kind == YNODE_SEQ && i < l->n; i++)
			mark(&t->used, dir, j ? ynode_str(l->kids[i], "path") : l->kids[i]->value);
	}
	if (realpath(dir, real)) {
		const char *kind = ynode_str(root, "kind");

		if (!kind || strcmp(kind, "Component"))
			strset_add(&t->kdirs, real);
	}
	ytree_docs_free(&d);
}

static void scan_dir(struct recipe_kust_tree *t, const char *dir, int depth, size_t *seen)
{
	DIR *d;
	struct dirent *de;
	char *kf;

	if (depth > 32 || *seen >= KUST_MAX_TREE || !(d = opendir(dir)))
		return;
	if ((kf = kust_file(dir))) {
		++*seen;
		scan_refs(t, dir, kf);
		free(kf);
	}
	while ((de = readdir(d))) {
		struct stat st;
		char *p;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			scan_dir(t, p, depth + 1, seen);
		free(p);
	}
	closedir(d);
}

/* Every dir reachable from an entry (the graph is small: a fixpoint). */
static void reach(const struct recipe_kust_tree *t, struct strset *r)
{
	size_t before;

	for (size_t i = 0; i < t->entries.n; i++)
		strset_add(r, t->entries.v[i]);
	do {
		before = r->n;
		for (size_t i = 0; i < t->from.n; i++)
			if (strset_has(r, t->from.v[i]))
				strset_add(r, t->to.v[i]);
	} while (r->n != before);
}

struct recipe_kust_tree *recipe_kust_scan(const char *dir)
{
	struct recipe_kust_tree *t = xcalloc(1, sizeof *t);
	struct strset r = { NULL, 0, 0 };
	size_t seen = 0;

	scan_dir(t, dir, 0, &seen);
	if (!seen) {
		recipe_kust_tree_free(t);
		return NULL;
	}
	/* An included kustomization is rendered by who includes it; one only
	 * in a cycle of its own is rendered anyway, to say so. */
	for (size_t i = 0; i < t->to.n; i++)
		strset_add(&t->refd, t->to.v[i]);
	for (size_t i = 0; i < t->kdirs.n; i++)
		if (!strset_has(&t->refd, t->kdirs.v[i]))
			strset_add(&t->entries, t->kdirs.v[i]);
	reach(t, &r);
	for (size_t i = 0; i < t->kdirs.n; i++)
		if (!strset_has(&r, t->kdirs.v[i]))
			strset_add(&t->entries, t->kdirs.v[i]);
	strset_free(&r);
	return t;
}

int recipe_kust_is_entry(const struct recipe_kust_tree *t, const char *dir)
{
	char real[PATH_MAX];

	return t && realpath(dir, real) && strset_has(&t->entries, real);
}

int recipe_kust_is_used(const struct recipe_kust_tree *t, const char *file)
{
	char real[PATH_MAX];

	return t && realpath(file, real) && strset_has(&t->used, real);
}

void recipe_kust_tree_free(struct recipe_kust_tree *t)
{
	if (!t)
		return;
	strset_free(&t->entries);
	strset_free(&t->used);
	strset_free(&t->kdirs);
	strset_free(&t->refd);
	strset_free(&t->from);
	strset_free(&t->to);
	free(t);
}
