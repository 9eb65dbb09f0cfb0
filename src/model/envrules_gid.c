/* The rule book's GID index judges (checks.md A9, envrules_int.h): a
 * pinned index or each library's own pick (UCX, NCCL, Mooncake), judged on
 * the RoCE ports in use. */
#include "model/envrules_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- GID index (checks.md A9) -------------------------------------- */

/* The GID index v names, or -1 when v is no number (UCX: "auto"). */
static long gid_number(const char *v)
{
	char *end;
	long n;

	if (!v || !*v)
		return -1;
	n = strtol(v, &end, 10);
	return *end || n < 0 ? -1 : n;
}

/* Fail where KV crosses pods and only RDMA keeps it fast, else warn. */
static enum envr_sev gid_sev(const struct envr_ctx *c)
{
	return c->kv_cross && c->rdma_needed ? ENVR_FAIL : ENVR_WARN;
}

/* Judges index idx (pick, when the library chose it) on every port by the
 * one GID rule, the peer's segment unknown; the first worst port is named
 * in the note. */
static enum envr_sev gid_ports(long (*pick)(const struct envr_gid_port *, const struct envr_view *),
			       long idx, const struct envr_view *env,
			       const struct envr_ctx *c, const char *who, const char **why)
{
	size_t bad = 0;
	const char *fault = NULL, *port = NULL;
	long at = idx;
	enum envr_sev worst = ENVR_OK;

	for (size_t i = 0; i < c->n_gid_ports; i++) {
		long k = pick ? pick(&c->gid_ports[i], env) : idx;
		enum envr_gid_class cls;
		const char *f = envr_gid_fault(&c->gid_ports[i], k, &cls);
		enum envr_sev s = f ? envr_gid_l2_rule(cls, ENVR_L2_UNKNOWN) : ENVR_OK;

		bad += !!f;
		if (s > worst) {
			worst = s;
			fault = f;
			port = c->gid_ports[i].name;
			at = k;
		}
	}
	if (worst == ENVR_OK)
		return ENVR_OK;
	if (c->note)
		snprintf(c->note, c->note_n, "%sGID %ld on %s%s: %s", who, at, port,
			 bad > 1 ? " (and more ports)" : "", fault);
	*why = c->note ? c->note : "is not a usable RoCE v2 GID index";
	return worst == ENVR_FAIL ? gid_sev(c) : ENVR_WARN;
}

/* UCX_IB_GID_INDEX=auto: uct_ib_device_select_gid (openucx/ucx
 * src/uct/ib/base/ib_device.c) takes the first GID of RoCE v2/IPv4, then
 * v2/IPv6 (link-local included), v1/IPv4, v1/IPv6; none: index 0. */
static long ucx_pick(const struct envr_gid_port *p, const struct envr_view *env)
{
	unsigned long long v2 = p->roce_v2, v4 = p->ipv4;
	unsigned long long prio[] = { v2 & v4, v2 & ~v4, ~v2 & v4, ~v2 & ~v4 };

	(void)env;
	for (int k = 0; k < 4; k++)
		for (long i = 0; i < ENVR_GID_READ; i++)
			if (p->gids & prio[k] & (1ull << i))
				return i;
	return 0;
}

/* NCCL_IB_GID_INDEX unset: ncclIbGetGidIndex (NVIDIA/nccl
 * src/transport/net_ib.cc) keeps index 0 unless a valid GID (configured,
 * not link-local) of NCCL_IB_ADDR_FAMILY (AF_INET) and
 * NCCL_IB_ROCE_VERSION_NUM (2) comes later. */
static long nccl_pick(const struct envr_gid_port *p, const struct envr_view *env)
{
	const char *fam = envr_get(env, "NCCL_IB_ADDR_FAMILY");
	const char *ver = envr_get(env, "NCCL_IB_ROCE_VERSION_NUM");
	unsigned long long want = p->gids & ~p->link_local &
		(fam && !strcmp(fam, "AF_INET6") ? ~p->ipv4 : p->ipv4) &
		(ver && !strcmp(ver, "1") ? ~p->roce_v2 : p->roce_v2);

	for (long i = 0; i < ENVR_GID_READ; i++)
		if (want & (1ull << i))
			return i;
	return 0;
}

/* A pinned index: UCX takes "auto" or a number and refuses anything else
 * (its config parser); NCCL reads a negative one as automatic.  Mooncake's
 * index, set or not, is gid_mooncake's. */
JUDGE(gid_ucx)
{
	long n = gid_number(v);

	if (envr_is(v, "auto"))
		return ENVR_OK;
	if (n < 0) {
		*why = "is not a GID index (a number or auto): UCX refuses its configuration";
		return ENVR_FAIL;
	}
	return gid_ports(NULL, n, env, c, "pins ", why);
}

JUDGE(gid_nccl)
{
	long n = gid_number(v);

	if (v[0] == '-' && gid_number(v + 1) >= 0)
		return ENVR_OK;   /* NCCL: negative is automatic */
	if (n < 0 || n > 255) {
		*why = "is not a GID index: NCCL ignores it and picks its own";
		return ENVR_WARN;
	}
	return gid_ports(NULL, n, env, c, "pins ", why);
}

