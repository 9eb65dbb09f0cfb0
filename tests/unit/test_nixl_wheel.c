/* NIXL installed as a pip wheel (pip install nixl / nixl-cu12, vLLM's image):
 * the plugin directory under site-packages (checks.md F2), UCX bundled
 * without ucx_info so its transport modules are E3's second source, and
 * the worker log as a second source of the nixl-backend link (checks.md N
 * "also shown by").  Probe sections in, checks and links out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "check/links.h"
#include "check/logs.h"
#include "kube/api/pods.h"
#include "probe/facts.h"
#include "probe/logscan.h"
#include "t.h"
#include "verdict/verdict.h"

#include "wheel_fixture.h"

/* The sections with one line replaced (old must be there). */
static char *edit(const char *old, const char *new)
{
	const char *at = strstr(wheel_sections, old);
	char *s;

	CHECK(at != NULL);
	if (!at)
		return strdup(wheel_sections);
	s = malloc(sizeof(wheel_sections) + strlen(new));
	memcpy(s, wheel_sections, (size_t)(at - wheel_sections));
	strcpy(s + (at - wheel_sections), new);
	strcat(s, at + strlen(old));
	return s;
}

/* The parsers: the wheel's plugin directory and the bundled UCX's
 * modules, both wheel layouts (auditwheel's NAME.libs, meson-python's). */
static void test_parse(void)
{
	struct probe_facts *f = wheel_node(wheel_sections);
	struct probe_nixl x;
	struct probe_ucx_modules m;
	const char meson[] =
		"wheel_dir=" SITE "/.nixl_cu12.mesonpy.libs/plugins\nplugin=libplugin_UCX.so\n";
	const char mods[] = "libucs_dir=/usr/local/ucx/lib/ucx\nmodule=libuct_ib.so\n"
			    "module=libuct_ib.so.0\nmodule=libuct_ib.so.0.0.0\n"
			    "module=README\nmodule=libucm_cuda.so.0\n"
			    "env_dir=/elsewhere\nmodule=libuct_cuda.so.0\n";

	CHECK_STR(f->nixl.wheel_dir, WHEEL_PLUGINS);
	CHECK_STR(f->nixl.plugin_dir, WHEEL_PLUGINS);
	CHECK(probe_nixl_has_plugin(&f->nixl, "UCX"));
	CHECK_INT(f->ucx_modules.src.status, PROBE_OK);
	CHECK_STR(f->ucx_modules.dir, WHEEL_UCX);
	CHECK_INT(f->ucx_modules.kind, PROBE_UCXMOD_WHEEL);
	CHECK_INT(f->ucx_modules.nmods, 6);
	CHECK(f->ucx_modules.ib && f->ucx_modules.cuda && f->ucx_modules.gdrcopy);
	CHECK_INT(f->ucx.d_src.status, PROBE_ABSENT);
	probe_facts_free(f);

	memset(&x, 0, sizeof(x));
	CHECK_INT(probe_parse_nixl_plugins(meson, sizeof(meson) - 1, &x), 1);
	CHECK_STR(x.wheel_dir, SITE "/.nixl_cu12.mesonpy.libs/plugins");
	CHECK_STR(x.plugin_dir, x.wheel_dir);
	/* NIXL_PLUGIN_DIR ("dir=") first: plugin_dir is it, the wheel is noted. */
	memset(&x, 0, sizeof(x));
	probe_parse_nixl_plugins("dir=/opt/p\nwheel_dir=/w\n", 24, &x);
	CHECK_STR(x.plugin_dir, "/opt/p");
	CHECK_STR(x.wheel_dir, "/w");

	memset(&m, 0, sizeof(m));
	CHECK_INT(probe_parse_ucx_modules(mods, sizeof(mods) - 1, &m), 2);
	CHECK_STR(m.mod[0], "libuct_ib");
	CHECK_STR(m.dir, "/usr/local/ucx/lib/ucx");
	CHECK_INT(m.kind, PROBE_UCXMOD_LIBUCS);
	CHECK(m.ib && m.cuda && !m.gdrcopy);
}

