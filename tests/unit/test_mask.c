/* The Secret mask (src/run/mask.c, issue 22 item 1): a transport variable
 * that is or may be from a Secret is judged on its real value and shown
 * as "<from secret S>" in every string the run keeps.  Before, the value
 * was replaced before the checks, which then judged the mask:
 * "UCX_TLS=<from secret hf-token-secret> allows no InfiniBand/RoCE
 * transport" on every healthy worker of an image that sets UCX_TLS as
 * image ENV while Dynamo adds envFromSecret: hf-token-secret. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "probe/facts.h"
#include "run/mask.h"
#include "pod_fixture.h"
#include "t.h"

/* A decode pod on one Active InfiniBand port of mlx5_0 with verbs, NIXL
 * with its UCX plugin, memlock unlimited; env as given. */
static struct probe_facts *ib_pod(const char *env)
{
	return fx_rdma_pod("mlx5_0", PROBE_LL_IB, 400, env);
}

static const struct check_context decode = {
	.node = "gpu-1", .role = "decode", .kv_cross_pod = 1,
	.kv_cross_node = 1, .kv_known = 1, .npods = 2,
};

/* Mark, judge, mask: what run.c's digest does with a parsed report. */
static void judge(struct probe_facts *f, const char *secret_env, struct check_results *r)
{
	check_results_init(r);
	run_mask_mark(f, secret_env);
	check_pod(f, NULL, &decode, r);
	run_mask_apply(f, r);
}

static const struct check_result *get(const struct check_results *r, const char *name)
{
	const struct check_result *c = check_results_find(r, name);

	if (!c)
		fprintf(stderr, "no result %s\n", name);
	return c;
}

/* No string the run keeps holds needle. */
static void check_absent(const struct probe_facts *f, const struct check_results *r,
			 const char *needle)
{
	for (size_t i = 0; i < r->n; i++) {
		CHECK(!strstr(r->v[i].detail, needle));
		CHECK(!r->v[i].remedy || !strstr(r->v[i].remedy, needle));
		CHECK(!r->v[i].source || !strstr(r->v[i].source, needle));
	}
	CHECK(!strstr(r->summary.ucx_tls_shown, needle));
	CHECK(!strstr(r->summary.net_dev_bad, needle));
	for (size_t k = 0; k < f->env.n; k++)
		CHECK(!strstr(f->env.var[k].value, needle));
}

/* Image ENV UCX_TLS beside envFrom: hf-token-secret (the common case):
 * judged ok on its real value, printed as the mask. */
static void test_envfrom_judged_real(void)
{
	struct probe_facts *f = ib_pod("UCX_TLS=rc_x,cuda_copy,cuda_ipc\n");
	struct check_results r;

	judge(f, "*=hf-token-secret\n", &r);
	CHECK_INT(get(&r, "env-ucx-tls")->status, CHECK_OK);
	CHECK_HAS(get(&r, "env-ucx-tls")->detail, "UCX_TLS=<from secret hf-token-secret>");
	check_absent(f, &r, "rc_x,cuda_copy");
	CHECK_STR(r.summary.ucx_tls, "rc_x,cuda_copy,cuda_ipc");       /* judged */
	CHECK_STR(r.summary.ucx_tls_shown, "<from secret hf-token-secret>");
	CHECK_STR(probe_env_get(&f->env, "UCX_TLS"), "<from secret hf-token-secret>");
	check_results_release(&r);
	probe_facts_free(f);
}

/* A secretKeyRef that holds a bad value still fails, naming the variable
 * and the Secret, never the value. */
static void test_secret_bad_value_fails(void)
{
	struct probe_facts *f = ib_pod("UCX_TLS=tcp,cuda_copy\n");
	struct check_results r;

	judge(f, "UCX_TLS=fabric\n", &r);
	CHECK_INT(get(&r, "env-ucx-tls")->status, CHECK_FAIL);
	CHECK_HAS(get(&r, "env-ucx-tls")->detail, "UCX_TLS=<from secret fabric>");
	check_absent(f, &r, "tcp,cuda_copy");
	check_results_release(&r);
	probe_facts_free(f);
}

/* UCX_NET_DEVICES from a Secret: the ports it names are the ones judged
 * (rdma-ports picks ports by it), and an entry that is no device here is
 * named nowhere; a device of the pod (sysfs shows it anyway) may be. */
static void test_net_devices(void)
{
	struct probe_facts *f = ib_pod("UCX_NET_DEVICES=mlx5_0:1,CANARYdev99\n");
	struct check_results r;

	judge(f, "*=creds\n!UCX_TLS\n", &r);
	CHECK(get(&r, "rdma-ports")->status == CHECK_OK);
	CHECK(get(&r, "env-ucx-net-devices")->status != CHECK_OK);
	check_absent(f, &r, "CANARYdev99");
	CHECK(*r.summary.net_dev_bad);                      /* still told */
	check_results_release(&r);
	probe_facts_free(f);

	/* the same variable set by env itself ("!NAME"): no mask */
	f = ib_pod("UCX_NET_DEVICES=mlx5_0:1\n");
	judge(f, "*=creds\n!UCX_NET_DEVICES\n", &r);
	CHECK_HAS(get(&r, "env-ucx-net-devices")->detail, "UCX_NET_DEVICES=mlx5_0:1");
	check_results_release(&r);
	probe_facts_free(f);
}

/* The renderer itself: "NAME=value" first, then the whole value, then
 * its entries, each only between word boundaries; transport names and
 * short entries stay. */
static void test_text(void)
{
	struct probe_facts *f = ib_pod("UCX_IB_GID_INDEX=3\nNIXL_X=abc,rc,zz,^qwerty\n");
	char *t;

	run_mask_mark(f, "*=s\n");
	t = run_mask_text(f, "UCX_IB_GID_INDEX=3; GID 3; NIXL_X=abc,rc,zz,^qwerty; xabc abc qwerty rc");
	CHECK_STR(t, "UCX_IB_GID_INDEX=<from secret s>; GID 3; NIXL_X=<from secret s>; "
		  "xabc <from secret s> <from secret s> rc");
	free(t);
	probe_facts_free(f);
}

int main(void)
{
	test_envfrom_judged_real();
	test_secret_bad_value_fails();
	test_net_devices();
	test_text();
	return T_DONE("test_mask");
}
