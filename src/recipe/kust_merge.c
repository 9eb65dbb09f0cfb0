/* Kustomize's strategic merge for a kind without a schema (kyaml), into
 * one node arena, and patch targets (kust_int.h; the rules are in kust.c's
 * opening comment). */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recipe/kust_int.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/xalloc.h"

/* ---------------------------------------------------------------- merge */

void kust_arena_init(struct arena *a)
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
struct ynode *kust_copy(struct arena *a, const struct ynode *n)
{
	struct ynode *c;

	if (a->full || a->d.docs[0].nall + n->weight > KUST_MAX_NODES) {
		a->full = 1;
		return NULL;
	}
	c = arena_node(a, n);
	for (size_t i = 0; i < n->n; i++) {
		struct ynode *k = kust_copy(a, n->kids[i]);

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
		else if ((c = kust_copy(a, pe)))
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
		} else if ((c = kust_copy(a, pv))) {
			if (at) {
				dst->kids[at] = c;
			} else {
				struct ynode *kc = kust_copy(a, k);

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
void kust_merge_resource(struct arena *a, struct ynode *res, const struct ynode *patch)
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

int kust_target_match(const struct ynode *t, const struct ynode *res)
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
int kust_self_match(const struct ynode *patch, const struct ynode *res)
{
	const char *pk = ynode_str(patch, "kind"), *rk = ynode_str(res, "kind");
	const char *pn = ynode_str(ynode_get(patch, "metadata"), "name");
	const char *rn = ynode_str(ynode_get(res, "metadata"), "name");

	return pk && rk && pn && rn && !strcmp(pk, rk) && !strcmp(pn, rn);
}
