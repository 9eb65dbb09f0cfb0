/* What the pair and node rules share of their rows (rules.def): the
 * per-pod check a rule explains, and its rank after that check. */
#include <string.h>

#include "verdict/graph.h"
#include "verdict/rules.h"

int graph_rule_rank(enum check_id about, int rank)
{
	return about < CK__COUNT ? check_def_of(about)->rank + rank : rank;
}

const char *graph_rule_about(enum check_id about)
{
	return about < CK__COUNT ? check_def_of(about)->name : NULL;
}

#define PAIR(...)
#define NODE(...)
#define FINDING(id, name) [GRAPH_FINDING_##id] = name,
static const char *const finding_names[GRAPH_FINDING__COUNT] = {
#include "verdict/rules.def"
};
#undef PAIR
#undef NODE

const char *graph_finding_name(enum graph_finding k)
{
	return finding_names[k];
}

int graph_finding_is_cross(const char *name)
{
	for (size_t k = 0; k < GRAPH_FINDING__COUNT; k++)
		if (!strcmp(name, finding_names[k]))
			return 1;
	return 0;
}
