/* Per-pod and consolidated verdicts, fix-first, and cross-pod findings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/links.h"
#include "check/dgd.h"
#include "verdict/graph.h"
#include "verdict/verdict.h"
#include "util/buf.h"
#include "util/xalloc.h"

#define LINE_MAX_BYTES 4096
#define NAMES_SHOWN 5

static const char *const verdict_names[] = {
	"READY", "NOT READY", "UNVERIFIED",
};

const char *verdict_name(enum verdict_status v)
{
	return (unsigned)v <= VERDICT_UNVERIFIED ? verdict_names[v] : "UNVERIFIED";
}

int verdict_exit_code(enum verdict_status v)
{
	switch (v) {
	case VERDICT_READY:
		return 0;
	case VERDICT_NOT_READY:
		return 2;
	default:
		return 3;
	}
}

static int fast_fabric(enum fabric f)
{
	return f == FABRIC_INFINIBAND || f == FABRIC_ROCE ||
	       f == FABRIC_EFA || f == FABRIC_NVLINK;
}

/* checks.md N: NOT READY on any failure; READY when every link of the
 * pod's KV path is proven (links.c), whatever warnings it has elsewhere;
 * UNVERIFIED when a link has no evidence at all. */
enum verdict_status verdict_pod(const struct run_pod *p)
{
	const struct check_results *r = &p->results;
	struct check_link l[LINK__COUNT];
	size_t nl;
	int open = 0;

	if (!p->probed)
		return VERDICT_UNVERIFIED;
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].status == CHECK_FAIL)
			return VERDICT_NOT_READY;
	nl = check_links(r, l);
	for (size_t i = 0; i < nl; i++) {
		if (l[i].status == LINK_BROKEN)
			return VERDICT_NOT_READY;
		open |= l[i].status == LINK_MISSING;
	}
	/* No link at all proves nothing either. */
	if (open || !nl || !fast_fabric(r->fabric))
		return VERDICT_UNVERIFIED;
	return VERDICT_READY;
}

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

char *verdict_pod_list(const struct run_pod *pods, size_t npods,
		       const size_t *idx, size_t nidx, size_t max)
{
	struct buf b = BUF_INIT(LINE_MAX_BYTES);

	if (nidx == npods && npods > 1)
		buf_appendf(&b, "all %zu pods: ", npods);
	else
		buf_appendf(&b, "%zu of %zu pod%s: ", nidx, npods,
			    npods == 1 ? "" : "s");
	for (size_t i = 0; i < nidx && i < max; i++)
		buf_appendf(&b, "%s%s", i ? ", " : "",
			    or_empty(pods[idx[i]].pod->name));
	if (nidx > max)
		buf_appendf(&b, " and %zu more", nidx - max);
	return buf_detach(&b, NULL);
}

/* Distinct nodes of the listed pods, "node a, b" or "" when none known. */
static char *node_list(const struct run_pod *pods, const size_t *idx,
		       size_t nidx)
{
	struct buf b = BUF_INIT(LINE_MAX_BYTES);
	size_t shown = 0, total = 0;

	for (size_t i = 0; i < nidx; i++) {
		const char *node = pods[idx[i]].pod->node;
		int seen = 0;

		if (!node || !*node)
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = pods[idx[j]].pod->node &&
			       !strcmp(pods[idx[j]].pod->node, node);
		if (seen)
			continue;
		total++;
		if (shown < NAMES_SHOWN)
			buf_appendf(&b, "%s%s", shown++ ? ", " : "", node);
	}
	if (total > shown)
		buf_appendf(&b, " and %zu more", total - shown);
	if (!total)
		return xstrdup("");
	{
		char *list = buf_detach(&b, NULL);
		char *s = xasprintf("; node%s %s", total == 1 ? "" : "s", list);

		free(list);
		return s;
	}
}

/* ---- findings ------------------------------------------------------ */

static int status_order(enum check_status s)
{
	static const int o[] = { 3, 1, 0, 2 };  /* fail, warn, skipped, ok */
	return (unsigned)s < 4 ? o[s] : 4;
}

static int finding_cmp(const void *a, const void *b)
{
	const struct verdict_finding *x = a, *y = b;

	if (status_order(x->status) != status_order(y->status))
		return status_order(x->status) - status_order(y->status);
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return strcmp(x->name, y->name);
}

/* Pods (indices) whose results hold check `name` with status st; the
 * first such result is returned for its detail and remedy. */
static const struct check_result *
pods_with(const struct run_pod *pods, size_t n, const char *name,
	  enum check_status st, size_t *idx, size_t *nidx)
{
	const struct check_result *first = NULL;

	*nidx = 0;
	for (size_t i = 0; i < n; i++) {
		const struct check_results *r = &pods[i].results;

		if (!pods[i].probed)
			continue;
		for (size_t j = 0; j < r->n; j++) {
			if (strcmp(r->v[j].name, name) || r->v[j].status != st ||
			    check_cause(r, j))
				continue;
			if (!first)
				first = &r->v[j];
			idx[(*nidx)++] = i;
			break;
		}
	}
	return first;
}

