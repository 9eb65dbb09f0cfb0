/* The DGD checks (check/dgd.h, checks.md P).  A pod belongs to a DGD by
 * the operator's labels (consts.go KubeLabelDynamoGraphDeploymentName,
 * KubeLabelDynamoComponent, KubeLabelDynamoWorkerHash) and namespace. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dgd.h"
#include "model/fwrules.h"
#include "../util/intern.h"
#include "../util/sha256.h"
#include "../util/xalloc.h"

/* Text from the cluster never reaches the terminal raw. */
static void printable(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			*s = '?';
}

#define DGD_CHECK(id, nm, st, anch, rl) [DGD_CK_##id] = { nm, CHECK_##st, anch, rl },
static const struct dgd_check_def defs[DGD_CK__COUNT] = {
#include "dgd.def"
};
#undef DGD_CHECK

const struct dgd_check_def *dgd_check_def(enum dgd_check id)
{
	return &defs[id];
}

const struct dgd_check_def *dgd_check_defs(size_t *n)
{
	*n = DGD_CK__COUNT;
	return defs;
}

static void add(struct dgd_findings *out, enum dgd_check check,
		const struct dgd_info *d, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void add(struct dgd_findings *out, enum dgd_check check,
		const struct dgd_info *d, const char *fmt, ...)
{
	struct dgd_finding *f;
	char id[256], detail[512];
	va_list ap;

	out->items = xalloc_grow(out->items, out->n + 1, &out->cap, sizeof(*out->items));
	f = &out->items[out->n++];
	f->status = defs[check].status;
	f->check = check;
	snprintf(id, sizeof(id), "%.120s/%.120s", d->namespace, d->name);
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	printable(id);
	printable(detail);
	/* A rollout of 10,000 pods is 10,000 P1 findings: no fixed buffers. */
	f->dgd = intern_str(id);
	f->detail = xstrdup(detail);
}

static int of_dgd(const struct dgd_pod *p, const struct dgd_info *d)
{
	return !strcmp(p->graph, d->name) && (!*d->namespace || !strcmp(p->namespace, d->namespace));
}

/* P1: the operator's consts.go: a worker whose label matches either active
 * annotation is current; a pod without the label is not judged (frontends
 * and pre-rollout operators set none). */
static void generation(const struct dgd_info *d, const struct dgd_pod *p,
		       struct dgd_findings *out)
{
	if (!*p->worker_hash || (!*d->worker_hash && !*d->worker_hash_v2))
		return;
	if (!strcmp(p->worker_hash, d->worker_hash) || !strcmp(p->worker_hash, d->worker_hash_v2))
		return;
	add(out, DGD_CK_GENERATION, d,
	    "pod %.100s is of worker generation %.40s, the DGD's active one is %.40s "
	    "(a rollout in progress or stuck)", p->name, p->worker_hash,
	    *d->worker_hash ? d->worker_hash : d->worker_hash_v2);
}

/* The value of name in an env block "NAME=VALUE\n...", or NULL. */
static const char *env_value(const char *env, const char *name, size_t nlen, size_t *vlen)
{
	const char *l;

	for (l = env; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		if (!strncmp(l, name, nlen) && l[nlen] == '=') {
			const char *v = l + nlen + 1, *end = strchr(v, '\n');

			*vlen = end ? (size_t)(end - v) : strlen(v);
			return v;
		}
	}
	return NULL;
}

/* 1 if a line after l (in the DGD's env block) names the same variable:
 * the later entry is the one the container gets (a component's own entry
 * over the graph-wide one, as the operator merges them). */
static int overridden(const char *l, size_t nlen)
{
	size_t vlen;
	const char *nl = strchr(l, '\n');

	return nl && env_value(nl + 1, l, nlen, &vlen) != NULL;
}

static int transport_var(const char *name)
{
	static const char *const prefixes[] = { "UCX_", "NIXL_", "NCCL_", "FI_", NULL };
	int i;

	for (i = 0; prefixes[i]; i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

/* P3: each entry the DGD states, against the pod's running process (its
 * env view holds only the transport variables, probe_env_allowed, so only
 * those are compared).  A "<valueFrom>" entry of the DGD has no value to
 * compare.  A pod value from a Secret is judged on its real value without
 * showing it: its SHA-256 (DGD_POD_SECRET ":" hex) against the DGD's; a
 * Secret value whose digest is unknown is not compared. */
static int is_word(const char *v, size_t len, const char *word)
{
	return len == strlen(word) && !strncmp(v, word, len);
}

/* 1 when the pod's value v[0..have) differs from the DGD's want[0..wlen);
 * *secret set when v is a Secret's (then never shown). */
static int differs(const char *v, size_t have, const char *want, size_t wlen, int *secret)
{
	size_t pre = strlen(DGD_POD_SECRET);
	char dig[SHA256_HEX_LEN + 1];

	*secret = v && have >= pre && !strncmp(v, DGD_POD_SECRET, pre);
	if (!*secret)
		return !v || have != wlen || strncmp(v, want, wlen);
	if (have != pre + 1 + SHA256_HEX_LEN || v[pre] != ':')
		return 0;                  /* digest unknown: cannot tell */
	sha256_hex(want, wlen, dig);
	return !*dig || strncmp(v + pre + 1, dig, SHA256_HEX_LEN) != 0;
}

static void env_against(const struct dgd_info *d, const struct dgd_component *k,
			const struct dgd_pod *p, struct dgd_findings *out)
{
	const char *l;

	for (l = k->env; *l; ) {
		const char *eq = strchr(l, '='), *nl = strchr(l, '\n');
		size_t nlen = eq ? (size_t)(eq - l) : 0, want = nl ? (size_t)(nl - eq - 1) : 0, have = 0;
		const char *v;
		int compare, secret = 0;

		if (!eq || !nl)
			break;
		compare = transport_var(l) && !overridden(l, nlen) &&
			  !is_word(eq + 1, want, "<valueFrom>");
		v = compare ? env_value(p->env, l, nlen, &have) : NULL;
		if (!compare || !differs(v, have, eq + 1, want, &secret))
			;
		else if (secret)
			add(out, DGD_CK_ENV, d, "pod %.100s: %.*s (from a Secret, not "
			    "shown) differs from what the DGD says, %.*s",
			    p->name, (int)(nlen > 64 ? 64 : nlen), l,
			    (int)(want > 80 ? 80 : want), eq + 1);
		else
			add(out, DGD_CK_ENV, d, "pod %.100s: %.*s is %s%.*s%s, the DGD says %.*s",
			    p->name, (int)(nlen > 64 ? 64 : nlen), l, v ? "\"" : "unset",
			    v ? (int)(have > 80 ? 80 : have) : 0, v ? v : "", v ? "\"" : "",
			    (int)(want > 80 ? 80 : want), eq + 1);
		l = nl + 1;
	}
}

/* A worker of the active generation; -1 when the DGD names none. */
static int current_gen(const struct dgd_info *d, const struct dgd_pod *p)
{
	if (!*d->worker_hash && !*d->worker_hash_v2)
		return -1;
	return *p->worker_hash && (!strcmp(p->worker_hash, d->worker_hash) ||
				   !strcmp(p->worker_hash, d->worker_hash_v2));
}

/* The image's vllm-runtime tag against 1.0.0rc5: 1 at or after it ("1.0.0",
 * "1.0.1-cuda13"; a release is after its rcs), 0 before it or another
 * image. */
static int runtime_from_rc5(const char *image, char *tag, size_t n)
{
	const char *t = strstr(image, "vllm-runtime:");
	unsigned v[3], rc = UINT_MAX;
	int k = 0;

	if (!t || sscanf(t + 13, "%u.%u.%u%n", &v[0], &v[1], &v[2], &k) != 3)
		return 0;
	if (!strncmp(t + 13 + k, "rc", 2) && sscanf(t + 15 + k, "%u", &rc) != 1)
		return 0;
	snprintf(tag, n, "%.*s", (int)strcspn(t, " @"), t);
	if (v[0] != 1 || v[1] || v[2])
		return v[0] >= 1;
	return rc >= 5;
}

/* P5 (checks.md J5c): from vllm-runtime 1.0.0rc5 Dynamo's vLLM worker
 * refuses --connector with a ValueError whatever its value and whatever
 * else is set (components/src/dynamo/vllm/args.py _reject_connector_flag,
 * called before the prefill's --kv-transfer-config check; ai-dynamo/dynamo
 * PR #6513), and a prefill wants --kv-transfer-config (ai-dynamo/
 * aiconfigurator PR #519: the prefill worker in CrashLoopBackOff). */
static void vllm_connector(const struct dgd_info *d, const struct dgd_component *k,
			   struct dgd_findings *out)
{
	char tag[64], conn[32], kv[8];
	int has_kv;

	if (!runtime_from_rc5(k->image, tag, sizeof tag) ||
	    !fwr_flag(k->args, "--connector", conn, sizeof conn))
		return;
	has_kv = fwr_flag(k->args, "--kv-transfer-config", kv, sizeof kv) != NULL;
	add(out, DGD_CK_VLLM_CONNECTOR, d, "component %.100s: %s passes --connector %s%s: the worker exits "
	    "with a ValueError", k->name, tag, conn, has_kv ? " beside --kv-transfer-config" : " and no --kv-transfer-config");
}

static void component(const struct dgd_set *s, size_t item, size_t comp,
		      const struct dgd_pod *pods, size_t npods, struct dgd_findings *out)
{
	const struct dgd_info *d = &s->items[item];
	const struct dgd_component *k = &d->comp[comp];
	size_t i;
	long running = 0, current = 0;

	/* The plugin lists worker pods only (product.md "Pod discovery"), so
	 * a frontend or planner component is not judged here. */
	if (strcmp(k->type, "worker") && strcmp(k->type, "prefill") && strcmp(k->type, "decode"))
		return;
	vllm_connector(d, k, out);
	for (i = 0; i < npods; i++) {
		if (!of_dgd(&pods[i], d) || strcmp(pods[i].component, k->name))
			continue;
		if (pods[i].running) {
			running++;
			current += current_gen(d, &pods[i]);
			if (pods[i].env_unread && *pods[i].env_unread && *k->env)
				add(out, DGD_CK_ENV, d, "pod %.100s: %.200s, so the DGD's "
				    "variables were not compared", pods[i].name, pods[i].env_unread);
			else
				env_against(d, k, &pods[i], out);
		}
	}
	out->counts = xalloc_grow(out->counts, out->ncounts + 1, &out->ccap, sizeof(*out->counts));
	out->counts[out->ncounts++] = (struct dgd_count){ item, comp, running,
		*d->worker_hash || *d->worker_hash_v2 ? current : -1 };
	/* P2: replicas 0 is a component scaled down on purpose. */
	if (!running && k->replicas != 0)
		add(out, DGD_CK_COMPONENT_PODS, d,
		    "component %.100s (type %.40s) has no running pod", k->name,
		    *k->type ? k->type : "unstated");
}

void dgd_judge(const struct dgd_set *s, const struct dgd_pod *pods, size_t npods,
	       struct dgd_findings *out)
{
	size_t i, j;

	if (s->access != DGD_READ)
		return;
	for (i = 0; i < s->n; i++) {
		const struct dgd_info *d = &s->items[i];

		/* Not read (kube/dgd.c: a bound passed, a wrong type): said, and
		 * its pods are judged as pods of no DGD would be. */
		if (*d->skipped) {
			add(out, DGD_CK_SKIPPED, d, "not read: %.400s; its pods are judged "
			    "by their labels alone", d->skipped);
			continue;
		}
		for (j = 0; j < npods; j++)
			if (of_dgd(&pods[j], d))
				generation(d, &pods[j], out);
		for (j = 0; j < d->ncomp; j++)
			component(s, i, j, pods, npods, out);
	}
}

const char *dgd_access_note(const struct dgd_set *s, char *buf, size_t n)
{
	switch (s->access) {
	case DGD_READ:
		return NULL;
	case DGD_NO_API:
		snprintf(buf, n, "note: no DynamoGraphDeployment API (nvidia.com) on the server: pods matched by labels only");
		break;
	case DGD_FORBIDDEN:
		snprintf(buf, n, "note: cannot read DynamoGraphDeployments (403, deploy/rbac.yaml grants it): pods matched by labels only");
		break;
	default:
		snprintf(buf, n, "note: DynamoGraphDeployments not read (%.180s): pods matched by labels only", s->note);
		printable(buf);
	}
	return buf;
}

void dgd_findings_release(struct dgd_findings *f)
{
	for (size_t i = 0; i < f->n; i++) {
		intern_unref(f->items[i].dgd, NULL);
		free(f->items[i].detail);
	}
	free(f->items);
	free(f->counts);
	memset(f, 0, sizeof(*f));
}
