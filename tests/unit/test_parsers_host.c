/* PCI inventory, df /dev/shm, /proc/meminfo and ldd parsers (A8, H3, H4,
 * E1), on text captured from real machines, and the report framing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/facts.h"
#include "probe/ptext.h"
#include "probe/report.h"
#include "t.h"

static struct probe_facts *F;

static void fresh(void)
{
	probe_facts_release(F);
}

/* A VM (virtio only, as on the build machine), and an HGX H100 node:
 * 8 ConnectX-7 IB, 1 ConnectX-6 Dx in Ethernet mode, 8 H100, one
 * NVSwitch (class 0x0680: not a GPU). */
static void test_pci(void)
{
	static const char vm[] = "devices=6\n";
	static const char hgx[] =
		"0000:18:00.0 0x15b3 0x1021 0x020700\n"
		"0000:19:00.0 0x10de 0x2330 0x030200\n"
		"0000:2a:00.0 0x15b3 0x1021 0x020700\n"
		"0000:2b:00.0 0x10de 0x2330 0x030200\r\n"
		"0000:3a:00.0 0x15b3 0x1021 0x020700\n"
		"0000:3b:00.0 0x10de 0x2330 0x030200\n"
		"0000:5d:00.0 0x15b3 0x101d 0x020000\n"
		"0000:5d:00.1 0x15b3 0x101d 0x020000\n"
		"0000:5e:00.0 0x10de 0x22a3 0x068000\n"
		"0000:9a:00.0 0x15b3 0x1021 0x020700\n"
		"0000:9b:00.0 0x10de 0x2330 0x030200\n"
		"devices=214\n";
	static const char efa[] =
		"0000:10:1c.0 0x1d0f 0xefa1 0x020000\n"
		"0000:10:1d.0 0x1d0f 0xefa1 0x020000\n"
		"0000:10:1e.0 0x1d0f 0xec20 0x020000\n" /* ENA, not EFA */
		"0000:a0:1c.0 0x1d0f 0xefa2 0x020000\n"
		"0000:20:1c.0 0x10de 0x2330 0x030200\n"
		"truncated=1\ndevices=256\n";
	static const char junk[] =
		"0000:18:00.0 0x15b3\n0000:18:00.0 x y z\n devices=99999999999\n"
		"0000:18:00.0 0x15b3 0x1021 0x020700 extra\n";
	struct probe_pci *p = &F->pci;

	fresh();
	CHECK_INT(probe_parse_pci(vm, strlen(vm), p), 0);
	CHECK_INT(p->ndevs, 6);
	fresh();
	CHECK_INT(probe_parse_pci(hgx, strlen(hgx), p), 4 + 2 + 4);
	CHECK_INT(p->n_ib, 4);
	CHECK_INT(p->n_mlx_eth, 2);
	CHECK_INT(p->n_gpu, 4);
	CHECK_INT(p->n_efa, 0);
	CHECK_INT(p->ndevs, 214);
	CHECK_INT(p->truncated, 0);
	fresh();
	CHECK_INT(probe_parse_pci(efa, strlen(efa), p), 4);
	CHECK_INT(p->n_efa, 3);
	CHECK_INT(p->n_gpu, 1);
	CHECK_INT(p->truncated, 1);
	fresh();
	CHECK_INT(probe_parse_pci(junk, strlen(junk), p), 1);
	CHECK_INT(p->n_ib, 1);
	CHECK_INT(p->ndevs, 0);
	/* E7 without topo -m: the GPUs' physical paths, at most
	 * PROBE_MAX_GPUS kept. */
	fresh();
	for (int i = 0; i < PROBE_MAX_GPUS + 2; i++) {
		char l[96];

		snprintf(l, sizeof l, "gpu_path=/sys/devices/pci0000:15/0000:15:01.0/0000:%02x:00.0\n", i);
		CHECK_INT(probe_parse_pci(l, strlen(l), p), 0);
	}
	CHECK_INT(p->n_gpu_paths, PROBE_MAX_GPUS);
	CHECK_STR(p->gpu_path[1], "/sys/devices/pci0000:15/0000:15:01.0/0000:01:00.0");
}

