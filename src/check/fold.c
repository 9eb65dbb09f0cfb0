/* One root cause per pod (check.h check_cause): which failed check a
 * pod's other non-ok results follow from.  The table is the KV path of
 * checks.md N read downwards: a link that is broken explains what the
 * later links and the logs say about the same path (no device: no verbs,
 * no UCX RDMA transport, TCP lanes in the log).  A result is only folded
 * under a cause that FAILED in the same pod, so nothing is hidden that has
 * no failure above it. */
#include <string.h>

#include "check/check.h"

#define MAX_CAUSES 16

struct follows {
	const char *check;                  /* the consequence */
	const char *causes[MAX_CAUSES];     /* any one failing explains it */
};

/* RDMA_PATH: what leaves a pod without a usable RDMA device (A1, A5,
 * E3; the logs of E6/F3 then show TCP).  Sources per row. */
#define RDMA_PATH "rdma-devices", "efa-devices", "rdma-verbs"
static const struct follows table[] = {
	/* A1/M: the device in the pod is the link; its finding already says
	 * when the pod requests no RDMA resource (and what to request), so
	 * the spec and PCI views of the same absence follow from it. */
	{ "pod-rdma-resource", { "rdma-devices", "efa-devices" } },
	{ "rdma-pci", { "rdma-devices" } },
	/* A2-A6: ports, verbs, rate and GIDs are read through the devices. */
	{ "rdma-ports", { "rdma-devices" } },
	{ "rdma-verbs", { "rdma-devices" } },
	{ "rdma-rate", { "rdma-devices", "rdma-ports" } },
	{ "rdma-roce", { "rdma-devices", "rdma-ports" } },
	{ "env-ucx-net-devices", { RDMA_PATH, "rdma-ports" } },
	/* E3: UCX lists rc/dc/ud only for devices verbs can open, and
	 * locked memory it may pin (ib_md.c disables RDMA on a low limit). */
	{ "ucx-rdma", { RDMA_PATH, "limits-memlock", "pod-ipc-lock" } },
	/* H: the limit follows from the capability (IPC_LOCK lifts it). */
	{ "limits-memlock", { "pod-ipc-lock" } },
	/* B1b/B2: UCX's IB memory domain registers GPU memory only with
	 * peer memory or DMA-BUF, on a device verbs opened, with CUDA. */
	{ "gpudirect-ucx-md", { RDMA_PATH, "ucx-rdma", "gpudirect-peermem", "ucx-cuda" } },
	/* H6: "no DMA-BUF GPUDirect" says again what B1 failed on. */
	{ "limits-driver", { "gpudirect-peermem" } },
	{ "env-ucx-gpudirect", { "gpudirect-peermem" } },
	/* G: libfabric sees EFA only through the devices. */
	{ "efa-provider", { "efa-devices" } },
	{ "efa-hmem", { "efa-devices", "efa-provider" } },
	/* F2/G4: a backend without its plugin cannot be used. */
	{ "nixl-backend", { "nixl-installed", "nixl-plugin" } },
	{ "nixl-plugin", { "nixl-installed" } },
	/* F6-F8: a library that does not load, or the wrong copy of it,
	 * explains the symbols ldd -r then finds undefined (the CUDA
	 * runtime's, the other NIXL's). */
	{ "nixl-lib-symbols", { "nixl-cuda-mix", "nixl-lib-shadow" } },
	/* E6/F3: the worker log shows the fallback the links above caused. */
	{ "logs-ucx", { RDMA_PATH, "ucx-rdma", "limits-memlock", "pod-ipc-lock", "env-ucx-tls",
			"gpudirect-peermem", "gpudirect-ucx-md", "ucx-cuda", "rdma-roce",
			"env-ucx-net-devices" } },
	{ "logs-nixl", { RDMA_PATH, "ucx-rdma", "limits-memlock", "env-ucx-tls", "ucx-cuda",
			 "nixl-installed", "nixl-plugin", "nixl-backend", "ucx-nixl-lib",
			 "rdma-roce", "efa-devices" } },
	{ "logs-nccl", { RDMA_PATH, "env-nccl-net", "gpudirect-peermem" } },
	{ "logs-libfabric", { "efa-devices", "efa-provider", "efa-hmem" } },
	/* K: a transfer over a path already shown broken. */
	{ "transfer", { RDMA_PATH, "ucx-rdma", "env-ucx-tls", "limits-memlock" } },
};

static const struct follows *row(const char *name)
{
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (!strcmp(table[i].check, name))
			return &table[i];
	return NULL;
}

static const struct check_result *failed(const struct check_results *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].status == CHECK_FAIL && !strcmp(r->v[i].name, name))
			return &r->v[i];
	return NULL;
}

/* The first failing cause of c in r, in the table's order. */
static const struct check_result *direct(const struct check_results *r,
					 const struct check_result *c)
{
	const struct follows *f = row(c->name);
	const struct check_result *hit;

	for (size_t k = 0; f && k < MAX_CAUSES && f->causes[k]; k++)
		if ((hit = failed(r, f->causes[k])) && hit != c)
			return hit;
	return NULL;
}

const char *check_cause(const struct check_results *r, size_t i)
{
	const struct check_result *c = &r->v[i], *up, *root = NULL;

	if (c->status == CHECK_OK || (c->flags & CHECK_F_NA))
		return NULL;
	/* Follow the causes to one with none of its own; the table has no
	 * cycle deeper than this (each cause sits earlier on the path). */
	for (int depth = 0; depth < 8 && (up = direct(r, c)); depth++)
		root = c = up;
	return root ? root->name : NULL;
}

const char *check_cause_of(const struct check_results *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].name, name) && r->v[i].status != CHECK_OK &&
		    !(r->v[i].flags & CHECK_F_NA)) {
			const char *c = check_cause(r, i);

			return c ? c : r->v[i].name;
		}
	return NULL;
}
