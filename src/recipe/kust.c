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
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "recipe/kust_int.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/xalloc.h"

int kust_strset_has(const struct strset *s, const char *x)
{
	for (size_t i = 0; x && i < s->n; i++)
		if (!strcmp(s->v[i], x))
			return 1;
	return 0;
}

void kust_strset_add(struct strset *s, const char *x)
{
	if (!x || kust_strset_has(s, x))
		return;
	ALLOC_GROW(s->v, s->n + 1, s->alloc);
	s->v[s->n++] = xstrdup(x);
}

void kust_strset_free(struct strset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof *s);
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
	kust_strset_add(&k->notes, n);
}

/* kustomization.yaml, .yml or Kustomization in dir, or NULL (caller frees). */
char *kust_find_file(const char *dir)
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

	if (!root || root->kind != YNODE_MAP || !(c = kust_copy(&k->a, root)))
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
			if (target ? kust_target_match(target, k->res[r]) : kust_self_match(p, k->res[r])) {
				kust_merge_resource(&k->a, k->res[r], p);
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

int kust_remote(const char *p)
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

	if (kust_remote(p)) {
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
		if ((kf = kust_find_file(full))) {
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
	char real[PATH_MAX], *kf = kust_find_file(dir);
	struct ytree_docs d;
	const struct ynode *root, *l;
	const char *kind;

	if (!kf || !realpath(dir, real)) {
		free(kf);
		return;
	}
	if (kust_strset_has(&k->stack, real) || depth > KUST_MAX_DEPTH) {
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
	kust_strset_add(&k->stack, real);
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
	kust_strset_free(&k->stack);
	kust_strset_free(&k->notes);
	ytree_docs_free(&k->a.d);
}

static int build(struct kctx *k, const char *dir, struct recipe_set *s)
{
	memset(k, 0, sizeof *k);
	k->s = s;
	kust_arena_init(&k->a);
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

int recipe_kust_patch_text(const char *base, size_t blen, const char *patch, size_t plen,
			   struct ytree_docs *out)
{
	struct ytree_docs b, p;
	struct kctx k;
	char msg[256];
	int line, col;

	memset(&k, 0, sizeof k);
	kust_arena_init(&k.a);
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

/* For kust_tree.c: parse_file with its errors dropped. */
int kust_parse_scratch(const char *path, struct ytree_docs *out)
{
	struct recipe_set scratch;
	struct kctx k;
	int rc;

	memset(&k, 0, sizeof k);
	memset(&scratch, 0, sizeof scratch);
	k.s = &scratch;
	rc = parse_file(&k, path, out);
	recipe_set_release(&scratch);
	return rc;
}
