/* Comma lists ("UCX,GDS", "mlx5_0:1,mlx5_1:1"): the one place their items
 * are walked, for the variables and columns that hold them. */
#ifndef UTIL_CLIST_H
#define UTIL_CLIST_H

#include <stddef.h>

/* 1 when an item of list is exactly the len bytes at item (case-blind
 * when nocase); list NULL or "" has none. */
int clist_has(const char *list, const char *item, size_t len, int nocase);

#endif