/* Healthy wheel image: every link proven without ucx_info, READY. */
static void test_wheel_ready(void)
{
	struct check_results r;
	struct check_link l[LINK__COUNT];
	const struct check_link *be;
	const struct check_result *c;
	size_t n;

	run_pod(wheel_sections, &r);
	c = res(&r, "nixl-plugin");
	CHECK(c && c->status == CHECK_OK);
	if (c) {
		CHECK_HAS(c->detail, WHEEL_PLUGINS);
		CHECK(c->source && strstr(c->source, "pip wheel"));
	}
	c = res(&r, "ucx-rdma");
	CHECK(c && c->status == CHECK_OK);
	if (c) {
		CHECK_HAS(c->detail, WHEEL_UCX);
		CHECK(c->source && strstr(c->source, "libuct_"));
	}
	CHECK_INT(status_of(&r, "ucx-cuda"), CHECK_OK);
	n = check_links(&r, l);
	for (size_t i = 0; i < n; i++) {
		if (l[i].status != LINK_PROVEN)
			fprintf(stderr, "link %s %s: %s\n", l[i].name,
				check_link_status_name(l[i].status), l[i].detail);
		CHECK_INT(l[i].status, LINK_PROVEN);
	}
	be = link_of(l, n, LINK_BACKEND);
	CHECK(be && be->status == LINK_PROVEN);
	if (be)
		CHECK_HAS(be->detail, "ucx-rdma: UCX's IB transport modules (libuct_ib, libuct_ib_mlx5");
	CHECK_INT(pod_verdict(&r), VERDICT_READY);
	check_results_release(&r);
}

/* The python section alone lists the wheel (a site directory the shell's
 * globs do not know): nixl-plugin is judged on it, not skipped. */
static void test_python_only(void)
{
	char *s = edit("wheel_dir=" WHEEL_PLUGINS "\n"
		       "plugin=libplugin_GDS.so\nplugin=libplugin_POSIX.so\nplugin=libplugin_UCX.so\n"
		       "@@@ end nixl_plugins rc=0\n", "@@@ end nixl_plugins rc=127\n");
	struct check_results r;
	const struct check_result *c;

	run_pod(s, &r);
	c = res(&r, "nixl-plugin");
	CHECK(c && c->status == CHECK_OK);
	if (c)
		CHECK(c->source && strstr(c->source, "import nixl"));
	CHECK_INT(pod_verdict(&r), VERDICT_READY);
	check_results_release(&r);
	free(s);
}

/* The twin without the UCX plugin: nixl-plugin fails, NOT READY. */
static void test_plugin_missing(void)
{
	char *s = edit("plugin=libplugin_UCX.so\n@@@ end nixl_plugins", "@@@ end nixl_plugins");
	char *s2 = NULL;
	struct check_results r;
	struct check_link l[LINK__COUNT];
	const struct check_link *be;
	size_t n;

	/* python lists the same directory */
	s2 = strstr(s, "plugin_dir=" WHEEL_PLUGINS "\nplugin=libplugin_UCX.so\n");
	CHECK(s2 != NULL);
	if (s2)
		memmove(s2 + strlen("plugin_dir=" WHEEL_PLUGINS "\n"),
			s2 + strlen("plugin_dir=" WHEEL_PLUGINS "\nplugin=libplugin_UCX.so\n"),
			strlen(s2 + strlen("plugin_dir=" WHEEL_PLUGINS "\nplugin=libplugin_UCX.so\n")) + 1);
	run_pod(s, &r);
	CHECK_INT(status_of(&r, "nixl-plugin"), CHECK_FAIL);
	n = check_links(&r, l);
	be = link_of(l, n, LINK_BACKEND);
	CHECK(be && be->status == LINK_BROKEN);
	CHECK_INT(pod_verdict(&r), VERDICT_NOT_READY);
	check_results_release(&r);
	free(s);
}

