/* A small YAML tree for recipes, built from libyaml's event stream.
 *
 * Why not libyaml's document API: we want hard caps that fail with a
 * position (nesting depth, total node count, alias expansion), and aliases
 * that share the anchored node instead of copying it, so that an alias bomb
 * costs nothing to hold and is refused by its *expanded* size.  An alias may
 * only name a node that is complete, so the tree is always acyclic.
 *
 * Ownership: every node of a document belongs to its struct ytree_doc and is
 * freed by ytree_docs_free(); alias targets are shared, never owned twice.
 */
#ifndef RECIPE_YTREE_H
#define RECIPE_YTREE_H

#include <stddef.h>

enum ynode_kind { YNODE_SCALAR, YNODE_SEQ, YNODE_MAP };

struct ynode {
	enum ynode_kind kind;
	char *value;            /* scalar text ("" for null); NULL otherwise */
	int plain;              /* scalar was unquoted */
	struct ynode **kids;    /* SEQ: items; MAP: key, value, key, value... */
	size_t n;               /* number of kids (twice the pairs for a MAP) */
	size_t cap;
	int line, col;          /* 1-based start */
	size_t weight;          /* nodes after alias expansion (saturating) */
};

struct ytree_doc {
	struct ynode *root;     /* NULL for an empty document */
	struct ynode **all;     /* every node owned by this document */
	size_t nall, capall;
};

struct ytree_docs {
	struct ytree_doc *docs;
	size_t n, alloc;
};

/* The caps (exposed for tests). */
#define YTREE_MAX_DEPTH 128
#define YTREE_MAX_NODES 2000000u     /* nodes actually held, per stream */
#define YTREE_MAX_WEIGHT 1000000u    /* nodes after alias expansion, per doc */

/* Parses a whole stream.  0 on success; -1 with line and col (1-based) and
 * msg (one line) set when the text is not YAML or passes a cap.  Documents
 * parsed before the error are released either way: out is empty on -1. */
int ytree_parse(const char *data, size_t len, struct ytree_docs *out,
		int *line, int *col, char *msg, size_t msgsz);
void ytree_docs_free(struct ytree_docs *d);

/* The value of key in a MAP (the last one when a key repeats, as PyYAML and
 * Go's yaml.v2 do), or NULL. */
const struct ynode *ynode_get(const struct ynode *map, const char *key);
/* The scalar text of key, or NULL when absent or not a scalar. */
const char *ynode_str(const struct ynode *map, const char *key);
/* Walks map keys by a dotted path ("spec.extraPodSpec.mainContainer"). */
const struct ynode *ynode_path(const struct ynode *n, const char *dotted);

#endif
