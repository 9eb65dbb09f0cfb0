/* The check table (names, families, ranks), the result list, and the
 * emit helpers every family appends with.  Calls no family: the families
 * and the driver (check.c) call down into it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check/internal.h"
#include "check/links.h"
#include "model/podspec.h"
#include "model/envrules.h"
#include "probe/facts.h"
#include "util/intern.h"
#include "util/xalloc.h"

/* The table itself is table.def: here each row becomes its check_def
 * (the judge is the driver's, check.c). */
#define LB_NONE 0
#define LB_DEVICE (1u << LINK_DEVICE)
#define LB_UP (1u << LINK_UP)
#define LB_ACCESS (1u << LINK_ACCESS)
#define LB_UP_ACCESS (LB_UP | LB_ACCESS)
#define LB_GPU_MEMORY (1u << LINK_GPU_MEMORY)
#define LB_MEMLOCK (1u << LINK_MEMLOCK)
#define LB_ENV (1u << LINK_ENV)
#define LB_BACKEND (1u << LINK_BACKEND)
#define LINKS(ib, efa, nvl) { LB_##ib, LB_##efa, LB_##nvl }
#define CHECK(id, nm, fam, rk, judge, links, ev, anch, rl, rem) \
	[CK_##id] = { nm, FAM_##fam, rk, rl, rem, links, ev, anch },
static const struct check_def defs[CK__COUNT] = {
#include "check/table.def"
};
#undef CHECK
#undef LINKS

static const char *const status_names[] = { "ok", "warn", "fail", "skipped" };
#define CHECK_FAM_NAME_(f) #f,
static const char *const family_names[FAM__COUNT] = { CHECK_FAMILIES(CHECK_FAM_NAME_) };
#undef CHECK_FAM_NAME_
static const char *const fabric_names[] = {
	"unknown", "infiniband", "roce", "efa", "nvlink", "tcp",
};

const char *check_status_name(enum check_status s)
{
	return (unsigned)s < 4 ? status_names[s] : "?";
}

const char *check_family_name(enum check_family f)
{
	return (unsigned)f < FAM__COUNT ? family_names[f] : "?";
}

const char *fabric_name(enum fabric f)
{
	return (unsigned)f <= FABRIC_TCP ? fabric_names[f] : "unknown";
}

const struct check_def *check_def(const char *name)
{
	/* A result's name is its row's own string (check_results_add_id):
	 * found by address first, ~2,000 lookups a pod (links.c), and by
	 * text only for a name from elsewhere. */
	for (size_t i = 0; i < CK__COUNT; i++)
		if (defs[i].name == name)
			return &defs[i];
	for (size_t i = 0; i < CK__COUNT; i++)
		if (!strcmp(defs[i].name, name))
			return &defs[i];
	return NULL;
}

const struct check_def *check_def_of(enum check_id id)
{
	return &defs[id];
}

const struct check_def *check_defs(size_t *n)
{
	*n = CK__COUNT;
	return defs;
}

void check_summary_unknown(struct check_summary *s)
{
	s->rdma_usable = s->peermem = s->gdrdrv = s->active_ports = -1;
	s->spec_known = 0;
}

void check_results_init(struct check_results *r)
{
	memset(r, 0, sizeof(*r));
	/* A fresh digest claims nothing about the pod (graph.c). */
	check_summary_unknown(&r->summary);
}

/* A pod has some 40-50 results, kept until the report is printed: grown
 * 8 at a time, the array ends within 8 of its size (1.5x growth left up
 * to 20 unused, ~1 KiB a pod at 1024 pods; issue 16, RSS). */
#define RESULTS_STEP 8

/* The strings of one result given back: its references when frozen,
 * else its own copies. */
static void strings_drop(struct check_result *c, int frozen)
{
	char *s[] = { c->detail, c->remedy, c->source, c->suggest };

	for (size_t k = 0; k < sizeof(s) / sizeof(*s); k++)
		if (frozen)
			intern_unref(s[k], NULL);
		else
			free(s[k]);
}

/* fini of a frozen array: the string references it holds. */
static void array_fini(const void *p, size_t len)
{
	struct check_result *v = (struct check_result *)p;

	for (size_t i = 0; i < len / sizeof(*v); i++)
		strings_drop(&v[i], 1);
}

/* Before any change to frozen results: the whole (array, its strings,
 * the NIC list) becomes owned copies again, and the shared one is given
 * back.  Nothing stays half shared. */
static void thaw(struct check_results *r)
{
	struct check_result *v;
	struct check_gpu_nic *g = NULL;

	if (!r->frozen)
		return;
	v = xmalloc((r->n ? r->n : 1) * sizeof(*v));
	memcpy(v, r->v, r->n * sizeof(*v));
	for (size_t i = 0; i < r->n; i++) {
		v[i].detail = xstrdup(v[i].detail);
		v[i].remedy = xstrdup(v[i].remedy);
		v[i].source = xstrdup(v[i].source);
		v[i].suggest = xstrdup(v[i].suggest);
	}
	if (r->gpu_nics) {
		g = xmalloc(r->n_gpu_nics * sizeof(*g));
		memcpy(g, r->gpu_nics, r->n_gpu_nics * sizeof(*g));
	}
	intern_unref(r->v, array_fini);
	intern_unref(r->gpu_nics, NULL);
	r->v = v;
	r->gpu_nics = g;
	r->cap = r->n;
	r->frozen = 0;
}

static void results_push(struct check_results *r, const struct check_result *res,
			 char *detail, char *remedy)
{
	thaw(r);
	if (r->n == r->cap) {
		r->v = xrealloc(r->v, (r->cap + RESULTS_STEP) * sizeof(*r->v));
		r->cap += RESULTS_STEP;
	}
	r->v[r->n] = *res;
	r->v[r->n].detail = detail;
	r->v[r->n].remedy = remedy;
	r->v[r->n].source = NULL;
	r->v[r->n].suggest = NULL;
	r->n++;
}

/* A copy of *res whose id is already right. */
static void results_add_copy(struct check_results *r, const struct check_result *res)
{
	results_push(r, res, xstrdup(res->detail ? res->detail : ""),
		     xstrdup(res->remedy));
	r->v[r->n - 1].source = xstrdup(res->source);
	r->v[r->n - 1].suggest = xstrdup(res->suggest);
}

void check_results_add(struct check_results *r, const struct check_result *res)
{
	struct check_result c = *res;
	const struct check_def *d = check_def(res->name);

	c.id = d ? (enum check_id)(d - defs) : CK__COUNT;
	results_add_copy(r, &c);
}

int check_results_add_def(struct check_results *r, const char *name,
			  enum check_status st, const char *detail,
			  const char *remedy)
{
	const struct check_def *d = check_def(name);

	if (!d)
		return -1;
	check_results_add_id(r, (enum check_id)(d - defs), st, detail, remedy);
	return 0;
}

void check_results_add_id(struct check_results *r, enum check_id id,
			  enum check_status st, const char *detail,
			  const char *remedy)
{
	const struct check_def *d = &defs[id];
	struct check_result res;

	memset(&res, 0, sizeof(res));
	res.name = d->name;
	res.id = id;
	res.family = d->family;
	res.status = st;
	res.rank = d->rank;
	res.detail = (char *)detail;
	res.remedy = (char *)(st == CHECK_OK ? NULL : remedy ? remedy : d->remedy);
	results_add_copy(r, &res);
}

void check_results_release(struct check_results *r)
{
	if (r->frozen) {
		intern_unref(r->v, array_fini);
		intern_unref(r->gpu_nics, NULL);
	} else {
		for (size_t i = 0; i < r->n; i++)
			strings_drop(&r->v[i], 0);
		free(r->v);
		free((void *)r->gpu_nics);
	}
	check_results_init(r);
}

/* One owned string swapped for its interned reference. */
static char *interned(char *s)
{
	char *t = (char *)intern_str(s);

	free(s);
	return t;
}

/* The array, field by field into zeroed memory (padding, were there any,
 * compares equal), as one interned block; it holds the string references
 * (array_fini gives them back). */
static struct check_result *array_frozen(const struct check_result *v, size_t n)
{
	struct check_result *z = xcalloc(n, sizeof(*z));
	struct check_result *block;
	int fresh;

	for (size_t i = 0; i < n; i++) {
		const struct check_result *c = &v[i];

		z[i].name = c->name, z[i].id = c->id;
		z[i].family = c->family, z[i].status = c->status;
		z[i].detail = interned(c->detail), z[i].remedy = interned(c->remedy);
		z[i].rank = c->rank, z[i].flags = c->flags;
		z[i].source = interned(c->source), z[i].suggest = interned(c->suggest);
	}
	block = (struct check_result *)intern_bytes(z, n * sizeof(*z), &fresh);
	/* An existing block holds its own references: these go back. */
	if (!fresh)
		for (size_t i = 0; i < n; i++)
			strings_drop(&z[i], 1);
	free(z);
	return block;
}

void check_results_freeze(struct check_results *r)
{
	const void *g = NULL;

	if (r->frozen)
		return;
	if (r->gpu_nics)   /* calloc'd and filled by snprintf: equal content, equal bytes */
		g = intern_bytes(r->gpu_nics, r->n_gpu_nics * sizeof(*r->gpu_nics), NULL);
	free((void *)r->gpu_nics);
	r->gpu_nics = g;
	if (r->n) {
		struct check_result *v = array_frozen(r->v, r->n);

		free(r->v);
		r->v = v;
	} else {
		free(r->v);
		r->v = NULL;
	}
	r->cap = r->n;
	r->frozen = 1;
}

const struct check_result *check_results_find_id(const struct check_results *r,
						 enum check_id id)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].id == id)
			return &r->v[i];
	return NULL;
}