static int grouped_already(const struct verdict_findings *fs, const char *name,
			   enum check_status st)
{
	for (size_t i = 0; i < fs->n; i++)
		if (fs->v[i].status == st && !strcmp(fs->v[i].name, name))
			return 1;
	return 0;
}

/* One finding per (check, status) that is not ok and not n/a. */
static void group_results(const struct run_pod *pods, size_t n,
			  struct verdict_findings *fs)
{
	size_t *idx = xcalloc(n ? n : 1, sizeof(*idx));

	for (size_t i = 0; i < n; i++) {
		const struct check_results *r = &pods[i].results;

		for (size_t j = 0; pods[i].probed && j < r->n; j++) {
			const struct check_result *c = &r->v[j];
			const struct check_result *first;
			struct verdict_finding f = { 0 };
			char *who, *nodes;
			size_t k;

			/* A result that follows from another failure is
			 * filed under it (fold.c), not a line of its own. */
			if (c->status == CHECK_OK || (c->flags & CHECK_F_NA) ||
			    check_cause(r, j) || grouped_already(fs, c->name, c->status))
				continue;
			first = pods_with(pods, n, c->name, c->status, idx, &k);
			who = verdict_pod_list(pods, n, idx, k, NAMES_SHOWN);
			nodes = node_list(pods, idx, k);
			f.name = c->name;
			f.family = c->family;
			f.status = c->status;
			f.rank = c->rank;
			f.head = xasprintf("%s %s on %s%s", c->name,
					   check_status_name(c->status), who, nodes);
			f.text = xasprintf("%s: %s", f.head, first->detail);
			f.remedy = xstrdup(first->remedy);
			verdict_findings_add(fs, &f);
			free(who);
			free(nodes);
		}
	}
	free(idx);
}

/* Pods not probed for the same reason are one finding (at 400 pods one
 * line, not 400): "pod-probe skipped on 3 of 8 pods: a, b, c; nodes ...:
 * REASON".  Groups are found by a scan per distinct reason; there are few
 * reasons, however many pods. */
static void add_unprobed(const struct run_pod *pods, size_t n,
			 struct verdict_findings *fs)
{
	size_t *idx = n ? xcalloc(n, sizeof(*idx)) : NULL;
	unsigned char *done = n ? xcalloc(n, 1) : NULL;

	for (size_t i = 0; i < n; i++) {
		struct verdict_finding f = { 0 };
		size_t k = 0;
		char *who, *nodes, *why;

		if (pods[i].probed || done[i])
			continue;
		for (size_t j = i; j < n; j++)
			if (!pods[j].probed && !done[j] &&
			    reason_same(&pods[j].reason, &pods[i].reason)) {
				done[j] = 1;
				idx[k++] = j;
			}
		who = verdict_pod_list(pods, n, idx, k, NAMES_SHOWN);
		nodes = node_list(pods, idx, k);
		f.name = check_def_of(CK_POD_PROBE)->name;
		f.family = check_def_of(CK_POD_PROBE)->family;
		f.status = CHECK_SKIPPED;
		f.rank = check_def_of(CK_POD_PROBE)->rank;
		why = reason_line(&pods[i].reason);
		f.text = xasprintf("%s skipped on %s%s: %s", f.name, who, nodes, why);
		free(why);
		free(who);
		free(nodes);
		verdict_findings_add(fs, &f);
	}
	free(idx);
	free(done);
}

/* ---- consolidation ------------------------------------------------- */

static enum fabric common_fabric(const struct run_pod *pods, size_t n)
{
	size_t count[FABRIC_TCP + 1] = { 0 };
	enum fabric best = FABRIC_UNKNOWN;

	for (size_t i = 0; i < n; i++)
		if (pods[i].probed && (unsigned)pods[i].results.fabric <= FABRIC_TCP)
			count[pods[i].results.fabric]++;
	for (int f = FABRIC_INFINIBAND; f <= FABRIC_TCP; f++)
		if (count[f] > count[best])
			best = (enum fabric)f;
	return best;
}

static char *fix_first_line(const struct verdict_findings *fs)
{
	const struct verdict_finding *f = &fs->v[0];  /* sorted: worst first */

	if (f->remedy)
		return xasprintf("%s; fix: %s", f->text, f->remedy);
	return xstrdup(f->text);
}

/* "GPU memory reachable by the NIC on 2 of 8 pods (ucx_info not found in
 * the container)": per link of the path, the probed pods where it has no
 * evidence, with what would show it (the first such pod's skip). */
static void missing_links(const struct run_pod *pods, size_t n,
			  struct buf *b, size_t *shown)
{
	size_t count[LINK__COUNT] = { 0 };
	char what[LINK__COUNT][256];
	const char *title[LINK__COUNT] = { NULL };

