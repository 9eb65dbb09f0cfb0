/* check --dgd on a run: the DGD checks (check/dgd.h, checks.md P) over
 * the run's pods, each with the env of its running process. */
#ifndef RUN_DGD_H
#define RUN_DGD_H

#include "model/dgd.h"
#include "run/run.h"

/* Judges set against pr's pods into f (zeroed; dgd_findings_release()).
 * A pod's env is its main process's transport variables when the probe
 * read them (pr->keep_facts), a masked one (run/mask.h) as DGD_POD_SECRET
 * so it is never compared as a value; else its spec env. */
void run_dgd_judge(const struct run *pr, const struct dgd_set *set, struct dgd_findings *f);

#endif