/* In a running process, when the variable leaves the choice to the
 * library (unset, "auto", negative): what it picks itself. */
JUDGE(gid_ucx_auto)
{
	if ((*v && !envr_is(v, "auto")) || envr_ucx_off(c))
		return ENVR_OK;
	return gid_ports(ucx_pick, 0, env, c, "unset: UCX picks ", why);
}

JUDGE(gid_nccl_auto)
{
	enum envr_sev s;

	if (*v && v[0] != '-')
		return ENVR_OK;
	s = gid_ports(nccl_pick, 0, env, c, "unset: NCCL picks ", why);
	return s == ENVR_OK ? ENVR_OK : ENVR_WARN;   /* NCCL is off NIXL's KV path */
}

/* Mooncake's choice (kvcache-ai/Mooncake mooncake-transfer-engine):
 * config.cpp reads MC_GID_INDEX, else NCCL_IB_GID_INDEX, with atoi (so "x"
 * is 0) and keeps 0-255; otherwise GlobalConfig gid_index stays -1 and
 * rdma_context.cpp findBestGidIndex ranks the port's GIDs
 * (envr_mooncake_auto, mooncake.c). */
static long mooncake_index(const struct envr_view *env)
{
	const char *v = envr_get(env, "MC_GID_INDEX");
	long n;

	if (!envr_find(env, "MC_GID_INDEX"))
		v = envr_get(env, "NCCL_IB_GID_INDEX");
	if (!v)
		return -1;
	n = strtol(v, NULL, 10);
	return n >= 0 && n < 256 ? n : -1;
}

/* An MC_ or MOONCAKE_ variable (the command line is envr_args_mooncake's). */
int envr_runs_mooncake(const struct envr_view *env)
{
	for (size_t i = 0; env && i < env->n; i++)
		if (env->v[i].name && (!strncmp(env->v[i].name, "MC_", 3) ||
				       !strncmp(env->v[i].name, "MOONCAKE_", 9)))
			return 1;
	return 0;
}

/* Unset: the installed release decides (envr_mooncake_tiered); unknown,
 * both choices, and only where they agree is the index known. */
long envr_gid_index_mooncake(const struct envr_gid_port *p, const struct envr_view *env)
{
	long n = mooncake_index(env), tiers, scan;
	int tiered;

	if (n >= 0)
		return n;
	tiered = envr_mooncake_tiered(p->mc_version);
	tiers = tiered ? envr_mooncake_auto(p) : -1;
	scan = tiered != 1 ? envr_mooncake_auto_pre312(p) : -1;
	if (tiered >= 0)
		return tiered ? tiers : scan;
	return tiers == scan ? tiers : ENVR_GID_UNDECIDED;
}

/* The index judged: undecided only reaches gid_ports when both releases'
 * picks are bad; the newer one's is named. */
static long mooncake_pick(const struct envr_gid_port *p, const struct envr_view *env)
{
	long n = envr_gid_index_mooncake(p, env);

	return n == ENVR_GID_UNDECIDED ? envr_mooncake_auto(p) : n;
}

/* A port whose GID depends on the unknown Mooncake release: warn, naming
 * both choices (the GID each would use is judged once the version is). */
static int gid_mooncake_undecided(const struct envr_view *env, const struct envr_ctx *c,
				  const char **why)
{
	for (size_t i = 0; i < c->n_gid_ports; i++) {
		const struct envr_gid_port *p = &c->gid_ports[i];
		enum envr_gid_class k;

		if (envr_gid_index_mooncake(p, env) != ENVR_GID_UNDECIDED ||
		    (envr_gid_fault(p, envr_mooncake_auto(p), &k) &&
		     envr_gid_fault(p, envr_mooncake_auto_pre312(p), &k)))
			continue;   /* decided, or bad either way: gid_ports judges it */
		if (c->note)
			snprintf(c->note, c->note_n,
				 "unset and the Mooncake version unknown: on %s mooncake-transfer-engine >= 0.3.12 picks GID %ld, <= 0.3.11 GID %ld; the installed version decides",
				 p->name, envr_mooncake_auto(p), envr_mooncake_auto_pre312(p));
		*why = c->note ? c->note :
			"unset and the Mooncake version unknown: its releases pick different GIDs here";
		return 1;
	}
	return 0;
}

JUDGE(gid_mooncake)
{
	(void)v;
	if (!envr_runs_mooncake(env) && !c->mooncake)
		return ENVR_OK;
	if (gid_mooncake_undecided(env, c, why))
		return ENVR_WARN;
	return gid_ports(mooncake_pick, 0, env, c, "Mooncake uses ", why);
}

long envr_gid_index_ucx(const struct envr_gid_port *p, const struct envr_view *env)
{
	const char *v = envr_get(env, "UCX_IB_GID_INDEX");

	if (!v || !*v || envr_is(v, "auto"))
		return ucx_pick(p, env);
	return gid_number(v);
}

