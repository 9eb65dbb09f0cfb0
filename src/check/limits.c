/* LIMITS family: GPUs, memlock, kernel and driver (checks.md H, E5). */
#include <stdio.h>
#include <string.h>

#include "check/internal.h"
#include "model/podspec.h"
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

/* E5/H1 from the evidence: the worker's own limits (pid 1) over the
 * probe shell's, and CAP_IPC_LOCK, which UCX counts as unlimited. */
static void memlock(const struct check_input *in, struct check_results *out)
{
	const struct evidence *ev = &in->ev;
	long long soft = ev->memlock_soft;

	if (!is_rdma_fabric(in->fabric) && !needs_rdma(in)) {
		emit_na(out, CK_LIMITS_MEMLOCK, "no RDMA in use");
		return;
	}
	if (soft == PROBE_UNLIMITED)
		emit(out, CK_LIMITS_MEMLOCK, CHECK_OK, NULL,
		     "max locked memory unlimited (%s)", ev->memlock.source);
	else if (ev->ipc_lock == 1)
		emit(out, CK_LIMITS_MEMLOCK, CHECK_OK, NULL,
		     "CAP_IPC_LOCK (memlock limit %lld KiB does not apply)",
		     soft >= 0 ? soft / 1024 : -1);
	else if (soft < 0)
		emit(out, CK_LIMITS_MEMLOCK, CHECK_SKIPPED, NULL, "%s",
		     ev->memlock.missing);
	else if (soft <= MEMLOCK_SMALL)
		emit(out, CK_LIMITS_MEMLOCK, hard(in), NULL,
		     "max locked memory %lld KiB and no CAP_IPC_LOCK: UCX disables RDMA transports (TCP) or ibv_reg_mr fails",
		     soft / 1024);
	else
		emit(out, CK_LIMITS_MEMLOCK, CHECK_WARN, NULL,
		     "max locked memory %lld MiB (finite): large KV registrations may fail",
		     soft >> 20);
	if (ev->memlock.state == EV_SHOWN)
		emit_source(out, ev->memlock.source);
}

/* H5/H6: DMA-BUF needs kernel >= 5.12 and the open module; only a
 * problem where the peer-memory path is missing too.  The driver itself
 * is shown by any of its sources (evidence.c); "not loaded" only when
 * every source looked and none shows it (checks.md H6). */
static void driver(const struct check_input *in, struct check_results *out)
{
	const struct probe_facts *f = in->f;
	const struct evidence *ev = &in->ev;
	int kern_ok = f->kernel.major > 5 ||
		      (f->kernel.major == 5 && f->kernel.minor >= 12);
	int open = ev->driver_open;
	char why[200];

	if (ev->driver.state == EV_ABSENT)
		emit(out, CK_LIMITS_DRIVER, CHECK_FAIL,
		     "install/load the NVIDIA driver on the node (GPU Operator driver pod)",
		     "NVIDIA driver not loaded: no source shows it (%s)",
		     ev->driver.source);
	else if (ev->driver.conflict[0])
		emit(out, CK_LIMITS_DRIVER, CHECK_WARN,
		     "restart the pod after a driver upgrade so the container's user-space driver matches the kernel module",
		     "%s", ev->driver.conflict);
	else if (f->kernel.major < 0 || open < 0)
		emit(out, CK_LIMITS_DRIVER, CHECK_SKIPPED, NULL,
		     "driver %s%s%s; module type unknown: %s",
		     ev->driver_version[0] ? ev->driver_version : "?",
		     ev->driver.state == EV_SHOWN ? " shown by " : "",
		     ev->driver.state == EV_SHOWN ? ev->driver.source : "",
		     f->kernel.major < 0 ?
		     src_why(&f->kernel.src, "kernel release", why, sizeof(why)) :
		     src_why(&f->nvdriver.src, "/proc/driver/nvidia/version", why,
			     sizeof(why)));
	else if ((!kern_ok || !open) && ev->peermem.state != EV_SHOWN &&
		 (in->fabric == FABRIC_INFINIBAND || in->fabric == FABRIC_ROCE))
		emit(out, CK_LIMITS_DRIVER, CHECK_WARN, NULL,
		     "kernel %s, %s NVIDIA module %s: no DMA-BUF GPUDirect",
		     f->kernel.release, open ? "open" : "proprietary",
		     ev->driver_version);
	else
		emit(out, CK_LIMITS_DRIVER, CHECK_OK, NULL,
		     "kernel %s, %s NVIDIA module %s", f->kernel.release,
		     open ? "open" : "proprietary", ev->driver_version);
	emit_source(out, ev->driver.source);
}

void check_limits(const struct check_input *in, struct check_results *out)
{
	gpus(in, out);
	memlock(in, out);
	driver(in, out);
}
