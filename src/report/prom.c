/* check -o prometheus: the verdict as metrics in the Prometheus text
 * exposition format (prometheus/docs content/docs/instrumenting/
 * exposition_formats.md): "# HELP", "# TYPE", then name{labels} value.
 * Names follow the naming conventions (prefix dynamo_interconnect_, unit
 * suffix _seconds); each verdict and status is a state set, one series
 * per possible state, 1 for the one held, so an alert rule matches on a
 * label without knowing the set.
 *
 * Label values come from the cluster (pod, node, namespace, graph names):
 * they are escaped as the format says (backslash, double quote, line feed;
 * client_golang expfmt writeEscapedString) and control bytes and bytes
 * outside UTF-8 spelled visibly and reversibly (promfmt.c), so nothing raw
 * reaches a terminal and distinct names stay distinct series.  No env, no
 * secret, no log text is ever a label. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_int.h"
#include "util/safe.h"

#define P "dynamo_interconnect_"

static const enum verdict_status verdicts[] = { VERDICT_READY, VERDICT_NOT_READY,
						VERDICT_UNVERIFIED };
static const enum check_status statuses[] = { CHECK_OK, CHECK_WARN, CHECK_FAIL,
					      CHECK_SKIPPED };
#define NV (sizeof(verdicts) / sizeof(verdicts[0]))
#define NS (sizeof(statuses) / sizeof(statuses[0]))

/* name{namespace="..",pod="..",role="..",node=".." (the pod's labels) */
static void pod_labels(FILE *out, const char *name, const struct pod_info *pod)
{
	fprintf(out, P "%s{namespace=\"", name);
	report_prom_value(out, pod->namespace);
	fputs("\",pod=\"", out);
	report_prom_value(out, pod->name);
	fputs("\",role=\"", out);
	report_prom_value(out, pod->role);
	fputs("\",node=\"", out);
	report_prom_value(out, pod->node);
	fputc('"', out);
}

static const char *token(enum verdict_status v)
{
	/* verdict_name() spelled as a label value: "NOT READY" -> not_ready. */
	switch (v) {
	case VERDICT_READY: return "ready";
	case VERDICT_NOT_READY: return "not_ready";
	default: return "unverified";
	}
}

static void pod_verdicts(FILE *out, const struct report *r)
{
	report_prom_head(out, "pod_verdict", "gauge",
	     "Verdict of one worker pod, 1 for the state it is in (ready, not_ready, unverified).");
	for (size_t i = 0; i < r->n; i++)
		for (size_t k = 0; k < NV; k++) {
			pod_labels(out, "pod_verdict", r->pods[i].pod);
			fprintf(out, ",verdict=\"%s\"} %d\n", token(verdicts[k]),
				report_pod_verdict(r, i) == verdicts[k]);
		}
}

static void pod_families(FILE *out, const struct report *r)
{
	report_prom_head(out, "pod_family_status", "gauge",
	     "Worst check status of one family in one pod, 1 for the status it has.");
	for (size_t i = 0; i < r->n; i++)
		for (int f = 0; f < FAM__COUNT; f++) {
			int s = check_results_family_status(&r->pods[i].results, f);
			if (s < 0)
				continue;       /* the family has no result here */
			for (size_t k = 0; k < NS; k++) {
				pod_labels(out, "pod_family_status", r->pods[i].pod);
				fprintf(out, ",family=\"%s\",status=\"%s\"} %d\n",
					check_family_name(f), check_status_name(statuses[k]),
					s == (int)statuses[k]);
			}
		}
}

static void pod_errors(FILE *out, const struct report *r)
{
	report_prom_head(out, "pod_probe_error", "gauge",
	     "1 when the pod could not be probed (exec failed, timed out, not running).");
	for (size_t i = 0; i < r->n; i++) {
		pod_labels(out, "pod_probe_error", r->pods[i].pod);
		fprintf(out, "} %d\n", !r->pods[i].probed);
	}
}