const struct check_result *check_results_find(const struct check_results *r,
					      const char *name)
{
	const struct check_def *d = check_def(name);

	if (d)
		return check_results_find_id(r, (enum check_id)(d - defs));
	for (size_t i = 0; i < r->n; i++)   /* a name the table lacks */
		if (r->v[i].id == CK__COUNT && !strcmp(r->v[i].name, name))
			return &r->v[i];
	return NULL;
}

/* fail > warn > skipped > ok > not applicable, for a cell: a family with
 * one skipped and one ok result is not shown as a clean pass, but a rule
 * that does not apply here does not hide the ones that passed. */
static int severity(const struct check_result *r)
{
	static const int sev[] = { 1, 3, 4, 2 };

	if (r->flags & CHECK_F_NA)
		return 0;
	return (unsigned)r->status < 4 ? sev[r->status] : 0;
}

int check_results_family_status(const struct check_results *r,
				enum check_family f)
{
	const struct check_result *worst = NULL;
	int applicable = 0;

	for (size_t i = 0; i < r->n; i++) {
		if (r->v[i].family != f)
			continue;
		applicable |= !(r->v[i].flags & CHECK_F_NA);
		if (!worst || severity(&r->v[i]) > severity(worst))
			worst = &r->v[i];
	}
	/* A family that does not apply here (EFA on InfiniBand) is not a
	 * "skipped" the reader must chase: show it as absent. */
	return worst && applicable ? (int)worst->status : -1;
}

