/* The report format, and the embedded probe script run on this machine
 * (no GPU, no RDMA): it must parse, and nothing may come back "ok" that is
 * not here, nor any variable outside the transport names. */
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe/facts.h"
#include "probe/report.h"
#include "t.h"

extern const char probe_script[];
extern const size_t probe_script_len;

static void test_report_errors(void)
{
	struct probe_report *r = malloc(sizeof *r);
	struct err e;
	const char *v2 = "dynamo-interconnect-probe v2\n@@@ done\n";
	const char *junk = "OCI runtime exec failed: exec failed: unable to start\n";

	err_clear(&e);
	CHECK_INT(probe_report_split(v2, strlen(v2), r, &e), -1);
	CHECK_HAS(e.msg, "unsupported probe report version \"v2\"");
	CHECK_INT(e.kind, ERR_PROTOCOL);
	CHECK_INT(probe_report_split(junk, strlen(junk), r, &e), -1);
	CHECK_HAS(e.msg, "not a probe report");
	CHECK_INT(probe_report_split("", 0, r, &e), -1);
	CHECK_HAS(e.msg, "not a probe report");
	CHECK_INT(probe_report_split("dynamo-interconnect-probe\n", 26, r, &e), -1);
	CHECK_HAS(e.msg, "unsupported probe report version");
	CHECK_INT(probe_report_split("dynamo-interconnect-probe v1x\n", 30, r, &e), -1);
	CHECK_INT(probe_report_split("\x01\xff\n", 3, r, &e), -1);
	CHECK_HAS(e.msg, "\"??\"");
	free(r);
}

static void test_report_sections(void)
{
	const char *t =
		"\r\ndynamo-interconnect-probe v1\r\n"
		"@@@ ibstat\r\n"
		" @@@ end ibstat rc=0\r\n"      /* escaped tool output */
		"CA 'mlx5_0'\r\n"
		"@@@ end ibstat rc=255\r\n"
		"@@@ ucx_info_d\n"
		"# Memory domain: mlx5_0\n"
		"@@@ nvsmi_topo\n"              /* ucx_info_d cut short */
		"@@@ end nvsmi_topo rc=127\n"
		"@@@ end nosuch rc=0\n"
		"@@@ Bad-Name\n"
		"@@@ ibstat\n@@@ end ibstat rc=0\n"; /* duplicate; no done */
	struct probe_report *r = malloc(sizeof *r);
	const struct probe_section *s;
	struct err e;

	err_clear(&e);
	CHECK_INT(probe_report_split(t, strlen(t), r, &e), 0);
	CHECK_INT(r->version, 1);
	CHECK_INT(r->done, 0);
	CHECK_INT(r->nsections, 4);
	s = probe_report_find(r, "ibstat");
	CHECK_INT(s->rc, 255);
	CHECK_INT(s->complete, 1);
	CHECK_INT((int)s->len, (int)strlen(" @@@ end ibstat rc=0\r\nCA 'mlx5_0'\r\n"));
	s = probe_report_find(r, "ucx_info_d");
	CHECK_INT(s->complete, 0);
	CHECK_INT(s->rc, -1);
	CHECK_INT(probe_report_find(r, "nvsmi_topo")->rc, 127);
	free(r);
}

