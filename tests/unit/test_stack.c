/* Which NIXL and UCX copies load (checks.md F6-F8): the probe's
 * nixl_stack section parsed, then the loader's order replayed by
 * nixl-lib-shadow, nixl-cuda-mix and nixl-lib-symbols, and the verdict of
 * a healthy wheel node with and without these facts.  The healthy node is
 * test_nixl_wheel.c's; the layouts are those of the public reports named
 * at each test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "check/links.h"
#include "kube/pods.h"
#include "probe/facts.h"
#include "t.h"
#include "verdict/verdict.h"

#define SITE "/usr/local/lib/python3.12/dist-packages"
#define WHEEL_PLUGINS SITE "/nixl_cu12.libs/nixl"
#define WHEEL_UCX SITE "/nixl_cu12.libs/ucx"
#define TRT SITE "/tensorrt_llm/libs"
#define SYSNIXL "/opt/nvidia/nvda_nixl/lib/x86_64-linux-gnu"

static void set_ok(struct probe_src *s)
{
	s->status = PROBE_OK;
	s->rc = 0;
}

static void set_absent(struct probe_src *s)
{
	s->status = PROBE_ABSENT;
	s->rc = 127;
}

/* The probe's sections of a vLLM-like image: the wheel's plugin directory
 * found by the fixed globs (NIXL_PLUGIN_DIR unset), python's import, the
 * bundled UCX's modules, no ucx_info at all. */
static const char wheel_sections[] =
	"@@@ nixl_plugins\n"
	"wheel_dir=" WHEEL_PLUGINS "\n"
	"plugin=libplugin_GDS.so\nplugin=libplugin_POSIX.so\nplugin=libplugin_UCX.so\n"
	"@@@ end nixl_plugins rc=0\n"
	"@@@ nixl_python\n"
	"module=" SITE "/nixl/__init__.py\nversion=nixl 0.10.1\nversion=nixl-cu12 0.10.1\n"
	"plugin_dir=" WHEEL_PLUGINS "\nplugin=libplugin_UCX.so\n"
	"@@@ end nixl_python rc=0\n"
	"@@@ ucx_info_v\n@@@ end ucx_info_v rc=127\n"
	"@@@ ucx_info_d\n@@@ end ucx_info_d rc=127\n"
	"@@@ ucx_modules\n"
	"wheel_dir=" WHEEL_UCX "\n"
	"module=libuct_cma.so.0.0.0\nmodule=libuct_cuda.so.0.0.0\n"
	"module=libuct_cuda_gdrcopy.so.0.0.0\nmodule=libuct_ib.so.0.0.0\n"
	"module=libuct_ib_mlx5.so.0.0.0\nmodule=libuct_rdmacm.so.0.0.0\n"
	"@@@ end ucx_modules rc=0\n";

static void add_dev(struct probe_rdma_list *list, const char *name)
{
	struct probe_rdma_dev *d = probe_rdma_dev_add(list);
	struct probe_rdma_port *p = &d->port[d->nports++];

	snprintf(d->name, sizeof(d->name), "%s", name);
	p->num = 1;
	p->state = PROBE_PORT_ACTIVE;
	p->phys_state = PROBE_PHYS_LINKUP;
	p->rate_gbps = 400;
	p->link_layer = PROBE_LL_IB;
	p->first_roce_v2 = -1;
}

/* The rest of a healthy 2-rail HGX H100 IB node, first-hand sources
 * other than UCX's (sysfs, ibv_devinfo, /proc, nvidia-smi, limits). */