/* name{pod labels,device="..",port="N" of one rail. */
static void rail_labels(FILE *out, const char *name, const struct pod_info *pod,
			const struct run_rail *rl)
{
	pod_labels(out, name, pod);
	fputs(",device=\"", out);
	report_prom_value(out, rl->dev);
	fprintf(out, "\",port=\"%d\"", rl->port);
}

static int any_rails(const struct report *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->pods[i].rails)
			return 1;
	return 0;
}

/* check --observe (docs/checks.md O): per rail the bytes it moved and each
 * error counter's increase in the window, so an alert can fire when KV
 * falls off RDMA or a port flaps (deploy/alerts.yaml).  Port counters are
 * the node's: pods of one node show the same rails.  Nothing without
 * --observe; a value not sampled twice has no series. */
static void rails(FILE *out, const struct report *r)
{
	if (!any_rails(r))
		return;
	report_prom_head(out, "observe_window_seconds", "gauge",
	     "Length of check --observe's counter window in the pod.");
	for (size_t i = 0; i < r->n; i++)
		if (r->pods[i].rails) {
			pod_labels(out, "observe_window_seconds", r->pods[i].pod);
			fprintf(out, "} %ld\n", r->pods[i].rails->window_s);
		}
	report_prom_head(out, "rail_bytes", "gauge",
	     "Bytes one RDMA port moved (sent + received) in the window (port counters: the node's).");
	for (size_t i = 0; i < r->n; i++)
		for (size_t k = 0; r->pods[i].rails && k < r->pods[i].rails->n; k++) {
			const struct run_rail *rl = &r->pods[i].rails->v[k];

			if (rl->bytes < 0)
				continue;
			rail_labels(out, "rail_bytes", r->pods[i].pod, rl);
			fprintf(out, "} %lld\n", (long long)rl->bytes);
		}
	report_prom_head(out, "rail_error_increase", "gauge",
	     "Increase of one error counter of one RDMA port in the window (sysfs counter name).");
	for (size_t i = 0; i < r->n; i++)
		for (size_t k = 0; r->pods[i].rails && k < r->pods[i].rails->n; k++)
			for (size_t e = 0; e < RUN_RAIL_NERR; e++) {
				const struct run_rail *rl = &r->pods[i].rails->v[k];

				if (rl->err[e] < 0)
					continue;
				rail_labels(out, "rail_error_increase", r->pods[i].pod, rl);
				fprintf(out, ",counter=\"%s\"} %lld\n", r->pods[i].rails->err_name[e],
					(long long)rl->err[e]);
			}
}

/* check --observe's KV metrics (docs/checks.md O7-O10): per pod the
 * increase of each kept series of the worker's own metrics between the
 * two reads, so an alert can fire on failed KV transfers or on KV that
 * moved while the rails did not.  Nothing without them. */
static void kv_series(FILE *out, const struct report *r)
{
	static const char *const key[KVM__COUNT] = {
		"nixl_tx_bytes", "nixl_rx_bytes", "nixl_errors", "vllm_nixl_bytes",
		"vllm_nixl_failed_transfers", "prompt_tokens_pulled", "prompt_tokens_computed",
	};
	int any = 0;

	for (size_t i = 0; i < r->n; i++)
		any |= r->pods[i].kv != NULL;
	if (!any)
		return;
	report_prom_head(out, "kv_metric_increase", "gauge",
	     "Increase of one KV series of the worker's own metrics in check --observe's window.");
	for (size_t i = 0; i < r->n; i++)
		for (int k = 0; r->pods[i].kv && k < KVM__COUNT; k++) {
			if (r->pods[i].kv->inc[k] < 0)
				continue;
			pod_labels(out, "kv_metric_increase", r->pods[i].pod);
			fprintf(out, ",series=\"%s\"} %.17g\n", key[k], r->pods[i].kv->inc[k]);
		}
}

