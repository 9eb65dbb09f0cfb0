/* `nixl --pod P` (nixl.h): the pod, its peer, the plan and the test. */
#include <stdlib.h>
#include <string.h>

#include "check/pairtest.h"
#include "run/nixl.h"
#include "run/transfer.h"
#include "util/xalloc.h"

/* Lists pod `name` (any labels) and probes it. */
static int probe_one(struct http_client *c, const struct run_nixl_query *q, const char *name,
		     struct run_nixl_side *s, struct err *e)
{
	struct pods_query pq = { 0 };
	struct run_options o = { .parallel = 1, .timeout_ms = RUN_PROBE_TIMEOUT_MS };

	pq.namespace = q->namespace;
	pq.name = name;
	pq.any_component = 1;
	pq.container = q->container;
	if (pods_list(c, &pq, &s->list, e) < 0)
		return -1;
	s->listed = 1;
	if (s->list.n == 0)
		return err_setp(e, ERR_API, "Error from server (NotFound): pods \"%s\" not found", name);
	run_init(&s->run, &s->list);
	s->probed_run = 1;
	s->run.keep_facts = 1;
	run_pods(&s->run, c, &o);
	return 0;
}

static void side_release(struct run_nixl_side *s)
{
	if (s->probed_run)
		run_release(&s->run);
	if (s->listed)
		pod_list_release(&s->list);
}

static const char *opposite(const char *role)
{
	return !strcmp(role, "prefill") ? "decode" : !strcmp(role, "decode") ? "prefill" : NULL;
}

/* A Running worker to pair with: the other role (same graph first), or for
 * an aggregated worker another worker on another node.  Owned copy or NULL. */
static char *find_peer(struct http_client *c, const struct pod_info *self, struct err *e)
{
	struct pods_query q = { 0 };
	const char *want = opposite(self->role);
	struct pod_list l;
	char *name = NULL;
	int pass;
	size_t i;

	q.namespace = self->namespace;
	if (pods_list(c, &q, &l, e) < 0)
		return NULL;
	for (pass = 0; pass < 2 && !name; pass++)
		for (i = 0; i < l.n && !name; i++) {
			const struct pod_info *p = &l.items[i];
			int role_ok = want ? !strcmp(p->role, want)
					   : strcmp(p->name, self->name) && strcmp(p->node, self->node);
			if (p->probe && role_ok && (pass || !strcmp(p->graph, self->graph)))
				name = xstrdup(p->name);
		}
	pod_list_release(&l);
	return name;
}

static void side_view(const struct run_nixl_side *s, struct pairtest_side *v)
{
	const struct pod_info *p = &s->list.items[0];

	v->namespace = p->namespace;
	v->pod = p->name;
	v->container = p->container;
	v->ip = p->pod_ip;
	v->role = p->role;
	v->f = s->run.pod[0].facts;
}

int run_nixl(struct http_client *c, const struct run_nixl_query *q, struct run_nixl *n,
	     struct err *e)
{
	struct pairtest_side sv, pv;

	memset(n, 0, sizeof(*n));
	buf_init(&n->plan, 1 << 16);
	if (probe_one(c, q, q->pod, &n->self, e) < 0)
		return -1;
	n->peer_name = q->peer ? xstrdup(q->peer) : find_peer(c, &n->self.list.items[0], e);
	if (n->peer_name && probe_one(c, q, n->peer_name, &n->peer, e) < 0)
		return -1;
	side_view(&n->self, &sv);
	if (n->peer_name)
		side_view(&n->peer, &pv);
	pairtest_plan(&sv, n->peer_name ? &pv : NULL,
		      n->self.run.pod[0].results.fabric == FABRIC_EFA, &n->plan);
	return 0;
}

const struct run_pod *run_nixl_self(const struct run_nixl *n)
{
	return &n->self.run.pod[0];
}

const struct run_pod *run_nixl_peer(const struct run_nixl *n)
{
	return n->peer_name ? &n->peer.run.pod[0] : NULL;
}

int run_nixl_transfer(struct http_client *c, struct run_nixl *n, long limit_ms,
		      const struct run_sink *sink)
{
	struct run_pod *self = &n->self.run.pod[0];
	struct transfer_side a, b;
	int self_client;

	if (!n->peer_name || !n->peer.run.pod[0].probed) {
		check_results_add_id(&self->results, CK_TRANSFER, CHECK_SKIPPED,
				      "no probed prefill/decode peer to test a transfer with", NULL);
		return 0;
	}
	a.pod = self->pod, a.f = self->facts, a.results = &self->results;
	b.pod = n->peer.run.pod[0].pod, b.f = n->peer.run.pod[0].facts;
	b.results = &n->peer.run.pod[0].results;
	/* The prefill side sends KV: it is the client (an aggregated worker too). */
	self_client = strcmp(a.pod->role, "decode") != 0;
	run_transfer_pair(c, self_client ? &a : &b, self_client ? &b : &a, limit_ms, sink);
	return 1;
}

void run_nixl_release(struct run_nixl *n)
{
	side_release(&n->self);
	side_release(&n->peer);
	free(n->peer_name);
	buf_release(&n->plan);
	memset(n, 0, sizeof(*n));
}