static void node_facts(struct probe_facts *f)
{
	set_ok(&f->kernel.src);
	snprintf(f->kernel.release, 64, "5.15.0-105-generic");
	f->kernel.major = 5;
	f->kernel.minor = 15;
	set_ok(&f->nvdriver.src);
	f->nvdriver.open_module = 1;
	snprintf(f->nvdriver.version, 32, "550.54.15");
	set_ok(&f->sysfs_ib.src);
	add_dev(&f->sysfs_ib, "mlx5_0");
	add_dev(&f->sysfs_ib, "mlx5_1");
	set_ok(&f->dev_ib.src);
	f->dev_ib.n_uverbs = 2;
	/* ibv_devinfo opens them (the userspace-access link's own source) */
	set_ok(&f->ibv_devinfo.src);
	add_dev(&f->ibv_devinfo, "mlx5_0");
	add_dev(&f->ibv_devinfo, "mlx5_1");
	set_ok(&f->modules.proc_src);
	f->modules.loaded[PROBE_MOD_NVIDIA] = 1;
	f->modules.loaded[PROBE_MOD_NVIDIA_PEERMEM] = 1;
	set_ok(&f->nvsmi.src);
	snprintf(f->nvsmi.driver_version, 32, "550.54.15");
	f->nvsmi.ngpus = f->nvsmi.attached = 2;
	for (int g = 0; g < 2; g++)
		snprintf(f->nvsmi.gpu[g].name, 64, "NVIDIA H100 80GB HBM3");
	set_absent(&f->fi.src);
	set_ok(&f->limits_pid1.limits_src);
	f->limits_pid1.memlock_soft = PROBE_UNLIMITED;
	set_ok(&f->env.src);
	probe_parse_env("VLLM_NIXL_SIDE_CHANNEL_PORT=5600\n", 33, &f->env);
}

/* The wheel node from these probe sections (edit() makes variants). */
static struct probe_facts *wheel_node(const char *sections)
{
	struct probe_facts *f = probe_facts_new();
	char *rep = malloc(strlen(sections) + 64);
	struct err e;

	sprintf(rep, "dynamo-interconnect-probe v1\n%s@@@ done\n", sections);
	CHECK_INT(probe_parse_report(rep, strlen(rep), f, &e), 0);
	free(rep);
	node_facts(f);
	return f;
}

static const struct pod_spec_facts ib_spec = {
	.gpus = 2, .rdma_devices = 2, .rdma_resource = "rdma/ib", .ipc_lock = 1,
	.shm_bytes = 16LL << 30,
};
static const struct check_context decode_ctx = {
	.node = "gpu-a2", .role = "decode", .kv_cross_pod = 1,
	.kv_cross_node = 1, .kv_known = 1, .npods = 2,
};

static const struct check_result *res(const struct check_results *r,
				      const char *name)
{
	const struct check_result *c = check_results_find(r, name);

	if (!c)
		fprintf(stderr, "no result %s\n", name);
	return c;
}

static int status_of(const struct check_results *r, const char *name)
{
	const struct check_result *c = res(r, name);

	return c ? (int)c->status : -1;
}

static enum verdict_status pod_verdict(const struct check_results *r)
{
	struct pod_info info = { .name = "p", .node = "n", .role = "decode" };
	struct run_pod p = { .pod = &info, .probed = 1, .results = *r };   /* borrowed */

	return verdict_pod(&p);
}


static void dump(const struct check_results *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (getenv("T_DUMP"))
			fprintf(stderr, "  %s %s: %s\n", r->v[i].name,
				check_status_name(r->v[i].status), r->v[i].detail);
}

static void run_pod(const char *sections, struct check_results *r)
{
	struct probe_facts *f = wheel_node(sections);

	check_results_init(r);
	check_pod(f, &ib_spec, &decode_ctx, r);
	dump(r);
	probe_facts_free(f);
}



/* The wheel node plus one nixl_stack section. */
static void run_stack(const char *stack, struct check_results *r)
{
	size_t n = sizeof(wheel_sections) + strlen(stack) + 1;
	char *s = malloc(n);

	snprintf(s, n, "%s%s", wheel_sections, stack);
	run_pod(s, r);
	free(s);
}

