/* Probing a list of pods and judging each (shared by check, node, nixl). */
#ifndef CMD_PROBE_RUN_H
#define CMD_PROBE_RUN_H

#include "check/check.h"
#include "check/verdict.h"
#include "kube/exec.h"
#include "kube/pods.h"

#define PROBE_MAX_OUTPUT (4u << 20)   /* per stream, per pod */
#define PROBE_DEFAULT_TIMEOUT_MS 60000L

struct probe_options {
	int parallel;
	long timeout_ms;
	int progress;      /* allowed to draw a progress line on a TTY */
	int logs;          /* also read each probed pod's log (LOGS family) */
	long log_tail;     /* lines of it; 0: LOGS_DEFAULT_TAIL_LINES */
};

/* Per pod (index = pod list index); all arrays owned. */
struct probe_run {
	const struct pod_list *pods;        /* borrowed */
	struct check_context *ctx;
	struct check_results *results;
	char **errors;                      /* why not probed, or NULL */
	int *probed;
	struct exec_result *execs;
	int keep_facts;                     /* set before probing: keep facts[] */
	struct probe_facts **facts;         /* per pod when keep_facts, else NULL */
	struct http_client *client;         /* borrowed, during probe_run_pods */
	const struct probe_options *opts;   /* borrowed, during probe_run_pods */
};

void probe_run_init(struct probe_run *pr, const struct pod_list *l);
void probe_run_pods(struct probe_run *pr, struct http_client *c,
		    const struct probe_options *o);
/* Judges pod i from pr->execs[i] (parse, check) and drops its output. */
void probe_run_digest(struct probe_run *pr, size_t i);
/* Fills rec[0..n) (borrowing from pr) for verdict_compute(). */
void probe_run_records(const struct probe_run *pr, struct pod_record *rec);
void probe_run_release(struct probe_run *pr);

#endif
