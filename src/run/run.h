/* The per-pod run: what happens to a pod after it is listed.  One struct
 * per pod holds everything the run learns about it (its probe's facts and
 * check results, its log evidence, why it was not probed), and run_pods()
 * is the fan-out that fills them: the probe through the exec engine, the
 * report's digest (parse, checks on the real values, then the mask of
 * whatever may be a Secret's: mask.h), then the log evidence.
 * check, node and nixl all enter here; cmd/ only prints what comes out. */
#ifndef RUN_RUN_H
#define RUN_RUN_H

#include <semaphore.h>

#include "check/check.h"
#include "kube/exec/exec.h"
#include "kube/api/pods.h"
#include "model/reason.h"
#include "run/observe.h"

struct probe_env;

#define RUN_MAX_OUTPUT (4u << 20)   /* per stream, per pod */
#define RUN_PROBE_TIMEOUT_MS 60000L

/* What the run tells its user while it works: probes finished so far,
 * and one-line notices (what a transfer test runs, why it did not run, a
 * cleanup that failed).  The library writes to no terminal itself: cmd/
 * hands it a sink (report/report.h report_sink() prints to stderr).  Any
 * member may be NULL; a NULL sink says nothing. */
/* Where the probes stand (engine.h struct engine_progress): done of
 * total, failed so far, and the probe in flight longest (NULL: none) with
 * how long it has run and its deadline. */
struct run_progress {
	size_t done, total, failed;
	const struct pod_info *waiting;
	long waited_ms, deadline_ms;
};

struct run_sink {
	void (*progress)(const struct run_progress *at, void *arg);
	void (*progress_done)(size_t total, void *arg);   /* after the last probe */
	/* One line without its newline; what came from a pod or the server
	 * in it already went through safe_show(). */
	void (*notice)(const char *line, void *arg);
	void *arg;
};

/* Tells s's notice a printf-formatted line (nothing when s has none). */
void run_say(const struct run_sink *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

struct run_options {
	int parallel;
	long timeout_ms;
	int logs;          /* also read each probed pod's log (LOGS family) */
	long log_tail;     /* lines of it; 0: LOGS_DEFAULT_TAIL_LINES */
	long observe_s;    /* check --observe: the counter window (run/observe.h); 0: none */
	const struct run_sink *sink;   /* borrowed; NULL: silent */
};

/* One pod of the run.  Owns results, reason and facts. */
struct run_pod {
	const struct pod_info *pod;         /* borrowed from the pod list */
	struct check_context ctx;           /* deployment-wide facts for its checks */
	struct check_results results;       /* every family, LOGS and TRANSFER included */
	struct reason reason;               /* why not probed (model/reason.h); kind NONE when probed */
	struct err_denial *log_denied;      /* owned; its log read refused by RBAC; else NULL */
	int probed;
	struct probe_facts *facts;          /* when run.keep_facts and probed, else NULL */
	/* When run.keep_env and probed: the main process's transport env,
	 * masked (mask.h), all that drift and the DGD checks read, as one
	 * interned block (env.c; util/intern.h: unref, never free); else NULL.
	 * Read it through run_pod_env_view(). */
	const char *env_block;
	struct run_rails *rails;            /* owned; check --observe's window, else NULL */
	/* What the probe cost in the pod (issue 46): the bytes of its report
	 * as they arrived (0: none), its wall and CPU ms as its probe_cost
	 * section says them (-1: not reported). */
	struct run_probe_cost {
		size_t bytes;
		long wall_ms, cpu_ms;
	} cost;
	/* borrowed from the session (observe_kv.c): the KV metrics' increases
	 * in --observe's window when both reads were judged, else NULL */
	const struct run_kv_window *kv;
};

/* Pod rp's kept process env (env_block, else facts' env) as a view into
 * *out: out->var is the caller's (free(out->var)); the strings it points
 * to are rp's, read-only, valid until run_release().  0 (out empty) when
 * none was kept. */
int run_pod_env_view(const struct run_pod *rp, struct probe_env *out);
/* e as an interned block (env.c); NULL when out of memory. */
const char *run_env_block(const struct probe_env *e);

struct run {
	const struct pod_list *pods;        /* borrowed */
	struct run_pod *pod;                /* pods->n of them, in list order */
	int keep_facts;                     /* set before probing: keep pod[].facts */
	/* set before probing: the known-issues table the known-bad checks
	 * read (check/known.h, --known-issues); NULL: the built-in one */
	const struct known_table *known;
	int keep_env;                       /* set before probing: keep pod[].env_block
					     * (shared; not the ~40 KiB of facts a pod) */
	/* Private to run.c: what run_pods() borrows while it runs. */
	struct http_client *client;
	const struct run_options *opts;
	sem_t *log_gate;                    /* bounds the log GETs in flight */
};

void run_init(struct run *pr, const struct pod_list *l);
/* Probes every pod marked probe in parallel, digests each report as it
 * arrives, reads its log when o->logs; pods not probed get the reason. */
void run_pods(struct run *pr, struct http_client *c, const struct run_options *o);
/* The bytes run_pods() writes to every probe exec's stdin (`sh -s`): the
 * embedded probe as probe/invoke.h wraps it.  Owned; length in *len.
 * `probe-script` prints them and `version` their sha256, so what a pod
 * runs can be read and compared without a cluster. */
char *run_probe_stdin(size_t *len);
/* Digests pod i from a probe report already in hand (node: the probe run
 * on this machine): parse, check, mask (mask.h). */
void run_digest_report(struct run *pr, size_t i, const char *text, size_t len);
/* node without --pod (local.c): fills l with one pod standing for this
 * machine (its hostname as pod and node), runs the probe here
 * (probe/local.h) and digests its report as that pod.  The checks assume
 * KV may cross machines: nothing here says otherwise.  -1 with e set when
 * the probe cannot run; either way the caller releases pr (run_release)
 * and then l (pod_list_release). */
int run_local(struct run *pr, struct pod_list *l, const struct known_table *known,
	      struct err *e);
void run_release(struct run *pr);

#endif
