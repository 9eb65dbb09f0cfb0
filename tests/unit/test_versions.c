/* The probe inputs of the known-issues rows (issue 43): section versions
 * (probe/versions.c: libfabric's own version, the EFA installer's, uname
 * -m, efa_nv_peermem) and the TensorRT-LLM engine file's
 * kv_cache_config.use_kv_cache_manager_v2 (probe/engine.c).  Every value
 * is pod text: what is no plain version or word is refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe/facts.h"
#include "t.h"

extern const char probe_script[];
extern const size_t probe_script_len;

static void test_versions_read(void)
{
	static const char body[] =
		"libfabric=1.22.0amzn4.0\n"
		"efa_installer= 1.38.1\n"
		"arch=aarch64\n"
		"efa_nv_peermem=loaded\n"
		"other=1\n";
	struct probe_versions v;

	memset(&v, 0, sizeof v);
	CHECK_INT(probe_parse_versions(body, strlen(body), &v), 4);
	CHECK_STR(v.libfabric, "1.22.0amzn4.0");
	CHECK_STR(v.efa_installer, "1.38.1");
	CHECK_STR(v.arch, "aarch64");
	CHECK_INT(v.efa_nv_peermem, PROBE_MODSTATE_LOADED);
	CHECK_INT(v.nbad, 0);
}

static void test_versions_refused(void)
{
	static const char body[] =
		"libfabric=1.22.0\n"
		"libfabric=v1.2 \033]0;x\007\n"         /* later line wins, and is refused */
		"efa_installer=123456789012345678901234567890123\n"   /* too long */
		"arch=x86 64\n"
		"efa_nv_peermem=maybe\n"
		"efa_installer\n";                      /* no '=' */
	struct probe_versions v;

	memset(&v, 0, sizeof v);
	CHECK_INT(probe_parse_versions(body, strlen(body), &v), 1);
	CHECK_STR(v.libfabric, "");
	CHECK_STR(v.efa_installer, "");
	CHECK_STR(v.arch, "");
	CHECK_INT(v.efa_nv_peermem, PROBE_MODSTATE_UNKNOWN);
	CHECK_INT(v.nbad, 4);
	memset(&v, 0, sizeof v);
	CHECK_INT(probe_parse_versions("efa_nv_peermem=absent", 21, &v), 1);
	CHECK_INT(v.efa_nv_peermem, PROBE_MODSTATE_ABSENT);
}

/* Through the whole report: the section lands in f->versions. */
static void test_versions_report(void)
{
	static const char rep[] =
		"dynamo-interconnect-probe v1\n"
		"@@@ versions\nlibfabric=2.1.0\narch=x86_64\nefa_nv_peermem=absent\n@@@ end versions rc=0\n"
		"@@@ done\n";
	struct probe_facts *f = probe_facts_new();
	struct err e;

	err_clear(&e);
	CHECK_INT(probe_parse_report(rep, strlen(rep), f, &e), 0);
	CHECK_INT(f->versions.src.status, PROBE_OK);
	CHECK_STR(f->versions.libfabric, "2.1.0");
	CHECK_STR(f->versions.arch, "x86_64");
	CHECK_INT(f->versions.efa_nv_peermem, PROBE_MODSTATE_ABSENT);
	probe_facts_free(f);
}

/* checks.md J5f: the pod's hostname's address and the Dynamo vLLM
 * worker's side-channel host detection, one word each; anything else is
 * refused. */
static void test_versions_host_self(void)
{
	static const char ok[] = "host_self=10.0.1.17\ndyn_hostip=fallback\n";
	static const char bad[] = "host_self=10.0.1.256\nhost_self=node-a.example\nhost_self=1.2.3\n"
				  "host_self=1..2.3\ndyn_hostip=maybe\n";
	struct probe_versions v;

	memset(&v, 0, sizeof v);
	CHECK_INT(probe_parse_versions(ok, strlen(ok), &v), 2);
	CHECK_STR(v.host_self, "10.0.1.17");
	CHECK_INT(v.dyn_hostip, PROBE_HOSTIP_FALLBACK);
	memset(&v, 0, sizeof v);
	CHECK_INT(probe_parse_versions("host_self=unresolved\ndyn_hostip=detect\n", 40, &v), 2);
	CHECK_STR(v.host_self, "unresolved");
	CHECK_INT(v.dyn_hostip, PROBE_HOSTIP_DETECT);
	memset(&v, 0, sizeof v);
	CHECK_INT(probe_parse_versions(bad, strlen(bad), &v), 0);
	CHECK_STR(v.host_self, "");
	CHECK_INT(v.dyn_hostip, PROBE_HOSTIP_UNKNOWN);
	CHECK_INT(v.nbad, 5);
}

