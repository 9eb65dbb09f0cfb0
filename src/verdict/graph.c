/* Prefill/decode pair rules (rules.def PAIR rows; see graph.h): each
 * prefill x decode pair of one graph must be able to meet.  The odd node
 * out is graph_node.c's. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/envrules.h"
#include "model/fwrules.h"
#include "verdict/graph.h"
#include "verdict/pairnet.h"
#include "verdict/rules.h"
#include "util/buf.h"
#include "util/clist.h"
#include "util/strmap.h"
#include "util/xalloc.h"

#define WHY_MAX 512
#define LINE_MAX_BYTES 4096
/* UCX_TLS bits (model/envrules.h) of the network transports. */
#define TLB(x) (1u << (x))
#define TL_RDMA_IB (TLB(ENVR_TL_RC_MLX5) | TLB(ENVR_TL_DC_MLX5) | TLB(ENVR_TL_UD_MLX5) | \
		    TLB(ENVR_TL_RC_VERBS) | TLB(ENVR_TL_UD_VERBS))
#define TL_NET_RDMA (TL_RDMA_IB | TLB(ENVR_TL_SRD))
#define TL_NET (TL_NET_RDMA | TLB(ENVR_TL_TCP))

static const char *str(const char *s)
{
	return s ? s : "";
}

static const struct check_summary *sum(const struct run_pod *p)
{
	return &p->results.summary;
}

static int probed(const struct run_pod *p)
{
	return p->probed;
}

static int is_role(const struct run_pod *p, const char *role)
{
	return p->pod->role && !strcmp(p->pod->role, role);
}

static int same_graph(const struct run_pod *a, const struct run_pod *b)
{
	return !strcmp(str(a->pod->namespace), str(b->pod->namespace)) &&
	       !strcmp(str(a->pod->graph), str(b->pod->graph));
}

/* ---- pair rules ----------------------------------------------------- */

/* One side of a pair, for the wording ("decode qwen-decode-1"). */
struct side {
	const struct run_pod *p;
	const struct check_summary *s;
	const char *role;
};

/* Both envs were read: "" then means unset, not unknown. */
static int envs_known(const struct side *a, const struct side *b)
{
	return probed(a->p) && probed(b->p) && a->s->env_known && b->s->env_known;
}

/* CHECK_OK when the two sides can meet on this point; otherwise the
 * status, and the mismatch in why. */
typedef enum check_status (*pair_fn)(const struct side *a, const struct side *b,
				     char *why, size_t n);

/* Does a comma list of backends ("UCX,GDS") name this one? */
static int has_backend(const char *list, const char *be, size_t len)
{
	return clist_has(list, be, len, 1);
}