/* The worse of two verdicts: NOT READY over UNVERIFIED over READY. */
static enum verdict_status worse(enum verdict_status a, enum verdict_status b)
{
	if (a == VERDICT_NOT_READY || b == VERDICT_NOT_READY)
		return VERDICT_NOT_READY;
	return a == VERDICT_UNVERIFIED || b == VERDICT_UNVERIFIED ? VERDICT_UNVERIFIED
								  : VERDICT_READY;
}

static int same_graph(const struct pod_info *a, const struct pod_info *b)
{
	return !strcmp(a->namespace, b->namespace) && !strcmp(a->graph, b->graph);
}

/* One deployment (namespace, graph label) per first pod of it: the worst
 * of its pods' own verdicts.  Quadratic in pods, but only over the labels
 * of pods already in memory and without allocating. */
static void deployments(FILE *out, const struct report *r)
{
	report_prom_head(out, "deployment_verdict", "gauge",
	     "Worst pod verdict of one Dynamo graph deployment (namespace, graph label).");
	for (size_t i = 0; i < r->n; i++) {
		const struct pod_info *pi = r->pods[i].pod;
		enum verdict_status v = report_pod_verdict(r, i);
		size_t j;

		for (j = 0; j < i && !same_graph(r->pods[j].pod, pi); j++)
			;
		if (j < i)
			continue;
		for (j = i + 1; j < r->n; j++)
			if (same_graph(r->pods[j].pod, pi))
				v = worse(v, report_pod_verdict(r, j));
		for (size_t k = 0; k < NV; k++) {
			fputs(P "deployment_verdict{namespace=\"", out);
			report_prom_value(out, pi->namespace);
			fputs("\",deployment=\"", out);
			report_prom_value(out, pi->graph);
			fprintf(out, "\",verdict=\"%s\"} %d\n", token(verdicts[k]),
				v == verdicts[k]);
		}
	}
}

static void run_totals(FILE *out, const struct report *r)
{
	const struct verdict *v = r->verdict;

	report_prom_head(out, "verdict", "gauge",
	     "Consolidated verdict of the run, 1 for the state it is in.");
	for (size_t k = 0; k < NV; k++)
		fprintf(out, P "verdict{verdict=\"%s\"} %d\n", token(verdicts[k]),
			v->status == verdicts[k]);
	report_prom_head(out, "exit_code", "gauge", "Exit code of the run (0 ready, 2 not ready, 3 unverified).");
	fprintf(out, P "exit_code %d\n", v->exit_code);
	report_prom_head(out, "pods", "gauge", "Worker pods found.");
	fprintf(out, P "pods %zu\n", v->npods);
	report_prom_head(out, "pods_probed", "gauge", "Worker pods probed.");
	fprintf(out, P "pods_probed %zu\n", v->nprobed);
	report_prom_head(out, "pods_ready", "gauge", "Worker pods whose own verdict is ready.");
	fprintf(out, P "pods_ready %zu\n", v->nready);
	report_prom_head(out, "probe_errors", "gauge", "Worker pods that could not be probed.");
	fprintf(out, P "probe_errors %zu\n", v->npods - v->nprobed);
	report_prom_head(out, "run_duration_seconds", "gauge", "Wall time of the run, listing to verdict.");
	fprintf(out, P "run_duration_seconds %.3f\n", r->duration_s);
}

/* The text is made whole first, then written with every series once
 * (promfmt.c report_prom_unique(): names a NUL cut short repeat). */
int report_print_prometheus(FILE *out, const struct report *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	int rc;

	if (!m)
		return -1;
	run_totals(m, r);
	deployments(m, r);
	pod_verdicts(m, r);
	pod_families(m, r);
	pod_errors(m, r);
	rails(m, r);
	kv_series(m, r);
	report_prom_dgd(m, r);
	rc = ferror(m) | fclose(m) ? -1 : report_prom_unique(out, text, len);
	free(text);
	return rc;
}
