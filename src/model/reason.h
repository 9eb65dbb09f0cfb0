/* Why a pod was not probed, as values (issue 24): the kind of miss, the
 * words of the layer where it arose (never prefixed), and what RBAC refused
 * when that was the cause.  Layers above pass it on and printers word it;
 * none reads another's text.  "not probed: " is written here and nowhere
 * else.  A leaf: util/ only. */
#ifndef MODEL_REASON_H
#define MODEL_REASON_H

#include "../util/err.h"

enum reason_kind {
	REASON_NONE = 0,   /* probed */
	REASON_SKIPPED,    /* the pod list said not to probe it (pods.h skip_reason) */
	REASON_EXEC,       /* the exec did not run or finish: the server's or transport's words */
	REASON_SILENT,     /* the probe ran and printed nothing */
	REASON_REPORT,     /* its report did not parse (or was cut at the cap) */
};

struct reason {
	enum reason_kind kind;
	char *why;                  /* owned; one line; NULL when kind is NONE */
	/* owned; what RBAC refused of the probe's exec; NULL when nothing
	 * (a pointer, not the 352-byte struct: one per pod, issue 27). */
	struct err_denial *denied;
};

/* Sets r to kind with a copy of why ("" when NULL); frees what r held. */
void reason_set(struct reason *r, enum reason_kind kind, const char *why);
/* Frees why and denied. */
void reason_release(struct reason *r);
/* A copy of d when it says what RBAC refused (verb set), else NULL;
 * the caller frees it. */
struct err_denial *reason_denial_copy(const struct err_denial *d);
/* 1 when a and b are the same reason (kind and words). */
int reason_same(const struct reason *a, const struct reason *b);
/* "not probed: WHY" ("unknown reason" when why is NULL or ""); owned.
 * The pod-probe check's detail. */
char *reason_not_probed(const char *why);
/* The reason as one line, the way JSON's "error" and each printer show it:
 * a pod the list skipped says "not probed: WHY", any other miss its own
 * words; a pod without words (kind NONE) "not probed".  Owned. */
char *reason_line(const struct reason *r);

#endif
