/* Private to the E7 files (nicsel.c, nicsel_gpu.c): the ports UCX would
 * see and the per-GPU lane model over them. */
#ifndef DI_CHECK_NICSEL_INT_H
#define DI_CHECK_NICSEL_INT_H

#include "check/internal.h"
#include "probe/facts.h"
#include "util/buf.h"

/* One RDMA port as UCX would see it. */
struct nic {
	const struct probe_rdma_dev *d;
	int port;                       /* port number */
	int kv;                         /* on the KV fabric */
	int active;                     /* ACTIVE: uct_ib keeps it */
	int taken;                      /* UCX takes it (Active and selected) */
	int unsure;                     /* taken only if the pod opens it */
	int no_gid;                     /* Ethernet, GID table read, all zero */
	int topo;                       /* its column in topo -m, -1 none */
	int suggested;                  /* in the value suggest() pastes */
	int pi;                         /* its index in d's ports */
	const char *bond;               /* RoCE: the bond it is a member of */
};

#define NICSEL_MAX (PROBE_MAX_RDMA_DEVS * PROBE_MAX_PORTS)

struct nicsel {
	struct nic n[NICSEL_MAX];
	int count;
	int listed;                     /* UCX_NET_DEVICES names devices */
};

/* nicsel_gpu.c: per GPU, the ports UCX stripes one NIXL put/get (or
 * TensorRT-LLM's rendezvous) over, and the lanes off the KV fabric. */
void nicsel_map_gpus(const struct check_input *in, const struct nicsel *s, int sugg,
		     struct check_results *out);
/* "ACTIVE", "DOWN", ... for a port state (gpuNics' state). */
const char *nicsel_port_state(int st);
int nicsel_shared_rails(const struct check_input *in, const struct nicsel *s, struct buf *b);
void nicsel_digest_lane_off(const struct check_input *in, const struct nicsel *s,
			    const char *sugg, struct check_results *out);

/* nicsel_fi.c: the first port of RDMA device name appended to e's nics
 * (e->n -1 past CHECK_GPU_NIC_PORTS); 1 when appended. */
int nicsel_add_port(const struct check_input *in, const char *name, struct check_gpu_nic *e);
/* NIXL's LIBFABRIC backend on EFA: each GPU's EFA devices as NIXL groups
 * them, into out->gpu_nics (checks.md E9). */
void nicsel_fi_gpus(const struct check_input *in, struct check_results *out);

#endif
