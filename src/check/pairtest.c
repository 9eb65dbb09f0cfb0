#include "pairtest.h"

#include <string.h>

#include "../probe/facts.h"

#define PERF_PORT "13337"
#define PERF_SIZE "67108864"   /* 64 MiB: KV blocks move in large messages */

static int has_tool(const struct pairtest_side *s, enum probe_nixl_tool t)
{
	return s && s->f && s->f->nixl.tool[t];
}

static int has_cuda(const struct pairtest_side *s)
{
	return s->f && s->f->ucx.tl_count[PROBE_TL_CUDA_COPY] > 0;
}

/* Single quotes for the shell, so a value is one word whatever it holds. */
static void quoted(struct buf *out, const char *v)
{
	buf_appends(out, "'");
	for (; *v; v++)
		*v == '\'' ? buf_appends(out, "'\\''") : buf_append(out, v, 1);
	buf_appends(out, "'");
}

/* "kubectl exec -n NS POD -c C -- env UCX_X=... " with the side's UCX_ and
 * NIXL_ variables, which are transport settings and safe to show. */
static void exec_prefix(struct buf *out, const struct pairtest_side *s)
{
	size_t i;

	buf_appendf(out, "  kubectl exec -n %s %s -c %s -- env", s->namespace, s->pod,
		    s->container);
	for (i = 0; s->f && i < s->f->env.n; i++) {
		const struct probe_env_var *v = &s->f->env.var[i];
		if (strncmp(v->name, "UCX_", 4))
			continue;
		buf_appendf(out, " %s=", v->name);
		quoted(out, v->value);
	}
}

static void perftest(const struct pairtest_side *self, const struct pairtest_side *peer,
		     struct buf *out)
{
	const char *mem = has_cuda(self) && has_cuda(peer) ? "cuda" : "host";

	buf_appendf(out, "Next: a pairwise UCX transfer test in %s memory between %s (%s) and %s (%s),\n"
		    "with each worker's own UCX settings. Start the server first:\n",
		    !strcmp(mem, "cuda") ? "GPU" : "host (UCX lacks CUDA in one pod)",
		    self->pod, self->role, peer->pod, peer->role);
	buf_appends(out, "  # 1. server, in the peer\n");
	exec_prefix(out, peer);
	buf_appendf(out, " ucx_perftest -t tag_bw -m %s -s " PERF_SIZE " -n 100 -p " PERF_PORT "\n", mem);
	buf_appends(out, "  # 2. client, in this pod\n");
	exec_prefix(out, self);
	buf_appendf(out, " ucx_perftest %s -t tag_bw -m %s -s " PERF_SIZE " -n 100 -p " PERF_PORT "\n",
		    peer->ip && *peer->ip ? peer->ip : "<peer-pod-ip>", mem);
	buf_appends(out, "Expect a bandwidth near the RDMA port rate (400 Gb/s is about 48000 MB/s);\n"
		    "a few thousand MB/s or less means the transfer fell back to TCP.\n");
}

static void nixlbench(const struct pairtest_side *self, const struct pairtest_side *peer,
		      int efa, struct buf *out)
{
	const char *backend = efa ? "LIBFABRIC" : "UCX";
	const struct pairtest_side *sides[2] = { peer, self };
	int i;

	buf_appendf(out, "Next: nixlbench between %s and %s over the %s backend, GPU to GPU.\n"
		    "Both ranks meet through etcd: give the etcd endpoint your Dynamo deployment uses\n"
		    "(or run one, e.g. the NIXL benchmark deployment's etcd), then run in both pods:\n",
		    peer->pod, self->pod, backend);
	for (i = 0; i < 2; i++) {
		exec_prefix(out, sides[i]);
		buf_appendf(out, " nixlbench --etcd_endpoints http://ETCD_HOST:2379 --backend %s "
			    "--initiator_seg_type VRAM --target_seg_type VRAM\n", backend);
	}
}

void pairtest_plan(const struct pairtest_side *self,
		   const struct pairtest_side *peer, int efa, struct buf *out)
{
	if (!peer) {
		buf_appends(out, "Next: no prefill/decode peer pod was found for a pairwise test; run\n"
			    "`nixl --pod` on a prefill or decode worker of a disaggregated graph.\n");
		return;
	}
	if (!efa && has_tool(self, PROBE_NIXL_TOOL_UCX_PERFTEST) &&
	    has_tool(peer, PROBE_NIXL_TOOL_UCX_PERFTEST))
		perftest(self, peer, out);
	else if (has_tool(self, PROBE_NIXL_TOOL_NIXLBENCH) &&
		 has_tool(peer, PROBE_NIXL_TOOL_NIXLBENCH))
		nixlbench(self, peer, efa, out);
	else
		buf_appendf(out, "Next: neither ucx_perftest nor nixlbench is in both images (%s, %s).\n"
			    "Run nixlbench from the NIXL benchmark image (Dynamo's\n"
			    "deploy/pre-deployment/nixl/nixlbench-deployment.yaml) pinned to nodes %s\n"
			    "and the peer's node, with the workers' UCX settings.\n",
			    self->pod, peer->pod, "of these workers");
}
