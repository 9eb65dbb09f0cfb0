/* The condition vocabulary of the known-issues table (known.h
 * KNOWN_CONDS, docs/known-issues.md "Conditions"): one predicate per
 * name, over the facts the probe already reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check/known_int.h"
#include "probe/facts.h"

/* The machine: what /proc/cpuinfo shows (x86 lists "flags", arm64
 * "Features": the checks' own reading), else uname -m (section versions),
 * whose answer in the test cluster's sandboxes is the host's, not the
 * profile's; "arm64" is aarch64's other name. */
static int arch(const struct kb_in *k, const char *a, char *why, size_t n)
{
	const struct probe_vm *v = &k->in->f->vm;
	const char *is = k->in->f->versions.arch;

	if (v->cpu_arm64)
		is = "aarch64";
	else if (v->cpu_hypervisor >= 0)
		is = "x86_64";
	if (!is[0])
		return 0;   /* neither read */
	copy_str(why, n, is);
	return !strcmp(a, is) || (!strcmp(a, "arm64") && !strcmp(is, "aarch64"));
}

static int fabric(const struct kb_in *k, const char *a, char *why, size_t n)
{
	snprintf(why, n, "%s fabric", fabric_name(k->in->fabric));
	return !strcmp(a, fabric_name(k->in->fabric));
}

static int device(const struct kb_in *k, const char *a, char *why, size_t n)
{
	const struct probe_rdma_list *l = rdma_list(k->in->f);
	const struct probe_rdma_dev *d;

	if (!strcmp(a, "bond")) {
		d = known_bond_dev(k->in->f);
		if (d)
			snprintf(why, n, "the RoCE LAG device %s", d->name);
		return !!d;
	}
	for (int i = 0; l && i < l->ndevs; i++)
		if (!strcmp(a, "efa") && dev_is_efa(&l->dev[i])) {
			snprintf(why, n, "the EFA device %s", l->dev[i].name);
			return 1;
		}
	return 0;
}

/* The recipe's backends ("UCX,GDS") name a, in any case. */
static int nixl_backend(const struct kb_in *k, const char *a, char *why, size_t n)
{
	const char *b = k->in->ctx->nixl_backend, *p = b;
	size_t al = strlen(a);

	while (p && *p) {
		size_t l = strcspn(p, ",");

		if (l == al && !strncasecmp(p, a, l))
			break;
		p += l + (p[l] == ',');
	}
	if (!p || !*p)
		return 0;
	snprintf(why, n, "NIXL backend %s", b);
	return 1;
}

/* Where prefill and decode run, as the run knows it (check_context):
 * same-node when no prefill and decode pod sit on different nodes. */
static int placement(const struct kb_in *k, const char *a, char *why, size_t n)
{
	const struct check_context *c = k->in->ctx;
	const char *is;

	if (!c->kv_known)
		return 0;
	is = c->kv_cross_node ? "cross-node" : "same-node";
	snprintf(why, n, "prefill and decode %s", c->kv_cross_node ? "on different nodes" :
		 "on one node");
	return !strcmp(a, is);
}

/* env-equals / env-contains: NAME=TEXT. */
static int env_value(const struct kb_in *k, const char *a, int contains, char *why, size_t n)
{
	const char *eq = strchr(a, '='), *v;
	char name[128];

	copy_strn(name, sizeof name, a, (size_t)(eq - a));
	v = envr_get(&k->env, name);
	if (!v || (contains ? !strstr(v, eq + 1) : strcmp(v, eq + 1)))
		return 0;
	snprintf(why, n, "%s=%s", name, v);
	return 1;
}

static int env_set(const struct kb_in *k, const char *a, int want, char *why, size_t n)
{
	const char *v = envr_get(&k->env, a);

	if (!!v != want || !env_readable(k->in))
		return 0;
	if (v)
		snprintf(why, n, "%s=%s", a, v);
	else
		snprintf(why, n, "%s unset", a);
	return 1;
}

/* NIXL's configTraits<bool> false words (model/envvals.c envr_is_no, and
 * "disable"). */
static int env_false(const struct kb_in *k, const char *a, char *why, size_t n)
{
	const char *v = envr_get(&k->env, a);

	if (!v || !(envr_is_no(v) || !strcasecmp(v, "disable")))
		return 0;
	snprintf(why, n, "%s=%s", a, v);
	return 1;
}

/* The modules section versions reads itself (the ones proc_modules and
 * sys_module do not list). */
static const char efa_nv_peermem[] = "efa_nv_peermem";

int known_module_ok(const char *name)
{
	for (int i = 0; i < PROBE_MOD_COUNT; i++)
		if (!strcmp(name, probe_module_name((enum probe_module)i)))
			return 1;
	return !strcmp(name, efa_nv_peermem);
}

/* module NAME loaded (want 1), or read and not loaded (want 0). */
static int module(const struct kb_in *k, const char *a, int want, char *why, size_t n)
{
	const struct probe_modules *m = &k->in->f->modules;
	enum probe_modstate peer = k->in->f->versions.efa_nv_peermem;

	if (!strcmp(a, efa_nv_peermem)) {
		if (peer != (want ? PROBE_MODSTATE_LOADED : PROBE_MODSTATE_ABSENT))
			return 0;
		snprintf(why, n, "module %s %s", a, want ? "loaded" : "not loaded");
		return 1;
	}
	for (int i = 0; i < PROBE_MOD_COUNT; i++) {
		if (strcmp(a, probe_module_name((enum probe_module)i)))
			continue;
		if (!want && !src_known(&m->proc_src) && !src_known(&m->sys_src))
			return 0;
		if (!!m->loaded[i] != want)
			return 0;
		snprintf(why, n, "module %s %s", a, want ? "loaded" : "not loaded");
		return 1;
	}
	return 0;
}

