/* Values of the transport variables as their libraries parse them, and the
 * worker's shape for the rule book (envrules.h).  The judges are in
 * envrules_ucx.c, envrules_gid.c and envrules.c, which holds the table. */
#include "model/envrules.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int is(const char *v, const char *a)
{
	return v && !strcasecmp(v, a);
}

const struct envr_var *envr_find(const struct envr_view *env, const char *name)
{
	for (size_t i = env ? env->n : 0; i-- > 0;)
		if (env->v[i].name && !strcmp(env->v[i].name, name))
			return &env->v[i];
	return NULL;
}

const char *envr_get(const struct envr_view *env, const char *name)
{
	const struct envr_var *e = envr_find(env, name);

	return e && !e->dynamic ? e->value : NULL;
}

/* UCX's ternary/boolean parser accepts y/yes/on/1/true (ucs_config_parse_bool). */
int envr_is_yes(const char *v)
{
	return is(v, "y") || is(v, "yes") || is(v, "1") || is(v, "true") || is(v, "on");
}

int envr_is_no(const char *v)
{
	return is(v, "n") || is(v, "no") || is(v, "0") || is(v, "false") || is(v, "off");
}

/* NIXL's configTraits<bool> (src/utils/common/config_traits.h, 1.3.x):
 * y yes on 1 true enable / n no off 0 false disable, case-insensitive;
 * any other value throws when the agent is created. */
int envr_nixl_telemetry(const struct envr_view *env)
{
	const char *v = envr_get(env, "NIXL_TELEMETRY_ENABLE");

	if (envr_is_yes(v) || is(v, "enable"))
		return 1;
	if (envr_is_no(v) || is(v, "disable"))
		return 0;
	return -1;
}

/* UCX's RC "ECE" option (src/uct/ib/rc/base/rc_iface.c, default auto) is
 * a number: 0 sets no ECE; rc_verbs reads it as UCX_RC_VERBS_ECE, else
 * UCX_RC_ECE (the workaround openucx/ucx#11955 gives). */
int envr_ucx_rc_ece_off(const struct envr_view *env)
{
	const char *a = envr_get(env, "UCX_RC_VERBS_ECE");
	const char *b = envr_get(env, "UCX_RC_ECE");

	return a ? is(a, "0") : is(b, "0");
}

void envr_shape(struct envr_ctx *x, long tp, long gpus, int nodes)
{
	x->tp_in_pod = nodes <= 1 && gpus > 0 && tp <= gpus;
	x->one_gpu = tp == 1 || gpus == 1;
}

/* An NCCL_PARAM value as NCCL 2.30 reads it (src/misc/param.cc
 * ncclLoadParam): strtoll(v, NULL, 0), so "yes" is 0; empty or out of
 * range keeps the default. */
long long envr_nccl_int(const char *v, long long deflt)
{
	long long x;

	if (!v || !*v)
		return deflt;
	errno = 0;
	x = strtoll(v, NULL, 0);
	return errno ? deflt : x;
}

/* src/graph/paths.cc ncclGetLevel: strcmp against topoPathTypeStr (case
 * matters), else an old-style number, 0 being LOC; anything else is
 * ignored. */
int envr_nccl_loc(const char *v)
{
	return v && (!strcmp(v, "LOC") || (*v >= '0' && *v <= '9' && strtol(v, NULL, 0) == 0));
}

/* ofiwg/libfabric 2.7 src/fabric.c (ofi_create_filter, ofi_find_name):
 * FI_PROVIDER is a comma list of whole provider names, compared with
 * strcasecmp; a leading ^ negates the list. */
int envr_fi_admits(const char *v, const char *prov)
{
	int neg = *v == '^', found = 0;
	size_t n = strlen(prov);

	for (const char *p = v + neg; *p; p += strcspn(p, ","), p += *p == ',')
		if (strcspn(p, ",") == n && !strncasecmp(p, prov, n))
			found = 1;
	return neg ? !found : found;
}

/* libfabric src/var.c fi_parse_bool: false is "0" or false/no/off (any
 * case); anything else that is not true is invalid and keeps the default. */
int envr_fi_false(const char *v)
{
	return !strcmp(v, "0") || is(v, "false") || is(v, "no") || is(v, "off");
}

/* openucx/ucx src/ucs/config/parser.c ucs_config_sscanf_bool: y/yes and
 * n/no in any case, 1/0, and on/off in lower case only (1.16.0, commit
 * 4c5f510); anything else is invalid. */
int envr_ucx_bool(const char *v)
{
	if (!v)
		return -1;
	if (is(v, "y") || is(v, "yes") || !strcmp(v, "on") || !strcmp(v, "1"))
		return 1;
	if (is(v, "n") || is(v, "no") || !strcmp(v, "off") || !strcmp(v, "0"))
		return 0;
	return -1;
}