/* The vm section (probe.sh): a KVM guest (dynamo#12463's q35 machine), a
 * bare-metal node, garbage. */
static void test_vm(void)
{
	static const char kvm[] = "sys_vendor=QEMU\n"
		"product_name=Standard PC (Q35 + ICH9, 2009)\ncpu_hypervisor=1\n";
	static const char metal[] = "sys_vendor=Supermicro\n"
		"product_name=SYS-821GE-TNHR\ncpu_hypervisor=0\n";
	static const char junk[] = "cpu_hypervisor=yes\nsys_vendor\n=\n";
	static const char grace[] = "sys_vendor=Supermicro\nproduct_name=ARS-121GL-NBO-LCC\ncpu_arm64=1\n";
	struct probe_vm *v = &F->vm;

	fresh();
	CHECK_INT(v->cpu_hypervisor, -1);
	CHECK_INT(probe_parse_vm(kvm, strlen(kvm), v), 1);
	CHECK_STR(v->sys_vendor, "QEMU");
	CHECK_STR(v->product_name, "Standard PC (Q35 + ICH9, 2009)");
	CHECK_INT(v->cpu_hypervisor, 1);
	fresh();
	CHECK_INT(probe_parse_vm(metal, strlen(metal), v), 1);
	CHECK_STR(v->sys_vendor, "Supermicro");
	CHECK_INT(v->cpu_hypervisor, 0);
	fresh();
	CHECK_INT(probe_parse_vm(junk, strlen(junk), v), 0);
	CHECK_INT(v->cpu_hypervisor, -1);
	CHECK_STR(v->sys_vendor, "");
	CHECK_INT(v->cpu_arm64, 0);
	/* a Grace host: arm64's cpuinfo has "Features", no flags line */
	fresh();
	CHECK_INT(probe_parse_vm(grace, strlen(grace), v), 1);
	CHECK_INT(v->cpu_hypervisor, -1);
	CHECK_INT(v->cpu_arm64, 1);
}

/* df -Pk /dev/shm: coreutils (build machine), busybox, a Docker default. */
static void test_shm(void)
{
	static const char coreutils[] =
		"Filesystem     1024-blocks  Used Available Capacity Mounted on\n"
		"tmpfs             24683656     0  24683656       0% /dev/shm\n";
	static const char docker[] =
		"Filesystem           1024-blocks    Used Available Capacity Mounted on\n"
		"shm                      65536       0     65536   0% /dev/shm\n";
	static const char junk[] = "df: /dev/shm: No such file or directory\n"
		"shm 99999999999999999999 0 1 0% /dev/shm\n";
	struct probe_shm *s = &F->shm;

	fresh();
	CHECK_INT(probe_parse_shm(coreutils, strlen(coreutils), s), 1);
	CHECK(s->size_kb == 24683656 && s->avail_kb == 24683656);
	fresh();
	CHECK_INT(probe_parse_shm(docker, strlen(docker), s), 1);
	CHECK(s->size_kb == 65536);
	/* No df (distroless): the mount's size=, k/m/g or bytes; none on a
	 * tmpfs is half of memory; df wins over the mount when both are there. */
	fresh();
	CHECK_INT(probe_parse_shm("mount=tmpfs rw,nosuid,nodev,size=65536k,mode=1777\n", 50, s), 1);
	CHECK(s->size_kb == 65536 && s->avail_kb == -1 && !s->tmpfs_default);
	fresh();
	CHECK_INT(probe_parse_shm("mount=tmpfs rw,size=80g\n", 23, s), 1);
	CHECK(s->size_kb == 80LL << 20);
	fresh();
	CHECK_INT(probe_parse_shm("mount=tmpfs rw,nr_inodes=9,size=1048576\n", 39, s), 1);
	CHECK(s->size_kb == 1024);
	fresh();
	CHECK_INT(probe_parse_shm("mount=tmpfs rw,nosuid,nodev,inode64\n", 35, s), 1);
	CHECK(s->size_kb == -1 && s->tmpfs_default);
	fresh();
	CHECK_INT(probe_parse_shm("mount=tmpfs rw,size=50%\nmount=overlay rw\n", 40, s), 0);
	CHECK(s->size_kb == -1 && !s->tmpfs_default);
	fresh();   /* found by fuzz_parsers: 10^15 GiB overflowed the shift */
	CHECK_INT(probe_parse_shm("mount=tmpfs size=999999999999999g\n", 34, s), 0);
	CHECK(s->size_kb == -1);
	fresh();
	CHECK_INT(probe_parse_shm(docker, strlen(docker), s), 1);
	CHECK_INT(probe_parse_shm("mount=tmpfs rw,size=8g\n", 22, s), 1);
	CHECK(s->size_kb == 65536);
	fresh();
	CHECK_INT(probe_parse_shm(junk, strlen(junk), s), 0);
	CHECK(s->size_kb == -1 && s->avail_kb == -1);
}

