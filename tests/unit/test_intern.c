/* util/intern.c and check_results_freeze() (issue 27: results of
 * identical pods kept once, output unchanged). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "check/internal.h"
#include "util/intern.h"
#include "t.h"

static void test_intern_refs(void)
{
	size_t base = intern_count();
	int fresh = -1;
	const char *a = intern_str("ucx-rdma-transport: rc_mlx5 on mlx5_0:1");
	const char *b;
	const void *blk;

	CHECK_INT(intern_count(), base + 1);
	b = intern_str("ucx-rdma-transport: rc_mlx5 on mlx5_0:1");
	CHECK(a == b);                        /* one copy for equal texts */
	CHECK_INT(intern_count(), base + 1);
	CHECK(intern_str("other") != a);
	CHECK_INT(intern_count(), base + 2);
	intern_unref(intern_str("other"), NULL);   /* the lookup's reference */
	intern_unref(intern_str("other"), NULL);
	intern_unref(intern_str("other"), NULL);
	CHECK_INT(intern_count(), base + 2);       /* the first is still held */
	/* Dropping the lookups above left one: give it back. */
	b = intern_str("other");
	intern_unref(b, NULL);
	intern_unref(b, NULL);
	CHECK_INT(intern_count(), base + 1);
	intern_unref(a, NULL);
	CHECK_INT(intern_count(), base + 1);       /* a is held twice */
	intern_unref(a, NULL);
	CHECK_INT(intern_count(), base);
	CHECK(intern_str(NULL) == NULL);
	intern_unref(NULL, NULL);
	intern_ref(NULL);
	blk = intern_bytes("ab\0cd", 5, &fresh);
	CHECK_INT(fresh, 1);
	CHECK(intern_bytes("ab\0cd", 5, &fresh) == blk);
	CHECK_INT(fresh, 0);
	b = intern_bytes("ab\0ce", 5, &fresh);
	CHECK(b != blk);                      /* compared past the NUL */
	CHECK_INT(fresh, 1);
	intern_unref(b, NULL);
	intern_unref(blk, NULL);
	intern_unref(blk, NULL);
	CHECK_INT(intern_count(), base);
}

/* Many blocks: the table grows and every one is found again. */
static void test_intern_many(void)
{
	size_t base = intern_count();
	const char *p[3000];
	char s[32];

	for (int i = 0; i < 3000; i++) {
		snprintf(s, sizeof(s), "detail %d", i);
		p[i] = intern_str(s);
	}
	CHECK_INT(intern_count(), base + 3000);
	for (int i = 0; i < 3000; i++) {
		snprintf(s, sizeof(s), "detail %d", i);
		CHECK_STR(p[i], s);
		CHECK(intern_str(s) == p[i]);
		intern_unref(p[i], NULL);
		intern_unref(p[i], NULL);
	}
	CHECK_INT(intern_count(), base);
}

/* The results of one pod as a family would emit them. */
static void fill(struct check_results *r, const char *node)
{
	char d[64];

	check_results_init(r);
	/* Every result must be added: a mistyped name adds nothing. */
	CHECK_INT(check_results_add_def(r, "rdma-devices", CHECK_OK, "mlx5_0 (ConnectX-7)",
					NULL), 0);
	snprintf(d, sizeof(d), "no nvidia_peermem on %s", node);
	CHECK_INT(check_results_add_def(r, "gpudirect-peermem", CHECK_FAIL, d, NULL), 0);
	CHECK_INT(check_results_add_def(r, "ucx-rdma", CHECK_WARN, "only tcp", "set UCX_TLS"), 0);
}

static int same(const struct check_results *a, const struct check_results *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++) {
		const struct check_result *x = &a->v[i], *y = &b->v[i];

		if (strcmp(x->name, y->name) || x->status != y->status ||
		    x->family != y->family || x->rank != y->rank || x->flags != y->flags ||
		    strcmp(x->detail, y->detail) ||
		    (!x->remedy) != (!y->remedy) || (x->remedy && strcmp(x->remedy, y->remedy)) ||
		    (!x->source) != (!y->source) || (x->source && strcmp(x->source, y->source)))
			return 0;
	}
	return 1;
}

