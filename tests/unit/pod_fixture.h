/* Probe facts built by hand for the check tests (test_checks, test_mask,
 * test_corrections, test_corrections22): a source marked read, and the
 * base pod each test then varies. */
#ifndef TESTS_POD_FIXTURE_H
#define TESTS_POD_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "probe/facts.h"

static inline void set_ok(struct probe_src *s)
{
	s->status = PROBE_OK;
	s->rc = 0;
}

/* A pod on one Active port of RDMA device dev (link layer ll, rate_gbps),
 * verbs open (one uverbs node), NIXL with its UCX plugin, memlock
 * unlimited, and the transport env parsed from env.  Owned by the caller
 * (probe_facts_free). */
static inline struct probe_facts *fx_rdma_pod(const char *dev, enum probe_link_layer ll,
					      int rate_gbps, const char *env)
{
	struct probe_facts *f = probe_facts_new();
	struct probe_rdma_dev *d = probe_rdma_dev_add(&f->sysfs_ib);

	set_ok(&f->sysfs_ib.src);
	snprintf(d->name, sizeof(d->name), "%s", dev);
	d->nports = 1;
	d->port[0].num = 1;
	d->port[0].state = PROBE_PORT_ACTIVE;
	d->port[0].phys_state = PROBE_PHYS_LINKUP;
	d->port[0].link_layer = ll;
	d->port[0].rate_gbps = rate_gbps;
	set_ok(&f->dev_ib.src);
	f->dev_ib.n_uverbs = 1;
	set_ok(&f->limits_pid1.limits_src);
	f->limits_pid1.memlock_soft = PROBE_UNLIMITED;
	set_ok(&f->nixl.python_src);
	set_ok(&f->nixl.plugins_src);
	f->nixl.python_ok = 1;
	snprintf(f->nixl.plugin[f->nixl.nplugins++], 48, "libplugin_UCX.so");
	set_ok(&f->env.src);
	probe_parse_env(env, strlen(env), &f->env);
	return f;
}

#endif
