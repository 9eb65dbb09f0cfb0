/* The install block `nixl` prints for one pod (report/install.c). */
#ifndef REPORT_INSTALL_H
#define REPORT_INSTALL_H

#include <stdio.h>

#include "run/run.h"

/* Pod line, then NIXL, plugins, tools, UCX and fabric from its probe's
 * facts and its NIXL/UCX results; only the reason when it was not probed.
 * Every value from the server or the pod goes through safe_show(). */
void report_print_install(FILE *out, const struct run_pod *rp);

#endif
