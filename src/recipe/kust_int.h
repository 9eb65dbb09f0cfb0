/* Inside the kustomize renderer (kust.c), by phase:
 *   kust_merge.c  strategic merge (kyaml's rules) into one node arena, and
 *                 which resource a patch targets
 *   kust.c        render: a kustomization's resources, components and
 *                 patches in kustomize's order; the public entry points
 *   kust_tree.c   which kustomizations sit under a path, and which files
 *                 they read (so the plain reader skips those)
 * Not for use outside src/recipe/kust*.c. */
#ifndef RECIPE_KUST_INT_H
#define RECIPE_KUST_INT_H

#include "recipe/internal.h"
#include "recipe/ytree.h"

#define KUST_MAX_DEPTH 16          /* kustomizations nested in one render */
#define KUST_MAX_FILES 512         /* files read for one entry point */
#define KUST_MAX_NODES 2000000u    /* nodes copied into one arena */
#define KUST_MAX_TREE 1000         /* kustomizations looked at under a path */

/* A set of owned strings (paths), in insertion order. */
struct strset {
	char **v;
	size_t n, alloc;
};

int kust_strset_has(const struct strset *s, const char *x);
void kust_strset_add(struct strset *s, const char *x);
void kust_strset_free(struct strset *s);

/* Everything rendered for one entry point. */
struct arena {
	struct ytree_docs d;    /* one document that owns every copied node */
	int full;               /* KUST_MAX_NODES passed: stop copying */
	int directives;         /* a $patch / $retainKeys ... was skipped */
};

void kust_arena_init(struct arena *a);
/* A deep copy of n into the arena; NULL once the arena is full. */
struct ynode *kust_copy(struct arena *a, const struct ynode *n);
/* Strategic-merges patch into the resource res (nodes from the arena). */
void kust_merge_resource(struct arena *a, struct ynode *res, const struct ynode *patch);
/* Whether a patch's target: selector, or the patch's own kind and name,
 * picks res. */
int kust_target_match(const struct ynode *t, const struct ynode *res);
int kust_self_match(const struct ynode *patch, const struct ynode *res);

/* kust.c, for kust_tree.c: a remote base (not read); the kustomization
 * file of dir (caller frees) or NULL; a file parsed, errors dropped. */
int kust_remote(const char *p);
char *kust_find_file(const char *dir);
int kust_parse_scratch(const char *path, struct ytree_docs *out);

#endif
