/* Bounds on one paginated list (issue 12): a hostile or broken server must
 * not keep us paging forever or make us hold gigabytes.
 *
 * Caps (each with its own one-line error): LISTGUARD_MAX_PAGES pages,
 * LISTGUARD_MAX_ITEMS items kept, LISTGUARD_MAX_BYTES bytes of response
 * bodies in all; and a continue token may never come back: every token
 * seen is remembered (a server alternating tokens A, B, A, ... with empty
 * pages passed the old "same as the last token" test).
 */
#ifndef KUBE_LISTGUARD_H
#define KUBE_LISTGUARD_H

#include <stddef.h>

#include "util/err.h"

#define LISTGUARD_MAX_PAGES 2000
#define LISTGUARD_MAX_ITEMS 50000
#define LISTGUARD_MAX_BYTES (1024ull << 20)

struct listguard {
	char **tokens;       /* every continue token seen, owned */
	size_t ntokens, cap;
	unsigned pages;
	unsigned long long bytes;
};

void listguard_init(struct listguard *g);
void listguard_release(struct listguard *g);
/* After each page: its body size, the items held so far and the page's
 * continue token (NULL at the end).  0 to go on, -1 with e set. */
int listguard_page(struct listguard *g, size_t body_bytes, size_t items,
		   const char *next, struct err *e);

#endif
