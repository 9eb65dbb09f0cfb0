/* `nixl --pod P` (nixl.h): the pod, its peer, the plan and the test. */
#include <stdlib.h>
#include <string.h>

#include "check/pairtest.h"
#include "run/nixl.h"
#include "run/transfer.h"
#include "util/xalloc.h"

/* Lists pod `name` (any labels) and probes it: the session's list and
 * probe stages, facts kept. */
static int probe_one(struct http_client *c, const struct run_nixl_query *q, const char *name,
		     struct run_nixl_side *s, struct err *e)
{
	s->query = (struct pods_query){ .namespace = q->namespace, .name = name,
					.any_component = 1, .container = q->container };
	s->plan = (struct run_plan){ .query = &s->query, .namespace = q->namespace, .keep_facts = 1,
				     .probe = { .parallel = 1, .timeout_ms = RUN_PROBE_TIMEOUT_MS } };
	s->started = 1;
	if (run_session(&s->s, c, NULL, &s->plan, e) < 0)
		return -1;
	if (s->s.empty)
		return err_setp(e, ERR_API, "Error from server (NotFound): pods \"%s\" not found", name);
	return 0;
}

static void side_release(struct run_nixl_side *s)
{
	if (s->started)
		run_session_release(&s->s);
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
	const struct pod_info *p = &s->s.list.items[0];

	v->namespace = p->namespace;
	v->pod = p->name;
	v->container = p->container;
	v->ip = p->pod_ip;
	v->role = p->role;
	v->f = s->s.run.pod[0].facts;
}

int run_nixl(struct http_client *c, const struct run_nixl_query *q, struct run_nixl *n,
	     struct err *e)
{
	struct pairtest_side sv, pv;

	memset(n, 0, sizeof(*n));
	buf_init(&n->plan, 1 << 16);
	if (probe_one(c, q, q->pod, &n->self, e) < 0)
		return -1;
	n->peer_name = q->peer ? xstrdup(q->peer) : find_peer(c, &n->self.s.list.items[0], e);
	if (n->peer_name && probe_one(c, q, n->peer_name, &n->peer, e) < 0)
		return -1;
	side_view(&n->self, &sv);
	if (n->peer_name)
		side_view(&n->peer, &pv);
	pairtest_plan(&sv, n->peer_name ? &pv : NULL,
		      n->self.s.run.pod[0].results.fabric == FABRIC_EFA, &n->plan);
	return 0;
}

const struct run_pod *run_nixl_self(const struct run_nixl *n)
{
	return &n->self.s.run.pod[0];
}

const struct run_pod *run_nixl_peer(const struct run_nixl *n)
{
	return n->peer_name ? &n->peer.s.run.pod[0] : NULL;
}

int run_nixl_transfer(struct http_client *c, struct run_nixl *n, long limit_ms,
		      const struct run_sink *sink)
{
	struct run_pod *self = &n->self.s.run.pod[0];
	struct transfer_side a, b;
	int self_client;

	if (!n->peer_name || !n->peer.s.run.pod[0].probed) {
		check_results_add_id(&self->results, CK_TRANSFER, CHECK_SKIPPED,
				      "no probed prefill/decode peer to test a transfer with", NULL);
		return 0;
	}
	a.pod = self->pod, a.f = self->facts, a.results = &self->results;
	b.pod = n->peer.s.run.pod[0].pod, b.f = n->peer.s.run.pod[0].facts;
	b.results = &n->peer.s.run.pod[0].results;
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
