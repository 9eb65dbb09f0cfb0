/* check --dgd on a run: the DGD checks (check/dgd.h, checks.md P) over
 * the run's pods, each with the env of its running process. */
#ifndef RUN_DGD_H
#define RUN_DGD_H

#include "check/dgd.h"
#include "run/run.h"

/* Judges set against pr's pods into f (zeroed; dgd_findings_release()).
 * A pod's env is its main process's transport variables when the probe
 * read them (pr->keep_env), a masked one (run/mask.h) as DGD_POD_SECRET
 * so it is never compared as a value; else its spec env. */
void run_dgd_judge(const struct run *pr, const struct dgd_set *set, struct dgd_findings *f);

/* check without --dgd: keeps in s only the DGDs with a pod in l (by
 * namespace and the graph label), so a DGD outside the run (another -l,
 * another graph) is never judged as if its pods were missing.  A DGD
 * not read (dgd_info.skipped) stays either way: it is named. */
void run_dgd_keep_listed(const struct pod_list *l, struct dgd_set *s);

/* check -A: per pod of l its DGD's "namespace/name" (owned strings, NULL
 * for a pod of no DGD read), for the table grouped by DGD; an owned array
 * of l->n, released with run_dgd_groups_release(). */
char **run_dgd_groups(const struct pod_list *l, const struct dgd_set *s);
void run_dgd_groups_release(char **g, size_t n);

/* checks.md J7: per pod of pr, the nodes of one replica of its DGD
 * component (multinode.nodeCount, by the nvidia.com/dynamo-component
 * label) into its check_context.nodes when more than the pod itself shows.
 * Call after run_init() and before run_pods(). */
void run_dgd_nodes(struct run *pr, const struct dgd_set *s);

#endif