/* The detail, owned.  Most fit the stack buffer: formatted once, not
 * measured first and then formatted again (~4,500 a run of 40 pods). */
static char *format_detail(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
static char *format_detail(const char *fmt, va_list ap)
{
	char small[256], *detail;
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(small, sizeof small, fmt, cp);
	va_end(cp);
	if (n < 0)
		return xstrdup("");
	if ((size_t)n < sizeof small)
		return xstrndup(small, (size_t)n);
	detail = xmalloc((size_t)n + 1);
	vsnprintf(detail, (size_t)n + 1, fmt, ap);
	return detail;
}

static void vemit(struct check_results *out, enum check_id id,
		  enum check_status st, unsigned flags, const char *remedy,
		  const char *fmt, va_list ap)
	__attribute__((format(printf, 6, 0)));

static void vemit(struct check_results *out, enum check_id id,
		  enum check_status st, unsigned flags, const char *remedy,
		  const char *fmt, va_list ap)
{
	struct check_result res = {
		.name = defs[id].name, .family = defs[id].family, .status = st,
		.rank = defs[id].rank, .flags = flags, .id = id,
	};
	char *detail = format_detail(fmt, ap);
	if (st == CHECK_OK || (flags & CHECK_F_NA))
		remedy = NULL;
	else if (!remedy)
		remedy = defs[id].remedy;
	results_push(out, &res, detail, xstrdup(remedy));
}

void emit(struct check_results *out, enum check_id id, enum check_status st,
	  const char *remedy, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vemit(out, id, st, 0, remedy, fmt, ap);
	va_end(ap);
}

void emit_source(struct check_results *out, const char *source)
{
	struct check_result *last = out->n ? &out->v[out->n - 1] : NULL;

	if (!last || !source || !*source)
		return;
	thaw(out);
	last = &out->v[out->n - 1];
	free(last->source);
	last->source = xstrdup(source);
}

void emit_suggest(struct check_results *out, const char *name, const char *value)
{
	struct check_result *last = out->n ? &out->v[out->n - 1] : NULL;
	size_t n;
	char *s;

	if (!last || !value || !*value)
		return;
	thaw(out);
	last = &out->v[out->n - 1];
	n = strlen(name) + strlen(value) + 2;
	s = xmalloc(n);
	snprintf(s, n, "%s=%s", name, value);
	free(last->suggest);
	last->suggest = s;
}

void emit_na(struct check_results *out, enum check_id id, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vemit(out, id, CHECK_SKIPPED, CHECK_F_NA, NULL, fmt, ap);
	va_end(ap);
}
