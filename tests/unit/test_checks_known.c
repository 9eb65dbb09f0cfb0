/* The known-bad rows on hand-built facts (checks.md F5, docs/
 * known-issues.md): each end of a version range and each form of a
 * setting, finer than test_known.c's one fixture per row. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks_fixture.h"

/* Status of check name on f, whose env gets env added (the last of a name
 * wins, as in the rule book); the detail into why when given. */
static int kb_status(struct probe_facts *f, const char *env, const char *name,
		     char *why, size_t n)
{
	struct check_results r;
	const struct check_result *c;
	int st;

	if (env)
		set_env(f, env);
	run(f, &ib_spec, &decode_ctx, &r);
	st = status_of(&r, name);
	c = check_results_find(&r, name);
	if (why)
		snprintf(why, n, "%s", c ? c->detail : "");
	check_results_release(&r);
	return st;
}

static void nixl_dists(struct probe_facts *f, const char *cu12, const char *cu13)
{
	snprintf(f->nixl.dist_version[PROBE_NIXL_DIST_NIXL], 32, "%s", cu13 ? cu13 : cu12);
	snprintf(f->nixl.dist_version[PROBE_NIXL_DIST_CU12], 32, "%s", cu12 ? cu12 : "");
	snprintf(f->nixl.dist_version[PROBE_NIXL_DIST_CU13], 32, "%s", cu13 ? cu13 : "");
}

/* NIXL 1.3.0-1.3.1 and 1.4.x with NIXL_TELEMETRY_ENABLE false (dynamo#12952,
 * nixl#2266); 1.3.2, a true value or none are near misses. */
static void test_known_bad_telemetry(void)
{
	static const struct { const char *ver, *env; int st; } cases[] = {
		{ "1.3.1", "NIXL_TELEMETRY_ENABLE=n\n", CHECK_FAIL },
		{ "1.3.0", "NIXL_TELEMETRY_ENABLE=Disable\n", CHECK_FAIL },
		{ "1.4.0", "NIXL_TELEMETRY_ENABLE=false\n", CHECK_FAIL },
		{ "1.3.1", "NIXL_TELEMETRY_ENABLE=y\n", CHECK_OK },
		{ "1.3.1", NULL, CHECK_OK },
		{ "1.3.2", "NIXL_TELEMETRY_ENABLE=n\n", CHECK_OK },
		{ "1.2.0", "NIXL_TELEMETRY_ENABLE=n\n", CHECK_OK },
		{ "1.3.1", "NIXL_TELEMETRY_ENABLE=maybe\n", CHECK_OK },
	};
	char why[400];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct probe_facts *f = healthy_ib();

		nixl_dists(f, NULL, cases[i].ver);
		CHECK_INT(kb_status(f, cases[i].env, "nixl-known-bad", why, sizeof why),
			  cases[i].st);
		if (cases[i].st == CHECK_FAIL)
			CHECK(strstr(why, "NIXL_TELEMETRY_ENABLE=") && strstr(why, cases[i].ver));
		probe_facts_free(f);
	}
}

/* nixl-cu12 and nixl-cu13 together before 1.3.0 (nixl#1705). */
static void test_known_bad_cuda_builds(void)
{
	struct probe_facts *f = healthy_ib();

	nixl_dists(f, "1.2.0", "1.2.0");
	CHECK_INT(kb_status(f, NULL, "nixl-known-bad", NULL, 0), CHECK_WARN);
	nixl_dists(f, "1.3.0", "1.3.0");
	CHECK_INT(kb_status(f, NULL, "nixl-known-bad", NULL, 0), CHECK_OK);
	nixl_dists(f, NULL, "1.2.0");
	CHECK_INT(kb_status(f, NULL, "nixl-known-bad", NULL, 0), CHECK_OK);
	/* the telemetry fail outranks the warning of the same pod */
	nixl_dists(f, "1.3.1", "1.2.0");
	CHECK_INT(kb_status(f, "NIXL_TELEMETRY_ENABLE=0\n", "nixl-known-bad", NULL, 0),
		  CHECK_FAIL);
	/* no version lines: the import's version (older reports), else none */
	memset(f->nixl.dist_version, 0, sizeof f->nixl.dist_version);
	snprintf(f->nixl.python_version, 32, "1.3.1");
	CHECK_INT(kb_status(f, "NIXL_TELEMETRY_ENABLE=0\n", "nixl-known-bad", NULL, 0),
		  CHECK_FAIL);
	f->nixl.python_version[0] = 0;
	CHECK_INT(kb_status(f, NULL, "nixl-known-bad", NULL, 0), CHECK_SKIPPED);
	probe_facts_free(f);
}

