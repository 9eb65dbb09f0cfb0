/* What check, node and nixl share: probe pods in parallel and turn each
 * report into check results.  Knows the flow, not the details: exec is in
 * src/kube, parsing in src/probe, judging in src/check. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"
#include "probe/facts.h"
#include "probe/invoke.h"
#include "probe/local.h"
#include "probe_logs.h"
#include "probe_run.h"
#include "util/xalloc.h"

/* Deployment-wide facts each pod's checks need (check.h check_context). */
static void contexts(struct probe_run *pr)
{
	const struct pod_list *l = pr->pods;
	int has_p = 0, has_d = 0, cross_node = 0;
	size_t i, j;

	for (i = 0; i < l->n; i++) {
		has_p |= !strcmp(l->items[i].role, "prefill");
		has_d |= !strcmp(l->items[i].role, "decode");
	}
	for (i = 0; i < l->n; i++)
		for (j = 0; j < l->n; j++)
			if (!strcmp(l->items[i].role, "prefill") &&
			    !strcmp(l->items[j].role, "decode") &&
			    strcmp(l->items[i].node, l->items[j].node))
				cross_node = 1;
	for (i = 0; i < l->n; i++) {
		struct check_context *c = &pr->ctx[i];
		const char *role = l->items[i].role;
		memset(c, 0, sizeof(*c));
		c->node = l->items[i].node;
		c->role = role;
		c->kv_known = 1;
		/* Prefill and decode always hand KV across pods; aggregated
		 * workers only do when the graph also has split roles. */
		c->kv_cross_pod = !strcmp(role, "prefill") || !strcmp(role, "decode") ||
				  (has_p && has_d);
		c->kv_cross_node = cross_node;
		c->npods = l->n;
		if (l->items[i].spec.nixl_backend[0])
			c->nixl_backend = l->items[i].spec.nixl_backend;
	}
}

/* Turns one finished exec into check results, then drops the output so
 * memory stays flat however many pods there are. */
static void digest(size_t i, struct exec_result *r, void *arg)
{
	struct probe_run *pr = arg;

	(void)r;
	probe_run_digest(pr, i);
	if (pr->opts->logs && pr->probed[i] && !cancel_why())
		probe_logs_pod(pr, pr->client, pr->opts, i);
}

/* The Secret whose value variable name may hold, after the rules of
 * pod_info.secret_env (pods.h); copies its name into out (n bytes) and
 * returns 1, or 0 when the variable is not from a Secret. */
static int secret_of(const char *secret_env, const char *name, char *out, size_t n)
{
	const char *line = secret_env, *nl;
	size_t len = strlen(name);
	int exempt = 0, found = 0, exact = 0;

	for (; line && (nl = strchr(line, '\n')); line = nl + 1) {
		const char *eq = strchr(line, '=');
		const char *key = line + (*line == '*' || *line == '!');
		size_t klen;

		if (*line == '!') {
			exempt |= (size_t)(nl - key) == len && !strncmp(key, name, len);
			continue;
		}
		if (!eq || eq > nl)
			continue;
		klen = (size_t)(eq - key);
		if (*line == '*' ? !exact && len >= klen && !strncmp(key, name, klen)
				 : klen == len && !strncmp(key, name, len)) {
			/* secretKeyRef names the variable itself: it wins; among
			 * envFrom rules the last one wins, as in the kubelet. */
			exact |= *line != '*';
			snprintf(out, n, "%.*s", (int)(nl - eq - 1), eq + 1);
			found = 1;
		}
	}
	return found && (exact || !exempt);
}

/* product.md: a value from a Secret is never shown.  The probe reports
 * transport variables from the container's environment, where a value
 * from a secretKeyRef or an envFrom secretRef is plain text: replace each
 * with "<from secret S>" before anything judges or prints it. */
static void redact_secrets(struct probe_facts *f, const char *secret_env)
{
	char secret[256];
	size_t k;

	for (k = 0; k < f->env.n; k++) {
		struct probe_env_var *v = &f->env.var[k];

		if (!secret_of(secret_env, v->name, secret, sizeof(secret)))
			continue;
		free(v->value);
		v->value = xasprintf("<from secret %s>", secret);
	}
}

