/* Fan-out: one exec per pod, at most `parallel` at a time.
 *
 * A fixed pool of worker threads takes pods in list order and stores each
 * result at the pod's index, so the output order is stable whatever order
 * the execs finish in.  Workers block in poll() inside exec_run; nothing
 * spins.  The engine knows nothing of what the command is.
 */
#ifndef ENGINE_ENGINE_H
#define ENGINE_ENGINE_H

#include <stddef.h>

#include "../kube/exec/exec.h"
#include "../kube/api/pods.h"

#define ENGINE_DEFAULT_PARALLEL 32
#define ENGINE_MAX_PARALLEL 512

/* Where a run stands, for a progress line: execs finished of total, how
 * many of them failed (no report: an error or a timeout), and the exec
 * in flight longest (NULL when none) with how long it has run. */
struct engine_progress {
	size_t done, total, failed;
	const struct pod_info *waiting;
	long waited_ms;
};

struct engine_job {
	const char *const *argv;   /* the same command for every pod */
	const char *stdin_data;    /* the same stdin for every pod; NULL: none */
	size_t stdin_len;
	int parallel;              /* 0: ENGINE_DEFAULT_PARALLEL */
	long timeout_ms;           /* per exec */
	size_t max_output;         /* per stream, per pod */
	/* Called after each finished exec (from a worker thread, serialised),
	 * e.g. for a progress line.  May be NULL. */
	void (*progress)(const struct engine_progress *at, void *arg);
	void *progress_arg;
	/* Called in the worker thread right after pod i's exec, concurrently
	 * with other workers, so the caller can digest the output and release
	 * it at once (memory then stays flat in the number of pods).  May be
	 * NULL. */
	void (*on_result)(size_t i, struct exec_result *r, void *arg);
	void *on_result_arg;
};

/* Runs job on every pod of l with probe set; results[i] belongs to
 * l->items[i] (pods not probed get outcome EXEC_ERROR with their reason
 * and http_status 0).  results must hold l->n entries; the caller releases
 * each with exec_result_release().  results NULL: each result lives only
 * while on_result runs and the engine releases it after (nothing is kept
 * per pod: ~1 KiB a pod less, issue 27); pods not probed get no result. */
void engine_run(struct http_client *c, const struct pod_list *l,
		const struct engine_job *job, struct exec_result *results);

/* engine_each (each.c): fn(i, arg) once for every i in 0..n-1, from a
 * pool of min(parallel, n) threads (parallel <= 0: ENGINE_DEFAULT_PARALLEL,
 * at most ENGINE_MAX_PARALLEL) taking the indices in order; returns when
 * every call has returned.  fn runs concurrently with itself: it writes
 * only what belongs to index i.  Cancelling is fn's to honour (cancel_why()),
 * so that every index still gets its call and can say why it did nothing. */
void engine_each(size_t n, int parallel, void (*fn)(size_t i, void *arg), void *arg);

#endif