/* A healthy IB pod whose first device is a RoCE LAG bond, UCX ver. */
static struct probe_facts *bonded(const char *ver, int minor)
{
	struct probe_facts *f = healthy_ib();

	snprintf(f->sysfs_ib.dev[0].name, 32, "mlx5_bond_0");
	f->sysfs_ib.dev[0].port[0].link_layer = PROBE_LL_ETH;
	snprintf(f->ucx.version, 32, "%s", ver);
	f->ucx.minor = minor;
	return f;
}

/* rc_verbs with ECE on a LAG bond from UCX 1.22.0 (ucx#11955). */
static void test_known_bad_bond_ece(void)
{
	static const char *verbs = "UCX_TLS=rc_verbs,ud_verbs,cuda_copy,cuda_ipc\n";
	struct probe_facts *f = bonded("1.22.0", 22);
	char why[400];

	CHECK_INT(kb_status(f, verbs, "ucx-known-bad", why, sizeof why), CHECK_FAIL);
	CHECK(strstr(why, "mlx5_bond_0") && strstr(why, "1.22.0"));
	CHECK_INT(kb_status(f, "UCX_RC_ECE=0\n", "ucx-known-bad", NULL, 0), CHECK_OK);
	probe_facts_free(f);
	/* the rc_x default: rc_mlx5 is listed on the bond, rc_verbs idle */
	f = bonded("1.22.0", 22);
	add_tl(&f->ucx, "rc_mlx5", "mlx5_bond_0:1", PROBE_TL_RC_MLX5);
	CHECK_INT(kb_status(f, "UCX_TLS=rc,cuda_copy\n", "ucx-known-bad", NULL, 0), CHECK_OK);
	probe_facts_free(f);
	/* ... but a UCX that lists no rc_mlx5 there uses rc_verbs */
	f = bonded("1.23.0", 23);
	CHECK_INT(kb_status(f, "UCX_TLS=rc,cuda_copy\n", "ucx-known-bad", NULL, 0), CHECK_FAIL);
	probe_facts_free(f);
	f = bonded("1.21.0", 21);
	CHECK_INT(kb_status(f, verbs, "ucx-known-bad", NULL, 0), CHECK_OK);
	probe_facts_free(f);
	f = healthy_ib();                    /* no bond */
	snprintf(f->ucx.version, 32, "1.22.0");
	CHECK_INT(kb_status(f, verbs, "ucx-known-bad", NULL, 0), CHECK_OK);
	f->ucx.major = -1;
	f->ucx.version[0] = 0;
	CHECK_INT(kb_status(f, verbs, "ucx-known-bad", NULL, 0), CHECK_SKIPPED);
	probe_facts_free(f);
}

/* gga_mlx5 on a RoCE LAG device from UCX 1.18.0, not fixed (ucx#11709):
 * fail where ucx_info -d lists gga_mlx5 on the bond and UCX_TLS lets it
 * in, warn where ucx_info -d was not read; ^gga_mlx5, ^gga (1.19+), a list
 * without it, no gga_mlx5 listed, no bond and 1.17 are near misses.  On
 * 1.18.x the aliases ib and gga did not name gga_mlx5 yet. */
/* ucx_info -d lists gga_mlx5 on dev (no PROBE_TL_ id: the name only). */
static void gga_listed(struct probe_facts *f, const char *dev)
{
	struct probe_ucx_tl_entry *e = probe_ucx_tl_add(&f->ucx);

	snprintf(e->name, sizeof(e->name), "gga_mlx5");
	snprintf(e->device, sizeof(e->device), "%s", dev);
}

