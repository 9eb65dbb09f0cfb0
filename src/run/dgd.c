/* check --dgd on a run (run/dgd.h): the pods as the DGD checks see them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/dgd.h"
#include "check/dgd.h"
#include "kube/api/dgd.h"
#include "probe/facts.h"
#include "util/intern.h"
#include "util/xalloc.h"

/* Pod i's env as the DGD checks compare it (model/dgd.h dgd_pod.env):
 * its main process's transport variables when the probe read them, a
 * masked one (run/mask.h) as DGD_POD_SECRET ":" and the real value's
 * SHA-256; else its spec env, with *unread its reason when that was past
 * its cap.  Owned. */
static char *dgd_pod_env(const struct run_pod *rp, const char **unread)
{
	struct probe_env env;
	char *out = NULL;
	size_t len = 0, i;
	FILE *m;

	*unread = NULL;
	if (!run_pod_env_view(rp, &env) || env.src.status != PROBE_OK) {
		free(env.var);
		*unread = rp->pod->spec_env_unread;
		return xstrdup(rp->pod->spec_env ? rp->pod->spec_env : "");
	}
	m = open_memstream(&out, &len);
	for (i = 0; m && i < env.n; i++) {
		const struct probe_env_var *v = &env.var[i];

		if (!v->secret)
			fprintf(m, "%s=%s\n", v->name, v->value);
		else if (v->digest && *v->digest)
			fprintf(m, "%s=" DGD_POD_SECRET ":%s\n", v->name, v->digest);
		else
			fprintf(m, "%s=" DGD_POD_SECRET "\n", v->name);
	}
	if (m)
		fclose(m);
	free(env.var);
	return out ? out : xstrdup("");
}

void run_dgd_judge(const struct run *pr, const struct dgd_set *set,
			 struct dgd_findings *f)
{
	const struct pod_list *l = pr->pods;
	struct dgd_pod *v = xcalloc(l->n + 1, sizeof(*v));
	const char **envs = xcalloc(l->n + 1, sizeof(*envs));
	size_t i;

	for (i = 0; i < l->n; i++) {
		const struct pod_info *p = &l->items[i];
		const char *unread;
		char *env = dgd_pod_env(&pr->pod[i], &unread);

		/* Pods of a component share one env: held once (intern.h). */
		envs[i] = intern_str(env);
		free(env);
		v[i] = (struct dgd_pod){ p->namespace, p->name, p->graph,
			p->component ? p->component : "", p->worker_hash ? p->worker_hash : "",
			envs[i], p->probe, unread };
	}
	dgd_judge(set, v, l->n, f);
	for (i = 0; i < l->n; i++)
		intern_unref(envs[i], NULL);
	free(envs);
	free(v);
}

/* The DGD of pod p in s, or NULL. */
static const struct dgd_info *dgd_of(const struct pod_info *p, const struct dgd_set *s)
{
	size_t i;

	if (!p->graph || !*p->graph)
		return NULL;
	for (i = 0; i < s->n; i++)
		if (!strcmp(s->items[i].name, p->graph) &&
		    (!*s->items[i].namespace || !strcmp(s->items[i].namespace, p->namespace)))
			return &s->items[i];
	return NULL;
}

void run_dgd_keep_listed(const struct pod_list *l, struct dgd_set *s)
{
	unsigned char *keep = xcalloc(s->n + 1, 1);
	size_t i;

	/* pods x DGDs compares once (dgd_of per pod), not per DGD again */
	for (i = 0; i < l->n; i++) {
		const struct dgd_info *d = dgd_of(&l->items[i], s);

		if (d)
			keep[d - s->items] = 1;
	}
	/* a DGD not read stays: it is named, never silently gone */
	for (i = 0; i < s->n; i++)
		keep[i] |= *s->items[i].skipped != 0;
	dgd_set_keep(s, keep);
	free(keep);
}

char **run_dgd_groups(const struct pod_list *l, const struct dgd_set *s)
{
	char **g = xcalloc(l->n + 1, sizeof(*g));
	size_t i;

	for (i = 0; i < l->n; i++) {
		const struct dgd_info *d = dgd_of(&l->items[i], s);

		g[i] = d ? xasprintf("%s/%s", d->namespace, d->name) : NULL;
	}
	return g;
}

void run_dgd_groups_release(char **g, size_t n)
{
	size_t i;

	for (i = 0; g && i < n; i++)
		free(g[i]);
	free(g);
}

void run_dgd_nodes(struct run *pr, const struct dgd_set *s)
{
	for (size_t i = 0; i < pr->pods->n; i++) {
		const struct pod_info *p = &pr->pods->items[i];
		const struct dgd_info *d = dgd_of(p, s);

		for (size_t k = 0; d && p->component && k < d->ncomp; k++)
			if (d->comp[k].name && !strcmp(d->comp[k].name, p->component) &&
			    d->comp[k].nodes > pr->pod[i].ctx.nodes && d->comp[k].nodes <= 4096)
				pr->pod[i].ctx.nodes = (int)d->comp[k].nodes;
	}
}
