/* strmap: strings to dense ids 0, 1, 2... in order of first insertion, by
 * open-addressing hash, so that grouping n records by a string costs O(n)
 * and not the O(n^2) of comparing each with each (issue 16: graph.c).
 *
 * The map borrows its keys: each must stay valid and unchanged while the
 * map is in use.  strmap_release() frees only the map's own table.
 */
#ifndef UTIL_STRMAP_H
#define UTIL_STRMAP_H

#include <stddef.h>

struct strmap {
	const char **key;   /* per slot; NULL = empty */
	size_t *id;         /* per slot */
	size_t cap;         /* a power of two, kept above twice n */
	size_t n;           /* distinct keys so far = the next id */
};

void strmap_init(struct strmap *m);
/* The id of key, a new one (= the old m->n) when it was not there yet;
 * *added (may be NULL) says which. */
size_t strmap_id(struct strmap *m, const char *key, int *added);
void strmap_release(struct strmap *m);

#endif
