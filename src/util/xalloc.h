/* Allocation that never returns NULL.
 *
 * Policy (one for the whole program): running out of memory is not a
 * condition this tool can report usefully, so these wrappers print one line
 * and abort.  Every other failure is returned to the caller as a value.
 */
#ifndef UTIL_XALLOC_H
#define UTIL_XALLOC_H

#include <stddef.h>

/* The one out-of-memory path: prints "fatal: out of memory" and aborts.
 * Also for the libraries that report a failed allocation by value
 * (libyaml's initialisers, cJSON's printers, OpenSSL's contexts). */
_Noreturn void xalloc_die(void);

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* NULL in, NULL out, so optional fields copy without a test. */
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Returns a newly allocated formatted string; the caller frees it. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Amortised growth of an array, as git's ALLOC_GROW: makes p hold at least
 * nr elements, growing *alloc (the elements allocated) by at least half
 * when it must, so n appends cost O(n).  Sizes are overflow-checked. */
void *xalloc_grow(void *p, size_t nr, size_t *alloc, size_t size);
#define ALLOC_GROW(p, nr, alloc) ((p) = xalloc_grow((p), (nr), &(alloc), sizeof *(p)))

#endif
