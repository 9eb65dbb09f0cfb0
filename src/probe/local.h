/* Running the probe on this machine, for `node` without --pod: the same
 * embedded script, through /bin/sh, with the same output cap and deadline
 * as in a pod. */
#ifndef PROBE_LOCAL_H
#define PROBE_LOCAL_H

#include <stddef.h>

#include "../util/buf.h"
#include "../util/err.h"

/* The embedded script (generated from src/probe/probe.sh at build time). */
extern const char probe_script[];
extern const size_t probe_script_len;

/* Runs the probe with `sh -c`; its stdout lands in out (initialised by the
 * caller with the cap it wants).  -1 with e set when sh cannot run, the
 * deadline passes (the process group is killed) or the output passes the
 * cap. */
int probe_run_local(struct buf *out, long timeout_ms, struct err *e);

#endif
