/* Allocation that never returns NULL.
 *
 * Policy (one for the whole program): running out of memory is not a
 * condition this tool can report usefully, so these wrappers print one line
 * and abort.  Every other failure is returned to the caller as a value.
 */
#ifndef UTIL_XALLOC_H
#define UTIL_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* NULL in, NULL out, so optional fields copy without a test. */
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Returns a newly allocated formatted string; the caller frees it. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