static int backends_meet(const char *a, const char *b)
{
	for (const char *p = a; *p;) {
		size_t l = strcspn(p, ",");

		if (l && has_backend(b, p, l))
			return 1;
		p += l;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* modelexpress PR #259: source and target use the same backend. */
static enum check_status pr_backend(const struct side *a, const struct side *b,
				    char *why, size_t n)
{
	const char *x = a->s->nixl_backend, *y = b->s->nixl_backend;

	if (!*x || !*y || !strcasecmp(x, y))
		return CHECK_OK;
	snprintf(why, n, "NIXL backend %s vs %s", x, y);
	return backends_meet(x, y) ? CHECK_WARN : CHECK_FAIL;
}

static int uses_ucx(const struct side *s)
{
	const char *be = s->s->nixl_backend;

	return !*be || has_backend(be, "UCX", 3);
}

static const char *tls_shown(const char *tls)
{
	return *tls ? tls : "unset (all)";
}

/* env-vars.md UCX_TLS: both ends need one transport in common, and an
 * RDMA one when either relies on RDMA. */
static enum check_status pr_tls(const struct side *a, const struct side *b,
				char *why, size_t n)
{
	const char *x = a->s->ucx_tls, *y = b->s->ucx_tls;
	unsigned ax, ay, ra, rb;

	if (!envs_known(a, b) || !uses_ucx(a) || !uses_ucx(b) || !strcmp(x, y))
		return CHECK_OK;
	ax = envr_tls_allowed(x);
	ay = envr_tls_allowed(y);
	ra = ax & TL_NET_RDMA;
	rb = ay & TL_NET_RDMA;
	if (!ra != !rb) {
		const struct side *no = ra ? b : a, *yes = ra ? a : b;

		snprintf(why, n, "UCX_TLS=%s on %s %s allows no RDMA transport, "
			 "%s %s has UCX_TLS=%s", tls_shown(no->s->ucx_tls_shown),
			 no->role, str(no->p->pod->name), yes->role, str(yes->p->pod->name),
			 tls_shown(yes->s->ucx_tls_shown));
		return CHECK_FAIL;
	}
	if (ra && !(ra & rb)) {
		snprintf(why, n, "UCX_TLS %s vs %s: no RDMA transport in common",
			 tls_shown(a->s->ucx_tls_shown), tls_shown(b->s->ucx_tls_shown));
		return CHECK_FAIL;
	}
	if (!(ax & ay & TL_NET)) {
		snprintf(why, n, "UCX_TLS %s vs %s: no network transport in common",
			 tls_shown(a->s->ucx_tls_shown), tls_shown(b->s->ucx_tls_shown));
		return CHECK_FAIL;
	}
	snprintf(why, n, "UCX_TLS differs: %s vs %s", tls_shown(a->s->ucx_tls_shown),
		 tls_shown(b->s->ucx_tls_shown));
	return CHECK_WARN;
}

/* checks.md I: UCX_NET_DEVICES naming an absent or down device. */
static enum check_status pr_netdev(const struct side *a, const struct side *b,
				   char *why, size_t n)
{
	const struct side *bad = *a->s->net_dev_bad ? a : b;

	if (!envs_known(a, b) || !*bad->s->net_dev_bad)
		return CHECK_OK;
	snprintf(why, n, "UCX_NET_DEVICES on %s %s names %s", bad->role,
		 str(bad->p->pod->name), bad->s->net_dev_bad);
	return CHECK_FAIL;
}

static enum check_status differ(const char *what, const char *x,
				const char *y, char *why, size_t n)
{
	if (!*x || !*y || !strcmp(x, y))
		return CHECK_OK;
	snprintf(why, n, "%s %s vs %s", what, x, y);
	return CHECK_WARN;
}

/* checks.md M6 (vLLM pinned nixl<0.10 after a regression, vllm #35799). */
static enum check_status pr_ucx(const struct side *a, const struct side *b,
				char *why, size_t n)
{
	return differ("UCX", a->s->ucx_version, b->s->ucx_version, why, n);
}

static enum check_status pr_nixl(const struct side *a, const struct side *b,
				 char *why, size_t n)
{
	return differ("NIXL", a->s->nixl_version, b->s->nixl_version, why, n);
}

static enum check_status pr_fi(const struct side *a, const struct side *b,
			       char *why, size_t n)
{
	return differ("libfabric", a->s->libfabric_version,
		      b->s->libfabric_version, why, n);
}

/* checks.md M5, N2: across nodes only RDMA (or MNNVL) is fast. */
static enum check_status pr_cross_node(const struct side *a, const struct side *b,
				       char *why, size_t n)
{
	const struct side *no = a->s->rdma_usable == 0 ? a : b;

	if (!probed(a->p) || !probed(b->p) || no->s->rdma_usable != 0 ||
	    !*str(a->p->pod->node) || !*str(b->p->pod->node) ||
	    !strcmp(a->p->pod->node, b->p->pod->node))
		return CHECK_OK;
	snprintf(why, n, "on nodes %s and %s, and %s %s has no usable RDMA: "
		 "KV would cross nodes over TCP", a->p->pod->node, b->p->pod->node,
		 no->role, str(no->p->pod->name));
	return CHECK_FAIL;
}

/* checks.md M3: an RDMA resource missing on either side is a fail. */
static enum check_status pr_resources(const struct side *a, const struct side *b,
				      char *why, size_t n)
{
	const char *x = a->s->rdma_request, *y = b->s->rdma_request;

	if (!a->s->spec_known || !b->s->spec_known || !strcmp(x, y))
		return CHECK_OK;
	snprintf(why, n, "RDMA resources requested: %s vs %s",
		 *x ? x : "none", *y ? y : "none");
	return *x && *y ? CHECK_WARN : CHECK_FAIL;
}

/* "prefill qwen-prefill-0", for pairnet.c's reasons. */
static void side_name(const struct side *s, char *out, size_t n)
{
	snprintf(out, n, "%s %s", s->role, str(s->p->pod->name));
}

/* A pairnet.c rule on two probed sides, each named "ROLE POD". */
static enum check_status named_pair(const struct side *a, const struct side *b,
				    enum check_status (*rule)(const struct check_summary *, const char *,
							      const struct check_summary *, const char *,
							      char *, size_t),
				    char *why, size_t n)
{
	char an[160], bn[160];

	if (!probed(a->p) || !probed(b->p))
		return CHECK_OK;
	side_name(a, an, sizeof an);
	side_name(b, bn, sizeof bn);
	return rule(a->s, an, b->s, bn, why, n);
}

/* checks.md A10: the GIDs of the pair reach each other. */
static enum check_status pr_gid(const struct side *a, const struct side *b,
				char *why, size_t n)
{
	return named_pair(a, b, verdict_pair_gid, why, n);
}

/* checks.md E7b: no KV lane UCX keeps leaves the KV fabric. */
static enum check_status pr_offfab(const struct side *a, const struct side *b,
				   char *why, size_t n)
{
	return named_pair(a, b, verdict_pair_offfab, why, n);
}

/* checks.md D4b: an MNNVL pair in one NVLink domain. */
static enum check_status pr_nvl_domain(const struct side *a, const struct side *b,
				       char *why, size_t n)
{
	return named_pair(a, b, verdict_pair_nvl_domain, why, n);
}

/* checks.md D6: cuda_ipc as the pair's only path carries its direction
 * and its memory. */
static enum check_status pr_ipc_dir(const struct side *a, const struct side *b,
				    char *why, size_t n)
{
	return named_pair(a, b, verdict_pair_ipc_dir, why, n);
}

static enum check_status pr_ipc_fabric(const struct side *a, const struct side *b,
				       char *why, size_t n)
{
	return named_pair(a, b, verdict_pair_ipc_fabric, why, n);
}

/* checks.md E8b: Mooncake's rail sets match on a rail-only fabric. */
static enum check_status pr_mc_rails(const struct side *a, const struct side *b,
				     char *why, size_t n)
{
	return named_pair(a, b, verdict_pair_mc_rails, why, n);
}

/* rank: how far after the per-pod check of the same thing (about, whose
 * rank is the table's, src/check/table.def) it ranks; with no such check,
 * the rank itself (rules.def). */
/* J5b: the attention backend a vLLM worker's spec names
 * (--attention-backend X, or VLLM_ATTENTION_BACKEND=X on its command
 * line) into v, or NULL: not vLLM, not named (vLLM then picks its own), or
 * no plain backend name. */
static const char *attn_backend(const struct run_pod *p, char *v, size_t n)
{
	const char *a = p->pod->args;

	if (!a || !strstr(a, "vllm") ||
	    (!fwr_flag(a, "--attention-backend", v, n) && !fwr_flag(a, "VLLM_ATTENTION_BACKEND", v, n)))
		return NULL;
	for (const char *c = v; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			return NULL;
	return v;
}

/* J5b: vLLM's NixlConnector refuses a remote agent whose attention backend
 * is not its own (nixl_connector.py _validate_remote_agent_handshake,
 * `assert nixl_agent_meta.attn_backend_name == self.backend_name`;
 * vllm-project/vllm#23587): FlashInfer keeps a block's K and V together
 * ([num_blocks, 2, ...], PR #19090), FlashAttention K then V ([2,
 * num_blocks, ...]), so one side's regions are not the other's. */
static enum check_status pr_attn(const struct side *a, const struct side *b,
				 char *why, size_t n)
{
	char x[32], y[32];

	if (!attn_backend(a->p, x, sizeof x) || !attn_backend(b->p, y, sizeof y) || !strcasecmp(x, y))
		return CHECK_OK;
	snprintf(why, n, "vLLM attention backend %s vs %s", x, y);
	return CHECK_FAIL;
}

struct pair_rule {
	pair_fn judge;
	enum check_family family;
	int rank;
	enum check_id about;
	const char *remedy;
};

#define rule_rank graph_rule_rank
#define PAIR(id, judge, fam, rk, about, anchor, remedy) { judge, FAM_##fam, rk, about, remedy },
#define NODE(...)
static const struct pair_rule pair_rules[] = {
#include "verdict/rules.def"
};
#undef PAIR
#undef NODE

#define NPAIR_RULES (sizeof(pair_rules) / sizeof(pair_rules[0]))

/* The one rule whose status depends on the pair's nodes, not only on the
 * two digests. */
static int is_cross_node_rule(size_t r)
{
	return pair_rules[r].judge == pr_cross_node;
}

/* The pairs one rule found, per status (warn, fail). */
struct pair_tally {
	size_t count[2];
	size_t first_p[2], first_d[2];
	char why[2][WHY_MAX];
};

static char **names_dup(const char *a, const char *b, size_t *n)
{
	char **v = xcalloc(2, sizeof(*v));

	v[0] = xstrdup(str(a));
	v[1] = xstrdup(str(b));
	*n = 2;
	return v;
}

static void pair_finding(const struct run_pod *pods, const struct pair_rule *r,
			 const struct pair_tally *t, int k, struct verdict_findings *out)
{
	const struct run_pod *p = &pods[t->first_p[k]], *d = &pods[t->first_d[k]];
	struct verdict_finding f = { 0 };
	size_t more = t->count[k] - 1;

	f.name = graph_finding_name(GRAPH_FINDING_PAIR);
	f.family = r->family;
	f.status = k ? CHECK_FAIL : CHECK_WARN;
	f.rank = rule_rank(r->about, r->rank);
	f.about = graph_rule_about(r->about);
	f.text = more
		? xasprintf("prefill %s and decode %s: %s (and %zu more pair%s)",
			    str(p->pod->name), str(d->pod->name), t->why[k], more,
			    more == 1 ? "" : "s")
		: xasprintf("prefill %s and decode %s: %s", str(p->pod->name),
			    str(d->pod->name), t->why[k]);
	f.remedy = xstrdup(r->remedy);
	f.pods = names_dup(p->pod->name, d->pod->name, &f.npods);
	verdict_findings_add(out, &f);
}

/* Keeps the first pair (prefill index, then decode index, as an all-pairs
 * loop meets them) that rule r judged k, and adds count pairs to it. */
static void tally_add(struct pair_tally *t, int k, size_t count, size_t i, size_t j)
{
	if (!count)
		return;
	if (!t->count[k] || i < t->first_p[k] ||
	    (i == t->first_p[k] && j < t->first_d[k])) {
		t->first_p[k] = i;
		t->first_d[k] = j;
	}
	t->count[k] += count;
}

/* Pods of one role that every pair rule but pr_cross_node treats alike:
 * same graph, same digest fields.  idx[] ascending. */
struct pclass {
	size_t *idx, n, cap;
};

/* Everything a pair rule's status reads, the node aside (pr_cross_node
 * reads it; pairs_cross_node counts it per pair).  Owned by the caller. */
static char *class_key(const struct run_pod *p, const char *role)
{
	const struct check_summary *s = sum(p);
	char attn[32];
	const char *at = attn_backend(p, attn, sizeof attn);
	const char *f[] = { role, str(p->pod->namespace), str(p->pod->graph), s->nixl_backend,
			    s->ucx_tls, s->net_dev_bad, s->ucx_version, s->nixl_version,
			    s->libfabric_version, s->rdma_request, at ? at : "" };
	struct buf b = BUF_INIT(LINE_MAX_BYTES);   /* the fields are bounded: < 1 KiB */
	char *key;

	/* Each string behind its length: no two field lists give one key. */
	buf_appendf(&b, "%d %d %d %d", probed(p), s->env_known, s->spec_known, s->rdma_usable);
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		buf_appendf(&b, " %zu:%s", strlen(f[i]), f[i]);
	verdict_pairnet_key(s, &b);
	key = buf_detach(&b, NULL);
	return key ? key : xstrdup("");
}

struct pgroups {
	struct pclass *v;      /* classes, in order of first member */
	size_t n;
	struct strmap map;     /* key -> class */
	char **keys;           /* per pod, owned; NULL when not in a pair */
	size_t *node;          /* per pod: node id, SIZE_MAX without a node */
	size_t nnodes;
};

static void group_pods(const struct run_pod *pods, size_t n, struct pgroups *g)
{
	struct strmap nodes;

	memset(g, 0, sizeof(*g));
	strmap_init(&g->map);
	strmap_init(&nodes);
	g->v = xcalloc(n ? n : 1, sizeof(*g->v));
	g->keys = xcalloc(n ? n : 1, sizeof(*g->keys));
	g->node = xcalloc(n ? n : 1, sizeof(*g->node));
	for (size_t i = 0; i < n; i++) {
		const char *role = is_role(&pods[i], "prefill") ? "prefill"
				 : is_role(&pods[i], "decode") ? "decode" : NULL;
		struct pclass *c;

		g->node[i] = *str(pods[i].pod->node) ? strmap_id(&nodes, pods[i].pod->node, NULL) : SIZE_MAX;
		if (!role || !sum(&pods[i]))
			continue;
		g->keys[i] = class_key(&pods[i], role);
		c = &g->v[strmap_id(&g->map, g->keys[i], NULL)];
		g->n = g->map.n;
		if (c->n == c->cap) {
			c->cap = c->cap ? 2 * c->cap : 4;
			c->idx = xrealloc(c->idx, c->cap * sizeof(*c->idx));
		}
		c->idx[c->n++] = i;
	}
	g->nnodes = nodes.n;
	strmap_release(&nodes);
}

static void groups_release(struct pgroups *g, size_t n)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->v[i].idx);
	for (size_t i = 0; i < n; i++)
		free(g->keys[i]);
	free(g->v);
	free(g->keys);
	free(g->node);
	strmap_release(&g->map);
}

/* pr_cross_node for a prefill class x decode class whose digests say it
 * fails wherever the two nodes differ: adds those pairs (all with a node
 * on both sides minus the same-node ones; cnt[] is a zeroed scratch per
 * node id, zeroed again on return) and the first of them. */
static void pairs_cross_node(const struct pgroups *g, const struct pclass *cp,
			     const struct pclass *cd, size_t *cnt, struct pair_tally *t)
{
	size_t na = 0, nb = 0, same = 0, b0 = SIZE_MAX, other = SIZE_MAX;
	size_t fi = SIZE_MAX, fj = SIZE_MAX;

	for (size_t y = 0; y < cd->n; y++) {
		size_t j = cd->idx[y], nd = g->node[j];

		if (nd == SIZE_MAX)
			continue;
		cnt[nd]++;
		nb++;
		if (b0 == SIZE_MAX)
			b0 = j;
		else if (other == SIZE_MAX && nd != g->node[b0])
			other = j;
	}
	for (size_t x = 0; x < cp->n; x++) {
		size_t i = cp->idx[x], np = g->node[i];

		if (np == SIZE_MAX)
			continue;
		na++;
		same += cnt[np];
		/* The first decode on another node: b0, or else the first
		 * one not on b0's node. */
		if (fi == SIZE_MAX && b0 != SIZE_MAX) {
			size_t j = g->node[b0] != np ? b0 : other;

			if (j != SIZE_MAX) {
				fi = i;
				fj = j;
			}
		}
	}
	for (size_t y = 0; y < cd->n; y++)
		if (g->node[cd->idx[y]] != SIZE_MAX)
			cnt[g->node[cd->idx[y]]] = 0;
	tally_add(t, 1, na * nb - same, fi, fj);
}

/* One prefill class x one decode class of the same graph: each rule
 * judged once on the first pair, counted for all |cp| x |cd| pairs. */
static void pairs_classes(const struct run_pod *pods, const struct pgroups *g,
			  const struct pclass *cp, const struct pclass *cd,
			  size_t *cnt, struct pair_tally *t)
{
	size_t i = cp->idx[0], j = cd->idx[0];
	struct side a = { &pods[i], sum(&pods[i]), "prefill" };
	struct side b = { &pods[j], sum(&pods[j]), "decode" };

	for (size_t r = 0; r < NPAIR_RULES; r++) {
		char why[WHY_MAX];
		enum check_status st;

		if (is_cross_node_rule(r)) {
			if (probed(a.p) && probed(b.p) &&
			    (a.s->rdma_usable == 0 || b.s->rdma_usable == 0))
				pairs_cross_node(g, cp, cd, cnt, &t[r]);
			continue;
		}
		st = pair_rules[r].judge(&a, &b, why, sizeof(why));
		if (st == CHECK_FAIL || st == CHECK_WARN)
			tally_add(&t[r], st == CHECK_FAIL, cp->n * cd->n, i, j);
	}
}

/* The first pair's wording, from the pair itself (it names the pods). */
static void pair_why(const struct run_pod *pods, size_t r, struct pair_tally *t, int k)
{
	size_t i = t->first_p[k], j = t->first_d[k];
	struct side a = { &pods[i], sum(&pods[i]), "prefill" };
	struct side b = { &pods[j], sum(&pods[j]), "decode" };

	t->why[k][0] = '\0';
	pair_rules[r].judge(&a, &b, t->why[k], sizeof(t->why[k]));
}

/* As if every prefill x decode pair of a graph were judged (the first pair
 * met in index order named, all counted), at the cost of one judgement per
 * pair of classes plus O(pods) for the node-dependent rule. */
static void pairs(const struct run_pod *pods, size_t n, struct verdict_findings *out)
{
	struct pair_tally t[NPAIR_RULES];
	struct pgroups g;
	size_t *cnt;

	memset(t, 0, sizeof(t));
	group_pods(pods, n, &g);
	cnt = xcalloc(g.nnodes ? g.nnodes : 1, sizeof(*cnt));
	for (size_t x = 0; x < g.n; x++) {
		const struct run_pod *p = &pods[g.v[x].idx[0]];

		if (!is_role(p, "prefill"))
			continue;
		for (size_t y = 0; y < g.n; y++) {
			const struct run_pod *d = &pods[g.v[y].idx[0]];

			if (is_role(d, "decode") && same_graph(p, d))
				pairs_classes(pods, &g, &g.v[x], &g.v[y], cnt, t);
		}
	}
	free(cnt);
	groups_release(&g, n);
	for (size_t r = 0; r < NPAIR_RULES; r++)
		for (int k = 1; k >= 0; k--)
			if (t[r].count[k]) {
				pair_why(pods, r, &t[r], k);
				pair_finding(pods, &pair_rules[r], &t[r], k, out);
			}
}

void verdict_graph_compare(const struct run_pod *pods, size_t n,
		   struct verdict_findings *out)
{
	pairs(pods, n, out);
	graph_nodes(pods, n, out);
}
