/* check --suggest-env: the variables the findings suggest (a check
 * result's suggest, e.g. ucx-nic-select's UCX_NET_DEVICES), as the env
 * list of a worker's container spec, one block per pod, ready to paste
 * into the recipe (issue 25 item 2); an engine flag a finding suggests
 * (mooncake-nic-select's --disaggregation-ib-device, issue 42 item 4) as
 * an "# args:" comment in that block.  Formats only: the values were
 * decided by the checks. */
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "report_int.h"
#include "../util/safe.h"

/* One "NAME=value" as a container env entry; the value is the pod's text
 * (device names), so it is made terminal-safe and quoted for YAML. */
static void env_entry(FILE *out, const char *suggest)
{
	const char *eq = strchr(suggest, '=');
	char name[64];

	if (!eq)
		return;
	snprintf(name, sizeof(name), "%.*s", (int)(eq - suggest), suggest);
	fprintf(out, "  - name: %s\n", safe_show(name));
	fprintf(out, "    value: \"%s\"\n", safe_show(eq + 1));
}

static void ports_line(FILE *out, const struct check_gpu_nic_port *v, int n)
{
	for (int i = 0; i < n && i < CHECK_GPU_NIC_PORTS; i++)
		fprintf(out, "%s%s", i ? "," : "", safe_show(v[i].dev));
	if (n < 0)
		fprintf(out, ",...");
}

/* The pod's GPUs and their NICs, now and under the suggestion, as YAML
 * comments under its env block (still pasteable). */
static void gpu_lines(FILE *out, const struct check_results *r)
{
	for (size_t i = 0; i < r->n_gpu_nics; i++) {
		const struct check_gpu_nic *e = &r->gpu_nics[i];

		if (!e->nsugg)
			continue;
		if (e->numa >= 0)
			fprintf(out, "  # GPU%d (NUMA %d): ", e->gpu, e->numa);
		else
			fprintf(out, "  # GPU%d (NUMA ?): ", e->gpu);
		ports_line(out, e->sugg, e->nsugg < 0 ? CHECK_GPU_NIC_PORTS : e->nsugg);
		fprintf(out, " %s; now (UCX_NET_DEVICES %s) ", e->sugg_link,
			strcmp(e->chosen_by, "UCX_NET_DEVICES") ? e->chosen_by : "as set");
		ports_line(out, e->nic, e->n < 0 ? CHECK_GPU_NIC_PORTS : e->n);
		fprintf(out, " %s\n", *e->link ? e->link : "?");
	}
}

/* Has the pod a variable to paste (want_arg 0) or an argument (1)? */
static int pod_has_suggestion(const struct run_pod *p, int want_arg)
{
	for (size_t i = 0; i < p->results.n; i++)
		if (p->results.v[i].suggest &&
		    report_suggest_is_arg(p->results.v[i].suggest) == want_arg)
			return 1;
	return 0;
}

/* "  # args: --flag value" per argument the findings suggest (SGLang's
 * --disaggregation-ib-device): the engine reads a flag, not env, so it is
 * a comment under the env block, to put in the container's args. */
static void arg_lines(FILE *out, const struct check_results *r)
{
	for (size_t k = 0; k < r->n; k++) {
		const char *s = r->v[k].suggest;
		const char *eq = s ? strchr(s, '=') : NULL;
		char flag[64];

		if (!report_suggest_is_arg(s) || !eq)
			continue;
		snprintf(flag, sizeof(flag), "%.*s", (int)(eq - s), s);
		fprintf(out, "  # args: %s", safe_show(flag));
		fprintf(out, " %s\n", safe_show(eq + 1));
	}
}

/* An ENV finding with no value to suggest: its fix goes in as a comment. */
static int env_fix_only(const struct check_result *c)
{
	return c->family == FAM_ENV && !c->suggest && report_has_fix(c->status, c->remedy);
}

static int pod_has_env_fix(const struct run_pod *p)
{
	for (size_t i = 0; p->probed && i < p->results.n; i++)
		if (env_fix_only(&p->results.v[i]))
			return 1;
	return 0;
}

/* "  # CHECK: FIX" per ENV finding without a value (issue 44 point 5):
 * every env finding of the pod is in its block, still pasteable. */
static void env_fix_lines(FILE *out, const struct check_results *r)
{
	for (size_t k = 0; k < r->n; k++)
		if (env_fix_only(&r->v[k]))
			fprintf(out, "  # %s: %s\n", r->v[k].name, safe_show(r->v[k].remedy));
}

void report_print_suggest_env(FILE *out, const struct report *r)
{
	int any = 0;

	for (size_t i = 0; i < r->n; i++) {
		const struct run_pod *p = &r->pods[i];

		int values = pod_has_suggestion(p, 0);

		if (!values && !pod_has_env_fix(p) && !pod_has_suggestion(p, 1))
			continue;
		/* With no value to paste there is no env list (an empty one
		 * would replace the container's): the fixes alone, commented. */
		fprintf(out, "%s# %s/%s: %s\n%s",
			any++ ? "\n" : "\nSuggested env (check --suggest-env):\n",
			safe_show(p->pod->namespace), safe_show(p->pod->name),
			values ? "env of its worker container" : pod_has_env_fix(p) ?
			"what to change in its worker container's env" :
			"what to change in its worker container's args",
			values ? "env:\n" : "");
		for (size_t k = 0; k < p->results.n; k++)
			if (p->results.v[k].suggest && !report_suggest_is_arg(p->results.v[k].suggest))
				env_entry(out, p->results.v[k].suggest);
		env_fix_lines(out, &p->results);
		arg_lines(out, &p->results);
		gpu_lines(out, &p->results);
	}
	if (!any)
		fprintf(out, "\nSuggested env (check --suggest-env): none, no finding suggests a variable "
			"or an env change\n");
	report_print_suggest_patch(out, r);
}