static void gga_case(const char *ver, int minor, int listed, const char *env,
		     int want)
{
	struct probe_facts *f = bonded(ver, minor);
	char why[400];

	/* a ConnectX-7 bond lists rc_mlx5 too (else ucx#11955's row) */
	add_tl(&f->ucx, "rc_mlx5", "mlx5_bond_0:1", PROBE_TL_RC_MLX5);
	if (listed > 0)
		gga_listed(f, "mlx5_bond_0:1");
	if (listed < 0)
		f->ucx.d_src.status = PROBE_ABSENT;
	CHECK_INT(kb_status(f, env, "ucx-known-bad", why, sizeof why), want);
	if (want != CHECK_OK)
		CHECK(strstr(why, "gga_mlx5") && strstr(why, "mlx5_bond_0") &&
		      strstr(why, ver) && strstr(why, "openucx/ucx#11709"));
	probe_facts_free(f);
}

static void test_known_bad_gga_lag(void)
{
	static const char *rc = "UCX_TLS=rc,cuda_copy\n";
	struct probe_facts *f;

	gga_case("1.18.0", 18, 1, "UCX_TLS=all\n", CHECK_FAIL);
	gga_case("1.22.0", 22, 1, "UCX_TLS=all\n", CHECK_FAIL);
	gga_case("1.19.0", 19, 1, "UCX_TLS=ib,cuda_copy\n", CHECK_FAIL);
	gga_case("1.22.0", 22, 1, "UCX_TLS=rc_x,gga,cuda_copy\n", CHECK_FAIL);
	gga_case("1.22.0", 22, 1, "UCX_TLS=^cuda_ipc\n", CHECK_FAIL);
	gga_case("1.22.0", 22, -1, "UCX_TLS=all\n", CHECK_WARN);  /* no ucx_info -d */
	gga_case("1.22.0", 22, 0, "UCX_TLS=all\n", CHECK_OK);     /* not listed */
	gga_case("1.22.0", 22, 1, "UCX_TLS=^gga\n", CHECK_OK);
	gga_case("1.22.0", 22, 1, "UCX_TLS=^gga_mlx5\n", CHECK_OK);
	gga_case("1.22.0", 22, 1, "UCX_TLS=^ib\n", CHECK_OK);
	gga_case("1.22.0", 22, 1, rc, CHECK_OK);                  /* list without gga */
	gga_case("1.17.0", 17, 1, "UCX_TLS=all\n", CHECK_OK);     /* before gga_mlx5 */
	gga_case("1.18.1", 18, 1, "UCX_TLS=ib,cuda_copy\n", CHECK_OK);
	gga_case("1.18.1", 18, 1, "UCX_TLS=^gga\n", CHECK_FAIL);
	gga_case("1.18.1", 18, 1, "UCX_TLS=^gga_mlx5\n", CHECK_OK);
	gga_case("1.18.1", 18, 1, "UCX_TLS=rc,gga_mlx5\n", CHECK_FAIL);
	f = healthy_ib();                    /* no bond */
	snprintf(f->ucx.version, 32, "1.22.0");
	f->ucx.minor = 22;
	gga_listed(f, "mlx5_0:1");
	CHECK_INT(kb_status(f, "UCX_TLS=all\n", "ucx-known-bad", NULL, 0), CHECK_OK);
	probe_facts_free(f);
}

/* TensorRT-LLM's wrapper built for NIXL < 0.6 against NIXL >= 0.6
 * (TensorRT-LLM#9752): ldd -r names nixlDescList undefined. */
