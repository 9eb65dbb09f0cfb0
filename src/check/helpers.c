/* Small judgements the families share (internal.h): the fabric words,
 * provenance, environment lookups, the RDMA device list. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check/internal.h"
#include "model/podspec.h"
#include "model/envrules.h"
#include "probe/facts.h"
#include "util/xalloc.h"

/* ---- helpers shared by the families -------------------------------- */

int is_rdma_fabric(enum fabric f)
{
	return f == FABRIC_INFINIBAND || f == FABRIC_ROCE || f == FABRIC_EFA;
}

/* KV leaving the pod over anything but NVLink needs RDMA; a pod whose
 * devices are missing (FABRIC_TCP) needs it all the more. */
int needs_rdma(const struct check_input *in)
{
	return in->cross_pod && in->fabric != FABRIC_NVLINK;
}

enum check_status hard(const struct check_input *in)
{
	return needs_rdma(in) ? CHECK_FAIL : CHECK_WARN;
}

int src_known(const struct probe_src *s)
{
	return s->status == PROBE_OK || s->status == PROBE_ABSENT;
}

const char *src_why(const struct probe_src *s, const char *what, char *b,
		    size_t n)
{
	switch (s->status) {
	case PROBE_NOT_LOOKED:
		snprintf(b, n, "%s not in the probe report", what);
		break;
	case PROBE_ABSENT:
		snprintf(b, n, "%s not found in the container", what);
		break;
	case PROBE_FAILED:
		if (s->timed_out)
			snprintf(b, n, "%s timed out", what);
		else
			snprintf(b, n, "%s failed (rc %d%s%s)", what, s->rc,
				 s->err[0] ? ": " : "", s->err);
		break;
	default:
		snprintf(b, n, "%s gave no data", what);
	}
	return b;
}

const char *envv(const struct check_input *in, const char *name)
{
	if (!in->f || in->f->env.src.status != PROBE_OK)
		return NULL;
	return probe_env_get(&in->f->env, name);
}

const char *env_secret(const struct check_input *in, const char *name)
{
	const struct probe_env *e = in->f && in->f->env.src.status == PROBE_OK ? &in->f->env : NULL;

	for (size_t i = e ? e->n : 0; i-- > 0;)   /* the last definition wins */
		if (!strcmp(e->var[i].name, name))
			return e->var[i].secret;
	return NULL;
}

int env_readable(const struct check_input *in)
{
	return in->f && in->f->env.src.status == PROBE_OK;
}

/* The env rule book's reading of a boolean (model/envrules.c). */
int is_no(const char *v)
{
	return envr_is_no(v);
}

int is_yes(const char *v)
{
	return envr_is_yes(v);
}

void dev_port(char *dst, size_t n, const char *name, size_t cut, int port)
{
	char num[16];
	size_t i = sizeof num, k;
	unsigned u = port < 0 ? 0u - (unsigned)port : (unsigned)port;

	if (!n)
		return;
	num[--i] = '\0';
	do
		num[--i] = (char)('0' + u % 10);
	while (u /= 10);
	if (port < 0)
		num[--i] = '-';
	num[--i] = ':';
	copy_strn(dst, n, name, cut);
	k = strlen(dst);
	copy_str(dst + k, n - k, num + i);
}

int dev_is_efa(const struct probe_rdma_dev *d)
{
	return !strncmp(d->name, "rdmap", 5) || !strncmp(d->name, "efa", 3);
}

/* sysfs first (present in every container, checks.md conventions); a
 * missing /sys/class/infiniband is a fact (no device), not a gap.  Then
 * the tools, which may hold partial data even when they failed (A4). */
const struct probe_rdma_list *rdma_list(const struct probe_facts *f)
{
	const struct probe_rdma_list *tools[] = {
		&f->ibstat, &f->ibstatus, &f->ibv_devinfo,
	};

	if (f->sysfs_ib.src.status == PROBE_OK && f->sysfs_ib.ndevs > 0)
		return &f->sysfs_ib;
	for (size_t i = 0; i < 3; i++)
		if (tools[i]->ndevs > 0)
			return tools[i];
	if (src_known(&f->sysfs_ib.src))
		return &f->sysfs_ib;
	return NULL;
}

void rdma_count(const struct probe_rdma_list *l, int *nib, int *nefa)
{
	*nib = *nefa = 0;
	for (int i = 0; l && i < l->ndevs; i++) {
		if (dev_is_efa(&l->dev[i]))
			(*nefa)++;
		else
			(*nib)++;
	}
}

void dev_names(const struct probe_rdma_list *l, int efa, char *b, size_t n)
{
	size_t used = 0;
	int shown = 0, total = 0;

	b[0] = '\0';
	for (int i = 0; l && i < l->ndevs; i++) {
		if (dev_is_efa(&l->dev[i]) != efa)
			continue;
		total++;
		if (shown < 4 && used < n) {
			int k = snprintf(b + used, n - used, "%s%s",
					 shown ? ", " : "", l->dev[i].name);
			if (k > 0)
				used += (size_t)k;
			shown++;
		}
	}
	if (total > shown && used < n)
		snprintf(b + used, n - used, " and %d more", total - shown);
}
