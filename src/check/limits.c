/* LIMITS family: GPUs, memlock, kernel and driver (checks.md H, E5). */
#include <stdio.h>
#include <string.h>

#include "check/internal.h"
#include "kube/pods.h"
#include "probe/facts.h"

#define MEMLOCK_SMALL (64LL << 20)  /* H1: <= 64 MiB finite is a fail */

static void gpus(const struct check_input *in, struct check_results *out)
{
	const struct probe_nvsmi *s = &in->f->nvsmi;
	int n = s->ngpus > 0 ? s->ngpus : s->attached;
	char why[200];

	if (s->src.status != PROBE_OK && s->src.status != PROBE_FAILED)
		emit(out, CK_LIMITS_GPUS, CHECK_SKIPPED, NULL, "%s",
		     src_why(&s->src, "nvidia-smi", why, sizeof(why)));
	else if (n <= 0)
		emit(out, CK_LIMITS_GPUS, CHECK_FAIL, NULL,
		     "no GPU visible in the container%s%s",
		     s->src.status == PROBE_FAILED ? ": " : "",
		     s->src.status == PROBE_FAILED ? s->src.err : "");
	else if (in->spec->gpus > 0 && n < in->spec->gpus)
		emit(out, CK_LIMITS_GPUS, CHECK_WARN, NULL,
		     "%d GPU%s visible, %ld requested", n, n == 1 ? "" : "s",
		     in->spec->gpus);
	else
		emit(out, CK_LIMITS_GPUS, CHECK_OK, NULL, "%d GPU%s (%s)", n,
		     n == 1 ? "" : "s", s->gpu[0].name[0] ? s->gpu[0].name : "?");
}

/* The worker's own limits (pid 1) over the probe shell's. */
static const struct probe_limits *lim(const struct probe_facts *f)
{
	if (f->limits_pid1.limits_src.status == PROBE_OK)
		return &f->limits_pid1;
	return &f->limits_self;
}

static const struct probe_limits *caps(const struct probe_facts *f)
{
	if (f->limits_pid1.have_caps)
		return &f->limits_pid1;
	return &f->limits_self;
}

static void memlock(const struct check_input *in, struct check_results *out)
{
	const struct probe_limits *l = lim(in->f), *c = caps(in->f);
	long long soft = l->memlock_soft;
	char why[200];

	if (!is_rdma_fabric(in->fabric) && !needs_rdma(in)) {
		emit_na(out, CK_LIMITS_MEMLOCK, "no RDMA in use");
		return;
	}
	if (soft == PROBE_UNLIMITED)
		emit(out, CK_LIMITS_MEMLOCK, CHECK_OK, NULL, "max locked memory unlimited");
	else if (c->have_caps && c->ipc_lock)
		emit(out, CK_LIMITS_MEMLOCK, CHECK_OK, NULL,
		     "CAP_IPC_LOCK (memlock limit %lld KiB does not apply)",
		     soft >= 0 ? soft / 1024 : -1);
	else if (soft < 0)
		emit(out, CK_LIMITS_MEMLOCK, CHECK_SKIPPED, NULL, "%s",
		     src_why(&l->limits_src, "/proc/1/limits", why, sizeof(why)));
	else if (soft <= MEMLOCK_SMALL)
		emit(out, CK_LIMITS_MEMLOCK, hard(in), NULL,
		     "max locked memory %lld KiB and no CAP_IPC_LOCK: UCX disables RDMA transports (TCP) or ibv_reg_mr fails",
		     soft / 1024);
	else
		emit(out, CK_LIMITS_MEMLOCK, CHECK_WARN, NULL,
		     "max locked memory %lld MiB (finite): large KV registrations may fail",
		     soft >> 20);
}

/* H5/H6: DMA-BUF needs kernel >= 5.12 and the open module; only a
 * problem where the peer-memory path is missing too. */
static void driver(const struct check_input *in, struct check_results *out)
{
	const struct probe_facts *f = in->f;
	int kern_ok = f->kernel.major > 5 ||
		      (f->kernel.major == 5 && f->kernel.minor >= 12);
	int open = f->nvdriver.open_module;
	char why[200];

	if (f->nvdriver.src.status == PROBE_ABSENT)
		emit(out, CK_LIMITS_DRIVER, CHECK_FAIL,
		     "install/load the NVIDIA driver on the node (GPU Operator driver pod)",
		     "/proc/driver/nvidia/version missing: NVIDIA driver not loaded");
	else if (f->kernel.major < 0 || open < 0)
		emit(out, CK_LIMITS_DRIVER, CHECK_SKIPPED, NULL, "%s",
		     f->kernel.major < 0 ?
		     src_why(&f->kernel.src, "kernel release", why, sizeof(why)) :
		     src_why(&f->nvdriver.src, "/proc/driver/nvidia/version", why,
			     sizeof(why)));
	else if ((!kern_ok || !open) && peermem_loaded(f) != 1 &&
		 (in->fabric == FABRIC_INFINIBAND || in->fabric == FABRIC_ROCE))
		emit(out, CK_LIMITS_DRIVER, CHECK_WARN, NULL,
		     "kernel %s, %s NVIDIA module %s: no DMA-BUF GPUDirect",
		     f->kernel.release, open ? "open" : "proprietary",
		     f->nvdriver.version);
	else
		emit(out, CK_LIMITS_DRIVER, CHECK_OK, NULL,
		     "kernel %s, %s NVIDIA module %s", f->kernel.release,
		     open ? "open" : "proprietary", f->nvdriver.version);
}

void check_limits(const struct check_input *in, struct check_results *out)
{
	gpus(in, out);
	memlock(in, out);
	driver(in, out);
}
