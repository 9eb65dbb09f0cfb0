/* Why a pod was not probed (reason.h): the one place its words are made. */
#include "reason.h"

#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"

void reason_set(struct reason *r, enum reason_kind kind, const char *why)
{
	free(r->why);
	r->kind = kind;
	r->why = kind == REASON_NONE ? NULL : xstrdup(why ? why : "");
}

void reason_release(struct reason *r)
{
	free(r->why);
	free(r->denied);
	memset(r, 0, sizeof(*r));
}

struct err_denial *reason_denial_copy(const struct err_denial *d)
{
	struct err_denial *c;

	if (!d || !d->verb[0])
		return NULL;
	c = xmalloc(sizeof(*c));
	*c = *d;
	return c;
}

int reason_same(const struct reason *a, const struct reason *b)
{
	return a->kind == b->kind && !strcmp(a->why ? a->why : "", b->why ? b->why : "");
}

char *reason_not_probed(const char *why)
{
	return xasprintf("not probed: %s", why && *why ? why : "unknown reason");
}

char *reason_line(const struct reason *r)
{
	if (r->kind == REASON_SKIPPED)
		return reason_not_probed(r->why);
	/* The words of the layer where it arose, shown as they came. */
	return xstrdup(r->why && *r->why ? r->why : "not probed");
}
