/* check --observe (issue 45, docs/checks.md O): the probe samples every
 * RDMA port's counters twice, OBSERVE seconds apart, in its one exec.
 * The window reaches the fixed script only as a first stdin line
 * "_di_obs=N" formatted here from a validated integer: no user text is
 * ever spliced into what a pod runs, and the script stays byte for byte
 * the embedded one after that line (probe/invoke.h). */
#ifndef RUN_OBSERVE_H
#define RUN_OBSERVE_H

#include <stddef.h>
#include <stdint.h>

#include "probe/promtext.h"

#define OBSERVE_MIN_S 1L
#define OBSERVE_MAX_S 600L
/* What the exec may take beyond the probe's own deadline for the window:
 * the window itself plus this margin (the second sample). */
#define OBSERVE_MARGIN_MS 10000L

/* The probe's stdin for a window of window_s seconds (OBSERVE_MIN_S..
 * OBSERVE_MAX_S; 0: the plain probe, byte for byte run_probe_stdin()'s).
 * Owned by the caller; length in *len. */
char *run_observe_stdin(const char *script, long window_s, size_t *len);

/* The exec deadline of a probe with that window: timeout_ms plus the
 * window and OBSERVE_MARGIN_MS (timeout_ms alone when window_s is 0). */
long run_observe_timeout_ms(long timeout_ms, long window_s);

/* What a pod's window showed, kept past the probe's facts for the
 * printers (-o prometheus: per-rail series, issue 45 point 4): per port
 * the bytes moved and the increase of each error counter of
 * run_rails.err_name (-1: not sampled twice, or it went back). */
#define RUN_RAIL_NERR 9

struct run_rail {
	char dev[32];
	int port;
	int64_t bytes;
	int64_t err[RUN_RAIL_NERR];
};

struct run_rails {
	long window_s;
	size_t n;
	struct run_rail *v;                   /* owned */
	const char *const *err_name;          /* RUN_RAIL_NERR static names */
};

/* The session's observe stage (session.c stages[], before the probes):
 * with --observe, says on the run's sink what the window does and, when
 * pods to probe share a node, that their port counters are that node's
 * (docs/checks.md O: a limit named, never silently attributed).  Nothing
 * without --observe.  Always 0. */
struct run_session;
struct err;
int run_observe_stage(struct run_session *s, struct err *e);

/* The workers' KV metrics (observe_kv.c, docs/checks.md O7-O10).  Start:
 * from the observe stage, before the probes, each probed pod's metrics
 * read once through the pod proxy (s->kv).  The observe-kv stage, after
 * the probes: read again and judged into each probed pod's results
 * (check/observed.h).  Nothing without --observe.  Always 0. */
struct run_kv;
/* One pod's KV metrics over the window, for -o prometheus: per kept
 * series (probe/promtext.h enum kvm) its increase between the two reads,
 * -1 when it was not read twice or went back. */
struct run_kv_window {
	double inc[KVM__COUNT];
};
void run_observe_kv_start(struct run_session *s);
int run_observe_kv_stage(struct run_session *s, struct err *e);
void run_kv_free(struct run_kv *kv);
/* The metrics ports a pod's metrics_env (kube/api/pods.h) names: port[0]
 * NIXL's exporter, port[1] Dynamo's system server (0: none; the same port
 * once), a description into ends (en bytes), and into why (wn bytes) why
 * a named endpoint cannot be read ("" when it can).  1 when the pod names
 * one (read it, or skip its rows with why), 0 when none. */
int run_kv_ports(const char *metrics_env, long port[2], char *ends, size_t en, char *why, size_t wn);

struct probe_counters;
/* The rails of c (section rail_counters); NULL when the probe wrote no
 * such section (no --observe).  Owned: run_rails_free(). */
struct run_rails *run_rails_keep(const struct probe_counters *c);
void run_rails_free(struct run_rails *r);

#endif