/* The twin whose wheel has no plugin directory at all: python imports
 * nixl-cu12 from site-packages, nothing names another directory, so NIXL
 * has no UCX backend (a fail, not "could not look").  With NIXL_PREFIX
 * set the install may be elsewhere: still only a skip. */
static void test_no_plugin_dir(void)
{
	static const char py[] = "plugin_dir=" WHEEL_PLUGINS "\nplugin=libplugin_UCX.so\n";
	char *s = edit("wheel_dir=" WHEEL_PLUGINS "\n"
		       "plugin=libplugin_GDS.so\nplugin=libplugin_POSIX.so\nplugin=libplugin_UCX.so\n"
		       "@@@ end nixl_plugins rc=0\n", "@@@ end nixl_plugins rc=127\n");
	char *at = strstr(s, py);
	struct check_results r;
	const struct check_result *c;
	struct probe_facts *f;

	CHECK(at != NULL);
	if (at)
		memmove(at, at + strlen(py), strlen(at + strlen(py)) + 1);
	run_pod(s, &r);
	c = res(&r, "nixl-plugin");
	CHECK(c && c->status == CHECK_FAIL);
	if (c)
		CHECK_HAS(c->detail, "nixl 0.10.1 imports from " SITE);
	CHECK_INT(pod_verdict(&r), VERDICT_NOT_READY);
	check_results_release(&r);

	f = wheel_node(s);
	probe_parse_env("NIXL_PREFIX=/opt/nixl\n", 21, &f->env);
	snprintf(f->nixl.prefix, sizeof(f->nixl.prefix), "/opt/nixl");
	check_results_init(&r);
	check_pod(f, &ib_spec, &decode_ctx, &r);
	CHECK_INT(status_of(&r, "nixl-plugin"), CHECK_SKIPPED);
	check_results_release(&r);
	probe_facts_free(f);
	free(s);
}

/* The bundled UCX without its IB or CUDA module contradicts the path. */
static void test_modules_missing(void)
{
	char *s = edit("module=libuct_ib.so.0.0.0\nmodule=libuct_ib_mlx5.so.0.0.0\n", "");
	char *t = edit("module=libuct_cuda.so.0.0.0\n", "");
	struct check_results r;

	run_pod(s, &r);
	CHECK_INT(status_of(&r, "ucx-rdma"), CHECK_FAIL);
	CHECK_INT(pod_verdict(&r), VERDICT_NOT_READY);
	check_results_release(&r);
	run_pod(t, &r);
	CHECK_INT(status_of(&r, "ucx-rdma"), CHECK_OK);
	CHECK_INT(status_of(&r, "ucx-cuda"), CHECK_FAIL);
	check_results_release(&r);
	free(s);
	free(t);
}

/* ucx_info -d shows RDMA and CUDA, but NIXL's UCX (dirname(libucs)/ucx)
 * has neither module: the sources disagree, the link breaks. */