static void test_meminfo(void)
{
	static const char vm[] = /* build machine, filtered as the probe does */
		"MemTotal:       24683656 kB\n"
		"HugePages_Total:       0\n"
		"HugePages_Free:        0\n"
		"HugePages_Rsvd:        0\n"
		"HugePages_Surp:        0\n"
		"Hugepagesize:       2048 kB\n";
	static const char p5[] = /* p5.48xlarge with the EFA AMI's reservation */
		"MemTotal:       2097152000 kB\r\n"
		"HugePages_Total:    5128\r\n"
		"HugePages_Free:     5001\r\n"
		"Hugepagesize:       2048 kB";
	struct probe_meminfo *m = &F->meminfo;

	fresh();
	CHECK_INT(probe_parse_meminfo(vm, strlen(vm), m), 1);
	CHECK(m->mem_total_kb == 24683656 && m->hp_total == 0 && m->hp_free == 0);
	CHECK(m->hp_size_kb == 2048);
	fresh();
	CHECK_INT(probe_parse_meminfo(p5, strlen(p5), m), 1);
	CHECK(m->hp_total == 5128 && m->hp_free == 5001 && m->hp_size_kb == 2048);
	fresh();
	CHECK_INT(probe_parse_meminfo("HugePages_Total: -3\nHugePages_Free\n", 35, m), 0);
	CHECK(m->hp_total == -1 && m->hp_free == -1);
}

/* ldd of a UCX consumer on the build machine (Debian ucx-utils), a pip
 * wheel's bundled UCX, and a plugin whose UCX is missing. */