/* readelf -d and objdump -p lines, ldd -r lines, and pod garbage. */
static void test_parse(void)
{
	static const char t[] =
		"lpath=" SYSNIXL ":/usr/local/nvidia/lib\n"
		"preload=\n"
		"elf_tool=readelf\n"
		"copy=" TRT "/nixl/libnixl.so\n"
		"copy=" SYSNIXL "/libnixl.so\n"
		"copy=" TRT "/nixl/libnixl.so\n"
		"copy=relative/libnixl.so\n"
		"elf=" TRT "/libtensorrt_llm_nixl_wrapper.so\n"
		"elf_rc=0\n"
		"dyn= 0x0000000000000001 (NEEDED)             Shared library: [libnixl.so]\n"
		"dyn= 0x000000000000001d (RUNPATH)            Library runpath: [$ORIGIN/nixl/]\n"
		"ldd_rc=0\n"
		"ldd=\tlibnixl.so => " SYSNIXL "/libnixl.so (0x00007f3a1c000000)\n"
		"ldd=\tlibcudart.so.12 => not found\n"
		"ldd=undefined symbol: _ZN12nixlDescListI14nixlBasicDescEC1ERK10nixl_mem_tRKbi\t(" TRT "/libtensorrt_llm_nixl_wrapper.so)\n"
		"elf=/x/libplugin_UCX.so\n"
		"elf_rc=0\n"
		"dyn=  NEEDED               libucp.so.0\n"
		"dyn=  RPATH                /usr/local/ucx/lib\n"
		"ldd_rc=zz\n"
		"ldd= => => \n"
		"junk line without equals\n=\n"
		"elf=\n"
		"dyn=  NEEDED libstray.so\n";
	struct probe_stack s;

	memset(&s, 0, sizeof s);
	CHECK_INT(probe_parse_nixl_stack(t, strlen(t), &s), 4);
	CHECK_STR(s.lpath, SYSNIXL ":/usr/local/nvidia/lib");
	CHECK_INT(s.tool, PROBE_ELF_READELF);
	CHECK_INT(s.ncopies, 2);          /* the duplicate and the relative path dropped */
	CHECK_INT(s.nelfs, 2);
	CHECK_INT(s.elf[0].nneeded, 1);
	CHECK_STR(s.elf[0].needed[0], "libnixl.so");
	CHECK_INT(s.elf[0].has_runpath, 1);
	CHECK_STR(s.elf[0].runpath, "$ORIGIN/nixl/");
	CHECK_INT(s.elf[0].ldd_rc, 0);
	CHECK_INT(s.elf[0].nldd, 2);
	CHECK_STR(s.elf[0].ldd[0].path, SYSNIXL "/libnixl.so");
	CHECK_INT(s.elf[0].ldd[1].not_found, 1);
	CHECK_INT(s.elf[0].nundef, 1);
	CHECK_STR(s.elf[0].undef[0], "_ZN12nixlDescListI14nixlBasicDescEC1ERK10nixl_mem_tRKbi");
	CHECK_STR(s.elf[1].needed[0], "libucp.so.0");
	CHECK_INT(s.elf[1].has_rpath, 1);
	CHECK_STR(s.elf[1].rpath, "/usr/local/ucx/lib");
	CHECK_INT(s.elf[1].ldd_rc, -1);   /* "zz" is no status */
	CHECK_INT(s.elf[1].nldd, 0);
	probe_stack_free(&s);
}

/* ai-dynamo/dynamo#6671: the wrapper's RUNPATH is $ORIGIN/nixl/, the pod
 * puts the system NIXL on LD_LIBRARY_PATH, which ld.so searches first. */
#define DYN6671(lpath, preload) \
	"@@@ nixl_stack\n" \
	"lpath=" lpath "\npreload=" preload "\nelf_tool=readelf\n" \
	"copy=" SYSNIXL "/libnixl.so\n" \
	"copy=" TRT "/nixl/libnixl.so\n" \
	"copy=" SITE "/.nixl_cu12.mesonpy.libs/libnixl.so\n" \
	"elf=" TRT "/libtensorrt_llm_nixl_wrapper.so\nelf_rc=0\n" \
	"dyn= 0x0000000000000001 (NEEDED)             Shared library: [libnixl.so]\n" \
	"dyn= 0x000000000000001d (RUNPATH)            Library runpath: [$ORIGIN/nixl/]\n" \
	"ldd_rc=1\n" \
	"@@@ end nixl_stack rc=0\n"