static int tl_allowed(const struct kb_in *k, const char *a, char *why, size_t n)
{
	const char *tls = envr_get(&k->env, "UCX_TLS");

	for (int i = 0; i < PROBE_TL_COUNT; i++)
		if (!strcmp(a, probe_ucx_tl_name((enum probe_ucx_tl)i)) &&
		    (ucx_tls_allowed(tls) & TLB(i))) {
			snprintf(why, n, "UCX_TLS=%s lets %s in", tls ? tls : "unset", a);
			return 1;
		}
	return 0;
}

static int tl_listed(const struct kb_in *k, const char *a, char *why, size_t n)
{
	if (known_tl_listed(&k->in->f->ucx, a, "") != 1)
		return 0;
	snprintf(why, n, "ucx_info -d lists %s", a);
	return 1;
}

static int engine_backend(const struct kb_in *k, const char *a, char *why, size_t n)
{
	const struct probe_trtllm_engine *e = &k->in->f->trtllm_engine;

	if (e->state != PROBE_ENGINE_OK || strcasecmp(e->backend, a))
		return 0;
	snprintf(why, n, "cache_transceiver_config.backend %s", e->backend);
	return 1;
}

/* The engine file's keys an engine-equals can name, each as the probe
 * passes it (probe/engine.c): KEY=VALUE compares VALUE without case. */
static const char *const engine_keys[] = {
	"cache_transceiver_config.backend",
	"kv_cache_config.use_kv_cache_manager_v2",
};

int known_engine_arg_ok(const char *a)
{
	const char *eq = strchr(a, '=');

	for (size_t i = 0; eq && eq[1] && i < sizeof engine_keys / sizeof engine_keys[0]; i++)
		if (strlen(engine_keys[i]) == (size_t)(eq - a) && !strncmp(a, engine_keys[i], (size_t)(eq - a)))
			return 1;
	return 0;
}

/* The value the engine file gives key ("" unset or not read). */
static const char *engine_value(const struct probe_trtllm_engine *e, const char *key)
{
	if (e->state != PROBE_ENGINE_OK)
		return "";
	if (!strncmp(key, engine_keys[0], strlen(engine_keys[0])))
		return e->backend;
	return e->kv_manager_v2 < 0 ? "" : e->kv_manager_v2 ? "true" : "false";
}

static int engine_equals(const struct kb_in *k, const char *a, char *why, size_t n)
{
	const char *eq = strchr(a, '='), *v = engine_value(&k->in->f->trtllm_engine, a);

	if (!eq || !v[0] || strcasecmp(v, eq + 1))
		return 0;
	snprintf(why, n, "%.*s: %s in the engine file", (int)(eq - a), a, v);
	return 1;
}

int known_cond_holds(const struct kb_in *k, const struct known_cond *c, char *why, size_t n)
{
	const char *a = c->arg;

	why[0] = '\0';
	switch (c->kind) {
	case KCOND_ARCH: return arch(k, a, why, n);
	case KCOND_FABRIC: return fabric(k, a, why, n);
	case KCOND_DEVICE: return device(k, a, why, n);
	case KCOND_NIXL_BACKEND: return nixl_backend(k, a, why, n);
	case KCOND_PLACEMENT: return placement(k, a, why, n);
	case KCOND_ENV_SET: return env_set(k, a, 1, why, n);
	case KCOND_ENV_UNSET: return env_set(k, a, 0, why, n);
	case KCOND_ENV_EQUALS: return env_value(k, a, 0, why, n);
	case KCOND_ENV_CONTAINS: return env_value(k, a, 1, why, n);
	case KCOND_ENV_FALSE: return env_false(k, a, why, n);
	case KCOND_MODULE: return module(k, a, 1, why, n);
	case KCOND_MODULE_ABSENT: return module(k, a, 0, why, n);
	case KCOND_TL_ALLOWED: return tl_allowed(k, a, why, n);
	case KCOND_TL_LISTED: return tl_listed(k, a, why, n);
	case KCOND_ENGINE_BACKEND: return engine_backend(k, a, why, n);
	case KCOND_ENGINE_EQUALS: return engine_equals(k, a, why, n);
	case KCOND_CASE: return known_case(k, a, why, n) == 1;
	case KCOND__COUNT: break;
	}
	return 0;
}

/* ---- the versions of the other components ----------------------------- */

void known_comp_version(const struct kb_in *k, enum known_comp c, char *out, size_t n)
{
	const struct probe_facts *f = k->in->f;

	out[0] = '\0';
	switch (c) {
	case KC_UCX:
		if (f->ucx.major >= 0)
			copy_str(out, n, f->ucx.version);
		break;
	case KC_NIXL:
		for (int d = 0; d < PROBE_NIXL_DIST_COUNT && !out[0]; d++)
			copy_str(out, n, f->nixl.dist_version[d]);
		if (!out[0])
			copy_str(out, n, f->nixl.python_version);
		break;
	/* fi_info --version's: fi_info -p's "version:" is the provider's */
	case KC_LIBFABRIC: copy_str(out, n, f->versions.libfabric); break;
	case KC_EFA_INSTALLER: copy_str(out, n, f->versions.efa_installer); break;
	case KC_MOONCAKE: copy_str(out, n, f->mooncake.version); break;
	case KC_DRIVER: copy_str(out, n, k->in->ev.driver_version); break;
	case KC_KERNEL:
		if (f->kernel.major >= 0)
			copy_str(out, n, f->kernel.release);
		break;
	default: break;   /* not read by this probe: the row cannot match */
	}
}
