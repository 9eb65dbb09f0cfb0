/* What the pair and node rules share of their rows (rules.def): the
 * per-pod check a rule explains, and its rank after that check. */
#include "verdict/rules.h"

int graph_rule_rank(enum check_id about, int rank)
{
	return about < CK__COUNT ? check_def_of(about)->rank + rank : rank;
}

const char *graph_rule_about(enum check_id about)
{
	return about < CK__COUNT ? check_def_of(about)->name : NULL;
}