static void test_report_facts(void)
{
	const char *t =
		"dynamo-interconnect-probe v1\n"
		"@@@ ibstat\nCA 'mlx5_0'\n\tPort 1:\n\t\tState: Active\n"
		"ibpanic: [1] main: stat of IB device 'mlx5_8' failed: No such file\n"
		"@@@ end ibstat rc=255\n"
		"@@@ ucx_info_d\n@@@ end ucx_info_d rc=124\n"
		"@@@ nvsmi_q\n@@@ end nvsmi_q rc=127\n"
		"@@@ gdrdrv\nproc_devices=yes\n@@@ end gdrdrv rc=127\n"
		"@@@ env_pid1\nUCX_TLS=all\nAWS_SECRET_ACCESS_KEY=x\n@@@ end env_pid1 rc=0\n"
		"@@@ future_section\nwhatever\n@@@ end future_section rc=0\n"
		"@@@ done\n";
	struct probe_facts *f = probe_facts_new();
	struct err e;

	err_clear(&e);
	CHECK_INT(probe_parse_report(t, strlen(t), f, &e), 0);
	CHECK_INT(f->complete, 1);
	CHECK_INT(f->ibstat.src.status, PROBE_FAILED);
	CHECK_INT(f->ibstat.src.rc, 255);
	CHECK_HAS(f->ibstat.src.err, "ibpanic");
	CHECK_INT(f->ibstat.ndevs, 1);
	CHECK_INT(f->ibstat.dev[0].port[0].state, PROBE_PORT_ACTIVE);
	CHECK_INT(f->ucx.d_src.status, PROBE_FAILED);
	CHECK_INT(f->ucx.d_src.timed_out, 1);
	CHECK_STR(f->ucx.d_src.err, "timed out");
	CHECK_INT(f->nvsmi.src.status, PROBE_ABSENT);
	CHECK_INT(f->modules.gdrdrv_src.status, PROBE_ABSENT);
	CHECK_INT(f->modules.gdrdrv_in_proc_devices, 1);
	CHECK_INT(f->topo.src.status, PROBE_NOT_LOOKED);
	CHECK_INT((int)f->env.n, 1);
	CHECK(probe_env_get(&f->env, "AWS_SECRET_ACCESS_KEY") == NULL);
	CHECK_STR(probe_status_name(f->topo.src.status), "not looked");
	probe_facts_free(f);
}

/* Runs sh -c SCRIPT with the given PATH; returns the malloc'd stdout. */
static char *run_probe(const char *path, size_t *len)
{
	int fd[2];
	pid_t pid;
	char *out = NULL;
	size_t n = 0, cap = 0;
	ssize_t r;
	int status;

	if (pipe(fd) != 0)
		return NULL;
	pid = fork();
	if (pid == 0) {
		char pathvar[512];
		char *const argv[] = { "sh", "-c", (char *)probe_script, NULL };
		char *envp[] = { pathvar, "SECRET_TOKEN=xyz", "UCX_TLS=rc,cuda_copy", NULL };
		snprintf(pathvar, sizeof pathvar, "PATH=%s", path);
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execve("/bin/sh", argv, envp);
		_exit(127);
	}
	close(fd[1]);
	for (;;) {
		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 65536;
			out = realloc(out, cap + 1);
		}
		r = read(fd[0], out + n, cap - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd[0]);
	waitpid(pid, &status, 0);
	out[n] = '\0';
	*len = n;
	return out;
}

static int line_allowed(const char *s, size_t n)
{
	const char *eq = memchr(s, '=', n);
	return eq && probe_env_allowed(s, (size_t)(eq - s));
}

/* Whether a tool is installed in one of the dirs of path: CI machines get
 * ucx-utils (for the transfer tests), so "absent" cannot be assumed. */
static int tool_on(const char *path, const char *tool)
{
	char dir[256], file[512];
	const char *p = path;

	while (*p) {
		size_t n = strcspn(p, ":");
		if (n < sizeof(dir)) {
			memcpy(dir, p, n);
			dir[n] = '\0';
			snprintf(file, sizeof(file), "%s/%s", dir, tool);
			if (access(file, X_OK) == 0)
				return 1;
		}
		p += n + (p[n] == ':');
	}
	return 0;
}

/* ABSENT exactly when the tool is not installed. */
#define CHECK_ABSENT_UNLESS(path, tool, st) \
	CHECK(tool_on(path, tool) ? (st) != PROBE_ABSENT : (st) == PROBE_ABSENT)

