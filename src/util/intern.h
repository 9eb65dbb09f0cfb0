/* Shared, reference-counted copies of immutable byte blocks (issue 27:
 * peak RSS independent of the pod count).  Pods of one deployment mostly
 * have the same check results, word for word: each distinct block (a
 * detail string, a whole result array) is kept once, however many pods
 * hold it.
 *
 * Ownership: every intern_*() that returns a pointer gives the caller one
 * reference to it; the caller gives it back with intern_unref(), never
 * free().  The blocks are read-only.  Thread-safe (one mutex): the exec
 * workers digest pods concurrently. */
#ifndef UTIL_INTERN_H
#define UTIL_INTERN_H

#include <stddef.h>

/* A reference to the block equal to p[0..n) (a new one when none is held);
 * *fresh, when not NULL, is set to 1 when the block was created by this
 * call and to 0 when it was already held.  n may be 0. */
const void *intern_bytes(const void *p, size_t n, int *fresh);
/* intern_bytes() of s with its terminating NUL; NULL in, NULL out. */
const char *intern_str(const char *s);
/* One more reference to a block returned by intern_*(); NULL is ignored. */
void intern_ref(const void *p);
/* Gives one reference back; NULL is ignored.  When it was the last one,
 * fini (if not NULL) is called with the block and its length before the
 * block is freed, outside the lock, so that it may drop the references
 * the block itself holds (a result array's strings). */
void intern_unref(const void *p, void (*fini)(const void *p, size_t n));
/* Distinct blocks held now (the tests count sharing with it). */
size_t intern_count(void);

#endif