	for (size_t i = 0; i < n; i++) {
		struct check_link l[LINK__COUNT];
		size_t nl;

		if (!pods[i].probed)
			continue;
		nl = check_links(&pods[i].results, l);
		for (size_t k = 0; k < nl; k++) {
			enum check_link_id id = l[k].id;

			if (l[k].status != LINK_MISSING || count[id]++)
				continue;
			title[id] = l[k].title;
			snprintf(what[id], sizeof(what[id]), "%s", l[k].detail);
		}
	}
	for (int id = 0; id < LINK__COUNT; id++)
		if (count[id])
			buf_appendf(b, "%s%s on %zu of %zu pod%s (%s)",
				    (*shown)++ ? "; " : "", title[id], count[id], n,
				    n == 1 ? "" : "s",
				    *what[id] ? what[id] : "no check could look");
}

/* What is left unproven: the links without evidence, then pods that
 * could not be probed. */
static char *unconfirmed_line(const struct run_pod *pods, size_t n,
			      size_t nunprobed)
{
	struct buf b = BUF_INIT(LINE_MAX_BYTES);
	size_t shown = 0;

	missing_links(pods, n, &b, &shown);
	if (nunprobed) {
		buf_appendf(&b, "%s%zu pod%s not probed", shown++ ? "; " : "",
			    nunprobed, nunprobed == 1 ? "" : "s");
	}
	if (!shown)
		buf_appends(&b, "no fast-path evidence (no RDMA or NVLink path found)");
	return buf_detach(&b, NULL);
}

void verdict_compute(const struct run_pod *pods, size_t n,
		     struct verdict *out)
{
	struct verdict_findings fs = { 0 }, extra = { 0 };
	int any_fail_finding = 0;

	memset(out, 0, sizeof(*out));
	out->npods = n;
	out->pod = xcalloc(n ? n : 1, sizeof(*out->pod));
	for (size_t i = 0; i < n; i++) {
		enum verdict_status v = out->pod[i] = verdict_pod(&pods[i]);

		out->nprobed += pods[i].probed != 0;
		out->nready += v == VERDICT_READY;
		out->nnot_ready += v == VERDICT_NOT_READY;
		out->nunverified += v == VERDICT_UNVERIFIED;
	}
	group_results(pods, n, &fs);
	/* A check failing on a minority needs no second line saying so:
	 * its own line reads "fail on 1 of 7 pods"; graph_node.c names the odd
	 * node out where a node fact explains it. */
	verdict_graph_compare(pods, n, &extra);
	verdict_fold(pods, n, &fs, &extra);
	add_unprobed(pods, n, &extra);
	for (size_t i = 0; i < extra.n; i++) {
		any_fail_finding |= extra.v[i].status == CHECK_FAIL;
		verdict_findings_add(&fs, &extra.v[i]);
	}
	free(extra.v);
	if (fs.n)
		qsort(fs.v, fs.n, sizeof(*fs.v), finding_cmp);
	out->findings = fs.v;
	out->nfindings = fs.n;
	/* Degradations listed with the verdict (checks.md N: "READY, 3
	 * warnings"): one per finding line, as the reader counts them. */
	for (size_t i = 0; i < fs.n; i++)
		out->nwarnings += fs.v[i].status == CHECK_WARN;
	out->fabric = common_fabric(pods, n);

	if (out->nnot_ready || any_fail_finding)
		out->status = VERDICT_NOT_READY;
	else if (!n || out->nunverified)
		out->status = VERDICT_UNVERIFIED;
	else
		out->status = VERDICT_READY;
	out->exit_code = verdict_exit_code(out->status);
	if (out->status == VERDICT_NOT_READY)
		out->fix_first = fix_first_line(&fs);
	else if (out->status == VERDICT_UNVERIFIED)
		out->unconfirmed = n ? unconfirmed_line(pods, n, n - out->nprobed)
				     : xstrdup("no worker pods found");
}

void verdict_apply_dgd(struct verdict *v, const struct dgd_findings *f)
{
	const struct dgd_finding *first = NULL;

	for (size_t i = 0; f && i < f->n && !first; i++)
		if (f->items[i].status == CHECK_FAIL)
			first = &f->items[i];
	if (!first)
		return;
	if (v->status != VERDICT_NOT_READY) {
		free(v->unconfirmed);
		v->unconfirmed = NULL;
		v->fix_first = xasprintf("DynamoGraphDeployment %s: %s", first->dgd, first->detail);
	}
	v->status = VERDICT_NOT_READY;
	v->exit_code = verdict_exit_code(v->status);
}

void verdict_release(struct verdict *v)
{
	for (size_t i = 0; i < v->nfindings; i++)
		verdict_finding_release(&v->findings[i]);
	free(v->findings);
	free(v->pod);
	free(v->fix_first);
	free(v->unconfirmed);
	memset(v, 0, sizeof(*v));
}
