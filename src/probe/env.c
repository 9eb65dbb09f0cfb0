/* The transport environment of the container's main process (I).  The
 * probe already filtered it in the pod; the same list is applied again
 * here so that nothing else is ever kept, whatever the pod sent. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "../model/vocab.h"
#include "../util/xalloc.h"


int probe_env_allowed(const char *name, size_t len)
{
	return model_env_allowed(name, len) || model_env_framework(name, len);
}

static int name_ok(struct pslice k)
{
	size_t i;

	for (i = 0; i < k.n; i++) {
		char c = k.s[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		      (c >= '0' && c <= '9') || c == '_'))
			return 0;
	}
	return k.n > 0 && k.n <= 128;
}

void probe_env_release(struct probe_env *env)
{
	for (size_t i = 0; i < env->n; i++) {
		free(env->var[i].name);
		free(env->var[i].value);
		free(env->var[i].secret);
		free(env->var[i].digest);
	}
	free(env->var);
	env->var = NULL;
	env->n = 0;
}

const char *probe_env_get(const struct probe_env *env, const char *name)
{
	size_t i;

	/* The last definition wins, as in a process environment. */
	for (i = env->n; i-- > 0;)
		if (!strcmp(env->var[i].name, name))
			return env->var[i].value;
	return NULL;
}

int probe_parse_env(const char *t, size_t n, struct probe_env *env)
{
	struct ptext it;
	struct pslice line;
	int added = 0;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		const char *eq = line.n ? memchr(line.s, '=', line.n) : NULL;
		struct pslice k, v;
		if (!eq)
			continue;
		k = ps_make(line.s, (size_t)(eq - line.s));
		v = ps_from(line, k.n + 1);
		if (!name_ok(k) || !probe_env_allowed(k.s, k.n))
			continue;
		if (env->n >= PROBE_MAX_ENV) {
			env->dropped++;
			continue;
		}
		env->cut += v.n > PROBE_MAX_ENV_VALUE;
		env->var = xrealloc(env->var, (env->n + 1) * sizeof *env->var);
		env->var[env->n] = (struct probe_env_var){ xstrndup(k.s, k.n),
			xstrndup(v.s, v.n < PROBE_MAX_ENV_VALUE ? v.n : PROBE_MAX_ENV_VALUE), NULL, NULL };
		env->n++;
		added++;
	}
	return added;
}