static void test_known_bad_trt_wrapper(void)
{
	static const char undef[] =
		"elf=/usr/local/lib/python3.12/dist-packages/tensorrt_llm/libs/libtensorrt_llm_nixl_wrapper.so\n"
		"ldd_rc=0\n"
		"ldd=undefined symbol: _ZN12nixlDescListI14nixlBasicDescEC1ERK10nixl_mem_tRKbi\t(x)\n";
	static const char other[] =
		"elf=/usr/local/lib/python3.12/dist-packages/tensorrt_llm/libs/libtensorrt_llm_nixl_wrapper.so\n"
		"ldd_rc=0\nldd=undefined symbol: _ZN4fooC1Ev\t(x)\n";
	static const struct { const char *ver, *stack; int st; } cases[] = {
		{ "0.6.0", undef, CHECK_FAIL },
		{ "0.10.1", undef, CHECK_FAIL },
		{ "0.5.1", undef, CHECK_OK },      /* the wrapper's own API era */
		{ "0.10.1", other, CHECK_OK },     /* another symbol: F8's, not this row */
		{ "0.10.1", "", CHECK_OK },
	};
	char why[400];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct probe_facts *f = healthy_ib();

		nixl_dists(f, cases[i].ver, NULL);
		f->stack.src.status = PROBE_OK;
		probe_parse_nixl_stack(cases[i].stack, strlen(cases[i].stack), &f->stack);
		CHECK_INT(kb_status(f, NULL, "nixl-known-bad", why, sizeof why), cases[i].st);
		if (cases[i].st == CHECK_FAIL) {
			CHECK(strstr(why, "nixlDescList") != NULL);
			CHECK(strstr(why, "NVIDIA/TensorRT-LLM#9752") != NULL);
		}
		probe_facts_free(f);
	}
}

/* NIXL built for a newer UCX (major.minor) than ucx_info's (nixl#386). */
static void test_known_bad_ucx_older(void)
{
	static const struct { const char *built, *loaded; int st; } cases[] = {
		{ "ucx v1.20.0 (openucx/ucx@v1.20.0)", "1.18.0", CHECK_WARN },
		{ "ucx 1.19.0", "1.18.1", CHECK_WARN },
		{ "ucx v1.19.0 (openucx/ucx@v1.19.0)", "1.19.0", CHECK_OK },
		{ "ucx v1.19.1", "1.19.0", CHECK_OK },   /* the API is major.minor */
		{ "ucx v1.18.0", "1.20.0", CHECK_OK },
		{ "ucx garbage", "1.18.0", CHECK_OK },
		{ NULL, "1.18.0", CHECK_OK },
	};
	char why[400];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct probe_facts *f = healthy_ib();
		char lines[160];

		nixl_dists(f, "0.7.1", NULL);
		snprintf(f->ucx.version, 32, "%s", cases[i].loaded);
		f->ucx.major = 1;
		f->ucx.minor = atoi(cases[i].loaded + 2);
		snprintf(lines, sizeof lines, "nixl 0.7.1 (ai-dynamo/nixl@0.7.1)\n%s\n",
			 cases[i].built ? cases[i].built : "");
		probe_parse_nixl_versions(lines, strlen(lines), &f->nixl);
		CHECK_INT(kb_status(f, NULL, "nixl-known-bad", why, sizeof why), cases[i].st);
		if (cases[i].st == CHECK_WARN)
			CHECK(strstr(why, "loaded") && strstr(why, cases[i].loaded) &&
			      strstr(why, "ai-dynamo/nixl#386"));
		probe_facts_free(f);
	}
}

#define SITE12 "/usr/local/lib/python3.12/dist-packages"

/* Without nixl-versions.txt, nixl#386 is answered by the UCX that loads: a
 * wheel's plugin loads the libucp auditwheel bundled under a private name
 * in <dist>.libs (nixl contrib/wheel_add_ucx_plugins.py), the UCX it was
 * built with; any other copy leaves the row unjudged, and a build line
 * judges it as above (no note). */
