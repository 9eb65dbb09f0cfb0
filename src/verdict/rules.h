/* The cross-pod rules (rules.def), shared by the pair rules (graph.c)
 * and the node rules (graph_node.c); not part of the API (graph.h is). */
#ifndef VERDICT_RULES_H
#define VERDICT_RULES_H

#include <stddef.h>

#include "check/check.h"
#include "verdict/verdict.h"

/* Every cross-pod rule by id, GR_<ID> of its rules.def row. */
#define PAIR(id, ...) GR_PAIR_##id,
#define NODE(id, ...) GR_NODE_##id,
enum graph_rule_id {
#include "verdict/rules.def"
	GR__COUNT
};
#undef PAIR
#undef NODE

#define GRAPH_LINE_MAX 4096   /* a node-consistency line */

/* The rank of a rule about check `about` (CK__COUNT: none) at offset
 * rank: the check's rank (table.def) plus rank, else rank itself. */
int graph_rule_rank(enum check_id about, int rank);
/* The name of the check a rule is about, NULL for CK__COUNT. */
const char *graph_rule_about(enum check_id about);

/* Appends the node-consistency findings (graph_node.c). */
void graph_nodes(const struct run_pod *pods, size_t n, struct verdict_findings *out);

/* A possibly NULL string as "". */
static inline const char *graph_str(const char *s)
{
	return s ? s : "";
}

#endif