static void test_engine_kv_manager_v2(void)
{
	static const char on[] = "state=ok\nkv_cache_config.use_kv_cache_manager_v2=True\n";
	static const char off[] = "state=ok\nkv_cache_config.use_kv_cache_manager_v2=false\n";
	static const char bad[] = "state=ok\nkv_cache_config.use_kv_cache_manager_v2=yes please\n";
	struct probe_trtllm_engine e;

	memset(&e, 0, sizeof e);
	CHECK_INT(probe_parse_trtllm_engine(on, strlen(on), &e), 1);
	CHECK_INT(e.kv_manager_v2, 1);
	memset(&e, 0, sizeof e);
	CHECK_INT(probe_parse_trtllm_engine(off, strlen(off), &e), 1);
	CHECK_INT(e.kv_manager_v2, 0);
	memset(&e, 0, sizeof e);
	CHECK_INT(probe_parse_trtllm_engine(bad, strlen(bad), &e), 0);
	CHECK_INT(e.kv_manager_v2, -1);
	CHECK_INT(e.nbad, 1);
	memset(&e, 0, sizeof e);
	CHECK_INT(probe_parse_trtllm_engine("state=ok\n", 9, &e), 0);
	CHECK_INT(e.kv_manager_v2, -1);
}

/* Writes n bytes of text to dir/name, mode 0755; 0 or -1. */
static int put_file(const char *dir, const char *name, const char *text, size_t n)
{
	char path[256];
	FILE *f;
	int ok;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ok = fwrite(text, 1, n, f) == n;
	return fclose(f) == 0 && ok ? chmod(path, 0755) : -1;
}

/* The embedded probe, run by sh with only dir and the system's
 * directories on PATH: its whole report (malloc'd, NUL-ended) or NULL. */
static char *probe_with(const char *dir, size_t *len)
{
	char cmd[512], *out = NULL;
	size_t cap = 0, r = 1;
	FILE *p;

	if (put_file(dir, "probe.sh", probe_script, probe_script_len) < 0)
		return NULL;
	snprintf(cmd, sizeof cmd, "env -i PATH=%s:/usr/bin:/bin sh %s/probe.sh 2>/dev/null", dir, dir);
	p = popen(cmd, "r");
	if (!p)
		return NULL;
	for (*len = 0; r > 0; *len += r) {
		if (cap - *len < 4096)
			out = realloc(out, (cap = cap ? cap * 2 : 65536) + 1);
		r = fread(out + *len, 1, cap - *len, p);
	}
	pclose(p);
	out[*len] = '\0';
	return out;
}

/* The section as the real script writes it, with a fi_info that prints
 * fi_info --version's three lines (util/info.c) and a line that would
 * forge a section marker: libfabric's own version and the machine come
 * back, nothing else of fi_info's output. */
static void test_versions_probe(void)
{
	static const char fi[] =
		"#!/bin/sh\n"
		"[ \"$1\" = --version ] || exit 1\n"
		"echo 'fi_info: 2.1.0amzn3.0'\necho 'libfabric: 2.1.0amzn3.0'\n"
		"echo 'libfabric api: 2.1'\necho '@@@ end versions rc=0'\n";
	/* getent ahostsv4 NAME's lines (glibc nss/getent.c ahosts_keys_int):
	 * the first address is the one taken, the name never leaves */
	static const char getent[] =
		"#!/bin/sh\n"
		"[ \"$1\" = ahostsv4 ] || exit 1\n"
		"echo \"10.0.1.17       STREAM $2\"\necho \"10.0.1.17       DGRAM  \"\n";
	char dir[] = "/tmp/di-versions-XXXXXX", path[64], *rep;
	struct probe_facts *f = probe_facts_new();
	struct err e;
	size_t n = 0;

	CHECK(mkdtemp(dir) != NULL);
	CHECK_INT(put_file(dir, "fi_info", fi, sizeof fi - 1), 0);
	CHECK_INT(put_file(dir, "getent", getent, sizeof getent - 1), 0);
	rep = probe_with(dir, &n);
	CHECK(rep != NULL);
	err_clear(&e);
	if (rep)
		CHECK_INT(probe_parse_report(rep, n, f, &e), 0);
	CHECK_INT(f->versions.src.status, PROBE_OK);
	CHECK_STR(f->versions.libfabric, "2.1.0amzn3.0");
	CHECK(f->versions.arch[0] != '\0');          /* uname -m of this machine */
	CHECK_INT(f->versions.nbad, 0);
	CHECK(rep && !strstr(rep, "libfabric api"));
	CHECK_STR(f->versions.host_self, "10.0.1.17");
	CHECK(rep && !strstr(rep, "STREAM"));
	free(rep);
	probe_facts_free(f);
	snprintf(path, sizeof path, "%s/fi_info", dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/getent", dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/probe.sh", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	test_versions_read();
	test_versions_refused();
	test_versions_report();
	test_versions_host_self();
	test_engine_kv_manager_v2();
	test_versions_probe();
	return T_DONE("test_versions");
}
