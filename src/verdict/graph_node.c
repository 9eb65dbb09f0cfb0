/* The odd node out (rules.def NODE rows; see graph.h): the nodes hosting
 * the workers should look alike. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verdict/graph.h"
#include "verdict/rules.h"
#include "util/buf.h"
#include "util/strmap.h"
#include "util/xalloc.h"

/* ---- the odd node out ---------------------------------------------- */

#define VAL_MAX 32

typedef void (*node_fn)(const struct check_results *r, char *v, size_t n);

static void yes_no(int x, const char *yes, const char *no, char *v, size_t n)
{
	if (x >= 0)
		snprintf(v, n, "%s", x ? yes : no);
}

static void nv_peermem(const struct check_results *r, char *v, size_t n)
{
	yes_no(r->summary.peermem, "loaded", "not loaded", v, n);
}

static void nv_gdrdrv(const struct check_results *r, char *v, size_t n)
{
	yes_no(r->summary.gdrdrv, "loaded", "not loaded", v, n);
}

static void nv_ports(const struct check_results *r, char *v, size_t n)
{
	if (r->summary.active_ports >= 0)
		snprintf(v, n, "%d", r->summary.active_ports);
}

static void nv_rate(const struct check_results *r, char *v, size_t n)
{
	if (r->summary.port_rate_gbps > 0)
		snprintf(v, n, "%d Gb/s", r->summary.port_rate_gbps);
}

static void nv_fabric(const struct check_results *r, char *v, size_t n)
{
	if (r->fabric != FABRIC_UNKNOWN)
		snprintf(v, n, "%s", fabric_name(r->fabric));
}

static void nv_driver(const struct check_results *r, char *v, size_t n)
{
	snprintf(v, n, "%s", r->summary.driver_version);
}

static void nv_hca_fw(const struct check_results *r, char *v, size_t n)
{
	snprintf(v, n, "%s", r->summary.hca_fw);
}

struct node_rule {
	const char *what;
	node_fn get;
	enum check_family family;
	int rank;           /* as pair_rule.rank */
	enum check_id about;
	const char *remedy;
};

/* What a node gives every pod on it (rules.def). */
#define rule_rank graph_rule_rank
#define PAIR(...)
#define NODE(id, what, get, fam, rk, about, anchor, remedy) \
	{ what, get, FAM_##fam, rk, about, remedy },
static const struct node_rule node_rules[] = {
#include "verdict/rules.def"
};
#undef PAIR
#undef NODE

#define NNODE_RULES (sizeof(node_rules) / sizeof(node_rules[0]))

struct node {
	const char *name;
	const struct check_results *r;  /* the first probed pod on it */
	char val[VAL_MAX];
};

/* Distinct nodes of probed pods, in order of first pod; *nn gets their
 * number. */
static struct node *node_table(const struct run_pod *pods, size_t n, size_t *nn)
{
	struct node *v = xcalloc(n ? n : 1, sizeof(*v));
	struct strmap m;

	strmap_init(&m);
	for (size_t i = 0; i < n; i++) {
		int added;
		size_t k;

		if (!pods[i].probed || !*graph_str(pods[i].pod->node))
			continue;
		k = strmap_id(&m, pods[i].pod->node, &added);
		if (added) {
			v[k].name = pods[i].pod->node;
			v[k].r = &pods[i].results;
		}
	}
	*nn = m.n;
	strmap_release(&m);
	return v;
}

/* The distinct non-empty values of one node rule, in order of first node:
 * how many nodes have each, and the first VERDICT_NAMES_MAX of them. */
struct values {
	struct value {
		const char *val;
		size_t count, shown[VERDICT_NAMES_MAX], nshown;
	} *v;
	size_t n;
};

static void values_of(const struct node *v, size_t nn, struct values *out)
{
	struct strmap m;

	strmap_init(&m);
	out->v = xcalloc(nn ? nn : 1, sizeof(*out->v));
	for (size_t i = 0; i < nn; i++) {
		struct value *x;

		if (!*v[i].val)
			continue;
		x = &out->v[strmap_id(&m, v[i].val, NULL)];
		x->val = v[i].val;
		if (x->nshown < VERDICT_NAMES_MAX)
			x->shown[x->nshown++] = i;
		x->count++;
	}
	out->n = m.n;
	strmap_release(&m);
}

/* The value most nodes have, or NULL on a tie for first place. */
static const char *majority(const struct values *vs, size_t *count)
{
	const char *best = NULL;
	size_t top = 0, second = 0;

	for (size_t i = 0; i < vs->n; i++) {
		size_t c = vs->v[i].count;

		if (c > top) {
			second = top;
			top = c;
			best = vs->v[i].val;
		} else if (c > second) {
			second = c;
		}
	}
	*count = top;
	return top > second ? best : NULL;
}

/* "not loaded on nodes a, b" for each odd value; the odd names, at most
 * VERDICT_NAMES_MAX, in *names. */
static void describe_odd(const struct node *v, const struct values *vs, const char *maj,
			 struct buf *b, char ***names, size_t *nnames)
{
	*names = xcalloc(VERDICT_NAMES_MAX, sizeof(**names));
	*nnames = 0;
	for (size_t i = 0; i < vs->n; i++) {
		const struct value *x = &vs->v[i];

		if (!strcmp(x->val, maj))
			continue;
		buf_appendf(b, "%s%s on node%s", b->len ? ", " : "", x->val,
			    x->count == 1 ? "" : "s");
		for (size_t k = 0; k < x->nshown; k++) {
			buf_appendf(b, "%s %s", k ? "," : "", v[x->shown[k]].name);
			if (*nnames < VERDICT_NAMES_MAX)
				(*names)[(*nnames)++] = xstrdup(v[x->shown[k]].name);
		}
		if (x->count > x->nshown)
			buf_appendf(b, " and %zu more", x->count - x->nshown);
	}
}

static void node_rule(const struct node_rule *r, struct node *v, size_t nn,
		      struct verdict_findings *out)
{
	struct buf b = BUF_INIT(GRAPH_LINE_MAX);
	struct verdict_finding f = { 0 };
	size_t known = 0, nmaj;
	struct values vs;
	const char *maj;
	char *odd;

	for (size_t i = 0; i < nn; i++) {
		v[i].val[0] = '\0';
		r->get(v[i].r, v[i].val, sizeof(v[i].val));
		known += *v[i].val != '\0';
	}
	values_of(v, nn, &vs);
	maj = majority(&vs, &nmaj);
	if (known < 2 || !maj || nmaj == known) {
		free(vs.v);
		return;
	}
	describe_odd(v, &vs, maj, &b, &f.nodes, &f.nnodes);
	free(vs.v);
	odd = buf_detach(&b, NULL);
	f.name = graph_finding_name(GRAPH_FINDING_NODE);
	f.family = r->family;
	f.status = CHECK_WARN;
	f.rank = rule_rank(r->about, r->rank);
	f.about = graph_rule_about(r->about);
	f.text = xasprintf("%s: %s; %s on the other %zu node%s", r->what, odd,
			   maj, nmaj, nmaj == 1 ? "" : "s");
	f.remedy = xstrdup(r->remedy);
	verdict_findings_add(out, &f);
	free(odd);
}

void graph_nodes(const struct run_pod *pods, size_t n, struct verdict_findings *out)
{
	size_t nn;
	struct node *v = node_table(pods, n, &nn);

	for (size_t r = 0; nn > 1 && r < NNODE_RULES; r++)
		node_rule(&node_rules[r], v, nn, out);
	free(v);
}