static void test_contradiction(void)
{
	const char ucx_d[] =
		"@@@ ucx_info_d\n"
		"# Memory domain: mlx5_0\n#     Component: ib\n"
		"#      Transport: rc_mlx5\n#         Device: mlx5_0:1\n"
		"# Memory domain: cuda_cpy\n#     Component: cuda_cpy\n"
		"#      Transport: cuda_copy\n#         Device: cuda\n"
		"@@@ end ucx_info_d rc=0\n";
	char *s = edit("@@@ ucx_info_d\n@@@ end ucx_info_d rc=127\n", ucx_d);
	char *s2;
	struct check_results r;

	run_pod(s, &r);
	CHECK_INT(status_of(&r, "ucx-rdma"), CHECK_OK);  /* same UCX: agree */
	check_results_release(&r);
	s2 = strstr(s, "wheel_dir=" WHEEL_UCX "\nmodule=libuct_cma.so.0.0.0\nmodule=libuct_cuda.so.0.0.0\n"
		       "module=libuct_cuda_gdrcopy.so.0.0.0\nmodule=libuct_ib.so.0.0.0\n"
		       "module=libuct_ib_mlx5.so.0.0.0\n");
	CHECK(s2 != NULL);
	if (s2) {
		const char *repl = "libucs_dir=/usr/local/ucx/lib/ucx\nmodule=libuct_cma.so.0.0.0\n";
		size_t old = strlen("wheel_dir=" WHEEL_UCX "\nmodule=libuct_cma.so.0.0.0\nmodule=libuct_cuda.so.0.0.0\n"
				    "module=libuct_cuda_gdrcopy.so.0.0.0\nmodule=libuct_ib.so.0.0.0\n"
				    "module=libuct_ib_mlx5.so.0.0.0\n");
		memmove(s2 + strlen(repl), s2 + old, strlen(s2 + old) + 1);
		memcpy(s2, repl, strlen(repl));
	}
	run_pod(s, &r);
	CHECK_INT(status_of(&r, "ucx-rdma"), CHECK_FAIL);
	CHECK_INT(status_of(&r, "ucx-cuda"), CHECK_FAIL);
	if (res(&r, "ucx-rdma"))
		CHECK_HAS(res(&r, "ucx-rdma")->detail, "ucx_info -d lists RDMA transports");
	CHECK_INT(pod_verdict(&r), VERDICT_NOT_READY);
	check_results_release(&r);
	free(s);
}

static void add(struct check_results *r, const char *name, enum check_status st,
		const char *detail, unsigned flags)
{
	struct check_result c = { .name = name, .status = st, .detail = (char *)detail,
				  .flags = flags };

	check_results_add(r, &c);
}

/* The nixl-backend link's slots by hand: the worker log proves a part the
 * first-hand check could not see, never a part it does not speak of, and
 * never a link the pod does not need. */