static void test_ldd(void)
{
	static const char debian[] =
		"plugin=/opt/nvidia/nvda_nixl/lib/x86_64-linux-gnu/plugins/libplugin_UCX.so\n"
		"\tlibucp.so.0 => /lib/x86_64-linux-gnu/libucp.so.0 (0x00007eff8a975000)\n"
		"\tlibuct.so.0 => /lib/x86_64-linux-gnu/libuct.so.0 (0x00007eff8a933000)\n"
		"\tlibucs.so.0 => /lib/x86_64-linux-gnu/libucs.so.0 (0x00007eff8a8d7000)\n"
		"\tlibucm.so.0 => /lib/x86_64-linux-gnu/libucm.so.0 (0x00007eff8a5ec000)\n";
	static const char wheel[] =
		"plugin=/usr/local/lib/python3.12/site-packages/.nixl_cu12.mesonpy.libs/plugins/libplugin_UCX.so\n"
		"\tlibucp-5e5bd27f.so.0.0.0 => /usr/local/lib/python3.12/site-packages/.nixl_cu12.mesonpy.libs/libucp-5e5bd27f.so.0.0.0 (0x0000)\n"
		"\tlibucs.so.0 => /usr/lib64/libucs.so.0 (0x0000)\n";
	static const char missing[] =
		"plugin=/opt/p/libplugin_UCX.so\n"
		"\tlibucp.so.0 => not found\n"
		"\tlibucs.so.0 => not found\n";
	struct probe_ucx_ldd *l = &F->nixl_ucx_ldd;

	fresh();
	CHECK_INT(probe_parse_ucx_ldd(debian, strlen(debian), l), 3);
	CHECK_HAS(l->plugin, "plugins/libplugin_UCX.so");
	CHECK_STR(l->lib[PROBE_UCXLIB_UCP], "/lib/x86_64-linux-gnu/libucp.so.0");
	CHECK_STR(l->lib[PROBE_UCXLIB_UCS], "/lib/x86_64-linux-gnu/libucs.so.0");
	fresh();
	CHECK_INT(probe_parse_ucx_ldd(wheel, strlen(wheel), l), 2);
	CHECK_HAS(l->lib[PROBE_UCXLIB_UCP], ".nixl_cu12.mesonpy.libs/libucp-5e5bd27f");
	CHECK_STR(l->lib[PROBE_UCXLIB_UCT], "");
	CHECK_STR(l->lib[PROBE_UCXLIB_UCS], "/usr/lib64/libucs.so.0");
	fresh();
	CHECK_INT(probe_parse_ucx_ldd(missing, strlen(missing), l), 2);
	CHECK(l->not_found[PROBE_UCXLIB_UCP] && l->not_found[PROBE_UCXLIB_UCS]);
	CHECK(!l->not_found[PROBE_UCXLIB_UCT]);
	CHECK_STR(l->lib[PROBE_UCXLIB_UCP], "");
}

/* The sections through the report framing: rc 127 is ABSENT, the plugin
 * line still counts when ldd is missing. */
static void test_report(void)
{
	static const char rep[] =
		"dynamo-interconnect-probe v1\n"
		"@@@ pci\n0000:18:00.0 0x15b3 0x1021 0x020700\ndevices=3\n@@@ end pci rc=0\n"
		"@@@ shm\n@@@ end shm rc=127\n"
		"@@@ meminfo\nHugePages_Total: 4\nHugePages_Free: 0\n@@@ end meminfo rc=0\n"
		"@@@ nixl_ucx_ldd\nplugin=/opt/p/libplugin_UCX.so\n@@@ end nixl_ucx_ldd rc=127\n"
		"@@@ done\n";
	struct err e;

	fresh();
	CHECK_INT(probe_parse_report(rep, strlen(rep), F, &e), 0);
	CHECK_INT(F->pci.src.status, PROBE_OK);
	CHECK_INT(F->pci.n_ib, 1);
	CHECK_INT(F->shm.src.status, PROBE_ABSENT);
	CHECK(F->shm.size_kb == -1);
	CHECK(F->meminfo.hp_total == 4 && F->meminfo.hp_free == 0);
	CHECK_INT(F->nixl_ucx_ldd.src.status, PROBE_ABSENT);
	CHECK_STR(F->nixl_ucx_ldd.plugin, "/opt/p/libplugin_UCX.so");
}

/* The framing as probe_report_split jumps from "@@@" line to "@@@" line:
 * a "@@@" line that is no marker is body, a new section cuts the open one
 * short, bodies end before the next marker, the last one at the end of the
 * text even without a newline. */
