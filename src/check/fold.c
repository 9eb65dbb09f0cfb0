/* One root cause per pod (check.h check_cause): which failed check a
 * pod's other non-ok results follow from.  The CAUSES column of the
 * table (table.def) is the KV path of checks.md N read downwards: a link
 * that is broken explains what the later links and the logs say about
 * the same path (no device: no verbs,
 * no UCX RDMA transport, TCP lanes in the log).  A result is only folded
 * under a cause that FAILED in the same pod, so nothing is hidden that has
 * no failure above it. */
#include <string.h>

#include "check/check.h"
#include "check/internal.h"

/* The CAUSES column of the table (table.def), by check id: each list ends
 * at CK__COUNT; NULL for a row that folds under nothing. */
#define CHECK(...)
#define CAUSES(id, ...) [CK_##id] = (const enum check_id[]){ __VA_ARGS__, CK__COUNT },
static const enum check_id *const causes[CK__COUNT] = {
#include "check/table.def"
};
#undef CAUSES
#undef CHECK

static const enum check_id *causes_of(const struct check_result *c)
{
	return c->id < CK__COUNT ? causes[c->id] : NULL;
}

static const struct check_result *failed(const struct check_results *r, enum check_id id)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].status == CHECK_FAIL && r->v[i].id == id)
			return &r->v[i];
	return NULL;
}

/* The first failing cause of c in r, in the order of its CAUSES. */
static const struct check_result *direct(const struct check_results *r,
					 const struct check_result *c)
{
	const enum check_id *k = causes_of(c);
	const struct check_result *hit;

	for (; k && *k != CK__COUNT; k++)
		if ((hit = failed(r, *k)) && hit != c)
			return hit;
	return NULL;
}

const char *check_cause(const struct check_results *r, size_t i)
{
	const struct check_result *c = &r->v[i], *up, *root = NULL;

	if (c->status == CHECK_OK || (c->flags & CHECK_F_NA))
		return NULL;
	/* Follow the causes to one with none of its own; the table has no
	 * cycle deeper than this (each cause sits earlier on the path). */
	for (int depth = 0; depth < 8 && (up = direct(r, c)); depth++)
		root = c = up;
	return root ? root->name : NULL;
}

const char *check_cause_of(const struct check_results *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].name, name) && r->v[i].status != CHECK_OK &&
		    !(r->v[i].flags & CHECK_F_NA)) {
			const char *c = check_cause(r, i);

			return c ? c : r->v[i].name;
		}
	return NULL;
}
