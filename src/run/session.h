/* A run session: everything `check` (and `node --pod`) does to a fleet,
 * as stages declared once in session.c and run in order: the pod list
 * (with its DRA claims), the DGDs, the probe, the transfer test, drift,
 * the DGD judgement, the results frozen (check.h check_results_freeze),
 * the verdict.
 * What comes back is a finished report (report/report.h struct report)
 * for cmd/ to print, then the push of its metrics.  A stage the plan does
 * not ask for is skipped; cmd/ decides no run internals (what to keep of
 * each pod follows from the plan). */
#ifndef RUN_SESSION_H
#define RUN_SESSION_H

#include <stdio.h>
#include <time.h>

#include "check/dgd.h"
#include "kube/api/pods.h"
#include "model/dgd.h"
#include "recipe/recipe.h"
#include "report/report.h"
#include "run/run.h"
#include "verdict/verdict.h"

/* What the caller asks of one session. */
struct run_plan {
	/* The pods the list stage lists (kube/api/pods.h); NULL: the
	 * caller's list, run_session's l. */
	const struct pods_query *query;
	int claims;                     /* resolve the listed pods' DRA claims */
	/* -c: when no listed pod has it, the session ends with the API
	 * server's words for it (kubectl exec/logs -c), before any exec. */
	const char *container;
	struct run_options probe;       /* parallel, deadlines, logs, sink */
	/* The sink's progress line only past this many pods (when it has
	 * time to show); the notices always. */
	size_t progress_min;
	const char *namespace;          /* the listed scope: the DGD read's */
	int all_namespaces;
	int dgds;                       /* read the DGDs, judge the pods against them */
	const char *dgd;                /* --dgd NAME: only that one; NULL: those listed */
	int transfer;                   /* --transfer: the ucx_perftest pairs */
	int keep_facts;                 /* every probed pod's facts (nixl's plan) */
	long transfer_timeout_ms;
	const struct recipe_set *recipe;   /* --recipe, read already; NULL: no drift */
	const char *recipe_path;
	const struct known_table *known;  /* --known-issues rows; NULL: the built-in table */
	struct timespec started;        /* CLOCK_MONOTONIC: the run's duration */
};

/* One finished session.  report points into the rest; the caller may set
 * report.source before printing. */
struct run_session {
	struct pod_list list;           /* the list stage's (plan.query) */
	int empty;                      /* it listed no pod: nothing else ran */
	struct run run;
	struct dgd_set dgds;
	struct dgd_findings findings;
	char **group;                   /* -A with DGDs shown: per pod (run_dgd_groups) */
	int dgd_shown;                  /* --dgd, or some DGD of the listed pods read */
	const char *dgd_note;           /* why DGDs were not read; NULL: nothing to say */
	const char *interrupted;        /* cancel_why() once probes and transfer ended */
	struct run_kv *kv;              /* --observe: the KV metrics' first reads (observe_kv.c) */
	struct verdict verdict;
	struct report report;
	/* Private to session.c. */
	const struct run_plan *plan;
	struct http_client *client;
	struct run_options probe;       /* plan's, with sink */
	struct run_sink sink;
	int judged;
	char note_buf[300];
};

/* Runs every stage p asks for into s, over the pods p->query lists, or
 * over l (borrowed, outlives s) when it is NULL.  0 (s->empty: no pod
 * listed, no other stage ran), or -1 with e set when a stage cannot go on
 * (the list failed or was interrupted, -c no pod has, the DGD read refused
 * with --dgd, ...); either way run_session_release(s) after. */
int run_session(struct run_session *s, struct http_client *c, const struct pod_list *l,
		const struct run_plan *p, struct err *e);

/* --pushgateway: the report as metrics (metrics() prints it: cmd/ hands
 * the prometheus printer, run/ knows no printer) PUT to url under the
 * grouping key job, namespace ("-A" for all).  0, or -1 with e set. */
int run_session_push(const struct run_session *s, const char *url,
		     int (*metrics)(FILE *out, const struct report *r), struct err *e);

void run_session_release(struct run_session *s);

#endif