static void test_split(void)
{
	static const char rep[] =
		"dynamo-interconnect-probe v1\n"
		"@@@ a\nx\n@@@ not a marker\ny\n@@@ end a rc=0\n"
		"@@@ b\r\n@@@ end b rc=3\r\n"
		"@@@ c\npart\n@@@ d\nlast";
	struct probe_report r;
	const struct probe_section *s;
	struct err e;

	CHECK_INT(probe_report_split(rep, strlen(rep), &r, &e), 0);
	CHECK_INT(r.nsections, 4);
	s = probe_report_find(&r, "a");
	CHECK(s && s->complete && s->rc == 0 &&
	      s->len == strlen("x\n@@@ not a marker\ny\n") && !memcmp(s->body, "x\n@@@", 5));
	s = probe_report_find(&r, "b");
	CHECK(s && s->complete && s->rc == 3 && s->len == 0);
	s = probe_report_find(&r, "c");
	CHECK(s && !s->complete && s->len == strlen("part\n"));
	s = probe_report_find(&r, "d");
	CHECK(s && !s->complete && s->len == 4 && !memcmp(s->body, "last", 4));
	CHECK(!r.done);
}

/* ps_find anchors memchr on the needle's first non-blank byte; ps_double
 * divides exactly where it can: both must answer as before. */
static void test_ptext(void)
{
	struct pslice l = ps_make("Product Name    :  x : y", 24);
	double d;

	CHECK_INT(ps_find(l, " : "), 15);
	CHECK_INT(ps_find(l, "    :"), 12);
	CHECK_INT(ps_find(l, "  "), 12);
	CHECK_INT(ps_find(l, " z"), -1);
	CHECK_INT(ps_find(ps_make("ab", 2), "abc"), -1);
	CHECK_INT(ps_find(ps_make("a b ", 4), " "), 1);
	CHECK(ps_double(ps_make(" 26.562 ", 8), &d) && d == strtod("26.562", NULL));
	CHECK(ps_double(ps_make("0.1", 3), &d) && d == 0.1);
	CHECK(ps_double(ps_make("400", 3), &d) && d == 400.0);
	CHECK(ps_double(ps_make("1.2.3", 5), &d) && d == 1.2);
	CHECK(ps_double(ps_make("12345678901234567.5", 19), &d) &&
	      d == strtod("12345678901234567.5", NULL));
	CHECK(!ps_double(ps_make("inf", 3), &d));
}

/* ps_long reads digits itself (no copy, no strtol): it must answer what
 * strtol(base 10) gave on the trimmed first 31 bytes, the reader it
 * replaced, for signs, blanks, overflow both ways, junk and long inputs. */
static int long_ref(struct pslice x, long *out)
{
	char buf[32], *end;

	x = ps_trim(x);
	ps_copy(buf, sizeof buf, x);
	if (!buf[0] || (!(buf[0] >= '0' && buf[0] <= '9') && buf[0] != '-' && buf[0] != '+'))
		return 0;
	*out = strtol(buf, &end, 10);
	return end != buf;
}

static void test_ps_long(void)
{
	static const char *const cases[] = {
		"0", "42", " 7 ", "\t-13\r", "+5", "-", "+", "-x", "+-5", "- 5", "12ab",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808",
		"-9223372036854775809", "99999999999999999999999", "abc", "", " ",
		"0000000000000000000000000000000000005", "-0000000000000000000000000000000005",
		"4096 (5)", "0x1f", "1e5", "\v\f8",
	};
	static const char alphabet[] = "0123456789 -+\tx";
	unsigned seed = 12345;
	size_t i;
	int bad = 0;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		long a = 1, b = 1;
		struct pslice x = ps_make(cases[i], strlen(cases[i]));
		int ra = ps_long(x, &a), rb = long_ref(x, &b);

		if (ra != rb || (ra && a != b)) {
			fprintf(stderr, "ps_long(\"%s\"): %d %ld, strtol %d %ld\n",
				cases[i], ra, a, rb, b);
			bad++;
		}
	}
	for (i = 0; i < 20000; i++) {
		char t[40];
		size_t n = (seed = seed * 1103515245u + 12345u) >> 16 & 31, k;
		long a = 1, b = 1;
		int ra, rb;

		for (k = 0; k < n; k++) {
			seed = seed * 1103515245u + 12345u;
			t[k] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
		}
		ra = ps_long(ps_make(t, n), &a);
		rb = long_ref(ps_make(t, n), &b);
		bad += ra != rb || (ra && a != b);
	}
	CHECK_INT(bad, 0);
}