static void test_known_bad_wheel_ucx(void)
{
	static const struct { const char *ucp, *versions, *want; } cases[] = {
		{ "/usr/local/lib/python3.12/dist-packages/nixl_cu13.libs/libucp-6b1f3e2a.so.0.0.0", NULL,
		  "#386 does not apply: NIXL's UCX plugin loads the UCX bundled with the wheel "
		  "(/usr/local/lib/python3.12/dist-packages/nixl_cu13.libs/libucp-6b1f3e2a.so.0.0.0)" },
		{ "/opt/venv/lib/python3.12/site-packages/nixl_cu12.libs/libucp-nixl-1a2b3c4d.so", NULL,
		  "#386 does not apply" },
		{ "/usr/local/ucx/lib/libucp.so.0", NULL, "#386 not judged" },
		{ "/opt/nixl_cu13.libsx/libucp-6b1f3e2a.so.0", NULL, "#386 not judged" },
		{ "libucp-6b1f3e2a.so.0", NULL, "#386 not judged" },
		{ "/usr/local/lib/python3.12/dist-packages/nixl_cu13.libs/libucp-6b1f3e2a.so.0.0.0",
		  "ucx v1.10.0\n", NULL },
	};
	char why[600];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct probe_facts *f = healthy_ib();

		nixl_dists(f, NULL, "1.3.1");
		f->nixl_ucx_ldd.src.status = PROBE_OK;
		snprintf(f->nixl_ucx_ldd.lib[PROBE_UCXLIB_UCP], 256, "%s", cases[i].ucp);
		if (cases[i].versions)
			probe_parse_nixl_versions(cases[i].versions, strlen(cases[i].versions), &f->nixl);
		CHECK_INT(kb_status(f, NULL, "nixl-known-bad", why, sizeof why), CHECK_OK);
		if (cases[i].want)
			CHECK_HAS(why, cases[i].want);
		else
			CHECK(!strstr(why, "#386"));
		probe_facts_free(f);
	}
}

/* The same without ldd: the wheel's plugin directory and the libucp-*
 * the probe listed in that wheel's .libs answer it; another wheel's copy,
 * or a plugin directory outside a wheel, do not. */
static void test_known_bad_wheel_listed(void)
{
	static const struct { const char *dir, *copy, *want; } cases[] = {
		{ SITE12 "/nixl_cu12.libs/nixl", SITE12 "/nixl_cu12.libs/libucp-fb7bfdea.so.0.0.0",
		  "its bundled UCX (" SITE12 "/nixl_cu12.libs/libucp-fb7bfdea.so.0.0.0)" },
		{ SITE12 "/.nixl_cu13.mesonpy.libs/plugins", SITE12 "/nixl_cu13.libs/libucp-6b1f3e2a.so.0.0.0",
		  "#386 does not apply" },
		{ SITE12 "/.nixl_cu13.mesonpy.libs/plugins", SITE12 "/nixl_cu12.libs/libucp-fb7bfdea.so.0.0.0",
		  "#386 not judged" },
		{ "/opt/nvidia/nvda_nixl/lib/x86_64-linux-gnu/plugins", SITE12 "/nixl_cu12.libs/libucp-fb7bfdea.so.0",
		  "#386 not judged" },
		{ SITE12 "/nixl_cu.libs/nixl", SITE12 "/nixl_cu.libs/libucp-fb7bfdea.so.0", "#386 not judged" },
	};
	char why[600];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct probe_facts *f = healthy_ib();
		char sec[400];

		nixl_dists(f, "1.3.1", NULL);
		f->nixl_ucx_ldd.src.status = PROBE_ABSENT;
		snprintf(f->nixl.plugin_dir, sizeof f->nixl.plugin_dir, "%s", cases[i].dir);
		snprintf(sec, sizeof sec, "copy=%s\n", cases[i].copy);
		probe_parse_nixl_stack(sec, strlen(sec), &f->stack);
		CHECK_INT(kb_status(f, NULL, "nixl-known-bad", why, sizeof why), CHECK_OK);
		CHECK_HAS(why, cases[i].want);
		probe_facts_free(f);
	}
}

int main(void)
{
	test_known_bad_telemetry();
	test_known_bad_cuda_builds();
	test_known_bad_bond_ece();
	test_known_bad_gga_lag();
	test_known_bad_trt_wrapper();
	test_known_bad_ucx_older();
	test_known_bad_wheel_ucx();
	test_known_bad_wheel_listed();
	return T_DONE("test_checks_known");
}