static void test_compact_shares(void)
{
	size_t base = intern_count();
	struct check_results a, b, c, want;

	fill(&a, "gpu-a1");
	fill(&b, "gpu-a1");
	fill(&c, "gpu-b7");
	fill(&want, "gpu-a1");
	check_results_freeze(&a);
	check_results_freeze(&b);
	check_results_freeze(&c);
	CHECK(a.frozen && b.frozen && c.frozen);
	CHECK(a.v == b.v);                    /* identical pods: one array */
	CHECK(c.v != a.v);
	CHECK(c.v[0].detail == a.v[0].detail);  /* equal texts: one string */
	CHECK(c.v[1].detail != a.v[1].detail);
	CHECK(same(&a, &want));
	CHECK_STR(c.v[1].detail, "no nvidia_peermem on gpu-b7");
	CHECK(check_results_find(&b, "ucx-rdma") != NULL);
	CHECK_INT(check_results_family_status(&a, check_def("gpudirect-peermem")->family),
		  CHECK_FAIL);
	check_results_freeze(&a);            /* twice: no change */
	CHECK(a.v == b.v);

	/* Appending after compaction copies first: b does not change. */
	CHECK_INT(check_results_add_def(&a, "env-drift", CHECK_WARN, "UCX_TLS differs", NULL), 0);
	CHECK(!a.frozen && a.v != b.v);
	/* Thawed whole: every string an owned copy, no field left shared. */
	CHECK(a.v[0].detail != b.v[0].detail);
	CHECK_INT(a.n, 4);
	CHECK_INT(b.n, 3);
	CHECK(same(&b, &want));
	CHECK_STR(a.v[3].detail, "UCX_TLS differs");
	CHECK_STR(a.v[1].detail, "no nvidia_peermem on gpu-a1");
	check_results_freeze(&a);
	CHECK(a.frozen);
	CHECK_INT(a.n, 4);
	CHECK(a.v[0].detail == b.v[0].detail);  /* frozen again: shared again */

	check_results_release(&a);
	check_results_release(&b);
	check_results_release(&c);
	CHECK_INT(a.n, 0);
	CHECK(!a.frozen);
	check_results_release(&want);
	CHECK_INT(intern_count(), base);      /* everything given back */

	/* An empty set compacts and releases. */
	check_results_init(&a);
	check_results_freeze(&a);
	check_results_release(&a);
	CHECK_INT(intern_count(), base);
}

/* emit_source/emit_suggest on the last result after compaction (a family
 * never does, but the results must stay right): the shared array is
 * copied, the interned field replaced, the other pod unchanged. */
static void test_compact_then_source(void)
{
	size_t base = intern_count();
	struct check_results a, b;

	fill(&a, "gpu-a1");
	fill(&b, "gpu-a1");
	check_results_freeze(&a);
	check_results_freeze(&b);
	CHECK(a.v == b.v);
	emit_source(&a, "ibv_devinfo");
	emit_suggest(&a, "UCX_NET_DEVICES", "mlx5_0:1");
	CHECK(!a.frozen && a.v != b.v);
	CHECK_STR(a.v[2].source, "ibv_devinfo");
	CHECK_STR(a.v[2].suggest, "UCX_NET_DEVICES=mlx5_0:1");
	CHECK(b.v[2].source == NULL && b.v[2].suggest == NULL);
	emit_source(&a, "ucx_info -d");        /* replaces the interned one */
	CHECK_STR(a.v[2].source, "ucx_info -d");
	check_results_release(&a);
	check_results_release(&b);
	CHECK_INT(intern_count(), base);
}

/* The per-GPU NIC list (ucx-nic-select, ~1 KiB a GPU) is shared too:
 * two pods with the same mapping hold one block, a different one its own,
 * and every reference is given back. */
static struct check_gpu_nic *gpus(const char *dev)
{
	struct check_gpu_nic *g = calloc(2, sizeof(*g));

	for (int i = 0; i < 2; i++) {
		g[i].gpu = i;
		g[i].n = 1;
		snprintf(g[i].link, sizeof g[i].link, "PIX");
		snprintf(g[i].nic[0].dev, sizeof g[i].nic[0].dev, "%s%d:1", dev, i);
	}
	return g;
}

static void test_compact_gpu_nics(void)
{
	size_t base = intern_count();
	struct check_results a, b, c;

	fill(&a, "gpu-a1");
	fill(&b, "gpu-a1");
	fill(&c, "gpu-a1");
	a.gpu_nics = gpus("mlx5_"), a.n_gpu_nics = 2;
	b.gpu_nics = gpus("mlx5_"), b.n_gpu_nics = 2;
	c.gpu_nics = gpus("ibp"), c.n_gpu_nics = 2;
	check_results_freeze(&a);
	check_results_freeze(&b);
	check_results_freeze(&c);
	CHECK(a.frozen && b.frozen && c.frozen);
	CHECK(a.gpu_nics == b.gpu_nics);
	CHECK(c.gpu_nics != a.gpu_nics);
	CHECK_STR(b.gpu_nics[1].nic[0].dev, "mlx5_1:1");
	CHECK_STR(c.gpu_nics[0].nic[0].dev, "ibp0:1");
	check_results_freeze(&a);            /* twice: no change */
	CHECK(a.gpu_nics == b.gpu_nics);
	/* A change thaws the NIC list with the rest: a's own copy. */
	CHECK_INT(check_results_add_def(&a, "env-drift", CHECK_WARN, "UCX_TLS differs", NULL), 0);
	CHECK(!a.frozen && a.gpu_nics != b.gpu_nics);
	CHECK_STR(a.gpu_nics[1].nic[0].dev, "mlx5_1:1");
	check_results_release(&a);
	CHECK_STR(b.gpu_nics[0].nic[0].dev, "mlx5_0:1");  /* still b's */
	check_results_release(&b);
	check_results_release(&c);
	CHECK_INT(intern_count(), base);
}

int main(void)
{
	test_intern_refs();
	test_intern_many();
	test_compact_shares();
	test_compact_then_source();
	test_compact_gpu_nics();
	return T_DONE("test_intern");
}