static void test_shadow(void)
{
	struct check_results r;
	const struct check_result *c;

	run_stack(DYN6671(SYSNIXL ":/usr/local/nvidia/lib", ""), &r);
	c = res(&r, "nixl-lib-shadow");
	CHECK(c && c->status == CHECK_FAIL);
	if (c) {
		CHECK_HAS(c->detail, "LD_LIBRARY_PATH's " SYSNIXL "/libnixl.so is loaded");
		CHECK_HAS(c->detail, "not " TRT "/nixl/libnixl.so");
		CHECK_HAS(c->detail, "ai-dynamo/dynamo#6671");
	}
	CHECK_INT(pod_verdict(&r), VERDICT_NOT_READY);
	/* ldd failed: the symbol and CUDA checks have nothing to read */
	CHECK_INT(status_of(&r, "nixl-lib-symbols"), CHECK_SKIPPED);
	CHECK_INT(status_of(&r, "nixl-cuda-mix"), CHECK_SKIPPED);
	check_results_release(&r);

	/* the same image without that LD_LIBRARY_PATH entry: RUNPATH wins */
	run_stack(DYN6671("/usr/local/nvidia/lib", ""), &r);
	CHECK_INT(status_of(&r, "nixl-lib-shadow"), CHECK_OK);
	CHECK_INT(pod_verdict(&r), VERDICT_READY);
	check_results_release(&r);

	/* Dynamo's fix: LD_PRELOAD of TensorRT-LLM's own copy beats both */
	run_stack(DYN6671(SYSNIXL, "/opt/dynamo/libstdc++.so.6:" TRT "/nixl/libnixl.so"), &r);
	CHECK_INT(status_of(&r, "nixl-lib-shadow"), CHECK_OK);
	check_results_release(&r);

	/* LD_PRELOAD of the system copy: shadowing again, named so */
	run_stack(DYN6671("", SYSNIXL "/libnixl.so"), &r);
	c = res(&r, "nixl-lib-shadow");
	CHECK(c && c->status == CHECK_FAIL);
	if (c)
		CHECK_HAS(c->detail, "LD_PRELOAD's");
	check_results_release(&r);

	/* DT_RPATH (no RUNPATH) is searched before LD_LIBRARY_PATH */
	run_stack("@@@ nixl_stack\nlpath=" SYSNIXL "\nelf_tool=objdump\n"
		  "copy=" SYSNIXL "/libnixl.so\ncopy=" TRT "/nixl/libnixl.so\n"
		  "elf=" TRT "/libtensorrt_llm_nixl_wrapper.so\nelf_rc=0\n"
		  "dyn=  NEEDED               libnixl.so\n"
		  "dyn=  RPATH                $ORIGIN/nixl/../nixl\n"
		  "@@@ end nixl_stack rc=0\n", &r);
	CHECK_INT(status_of(&r, "nixl-lib-shadow"), CHECK_OK);
	check_results_release(&r);
}

/* No readelf/objdump, or no section at all: skipped, and the healthy
 * node stays READY (the new checks only break a link when they fail). */
static void test_absent(void)
{
	struct check_results r;
	const struct check_result *c;

	run_stack("@@@ nixl_stack\nlpath=\npreload=\nelf_tool=none\n"
		  "copy=" SITE "/.nixl_cu12.mesonpy.libs/libnixl.so\n"
		  "elf=" WHEEL_PLUGINS "/libplugin_UCX.so\nelf_rc=127\nldd_rc=1\n"
		  "ldd=ldd: -r: not a dynamic executable\n"
		  "@@@ end nixl_stack rc=0\n", &r);
	c = res(&r, "nixl-lib-shadow");
	CHECK(c && c->status == CHECK_SKIPPED);
	if (c) {
		CHECK_HAS(c->detail, "no readelf or objdump in the image");
		/* no tool: not applicable (as E1 without ldd), no verdict line */
		CHECK(c->flags & CHECK_F_NA);
	}
	CHECK_INT(status_of(&r, "nixl-cuda-mix"), CHECK_SKIPPED);
	CHECK_INT(status_of(&r, "nixl-lib-symbols"), CHECK_SKIPPED);
	/* ldd ran and failed: a skip of its own, shown with the verdict */
	c = res(&r, "nixl-lib-symbols");
	CHECK(c && !(c->flags & CHECK_F_NA));
	CHECK_INT(status_of(&r, "nixl-installed"), CHECK_OK);
	CHECK_INT(status_of(&r, "nixl-plugin"), CHECK_OK);
	CHECK_INT(pod_verdict(&r), VERDICT_READY);
	check_results_release(&r);

	run_stack("@@@ nixl_stack\nlpath=\npreload=\nelf_tool=none\n"
		  "elf=" WHEEL_PLUGINS "/libplugin_UCX.so\nelf_rc=127\nldd_rc=127\n"
		  "@@@ end nixl_stack rc=0\n", &r);
	c = res(&r, "nixl-lib-symbols");
	CHECK(c && c->status == CHECK_SKIPPED && (c->flags & CHECK_F_NA));
	if (c)
		CHECK_HAS(c->detail, "no ldd in the image");
	c = res(&r, "nixl-cuda-mix");
	CHECK(c && c->status == CHECK_SKIPPED && (c->flags & CHECK_F_NA));
	check_results_release(&r);

	run_pod(wheel_sections, &r);
	CHECK_INT(status_of(&r, "nixl-lib-shadow"), CHECK_SKIPPED);
	CHECK_INT(status_of(&r, "nixl-cuda-mix"), CHECK_SKIPPED);
	CHECK_INT(status_of(&r, "nixl-lib-symbols"), CHECK_SKIPPED);
	CHECK_INT(pod_verdict(&r), VERDICT_READY);
	check_results_release(&r);
}