/* ps_find_ci anchors on the needle's first byte in either case. */
static void test_find_ci(void)
{
	struct pslice l = ps_make("  no ib DEVICES Found here", 26);

	CHECK_INT(ps_find_ci(l, "No IB devices found"), 2);
	CHECK_INT(ps_find_ci(l, "HERE"), 22);
	CHECK_INT(ps_find_ci(l, "here!"), -1);
	CHECK_INT(ps_find_ci(ps_make("nnnNo", 5), "no"), 3);
	CHECK_INT(ps_find_ci(ps_make("ab", 2), ""), 0);
	CHECK_INT(ps_find_ci(ps_make("a", 1), "ab"), -1);
}

/* Markers are found by memchr for '@' (report.c): '@' inside bodies, "@@"
 * and "@@@" not at a line start stay body; the first of two sections of
 * one name is the one parsed (facts.c's seen bits). */
static void test_split_at(void)
{
	static const char rep[] =
		"dynamo-interconnect-probe v1\n"
		"@@@ a\nuser@host\n@\n@@\nx@@@ y\n @@@ end a rc=0\n@@@ end a rc=0\n"
		"@@@ kernel\n5.15.0-1\n@@@ end kernel rc=0\n"
		"@@@ kernel\n6.8.0-2\n@@@ end kernel rc=0\n@@";
	struct probe_report r;
	const struct probe_section *s;
	struct err e;

	CHECK_INT(probe_report_split(rep, strlen(rep), &r, &e), 0);
	CHECK_INT(r.nsections, 3);
	s = probe_report_find(&r, "a");
	CHECK(s && s->complete && s->len == strlen("user@host\n@\n@@\nx@@@ y\n @@@ end a rc=0\n"));
	CHECK(r.section[2].len == strlen("6.8.0-2\n") && r.section[2].complete);
	fresh();
	CHECK_INT(probe_parse_report(rep, strlen(rep), F, &e), 0);
	CHECK_STR(F->kernel.release, "5.15.0-1");
	CHECK_INT(F->kernel.major, 5);
}

/* Section mooncake_dist: the METADATA version, else the dist-info name's;
 * the first distribution with a version wins; junk is not kept. */
static void test_mooncake_dist(void)
{
	static const char one[] =
		"dist=mooncake_transfer_engine-0.3.12.post1.dist-info\nversion= 0.3.12.post1\n";
	static const char noline[] =
		"dist=mooncake_transfer_engine_cuda13-0.3.11.post1.dist-info\nversion=\n"
		"dist=mooncake_transfer_engine-0.3.12.dist-info\nversion=0.3.12\n";
	static const char junk[] =
		"dist=mooncake_transfer_engine-x.dist-info\nversion=0.3\033]0;t\007\n"
		"dist=other-1.0.dist-info\nversion=1.0\n";
	static const char cut[] = "dist=mooncake_transfer_engine-0.3.9.dist-info";
	struct probe_mooncake m;

	memset(&m, 0, sizeof m);
	CHECK_INT(probe_parse_mooncake(one, strlen(one), &m), 1);
	CHECK_STR(m.version, "0.3.12.post1");
	CHECK_STR(m.dist, "mooncake_transfer_engine-0.3.12.post1.dist-info");
	memset(&m, 0, sizeof m);
	CHECK_INT(probe_parse_mooncake(noline, strlen(noline), &m), 2);
	CHECK_STR(m.version, "0.3.11.post1");
	CHECK_STR(m.dist, "mooncake_transfer_engine_cuda13-0.3.11.post1.dist-info");
	memset(&m, 0, sizeof m);
	CHECK_INT(probe_parse_mooncake(junk, strlen(junk), &m), 1);
	CHECK_STR(m.version, "");
	memset(&m, 0, sizeof m);
	CHECK_INT(probe_parse_mooncake(cut, strlen(cut), &m), 1);
	CHECK_STR(m.version, "0.3.9");
	memset(&m, 0, sizeof m);
	CHECK_INT(probe_parse_mooncake("", 0, &m), 0);
	CHECK_STR(m.version, "");
}

