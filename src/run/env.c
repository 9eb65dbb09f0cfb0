/* The process env a run keeps per pod (run.h run_pod.env_block): one
 * interned block (util/intern.h), so the pods of a component, whose env is
 * the same word for word, share one copy however many there are. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/facts.h"
#include "run/run.h"
#include "util/intern.h"
#include "util/xalloc.h"

/* Layout: one byte src.status, then per variable name NUL value NUL
 * secret NUL digest NUL (an empty secret or digest: none); an empty name
 * ends it.
 * Names are never empty (probe/env.c keeps only allowed names). */
const char *run_env_block(const struct probe_env *e)
{
	char *buf = NULL;
	size_t len = 0;
	const char *out;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return NULL;
	fputc((int)e->src.status + 1, m);
	for (size_t i = 0; i < e->n; i++) {
		const struct probe_env_var *v = &e->var[i];

		fprintf(m, "%s%c%s%c%s%c%s%c", v->name, 0, v->value ? v->value : "", 0,
			v->secret ? v->secret : "", 0, v->digest ? v->digest : "", 0);
	}
	fputc(0, m);
	fclose(m);
	out = buf ? intern_bytes(buf, len, NULL) : NULL;
	free(buf);
	return out;
}

/* The variables of block b, counted. */
static size_t block_count(const char *b)
{
	size_t n = 0;

	for (const char *p = b + 1; *p; n++)
		for (int k = 0; k < 4; k++)
			p += strlen(p) + 1;
	return n;
}

int run_pod_env_view(const struct run_pod *rp, struct probe_env *out)
{
	const char *p;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!rp->env_block) {
		if (!rp->facts)
			return 0;
		*out = rp->facts->env;
		out->var = xcalloc(out->n + 1, sizeof(*out->var));
		if (out->n)
			memcpy(out->var, rp->facts->env.var, out->n * sizeof(*out->var));
		return 1;
	}
	out->src.status = (enum probe_status)(rp->env_block[0] - 1);
	out->n = block_count(rp->env_block);
	out->var = xcalloc(out->n + 1, sizeof(*out->var));
	/* The strings stay in the block: read-only, borrowed (run.h). */
	for (i = 0, p = rp->env_block + 1; i < out->n; i++) {
		char *f[4];

		for (int k = 0; k < 4; k++) {
			f[k] = (char *)p;
			p += strlen(p) + 1;
		}
		out->var[i] = (struct probe_env_var){ f[0], f[1], *f[2] ? f[2] : NULL,
						      *f[3] ? f[3] : NULL };
	}
	return 1;
}
