/* The session's observe stage (observe.h run_observe_stage): what the
 * window does, said before the probes start.  Apart from observe.c, which
 * run.c calls, since this one calls run.c (run_say). */
#include <string.h>

#include "run/observe.h"
#include "run/session.h"
#include "util/safe.h"

/* The first node with more than one pod to probe, and how many share it;
 * NULL when none does.  Quadratic over the listed pods, no allocation. */
static const char *shared_node(const struct pod_list *l, size_t *count)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct pod_info *a = &l->items[i];
		size_t same = 1;

		if (!a->probe || !a->node || !*a->node)
			continue;
		for (size_t j = i + 1; j < l->n; j++)
			same += l->items[j].probe && l->items[j].node &&
				!strcmp(l->items[j].node, a->node);
		if (same > 1)
			return *count = same, a->node;
	}
	return NULL;
}

int run_observe_stage(struct run_session *s, struct err *e)
{
	const struct run_options *o = &s->plan->probe;
	const char *node;
	size_t n = 0;

	(void)e;
	if (o->observe_s < OBSERVE_MIN_S || o->observe_s > OBSERVE_MAX_S)
		return 0;
	run_say(o->sink, "observe: each probe samples the RDMA port counters twice, %ld s apart "
		"(probe deadline %ld s)", o->observe_s,
		run_observe_timeout_ms(o->timeout_ms, o->observe_s) / 1000);
	if ((node = shared_node(s->run.pods, &n)) != NULL)
		run_say(o->sink, "observe: %zu pods share node %s: port counters are the node's, "
			"so their OBSERVED bytes are not each pod's own", n, safe_show(node));
	run_observe_kv_start(s);
	return 0;
}
