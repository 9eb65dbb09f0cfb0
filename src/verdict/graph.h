/* Consistency across the graph (checks.md I, J3, M3, M5, M6): prefill and
 * decode of one graph must be able to meet, and the nodes hosting the
 * workers should look alike.
 *
 * Works only from the per-pod digest (struct check_summary) and the pods
 * of the run (run/run.h), never from the full facts, so memory stays flat however many
 * pods there are.  A graph is the pods of one namespace with the same
 * nvidia.com/dynamo-graph-deployment-name label (pods without it form one
 * group per namespace).
 */
#ifndef VERDICT_GRAPH_H
#define VERDICT_GRAPH_H

#include <stddef.h>

#include "verdict/verdict.h"

/* Odd nodes named in a finding's text and its nodes[] list. */
#define VERDICT_NAMES_MAX 5

/* Appends to out:
 *   "pair-consistency": per rule and status, one finding naming an example
 *     prefill/decode pair, the mismatch, and how many pairs share it
 *     (pods[] = the example pair);
 *   "node-consistency": per node fact, the odd node(s) out when a
 *     minority of the nodes differs from a majority (nodes[] = the odd
 *     ones; no finding on a tie or with one node; about = the per-pod
 *     check it explains).
 * Cost: linear in pods (issue 16).  Pods of one role with the same digest
 * fields form a class; each rule is judged once per prefill class x decode
 * class (one pair of classes in a healthy graph), the node-dependent rule
 * counted per node; nodes and their values are grouped by hash
 * (util/strmap.h).  The output is what judging every pair would give:
 * the first pair in index order is named, all are counted.  Measured
 * (callgrind): 20 M instructions at 1000 pods, 200 M at 10,000 (the all-
 * pairs loop before: 262 M and 25.9 G). */
/* The kinds of cross-pod finding, by id (rules.def FINDING rows). */
enum graph_finding { GRAPH_FINDING_PAIR, GRAPH_FINDING_NODE, GRAPH_FINDING__COUNT };
/* The name a finding of kind k has ("pair-consistency", ...). */
const char *graph_finding_name(enum graph_finding k);
/* 1 when a finding called name is a cross-pod one (pair or node). */
int graph_finding_is_cross(const char *name);

void verdict_graph_compare(const struct run_pod *pods, size_t n,
		   struct verdict_findings *out);

#endif
