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
#include "model/cancel.h"
#include "model/shown.h"
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

	/* an entry longer than the summary's 96 bytes: cut, it would match
	 * no mask (pair findings print the summary) */
	f = ib_pod("UCX_NET_DEVICES=mlx5_0:1,S3NT1NEL0123456789012345678901234567890123456789"
		   "01234567890123456789012345678901234567890123456789:1\n");
	judge(f, "*=creds\n", &r);
	check_absent(f, &r, "S3NT1NEL");
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

/* issue 37: MOONCAKE_DEVICE from a Secret with ":port" or a blank in it.
 * fw-mooncake's devices_missing prints the parts ("S3NT1NELpart" of
 * "mlx5_0:1 S3NT1NELpart", "S3NT1NELhost" of "S3NT1NELhost:7"); no part
 * of the value may show. */
static void test_mooncake_parts(void)
{
	static const char *const values[] = {
		"mlx5_0:1 S3NT1NELpart", "S3NT1NELhost:7", "mlx5_0,S3NT1NELx:1 mlx5_0:1",
		/* longer than the rule's 64-byte part and 128-byte list: cut
		 * parts would match no mask */
		"S3NT1NEL0123456789012345678901234567890123456789012345678901234567890123456789",
		"a1S3NT1NEL,b2S3NT1NEL,c3S3NT1NEL,d4S3NT1NEL,e5S3NT1NEL,f6S3NT1NEL,g7S3NT1NEL,h8S3NT1NEL,"
		"i9S3NT1NEL,j0S3NT1NEL,k1S3NT1NEL,l2S3NT1NEL,m3S3NT1NEL",
	};
	struct check_context c = decode;

	c.args = "python3 -m dynamo.sglang --disaggregation-mode decode";
	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
		char env[256];
		struct probe_facts *f;
		struct check_results r;

		snprintf(env, sizeof env, "MOONCAKE_DEVICE=%s\n", values[i]);
		f = ib_pod(env);
		check_results_init(&r);
		run_mask_mark(f, "*=hf-token-secret\n");
		check_pod(f, NULL, &c, &r);
		run_mask_apply(f, &r);
		CHECK_INT(get(&r, "fw-mooncake")->status, CHECK_FAIL);   /* judged */
		CHECK_HAS(get(&r, "fw-mooncake")->detail, "<from secret hf-token-secret>");
		check_absent(f, &r, "S3NT1NEL");
		check_results_release(&r);
		probe_facts_free(f);
	}
}

/* A facts with one variable NAME from Secret "s" set to value (owned). */
static struct probe_facts *one_secret(const char *name, char *value)
{
	struct probe_facts *f = probe_facts_new();

	f->env.var = calloc(1, sizeof *f->env.var);
	f->env.var[0].name = strdup(name);
	f->env.var[0].value = value;
	f->env.var[0].secret = strdup("s");
	f->env.n = 1;
	return f;
}

/* issue 37 item 5: a 2 MB Secret-fed value of 200,000 entries (every
 * length from 3 to 17 bytes) masked in a 1 MB text: the work is the
 * text's length times the distinct entry lengths, not times the entries
 * (that was 7.5 s a pod), and every entry in the text is hidden. */
static void test_linear(void)
{
	size_t n = 2u << 20, at = 0, steps = 0, entries = 0;
	char *v = malloc(n + 32), *text = malloc((1u << 20) + 32), *t;
	struct probe_facts *f;

	while (at < n) {
		at += (size_t)sprintf(v + at, "%se%0*zu", at ? "," : "", (int)(2 + entries % 15), entries);
		entries++;
	}
	f = one_secret("UCX_TLS", v);
	at = 0;
	for (size_t k = 0; at < (1u << 20) - 64; k++)
		at += (size_t)sprintf(text + at, "e%0*zu ", (int)(2 + k % 15), k);
	t = run_mask_text_counted(f, text, &steps);
	CHECK(t && !strstr(t, "e00"));
	CHECK(t && strstr(t, "<from secret s> <from secret s>"));
	CHECK(steps > 0 && steps <= (size_t)at * 17);
	free(t);

	/* cancelled (Ctrl-C, --timeout): stops at once and shows nothing */
	cancel_run("the run's --timeout passed");
	steps = 0;
	t = run_mask_text_counted(f, text, &steps);
	cancel_reset();
	CHECK(t && !strstr(t, "e00") && strstr(t, "hidden"));
	CHECK(steps < (size_t)at / 4);
	free(t);
	free(text);
	probe_facts_free(f);
}