void probe_run_digest(struct probe_run *pr, size_t i)
{
	struct exec_result *r = &pr->execs[i];
	const struct pod_info *pod = &pr->pods->items[i];
	struct probe_facts *f;
	struct err e;

	err_clear(&e);
	if ((r->outcome == EXEC_SUCCESS || r->outcome == EXEC_EXIT_CODE) && r->out.len) {
		f = probe_facts_new();
		if (probe_parse_report(buf_str(&r->out), r->out.len, f, &e) == 0) {
			redact_secrets(f, pod->secret_env);
			check_pod(f, &pod->spec, &pr->ctx[i], &pr->results[i]);
			pr->probed[i] = 1;
		} else {
			/* A report cut at the cap cannot parse: say why. */
			pr->errors[i] = r->truncated
				? xasprintf("the probe's output passed the %u MiB cap and was "
					    "cut (%s)", PROBE_MAX_OUTPUT >> 20, e.msg)
				: xasprintf("cannot read the probe report: %s", e.msg);
		}
		if (pr->keep_facts && pr->probed[i])
			pr->facts[i] = f;
		else
			probe_facts_free(f);
	} else if (r->outcome == EXEC_EXIT_CODE || r->outcome == EXEC_SUCCESS) {
		pr->errors[i] = xasprintf("the probe printed nothing (exit code %d)", r->exit_code);
	} else {
		pr->errors[i] = xstrdup(r->message);
	}
	if (!pr->probed[i])
		check_pod_unprobed(pr->errors[i], &pod->spec, &pr->ctx[i], &pr->results[i]);
	buf_release(&r->out);
	buf_release(&r->err);
}

static void progress(size_t done, size_t total, void *arg)
{
	(void)arg;
	fprintf(stderr, "\rprobing %zu/%zu pods", done, total);
	fflush(stderr);
}

void probe_run_init(struct probe_run *pr, const struct pod_list *l)
{
	size_t n = l->n ? l->n : 1;

	memset(pr, 0, sizeof(*pr));
	pr->pods = l;
	pr->ctx = xcalloc(n, sizeof(*pr->ctx));
	pr->results = xcalloc(n, sizeof(*pr->results));
	pr->errors = xcalloc(n, sizeof(*pr->errors));
	pr->probed = xcalloc(n, sizeof(*pr->probed));
	pr->execs = xcalloc(n, sizeof(*pr->execs));
	pr->facts = xcalloc(n, sizeof(*pr->facts));
	contexts(pr);
}

void probe_run_pods(struct probe_run *pr, struct http_client *c,
		    const struct probe_options *o)
{
	struct engine_job job = { 0 };
	int show = o->progress && isatty(2) && pr->pods->n > 4;
	size_t i;

	job.argv = invoke_probe_argv;
	job.stdin_data = invoke_stdin(probe_script, &job.stdin_len);
	job.parallel = o->parallel;
	job.timeout_ms = o->timeout_ms;
	job.max_output = PROBE_MAX_OUTPUT;
	job.progress = show ? progress : NULL;
	job.on_result = digest;
	job.on_result_arg = pr;
	pr->client = c;
	pr->opts = o;
	engine_run(c, pr->pods, &job, pr->execs);
	free((char *)job.stdin_data);
	pr->client = NULL;
	pr->opts = NULL;
	if (show)
		fputs("\r\033[K", stderr);
	for (i = 0; i < pr->pods->n; i++) {
		const struct pod_info *pod = &pr->pods->items[i];
		if (pod->probe)
			continue;
		pr->errors[i] = xasprintf("not probed: %s", pod->skip_reason);
		check_pod_unprobed(pr->errors[i], &pod->spec, &pr->ctx[i], &pr->results[i]);
	}
}

void probe_run_records(const struct probe_run *pr, struct pod_record *rec)
{
	size_t i;

	for (i = 0; i < pr->pods->n; i++) {
		const struct pod_info *p = &pr->pods->items[i];
		rec[i].name = p->name;
		rec[i].node = p->node;
		rec[i].role = p->role;
		rec[i].probed = pr->probed[i];
		rec[i].error = pr->errors[i];
		rec[i].results = &pr->results[i];
		rec[i].namespace = p->namespace;
		rec[i].graph = p->graph;
	}
}

void probe_run_release(struct probe_run *pr)
{
	size_t i;

	for (i = 0; pr->pods && i < pr->pods->n; i++) {
		check_results_release(&pr->results[i]);
		free(pr->errors[i]);
		exec_result_release(&pr->execs[i]);
		if (pr->facts[i])
			probe_facts_free(pr->facts[i]);
	}
	free(pr->facts);
	free(pr->ctx);
	free(pr->results);
	free(pr->errors);
	free(pr->probed);
	free(pr->execs);
	memset(pr, 0, sizeof(*pr));
}
