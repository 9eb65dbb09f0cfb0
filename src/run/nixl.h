/* `nixl --pod P`: one worker, the peer of the other role it would hand KV
 * to, and the pairwise test between them: the commands for it (printed,
 * never run) or, with --transfer, the test itself (run/transfer.h).
 * Which pod is the peer, which side is the client and what a missing peer
 * means are decided here, so cmd/nixl.c only prints. */
#ifndef RUN_NIXL_H
#define RUN_NIXL_H

#include "kube/http/http.h"
#include "kube/api/pods.h"
#include "run/run.h"
#include "run/session.h"
#include "util/buf.h"
#include "util/err.h"

struct run_nixl_query {
	const char *namespace;
	const char *pod;          /* --pod (required) */
	const char *peer;         /* --peer, or NULL: find one (run_nixl_find_peer) */
	const char *container;    /* -c, or NULL */
};

/* One pod listed by name (any labels) and probed, facts kept: a run
 * session (session.h) of its list and probe stages. */
struct run_nixl_side {
	struct pods_query query;
	struct run_plan plan;
	struct run_session s;     /* owned; s.run.pod[0] is the pod */
	int started;
};

/* Owns everything in it; release with run_nixl_release(). */
struct run_nixl {
	struct run_nixl_side self;
	struct run_nixl_side peer;
	char *peer_name;          /* owned; NULL: no peer named or found */
	struct buf plan;          /* the commands of the pairwise test (check/pairtest.h) */
};

/* Probes q->pod, then its peer (q->peer, or one found), and writes the
 * plan.  -1 with e set when a named pod is not there or the API fails; a
 * failed search for a peer only leaves n->peer_name NULL. */
int run_nixl(struct http_client *c, const struct run_nixl_query *q, struct run_nixl *n,
	     struct err *e);
/* The pod itself and its peer (NULL without one). */
const struct run_pod *run_nixl_self(const struct run_nixl *n);
const struct run_pod *run_nixl_peer(const struct run_nixl *n);
/* --transfer: runs the test between the pod and its peer, the prefill side
 * as the client, and adds its TRANSFER result to both.  Without a probed
 * peer it adds "transfer" skipped to the pod and returns 0; 1 when it
 * ran. */
int run_nixl_transfer(struct http_client *c, struct run_nixl *n, long limit_ms,
		      const struct run_sink *sink);
void run_nixl_release(struct run_nixl *n);

#endif
