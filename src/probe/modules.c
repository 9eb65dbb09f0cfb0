/* Kernel modules (B1, C1): /proc/modules or lsmod lines, /sys/module,
 * /sys/kernel/mm/memory_peers, /dev/gdrdrv; and the NVIDIA driver flavour. */
#include "internal.h"

#include <string.h>

static const char *const mod_names[PROBE_MOD_COUNT] = {
	"nvidia", "nvidia_peermem", "nv_peer_mem", "gdrdrv", "efa", "ib_core",
	"ib_uverbs", "mlx5_ib", "mlx5_core", "nvidia_uvm", "nvidia_fs",
};

const char *probe_module_name(enum probe_module m)
{
	return (unsigned)m < PROBE_MOD_COUNT ? mod_names[m] : "?";
}

static int mod_index(struct pslice name)
{
	int i;

	for (i = 0; i < PROBE_MOD_COUNT; i++)
		if (ps_eq(name, mod_names[i]))
			return i;
	return -1;
}

static int mod_name_ok(struct pslice x)
{
	size_t i;

	for (i = 0; i < x.n; i++) {
		char c = x.s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_'))
			return 0;
	}
	return x.n > 0;
}

/* A module that uses another ("ib_core ... 9 rdma_cm,nvidia_peermem,...")
 * is loaded itself, even when grep cut its own line. */
static void users(struct probe_modules *m, struct pslice list)
{
	struct pslice k, v;
	int i;

	while (list.n) {
		if (!ps_split(list, ',', &k, &v)) {
			k = list;
			v = ps_make(list.s + list.n, 0);
		}
		if ((i = mod_index(k)) >= 0)
			m->loaded[i] = m->in_proc[i] = 1;
		list = v;
	}
}

/* /proc/modules: "name size refs deps state addr"; lsmod: "name size refs
 * [users]".  Shell prompts and other lines fail the name/size test. */
int probe_parse_modules(const char *t, size_t n, struct probe_modules *m)
{
	struct ptext it;
	struct pslice line, rest, name, size, tok;
	int count = 0, i, field;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		rest = line;
		if (!ps_token(&rest, &name) || !mod_name_ok(name) ||
		    !ps_token(&rest, &size) || !ps_is_digits(size))
			continue;
		count++;
		i = mod_index(name);
		if (i >= 0)
			m->loaded[i] = m->in_proc[i] = 1;
		for (field = 3; ps_token(&rest, &tok); field++) {
			if (field == 4)
				users(m, tok);
			else if (field == 5 && i >= 0 && ps_eq(tok, "Live"))
				m->live[i] = 1;
		}
	}
	return count;
}

/* "name" or "name version=X" for each /sys/module/<name> that exists. */
int probe_parse_sys_module(const char *t, size_t n, struct probe_modules *m)
{
	struct ptext it;
	struct pslice line, rest, name, tok;
	int count = 0, i;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		rest = line;
		if (!ps_token(&rest, &name) || (i = mod_index(name)) < 0)
			continue;
		count++;
		m->loaded[i] = m->in_sys[i] = 1;
		while (ps_token(&rest, &tok))
			if (ps_starts(tok, "version="))
				ps_copy(m->version[i], sizeof m->version[i], ps_from(tok, 8));
	}
	return count;
}

int probe_parse_memory_peers(const char *t, size_t n, struct probe_modules *m)
{
	struct ptext it;
	struct pslice line, rest, name, tok;
	int count = 0;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		rest = line;
		if (!ps_token(&rest, &name))
			continue;
		count++;
		if (!ps_eq(name, "nv_mem"))
			continue;
		m->nv_mem_peer = 1;
		while (ps_token(&rest, &tok))
			if (ps_starts(tok, "version="))
				ps_copy(m->nv_mem_version, sizeof m->nv_mem_version,
					ps_from(tok, 8));
	}
	return count;
}

/* "key=value" lines, each handed to fn; returns how many there were. */
static int kv_lines(const char *t, size_t n,
		    void (*fn)(struct pslice k, struct pslice v, void *arg),
		    void *arg)
{
	struct ptext it;
	struct pslice line, k, v;
	int count = 0;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line))
		if (ps_split(line, '=', &k, &v)) {
			count++;
			fn(k, v, arg);
		}
	return count;
}

static void gdrdrv_kv(struct pslice k, struct pslice v, void *arg)
{
	struct probe_modules *m = arg;

	if (ps_eq(k, "dev"))
		m->gdrdrv_dev = ps_eq(v, "char");
	else if (ps_eq(k, "proc_devices"))
		m->gdrdrv_in_proc_devices = ps_eq(v, "yes");
}

int probe_parse_gdrdrv(const char *t, size_t n, struct probe_modules *m)
{
	return kv_lines(t, n, gdrdrv_kv, m);
}

static void nvdev_kv(struct pslice k, struct pslice v, void *arg)
{
	struct probe_nvdev *d = arg;
	long x;

	if (ps_eq(k, "nvidiactl"))
		d->nvidiactl = ps_eq(v, "char");
	else if (ps_eq(k, "gpus") && ps_long(v, &x) && x >= 0)
		d->ngpu_nodes = x < 1024 ? (int)x : 1024;
}

int probe_parse_nvdev(const char *t, size_t n, struct probe_nvdev *d)
{
	return kv_lines(t, n, nvdev_kv, d);
}

/* "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  535.161.08 ..."
 * or "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.129.03 ...". */
int probe_parse_nvdriver(const char *t, size_t n, struct probe_nvdriver *d)
{
	struct ptext it;
	struct pslice line, rest, tok;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		long at = ps_find(line, "Kernel Module");
		if (!ps_starts(ps_trim(line), "NVRM version:") || at < 0)
			continue;
		d->open_module = ps_find(line, "Open Kernel Module") >= 0;
		rest = ps_from(line, (size_t)at);
		while (ps_token(&rest, &tok)) {
			long dot = ps_find(tok, ".");
			if (dot > 0 && ps_is_digits(ps_make(tok.s, (size_t)dot))) {
				ps_copy(d->version, sizeof d->version, tok);
				break;
			}
		}
		return 1;
	}
	return 0;
}

int probe_parse_kernel(const char *t, size_t n, struct probe_kernel *k)
{
	struct ptext it;
	struct pslice line, rest, tok;
	long x;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		rest = line;
		if (!ps_token(&rest, &tok))
			continue;
		ps_copy(k->release, sizeof k->release, tok);
		if (ps_long(tok, &x) && x >= 0 && x < 1000) {
			long dot = ps_find(tok, ".");
			k->major = (int)x;
			if (dot > 0 && ps_long(ps_from(tok, (size_t)dot + 1), &x) && x >= 0)
				k->minor = (int)(x < 1000 ? x : 999);
		}
		return 1;
	}
	return 0;
}
