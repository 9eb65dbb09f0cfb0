/* The install block `nixl` prints for one pod (report/install.c). */
#ifndef REPORT_INSTALL_H
#define REPORT_INSTALL_H

#include <stdio.h>

#include "run/run.h"

/* Pod line, then NIXL, plugins, tools, UCX and fabric from its probe's
 * facts and its NIXL/UCX results; only the reason when it was not probed.
 * Every value from the server or the pod goes through safe_show(). */
void report_print_install(FILE *out, const struct run_pod *rp);
/* "Peer:     NAME (role R, node N, IP A)". */
void report_print_peer(FILE *out, const struct pod_info *peer);
/* The pairwise test's commands (run/nixl.h plan), after a blank line; its
 * pieces from pods through safe_term_text(). */
void report_print_plan(FILE *out, const char *plan);
/* nixl --transfer's outcome: the pod's TRANSFER result, or, when the test
 * did not run (ran 0: no probed peer), that it was skipped and why. */
void report_print_transfer(FILE *out, const struct run_pod *rp, int ran);

#endif
