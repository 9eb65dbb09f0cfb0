/* Consistency across the graph (checks.md I, J3, M3, M5, M6): prefill and
 * decode of one graph must be able to meet, and the nodes hosting the
 * workers should look alike.
 *
 * Works only from the per-pod digest (struct check_summary) and the pod
 * records, never from the full facts, so memory stays flat however many
 * pods there are.  A graph is the pods of one namespace with the same
 * nvidia.com/dynamo-graph-deployment-name label (pods without it form one
 * group per namespace).
 */
#ifndef CHECK_GRAPH_H
#define CHECK_GRAPH_H

#include <stddef.h>

#include "check/verdict.h"

/* Odd nodes named in a finding's text and its nodes[] list. */
#define GRAPH_NAMES_MAX 5

/* Appends to out:
 *   "pair-consistency": per rule and status, one finding naming an example
 *     prefill/decode pair, the mismatch, and how many pairs share it
 *     (pods[] = the example pair);
 *   "node-consistency": per node fact, the odd node(s) out when a
 *     minority of the nodes differs from a majority (nodes[] = the odd
 *     ones; no finding on a tie or with one node; about = the per-pod
 *     check it explains).
 * Cost: one cheap comparison per prefill x decode pair of a graph (262k
 * pairs for 512 + 512 pods) plus O(pods x nodes) for the node table. */
void graph_compare(const struct pod_record *pods, size_t n,
		   struct finding_list *out);

#endif
