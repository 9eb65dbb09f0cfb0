/* Host PCI inventory, /dev/shm size, hugepages and the UCX that NIXL's
 * UCX plugin links (checks.md A8, H3, H4, E1). */
#include <string.h>

#include "internal.h"

#define VENDOR_MELLANOX 0x15b3
#define VENDOR_NVIDIA 0x10de
#define VENDOR_AMAZON 0x1d0f

/* One "0000:17:00.0 0x15b3 0x1021 0x020700" line, as NIXL's hw_info.cpp
 * classifies it. */
static void pci_count(struct pslice line, struct probe_pci *p)
{
	struct pslice rest = line, addr, tok;
	long ven, dev, cls;

	if (!ps_token(&rest, &addr) || !ps_token(&rest, &tok) ||
	    !ps_long_auto(tok, &ven) || !ps_token(&rest, &tok) ||
	    !ps_long_auto(tok, &dev) || !ps_token(&rest, &tok) ||
	    !ps_long_auto(tok, &cls))
		return;
	if (ven == VENDOR_MELLANOX && (cls >> 8) == 0x0207)
		p->n_ib++;
	else if (ven == VENDOR_MELLANOX && (cls >> 8) == 0x0200)
		p->n_mlx_eth++;
	else if (ven == VENDOR_AMAZON && dev >= 0xefa0 && dev <= 0xefa3)
		p->n_efa++;
	else if (ven == VENDOR_NVIDIA &&
		 ((cls >> 8) == 0x0300 || (cls >> 8) == 0x0302))
		p->n_gpu++;
}

int probe_parse_pci(const char *t, size_t n, struct probe_pci *p)
{
	struct ptext it;
	struct pslice line, k, v;
	long x;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		line = ps_trim(line);
		if (ps_split(line, '=', &k, &v)) {
			if (ps_eq(k, "devices") && ps_long(v, &x) && x >= 0 &&
			    x < 1000000)
				p->ndevs = (int)x;
			else if (ps_eq(k, "truncated"))
				p->truncated = 1;
			else if (ps_eq(k, "gpu_path") && p->n_gpu_paths < PROBE_MAX_GPUS)
				ps_copy(p->gpu_path[p->n_gpu_paths++], sizeof p->gpu_path[0], v);
			continue;
		}
		pci_count(line, p);
	}
	return p->n_ib + p->n_mlx_eth + p->n_efa + p->n_gpu;
}

int probe_parse_vm(const char *t, size_t n, struct probe_vm *v)
{
	struct ptext it;
	struct pslice line, k, val;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		if (!ps_split(line, '=', &k, &val))
			continue;
		val = ps_trim(val);
		if (ps_eq(k, "sys_vendor"))
			ps_copy(v->sys_vendor, sizeof v->sys_vendor, val);
		else if (ps_eq(k, "product_name"))
			ps_copy(v->product_name, sizeof v->product_name, val);
		else if (ps_eq(k, "cpu_hypervisor") && val.n == 1 &&
			 (*val.s == '0' || *val.s == '1'))
			v->cpu_hypervisor = *val.s == '1';
		else if (ps_eq(k, "cpu_arm64") && ps_eq(val, "1"))
			v->cpu_arm64 = 1;
	}
	return *v->sys_vendor || *v->product_name;
}

/* A kB figure that fits comfortably (a hostile pod may print anything). */
static int kb_value(struct pslice tok, long long *out)
{
	long v;

	if (!ps_is_digits(tok) || tok.n > 15 || !ps_long(tok, &v))
		return 0;
	*out = v;
	return 1;
}

/* "mount=tmpfs rw,nosuid,nodev,size=65536k,mode=1777": the last mount at
 * /dev/shm is the one the container sees.  *mount_kb: the size, -1 when
 * there is no size= (tmpfs default), -2 when it is no size ("50%"). */