/* vllm-project/vllm PR #44266 (and vllm#39923): a NIXL object needs the
 * libcudart of the other CUDA major; the two majors in one process. */
static void test_cuda(void)
{
	struct check_results r;
	const struct check_result *c;

	run_stack("@@@ nixl_stack\nlpath=\nelf_tool=none\n"
		  "elf=" SITE "/nixl_ep/nixl_ep_cpp.cpython-312-x86_64-linux-gnu.so\nelf_rc=127\nldd_rc=0\n"
		  "ldd=\tlibcudart.so.12 => not found\n"
		  "@@@ end nixl_stack rc=0\n", &r);
	c = res(&r, "nixl-cuda-mix");
	CHECK(c && c->status == CHECK_FAIL);
	if (c)
		CHECK_HAS(c->detail, "needs libcudart.so.12, which the loader does not find");
	CHECK_INT(pod_verdict(&r), VERDICT_NOT_READY);
	check_results_release(&r);

	/* the missing libcudart's undefined symbols follow from it (fold.c) */
	run_stack("@@@ nixl_stack\nlpath=\nelf_tool=none\n"
		  "elf=" SITE "/nixl_ep/nixl_ep_cpp.so\nldd_rc=0\n"
		  "ldd=\tlibcudart.so.12 => not found\n"
		  "ldd=undefined symbol: cudaGetDevice, version libcudart.so.12\t(x)\n"
		  "@@@ end nixl_stack rc=0\n", &r);
	CHECK_INT(status_of(&r, "nixl-lib-symbols"), CHECK_FAIL);
	CHECK_STR(check_cause_of(&r, "nixl-lib-symbols"), "nixl-cuda-mix");
	CHECK_STR(check_cause_of(&r, "nixl-cuda-mix"), "nixl-cuda-mix");
	check_results_release(&r);

	run_stack("@@@ nixl_stack\nlpath=\nelf_tool=none\n"
		  "elf=" SITE "/.nixl_cu13.mesonpy.libs/plugins/libplugin_UCX.so\nldd_rc=0\n"
		  "ldd=\tlibcudart.so.13 => " SITE "/nvidia/cu13/lib/libcudart.so.13 (0x00007f0000000000)\n"
		  "elf=" SITE "/nixl_ep/nixl_ep_cpp.cpython-312-x86_64-linux-gnu.so\nldd_rc=0\n"
		  "ldd=\tlibcudart.so.12 => /usr/local/cuda/lib64/libcudart.so.12 (0x00007f0000000000)\n"
		  "@@@ end nixl_stack rc=0\n", &r);
	c = res(&r, "nixl-cuda-mix");
	CHECK(c && c->status == CHECK_FAIL);
	if (c)
		CHECK_HAS(c->detail, "two CUDA majors");
	check_results_release(&r);

	run_stack("@@@ nixl_stack\nlpath=\nelf_tool=none\n"
		  "elf=" SITE "/.nixl_cu13.mesonpy.libs/plugins/libplugin_UCX.so\nldd_rc=0\n"
		  "ldd=\tlibcudart.so.13 => " SITE "/nvidia/cu13/lib/libcudart.so.13 (0x00007f0000000000)\n"
		  "@@@ end nixl_stack rc=0\n", &r);
	CHECK_INT(status_of(&r, "nixl-cuda-mix"), CHECK_OK);
	CHECK_INT(status_of(&r, "nixl-lib-symbols"), CHECK_OK);
	CHECK_INT(pod_verdict(&r), VERDICT_READY);
	check_results_release(&r);
}