/* issue 46: the stock vLLM profile scrubs ~80 result strings a pod, most
 * with nothing to hide.  Only a token start whose byte begins some word
 * is tried: a text none of whose tokens starts like a secret's word costs
 * no probe (it cost its length times the distinct lengths), and one that
 * does is still masked, the longest word first. */
static void test_cheap_when_nothing_to_hide(void)
{
	struct probe_facts *f = one_secret("HF_TOKEN", strdup("zq-S3NT1NEL,zq-S3NT"));
	size_t steps = 99;
	char *t;

	t = run_mask_text_counted(f, "UCX_TLS=rc,cuda_copy on mlx5_0:1 (InfiniBand), 4 GPUs", &steps);
	CHECK_STR(t, "UCX_TLS=rc,cuda_copy on mlx5_0:1 (InfiniBand), 4 GPUs");
	CHECK_INT((int)steps, 0);
	free(t);
	t = run_mask_text_counted(f, "token zq-S3NT1NEL, zq-S3NT and zq-S3NTX", &steps);
	CHECK_STR(t, "token <from secret s>, <from secret s> and zq-S3NTX");
	CHECK(steps > 0);
	free(t);
	probe_facts_free(f);
}

/* model/shown.h: where a variable comes from, and a spec word expanded
 * from plain values only (the kubelet's $(VAR), $$ its escape, an
 * unknown $(VAR) kept; the shell's $VAR and ${VAR}). */
static void test_shown(void)
{
	const char *sec = "*=hf\nTOK=tok-secret\n!CFG\n!POD\n!DIR\n";
	const char *plain = "CFG=/etc/e.yaml\nDIR=/cfg\n";
	static const struct {
		const char *w, *out, *why;    /* out NULL: not expanded */
	} words[] = {
		{ "$(CFG)", "/etc/e.yaml", "" },
		{ "${DIR}/p.yaml", "/cfg/p.yaml", "" },
		{ "$DIR/$(CFG)", "/cfg//etc/e.yaml", "" },
		{ "/plain.yaml", "/plain.yaml", "" },
		{ "/$(TOK)", NULL, "TOK is from Secret tok-secret" },
		{ "${HF_TOKEN}.yaml", NULL, "HF_TOKEN is from Secret hf" },
		{ "$(POD)", NULL, "valueFrom" },
		{ "$$(CFG)", NULL, "command substitution" },     /* $$: the kubelet's escape */
		{ "${CFG:-/x}", NULL, "shell expansion" },
		{ "`id`", NULL, "command substitution" },
		{ "$(NOPE)", NULL, "NOPE is from Secret hf" },       /* envFrom may set it */
	};
	char out[128], why[128], s[64];

	CHECK_INT(shown_origin(sec, plain, "TOK", s, sizeof s), SHOWN_SECRET);
	CHECK_STR(s, "tok-secret");
	CHECK_INT(shown_origin(sec, plain, "HF_TOKEN", s, sizeof s), SHOWN_SECRET);   /* envFrom */
	CHECK_STR(s, "hf");
	CHECK_INT(shown_origin(sec, plain, "CFG", s, sizeof s), SHOWN_PLAIN);
	CHECK_INT(shown_origin(sec, plain, "POD", s, sizeof s), SHOWN_OTHER);
	CHECK_INT(shown_origin("", plain, "X", s, sizeof s), SHOWN_IMAGE);
	CHECK_STR(shown_value("v", NULL, out, sizeof out), "v");
	CHECK_STR(shown_value("v", "hf", out, sizeof out), "<from secret hf>");

	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
		int ok = shown_spec_word(words[i].w, sec, plain, out, sizeof out, why, sizeof why);

		CHECK_INT(ok, words[i].out != NULL);
		CHECK_STR(out, words[i].out ? words[i].out : words[i].w);
		CHECK_HAS(why, words[i].why);
	}
	CHECK_INT(shown_spec_word("$(CFG)", NULL, NULL, out, sizeof out, why, sizeof why), 0);
	CHECK_INT(shown_spec_word("$(NOPE)", "!CFG\n", plain, out, sizeof out, why, sizeof why), 0);
	CHECK_HAS(why, "NOPE is not set by the pod spec");
}

int main(void)
{
	test_envfrom_judged_real();
	test_secret_bad_value_fails();
	test_net_devices();
	test_text();
	test_mooncake_parts();
	test_linear();
	test_cheap_when_nothing_to_hide();
	test_shown();
	return T_DONE("test_mask");
}