static void shm_mount(struct pslice rest, int *mount_seen, long long *mount_kb)
{
	struct pslice fs, opts, num;
	long long v;
	long off;
	size_t d;

	if (!ps_token(&rest, &fs) || !ps_token(&rest, &opts))
		return;
	*mount_seen = ps_eq(fs, "tmpfs");
	*mount_kb = -1;
	off = ps_find(opts, "size=");
	if (off < 0 || (off > 0 && opts.s[off - 1] != ','))
		return;
	*mount_kb = -2;                 /* size= given, but not a size */
	num = ps_from(opts, (size_t)off + 5);
	for (d = 0; d < num.n && num.s[d] >= '0' && num.s[d] <= '9'; d++)
		;
	/* at most 12 digits, so that v << 20 cannot overflow */
	if (d > 12 || !kb_value(ps_make(num.s, d), &v))
		return;
	switch (d < num.n ? num.s[d] : ',') {
	case 'k': case 'K': *mount_kb = v; break;
	case 'm': case 'M': *mount_kb = v << 10; break;
	case 'g': case 'G': *mount_kb = v << 20; break;
	case ',': *mount_kb = v >> 10; break;
	default: break;                 /* "50%": not a size */
	}
}

/* "Filesystem 1024-blocks Used Available Capacity Mounted on", then
 * "tmpfs 65536 0 65536 0% /dev/shm" (-P keeps it on one line). */
int probe_parse_shm(const char *t, size_t n, struct probe_shm *s)
{
	struct ptext it;
	struct pslice line, rest, tok;
	long long size, used, avail, mount_kb = -1;
	int mount_seen = 0;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		rest = ps_trim(line);
		if (ps_starts(rest, "mount=")) {
			shm_mount(ps_from(rest, 6), &mount_seen, &mount_kb);
			continue;
		}
		if (s->size_kb >= 0)
			continue;
		if (!ps_token(&rest, &tok) || !ps_token(&rest, &tok) ||
		    !kb_value(tok, &size) || !ps_token(&rest, &tok) ||
		    !kb_value(tok, &used) || !ps_token(&rest, &tok) ||
		    !kb_value(tok, &avail))
			continue;
		s->size_kb = size;
		s->avail_kb = avail;
	}
	if (s->size_kb < 0 && mount_seen && mount_kb >= 0)
		s->size_kb = mount_kb;
	else if (s->size_kb < 0 && mount_seen && mount_kb == -1)
		s->tmpfs_default = 1;
	return s->size_kb >= 0 || s->tmpfs_default;
}

int probe_parse_meminfo(const char *t, size_t n, struct probe_meminfo *m)
{
	struct ptext it;
	struct pslice line, k, v, tok;
	long long x;
	int found = 0;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		if (!ps_split(line, ':', &k, &v) || !ps_token(&v, &tok) ||
		    !kb_value(tok, &x))
			continue;
		if (ps_eq(k, "MemTotal"))
			m->mem_total_kb = x;
		else if (ps_eq(k, "HugePages_Total"))
			m->hp_total = x, found = 1;
		else if (ps_eq(k, "HugePages_Free"))
			m->hp_free = x;
		else if (ps_eq(k, "Hugepagesize"))
			m->hp_size_kb = x;
	}
	return found;
}

/* "\tlibucp.so.0 => /opt/x/lib/libucp.so.0 (0x...)" or "=> not found";
 * pip wheels' bundled copies are renamed "libucp-5e5bd27f.so.0.0.0". */
int probe_parse_ucx_ldd(const char *t, size_t n, struct probe_ucx_ldd *l)
{
	static const char *const names[PROBE_UCXLIB_COUNT] = {
		"libucp", "libuct", "libucs",
	};
	struct ptext it;
	struct pslice line, rest, tok;
	long arrow;
	int i, found = 0;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		line = ps_trim(line);
		if (ps_starts(line, "plugin=")) {
			ps_copy(l->plugin, sizeof l->plugin, ps_from(line, 7));
			continue;
		}
		arrow = ps_find(line, "=>");
		if (arrow < 0)
			continue;
		for (i = 0; i < PROBE_UCXLIB_COUNT; i++)
			if (ps_starts(line, names[i]) && line.n > 6 &&
			    (line.s[6] == '.' || line.s[6] == '-'))
				break;
		if (i == PROBE_UCXLIB_COUNT || l->lib[i][0] || l->not_found[i])
			continue;
		rest = ps_trim(ps_from(line, (size_t)arrow + 2));
		if (ps_starts(rest, "not found"))
			l->not_found[i] = 1;
		else if (ps_token(&rest, &tok) && tok.s[0] == '/')
			ps_copy(l->lib[i], sizeof l->lib[i], tok);
		else
			continue;
		found++;
	}
	return found;
}
