/* Which kustomizations sit under a path and what they read (kust_int.h):
 * an entry point is one nobody under the path includes; a file read
 * through one is not read again as a plain recipe. */
#define _XOPEN_SOURCE 700   /* realpath */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "recipe/kust_int.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/xalloc.h"

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

	if (!rel || kust_remote(rel))
		return;
	full = xasprintf("%s/%s", dir, rel);
	if (realpath(full, real))
		kust_strset_add(set, real);
	free(full);
}

/* Edges are kept apart from the sets: the same pair twice is harmless. */
static void edge(struct recipe_kust_tree *t, const char *dir, const char *rel)
{
	char real[PATH_MAX], to[PATH_MAX], *full;

	if (!rel || kust_remote(rel) || !realpath(dir, real))
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
	struct ytree_docs d;
	const struct ynode *root, *l;
	char real[PATH_MAX];

	if (kust_parse_scratch(kf, &d) < 0)
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
			kust_strset_add(&t->kdirs, real);
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
	if ((kf = kust_find_file(dir))) {
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
		kust_strset_add(r, t->entries.v[i]);
	do {
		before = r->n;
		for (size_t i = 0; i < t->from.n; i++)
			if (kust_strset_has(r, t->from.v[i]))
				kust_strset_add(r, t->to.v[i]);
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
		kust_strset_add(&t->refd, t->to.v[i]);
	for (size_t i = 0; i < t->kdirs.n; i++)
		if (!kust_strset_has(&t->refd, t->kdirs.v[i]))
			kust_strset_add(&t->entries, t->kdirs.v[i]);
	reach(t, &r);
	for (size_t i = 0; i < t->kdirs.n; i++)
		if (!kust_strset_has(&r, t->kdirs.v[i]))
			kust_strset_add(&t->entries, t->kdirs.v[i]);
	kust_strset_free(&r);
	return t;
}

int recipe_kust_is_entry(const struct recipe_kust_tree *t, const char *dir)
{
	char real[PATH_MAX];

	return t && realpath(dir, real) && kust_strset_has(&t->entries, real);
}

int recipe_kust_is_used(const struct recipe_kust_tree *t, const char *file)
{
	char real[PATH_MAX];

	return t && realpath(file, real) && kust_strset_has(&t->used, real);
}

void recipe_kust_tree_free(struct recipe_kust_tree *t)
{
	if (!t)
		return;
	kust_strset_free(&t->entries);
	kust_strset_free(&t->used);
	kust_strset_free(&t->kdirs);
	kust_strset_free(&t->refd);
	kust_strset_free(&t->from);
	kust_strset_free(&t->to);
	free(t);
}
