/* `node` without --pod (run.h run_local): this machine as a one-pod run.
 * The report enters the run as text, at the same boundary as a pod's exec
 * output: no exec happened, so none is faked. */
#include <string.h>
#include <unistd.h>

#include "probe/local.h"
#include "run/run.h"
#include "util/xalloc.h"

/* A pod_info standing for this machine. */
static void local_pod(struct pod_info *p)
{
	char host[256] = "localhost";
	struct pod_spec_facts spec;

	gethostname(host, sizeof(host) - 1);
	memset(p, 0, sizeof(*p));
	p->name = xstrdup(host);
	p->node = xstrdup(host);
	p->namespace = xstrdup("");
	p->role = xstrdup("");
	p->graph = xstrdup("");
	p->node_ip = xstrdup("");
	p->pod_ip = xstrdup("");
	p->container = xstrdup("");
	p->image = xstrdup("");
	p->phase = xstrdup("Running");
	p->status = xstrdup("Running");
	p->skip_reason = xstrdup("");
	p->probe = 1;
	memset(&spec, 0, sizeof(spec));
	spec.gpus = spec.rdma_devices = spec.efa_devices = -1;
	spec.ipc_lock = spec.sys_resource = spec.privileged = -1;
	spec.host_ipc = spec.host_network = -1;
	pod_info_set_spec(p, &spec);
}

int run_local(struct run *pr, struct pod_list *l, const struct known_table *known,
	      struct err *e)
{
	struct buf out;

	memset(l, 0, sizeof(*l));
	l->items = xcalloc(1, sizeof(*l->items));
	l->n = l->cap = 1;
	local_pod(&l->items[0]);
	run_init(pr, l);
	pr->known = known;
	/* Here nothing tells whether KV crosses machines: let the checks
	 * assume the general case. */
	memset(&pr->pod[0].ctx, 0, sizeof(pr->pod[0].ctx));
	pr->pod[0].ctx.node = l->items[0].node;
	buf_init(&out, RUN_MAX_OUTPUT);
	if (probe_run_local(&out, RUN_PROBE_TIMEOUT_MS, e) < 0) {
		buf_release(&out);
		return -1;
	}
	run_digest_report(pr, 0, buf_str(&out), out.len);
	buf_release(&out);
	return 0;
}