static void test_log_sources(void)
{
	struct check_results r;
	struct check_link l[LINK__COUNT];
	const struct check_link *be;
	size_t n;

	check_results_init(&r);
	r.fabric = FABRIC_INFINIBAND;
	add(&r, "nixl-installed", CHECK_SKIPPED, "python3 not found in the container", 0);
	add(&r, "nixl-plugin", CHECK_SKIPPED, "NIXL plugin directory not found in the container", 0);
	add(&r, "ucx-rdma", CHECK_SKIPPED, "ucx_info -d not found in the container", 0);
	add(&r, "ucx-cuda", CHECK_OK, "cuda_copy and cuda_ipc", 0);
	n = check_links(&r, l);
	be = link_of(l, n, LINK_BACKEND);
	CHECK(be && be->status == LINK_MISSING);
	add(&r, "logs-nixl", CHECK_OK,
	    "NIXL LIBFABRIC backend loaded: \"Loaded backend plugin: LIBFABRIC\"", 0);
	add(&r, "logs-ucx", CHECK_OK, "UCX put RMA on RDMA lanes: \"... rma(rc_mlx5/mlx5_0:1)\"", 0);
	n = check_links(&r, l);
	be = link_of(l, n, LINK_BACKEND);
	/* NIXL ran (installed), UCX has RDMA lanes, but LIBFABRIC is not
	 * the UCX plugin: still missing, and it says which. */
	CHECK(be && be->status == LINK_MISSING);
	if (be)
		CHECK_STR(be->check, "nixl-plugin");
	check_results_release(&r);

	check_results_init(&r);
	r.fabric = FABRIC_INFINIBAND;
	add(&r, "nixl-installed", CHECK_SKIPPED, "python3 not found in the container", 0);
	add(&r, "nixl-plugin", CHECK_SKIPPED, "NIXL plugin directory not found in the container", 0);
	add(&r, "ucx-rdma", CHECK_SKIPPED, "ucx_info -d not found in the container", 0);
	add(&r, "ucx-cuda", CHECK_OK, "cuda_copy and cuda_ipc", 0);
	add(&r, "logs-nixl", CHECK_OK,
	    "NIXL UCX backend instantiated: \"NIXL INFO Backend UCX was instantiated\"", 0);
	add(&r, "logs-ucx", CHECK_OK, "UCX put RMA on RDMA lanes: \"... rma(rc_mlx5/mlx5_0:1)\"", 0);
	n = check_links(&r, l);
	be = link_of(l, n, LINK_BACKEND);
	CHECK(be && be->status == LINK_PROVEN);
	if (be) {
		CHECK_HAS(be->detail, "logs-nixl: NIXL UCX backend instantiated");
		CHECK_HAS(be->detail, "logs-ucx: UCX put RMA");
	}
	check_results_release(&r);

	/* A log that contradicts (TCP lanes) breaks the link even though the
	 * first-hand checks passed. */
	check_results_init(&r);
	r.fabric = FABRIC_INFINIBAND;
	add(&r, "nixl-installed", CHECK_OK, "nixl 0.10.1", 0);
	add(&r, "nixl-plugin", CHECK_OK, "libplugin_UCX.so in " WHEEL_PLUGINS, 0);
	add(&r, "ucx-rdma", CHECK_OK, "UCX's IB transport module", 0);
	add(&r, "ucx-cuda", CHECK_OK, "UCX's CUDA transport module", 0);
	add(&r, "logs-ucx", CHECK_FAIL, "UCX put RMA (KV reads/writes) on TCP: \"...\"", 0);
	n = check_links(&r, l);
	be = link_of(l, n, LINK_BACKEND);
	CHECK(be && be->status == LINK_BROKEN);
	if (be)
		CHECK_STR(be->check, "logs-ucx");
	check_results_release(&r);

	/* KV inside one pod: NIXL not needed, a NIXL log line does not add
	 * the link. */
	check_results_init(&r);
	r.fabric = FABRIC_NVLINK;
	add(&r, "nixl-installed", CHECK_SKIPPED, "KV stays inside this pod", CHECK_F_NA);
	add(&r, "logs-nixl", CHECK_OK, "NIXL UCX backend instantiated: \"...\"", 0);
	n = check_links(&r, l);
	CHECK(link_of(l, n, LINK_BACKEND) == NULL);
	check_results_release(&r);
}

/* links.c matches the LOGS family's words: a real worker log line gives
 * the detail the backend slot looks for. */
static void test_log_phrases(void)
{
	static const char log[] =
		"NIXL INFO Backend UCX was instantiated\n"
		"[1744331142.028115] [ccw-gpu-51:2802608:3]      ucp_worker.c:1903 UCX  INFO    "
		"ucp_context_2 inter-node cfg#3 rma(rc_mlx5/mlx5_ib2:1)  amo(rc_mlx5/mlx5_ib2:1)  "
		"am(rc_mlx5/mlx5_ib2:1 rc_mlx5/mlx5_ib7:1)\n";
	struct logscan s;
	struct logs_outcome o = { .scan = &s, .container = "main", .tail_lines = 100 };
	struct check_results r;
	const struct check_result *c;

	logscan_init(&s);
	logscan_text(&s, log, sizeof(log) - 1);
	check_results_init(&r);
	check_logs(&o, &decode_ctx, &r);
	c = res(&r, "logs-nixl");
	CHECK(c && c->status == CHECK_OK &&
	      !strncmp(c->detail, "NIXL UCX backend instantiated", 29));
	c = res(&r, "logs-ucx");
	CHECK(c && c->status == CHECK_OK &&
	      !strncmp(c->detail, "UCX put RMA on RDMA lanes", 25));
	check_results_release(&r);
}

int main(void)
{
	test_parse();
	test_wheel_ready();
	test_python_only();
	test_plugin_missing();
	test_no_plugin_dir();
	test_modules_missing();
	test_contradiction();
	test_log_sources();
	test_log_phrases();
	return T_DONE("test_nixl_wheel");
}