/* The same section lists the engines' wheels (issue 41): name and
 * version of each known one, mooncake's own facts unchanged; junk names,
 * versions and unknown wheels are not kept; at most PROBE_ENGINE_DISTS. */
static void test_engine_dists(void)
{
	static const char mix[] =
		"dist=vllm-0.11.0+cu129.dist-info\nversion=0.11.0+cu129\n"
		"dist=mooncake_transfer_engine-0.3.12.dist-info\nversion=0.3.12\n"
		"dist=ai_dynamo-1.0.0rc5.dist-info\nversion=\n"
		"dist=ai_dynamo_runtime-1.0.0.dist-info\nversion=1.0.0\n"
		"dist=requests-2.32.0.dist-info\nversion=2.32.0\n"
		"dist=vllm-0.9.0.dist-info\nversion=0.9.0\n"
		"dist=sglang-0.5.4.dist-info\nversion=0.5\033[2J\n"
		"dist=nixl$(id)-1.0.dist-info\nversion=1.0\n"
		"dist=tensorrt_llm-1.2.0rc1.dist-info";
	struct probe_mooncake m;
	char many[2048] = "";

	memset(&m, 0, sizeof m);
	CHECK_INT(probe_parse_mooncake(mix, strlen(mix), &m), 1);
	CHECK_STR(m.version, "0.3.12");
	CHECK_STR(probe_dist_version(&m.engines, "vllm"), "0.11.0+cu129");
	CHECK_STR(probe_dist_version(&m.engines, "mooncake_transfer_engine"), "0.3.12");
	CHECK_STR(probe_dist_version(&m.engines, "ai_dynamo"), "1.0.0rc5");
	CHECK_STR(probe_dist_version(&m.engines, "ai_dynamo_runtime"), "1.0.0");
	CHECK_STR(probe_dist_version(&m.engines, "sglang"), "0.5.4");
	CHECK_STR(probe_dist_version(&m.engines, "tensorrt_llm"), "1.2.0rc1");
	CHECK(probe_dist_version(&m.engines, "requests") == NULL);
	CHECK(probe_dist_version(&m.engines, "nixl") == NULL);
	CHECK(probe_dist_version(&m.engines, "vl") == NULL);
	CHECK_INT(m.engines.n, 6);
	for (int i = 0; i < 12; i++)
		snprintf(many + strlen(many), sizeof many - strlen(many),
			 "dist=mooncake_transfer_engine_v%d-0.%d.dist-info\nversion=0.%d\n", i, i, i);
	memset(&m, 0, sizeof m);
	CHECK_INT(probe_parse_mooncake(many, strlen(many), &m), 12);
	CHECK_STR(m.version, "0.0");
	CHECK_INT(m.engines.n, 8);
	CHECK_INT(m.engines.dropped, 4);
	CHECK_STR(probe_dist_version(&m.engines, "mooncake_transfer_engine_v7"), "0.7");
	CHECK(probe_dist_version(&m.engines, "mooncake_transfer_engine_v8") == NULL);
}

int main(void)
{
	F = probe_facts_new();
	test_pci();
	test_vm();
	test_shm();
	test_meminfo();
	test_ldd();
	test_report();
	test_split();
	test_ptext();
	test_ps_long();
	test_find_ci();
	test_split_at();
	test_mooncake_dist();
	test_engine_dists();
	probe_facts_free(F);
	return T_DONE("test_parsers_host");
}