/* NVIDIA/TensorRT-LLM#9752: the wrapper built for NIXL < 0.6 against 0.6+
 * (nixlDescList lost its `sorted` argument): ldd -r lists the symbol. */
static void test_symbols(void)
{
	struct check_results r;
	const struct check_result *c;

	run_stack("@@@ nixl_stack\nlpath=\nelf_tool=none\n"
		  "elf=" TRT "/libtensorrt_llm_nixl_wrapper.so\nldd_rc=0\n"
		  "ldd=\tlibnixl.so => " SYSNIXL "/libnixl.so (0x00007f0000000000)\n"
		  "ldd=undefined symbol: _ZN12nixlDescListI14nixlBasicDescEC1ERK10nixl_mem_tRKbi\t(" TRT "/libtensorrt_llm_nixl_wrapper.so)\n"
		  "@@@ end nixl_stack rc=0\n", &r);
	c = res(&r, "nixl-lib-symbols");
	CHECK(c && c->status == CHECK_FAIL);
	if (c) {
		CHECK_HAS(c->detail, "1 undefined symbol(s)");
		CHECK_HAS(c->detail, "first _ZN12nixlDescList");
		CHECK_HAS(c->detail, "_ZN12nixlDescList");
	}
	CHECK_INT(pod_verdict(&r), VERDICT_NOT_READY);
	check_results_release(&r);

	/* a Python extension's C-API symbols come from the interpreter */
	run_stack("@@@ nixl_stack\nlpath=\nelf_tool=none\n"
		  "elf=" SITE "/nixl_cu12/_bindings.cpython-312-x86_64-linux-gnu.so\nldd_rc=0\n"
		  "ldd=undefined symbol: PyExc_RuntimeError\t(" SITE "/nixl_cu12/_bindings.cpython-312-x86_64-linux-gnu.so)\n"
		  "ldd=undefined symbol: _Py_NoneStruct\t(" SITE "/nixl_cu12/_bindings.cpython-312-x86_64-linux-gnu.so)\n"
		  "@@@ end nixl_stack rc=0\n", &r);
	CHECK_INT(status_of(&r, "nixl-lib-symbols"), CHECK_OK);
	check_results_release(&r);

	/* a missing libcudart's symbols, "NAME, version LIB" */
	run_stack("@@@ nixl_stack\nlpath=\nelf_tool=none\n"
		  "elf=" SITE "/nixl_ep/nixl_ep_cpp.so\nldd_rc=0\n"
		  "ldd=undefined symbol: PyExc_RuntimeError\t(x)\n"
		  "ldd=undefined symbol: cudaGetDevice, version libcudart.so.12\t(x)\n"
		  "@@@ end nixl_stack rc=0\n", &r);
	c = res(&r, "nixl-lib-symbols");
	CHECK(c && c->status == CHECK_FAIL);
	if (c)
		CHECK_HAS(c->detail, "1 undefined symbol(s) under the worker's LD_LIBRARY_PATH, first cudaGetDevice (");
	check_results_release(&r);

	run_stack("@@@ nixl_stack\nlpath=\nelf_tool=none\n"
		  "elf=" WHEEL_PLUGINS "/libplugin_UCX.so\nldd_rc=0\n"
		  "ldd=\tlibucp.so.0 => not found\n"
		  "@@@ end nixl_stack rc=0\n", &r);
	c = res(&r, "nixl-lib-symbols");
	CHECK(c && c->status == CHECK_FAIL);
	if (c)
		CHECK_HAS(c->detail, "libucp.so.0 not found");
	check_results_release(&r);
}

int main(void)
{
	test_parse();
	test_shadow();
	test_absent();
	test_cuda();
	test_symbols();
	return T_DONE("test_stack");
}