static void check_local_run(const char *path)
{
	size_t len = 0, i;
	char *out = run_probe(path, &len);
	struct probe_report *r = malloc(sizeof *r);
	struct probe_facts *f = probe_facts_new();
	const struct probe_section *env;
	struct err e;

	err_clear(&e);
	CHECK(out != NULL && len > 0);
	if (!out)
		return;
	CHECK(!strncmp(out, "dynamo-interconnect-probe v1\n", 29));
	CHECK_INT(probe_report_split(out, len, r, &e), 0);
	CHECK_INT(r->done, 1);
	CHECK(r->nsections >= 29);
	for (i = 0; i < (size_t)r->nsections; i++)
		CHECK_INT(r->section[i].complete, 1);
	/* Whatever /proc/1/environ holds, only transport names come back. */
	env = probe_report_find(r, "env_pid1");
	CHECK(env != NULL);
	if (env && env->rc == 0) {
		const char *p = env->body, *end = env->body + env->len;
		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t ln = (size_t)((nl ? nl : end) - p);
			if (ln)
				CHECK(line_allowed(p, ln));
			p = nl ? nl + 1 : end;
		}
	}
	CHECK(strstr(out, "SECRET_TOKEN") == NULL);

	CHECK_INT(probe_parse_report(out, len, f, &e), 0);
	CHECK_INT(f->complete, 1);
	/* No GPU, no RDMA here: never "ok" with data.  UCX tools may be
	 * installed (Debian's ucx-utils), the rest are absent. */
	CHECK(f->sysfs_ib.src.status != PROBE_OK || f->sysfs_ib.ndevs == 0);
	CHECK(f->ibstat.src.status != PROBE_OK);
	CHECK(f->ibv_devinfo.src.status != PROBE_OK);
	CHECK_INT(f->nvsmi.src.status, PROBE_ABSENT);
	CHECK_INT(f->topo.src.status, PROBE_ABSENT);
	CHECK_INT(f->nvlink.src.status, PROBE_ABSENT);
	CHECK_ABSENT_UNLESS(path, "ucx_info", f->ucx.v_src.status);
	CHECK_ABSENT_UNLESS(path, "ucx_info", f->ucx.d_src.status);
	CHECK_ABSENT_UNLESS(path, "fi_info", f->fi.src.status);
	CHECK_INT(f->nvdriver.src.status, PROBE_ABSENT);
	CHECK_INT(f->nixl.versions_src.status, PROBE_ABSENT);
	CHECK(f->nixl.python_src.status != PROBE_OK);
	CHECK_INT(f->nixl.python_ok, 0);
	CHECK_INT(f->nvsmi.ngpus, 0);
	CHECK_INT(f->kernel.src.status, PROBE_OK);
	CHECK(f->kernel.major >= 3);
	CHECK(f->timeout_mode[0] != '\0');
	CHECK_INT(f->limits_self.limits_src.status, PROBE_OK);
	CHECK(f->limits_self.memlock_soft != -1);
	CHECK_INT(f->limits_self.have_caps, 1);
	/* A8/H3/H4/E1 sections: the machine's own PCI bus, /dev/shm (df or,
	 * without it, the mount's size=), hugepages; no NIXL plugin here. */
	CHECK_INT(f->pci.src.status, PROBE_OK);
	CHECK(f->pci.ndevs > 0 && f->pci.ndevs <= 256);
	CHECK_INT(f->shm.src.status, PROBE_OK);
	CHECK(f->shm.size_kb > 0 || f->shm.tmpfs_default);
	CHECK_INT(f->meminfo.src.status, PROBE_OK);
	CHECK(f->meminfo.hp_total >= 0 && f->meminfo.mem_total_kb > 0);
	CHECK_INT(f->nixl_ucx_ldd.src.status, PROBE_ABSENT);
	probe_facts_free(f);
	free(r);
	free(out);
}

int main(void)
{
	test_report_errors();
	test_report_sections();
	test_report_facts();
	CHECK(probe_script_len > 1000);
	check_local_run("/usr/bin:/bin");
	/* A near-empty PATH: no grep, awk, timeout, tr... still a valid report. */
	check_local_run("/nonexistent");
	return T_DONE("test_probe_run");
}
