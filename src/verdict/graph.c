/* Consistency across the graph (see graph.h): the pair rules
 * (graph_pair.c) and the node rules (graph_node.c), one table of both
 * (rules.def). */
#include "verdict/graph.h"
#include "verdict/rules.h"

void verdict_graph_compare(const struct run_pod *pods, size_t n,
		   struct verdict_findings *out)
{
	graph_pairs(pods, n, out);
	graph_nodes(pods, n, out);
}
