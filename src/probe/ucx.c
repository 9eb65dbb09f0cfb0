/* ucx_info -v (E2) and ucx_info -d (B1b, B2, C2, E3).  Lines start with '#'
 * in both; prompt lines and other tools' output around them are skipped. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"

static const char *const tl_names[PROBE_TL_COUNT] = {
	"cuda_copy", "cuda_ipc", "gdr_copy", "rc_mlx5", "dc_mlx5", "ud_mlx5",
	"rc_verbs", "ud_verbs", "tcp", "srd", "posix", "sysv", "cma", "self",
};

const char *probe_ucx_tl_name(enum probe_ucx_tl t)
{
	return (unsigned)t < PROBE_TL_COUNT ? tl_names[t] : "?";
}

/* configure switches: name as in --with-NAME / --without-NAME. */
static const struct { const char *opt; enum probe_ucx_feature f; } features[] = {
	{ "cuda", PROBE_UCXF_CUDA }, { "gdrcopy", PROBE_UCXF_GDRCOPY },
	{ "verbs", PROBE_UCXF_VERBS }, { "mlx5-dv", PROBE_UCXF_MLX5 },
	{ "mlx5", PROBE_UCXF_MLX5 }, { "rdmacm", PROBE_UCXF_RDMACM },
	{ "efa", PROBE_UCXF_EFA }, { "knem", PROBE_UCXF_KNEM },
	{ "xpmem", PROBE_UCXF_XPMEM }, { "rocm", PROBE_UCXF_ROCM },
};

static void configure_flags(struct probe_ucx *u, struct pslice v)
{
	struct pslice rest = v, tok, name;
	size_t i;

	while (ps_token(&rest, &tok)) {
		enum probe_cfg how;
		if (ps_starts(tok, "--without-")) {
			how = PROBE_CFG_WITHOUT;
			name = ps_from(tok, 10);
		} else if (ps_starts(tok, "--with-")) {
			how = PROBE_CFG_WITH;
			name = ps_from(tok, 7);
		} else {
			continue;
		}
		if (ps_find(name, "=") >= 0) {
			long eq = ps_find(name, "=");
			struct pslice val = ps_from(name, (size_t)eq + 1);
			name.n = (size_t)eq;
			if (ps_eq(val, "no"))
				how = PROBE_CFG_WITHOUT;
		}
		for (i = 0; i < sizeof features / sizeof features[0]; i++)
			if (ps_eq(name, features[i].opt))
				u->feature[features[i].f] = how;
	}
}

static void version(struct probe_ucx *u, struct pslice v)
{
	long x;
	struct pslice rest = v, tok;

	if (!ps_token(&rest, &tok))
		return;
	ps_copy(u->version, sizeof u->version, tok);
	u->major = ps_long(tok, &x) ? (int)x : -1;
	for (int part = 1; part <= 2; part++) {
		long dot = ps_find(tok, ".");
		if (dot < 0)
			break;
		tok = ps_from(tok, (size_t)dot + 1);
		if (!ps_long(tok, &x))
			break;
		*(part == 1 ? &u->minor : &u->patch) = (int)x;
	}
}

/* x is all of the alphabet set (and not longer than max)? */
static int all_of(struct pslice x, const char *set, size_t max)
{
	if (x.n > max)
		return 0;
	for (size_t i = 0; i < x.n; i++)
		if (!x.s[i] || !strchr(set, x.s[i]))
			return 0;
	return 1;
}

/* "# Git branch 'B', revision R" (UCX's src/tools/info/version_info.c
 * prints UCX_GIT_BRANCH and UCX_GIT_REVISION): 1 when line is one. */
static int git_line(struct probe_ucx *u, struct pslice line)
{
	struct pslice rest, branch;
	long q, r;

	line = ps_trim(line);
	if (!ps_starts(line, "# Git branch '"))
		return 0;
	rest = ps_from(line, strlen("# Git branch '"));
	if ((q = ps_find(rest, "'")) < 0)
		return 1;
	branch = ps_make(rest.s, (size_t)q);
	if (all_of(branch, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/+-",
		   sizeof u->git_branch - 1))
		ps_copy(u->git_branch, sizeof u->git_branch, branch);
	rest = ps_from(rest, (size_t)q + 1);
	if ((r = ps_find(rest, "revision ")) < 0)
		return 1;
	rest = ps_trim(ps_from(rest, (size_t)r + strlen("revision ")));
	if (rest.n >= 4 && all_of(rest, "0123456789abcdef", sizeof u->revision - 1))
		ps_copy(u->revision, sizeof u->revision, rest);
	return 1;
}

/* "# Key: value" -> key and value; 0 for other lines. */
static int hash_kv(struct pslice line, struct pslice *k, struct pslice *v)
{
	line = ps_trim(line);
	if (!ps_starts(line, "#"))
		return 0;
	return ps_split(ps_from(line, 1), ':', k, v);
}

int probe_parse_ucx_v(const char *t, size_t n, struct probe_ucx *u)
{
	struct ptext it;
	struct pslice line, k, v;
	int found = 0;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		if (git_line(u, line) || !hash_kv(line, &k, &v))
			continue;
		if (ps_eq(k, "Library version") || ps_eq(k, "UCT version")) {
			version(u, v);
			found = 1;
		} else if (ps_eq(k, "Library path")) {
			ps_copy(u->library_path, sizeof u->library_path, v);
		} else if (ps_eq(k, "Configured with")) {
			free(u->configured);
			u->configured = xstrndup(v.s, v.n < 4096 ? v.n : 4096);
			configure_flags(u, v);
		}
	}
	return found;
}

/* "host (access,reg,cache), cuda (access,alloc,reg,detect), cuda-managed (...)" */
static void memory_types(struct probe_ucx_md *md, struct pslice v)
{
	while (v.n) {
		long open = ps_find(v, "("), close;
		struct pslice name, flags;
		if (open < 0)
			break;
		name = ps_trim(ps_make(v.s, (size_t)open));
		while (name.n && name.s[0] == ',')
			name = ps_trim(ps_from(name, 1));
		flags = ps_from(v, (size_t)open + 1);
		close = ps_find(flags, ")");
		if (close < 0)
			close = (long)flags.n;
		flags.n = (size_t)close;
		if (ps_eq(name, "host")) {
			md->host = 1;
		} else if (ps_eq(name, "cuda")) {
			md->cuda = 1;
			md->cuda_dmabuf = ps_find(flags, "dmabuf") >= 0;
			ps_copy(md->cuda_flags, sizeof md->cuda_flags, flags);
		}
		v = ps_from(v, (size_t)open + 1 + (size_t)close + 1);
	}
}

/* "unlimited, dmabuf, cost: 180 nsec": UCX's tl_info.c prints ", dmabuf"
 * after the size limit when the md has UCT_MD_FLAG_REG_DMABUF. */
static int register_dmabuf(struct pslice v)
{
	struct pslice tok;

	while (v.n) {
		long comma = ps_find(v, ",");
		size_t len = comma >= 0 ? (size_t)comma : v.n;

		tok = ps_trim(ps_make(v.s, len));
		if (ps_eq(tok, "dmabuf"))
			return 1;
		v = ps_from(v, comma >= 0 ? len + 1 : len);
	}
	return 0;
}

static struct probe_ucx_md *new_md(struct probe_ucx *u, struct pslice name)
{
	struct probe_ucx_md *md;

	if (!(md = probe_ucx_md_add(u))) {
		u->mds_dropped++;
		return NULL;
	}
	ps_copy(md->name, sizeof md->name, name);
	return md;
}

static struct probe_ucx_tl_entry *new_tl(struct probe_ucx *u, struct pslice name,
					 const struct probe_ucx_md *md)
{
	struct probe_ucx_tl_entry *tl;
	int i;

	for (i = 0; i < PROBE_TL_COUNT; i++)
		if (ps_eq(name, tl_names[i]))
			u->tl_count[i]++;
	if (!(tl = probe_ucx_tl_add(u))) {
		u->tls_dropped++;
		return NULL;
	}
	ps_copy(tl->name, sizeof tl->name, name);
	if (md)
		memcpy(tl->md, md->name, sizeof tl->md);
	return tl;
}

static void summarise(struct probe_ucx *u)
{
	int i;

	u->n_ib_mds = u->n_ib_mds_cuda = u->n_ib_mds_dmabuf = 0;
	u->cuda_cpy_dmabuf = -1;
	for (i = 0; i < u->nmds; i++) {
		const struct probe_ucx_md *md = &u->md[i];
		if (!strcmp(md->component, "ib")) {
			u->n_ib_mds++;
			u->n_ib_mds_cuda += md->cuda;
			u->n_ib_mds_dmabuf += md->reg_dmabuf;
		}
		if (!strcmp(md->component, "cuda_cpy") || !strcmp(md->name, "cuda_cpy"))
			u->cuda_cpy_dmabuf = md->cuda_dmabuf;
	}
}

/* Could the "# Key: value" line carry one of the keys probe_parse_ucx_d
 * reads?  Its key's first byte says: most lines of ucx_info -d (bandwidth,
 * latency, capabilities, addresses...) are then skipped before the line
 * is split and trimmed. */
static int ucx_d_candidate(struct pslice line)
{
	size_t i = 0;

	while (i < line.n && ptext_blank((unsigned char)line.s[i]))
		i++;
	if (i == line.n || line.s[i++] != '#')
		return 0;
	while (i < line.n && ptext_blank((unsigned char)line.s[i]))
		i++;
	if (i == line.n)
		return 0;
	switch (line.s[i]) {
	case 'M': case 'C': case 'r': case 'm': case 'T': case 'D':
		return 1;
	}
	return 0;
}

int probe_parse_ucx_d(const char *t, size_t n, struct probe_ucx *u)
{
	struct ptext it;
	struct pslice line, k, v;
	struct probe_ucx_md *md = NULL;
	struct probe_ucx_tl_entry *tl = NULL;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		if (!ucx_d_candidate(line) || !hash_kv(line, &k, &v))
			continue;
		if (ps_eq(k, "Memory domain")) {
			md = new_md(u, v);
			tl = NULL;
		} else if (ps_eq(k, "Component") && md) {
			ps_copy(md->component, sizeof md->component, v);
		} else if (ps_eq(k, "register") && md) {
			md->reg_dmabuf = register_dmabuf(v);
		} else if (ps_eq(k, "memory types") && md) {
			memory_types(md, v);
		} else if (ps_eq(k, "Transport")) {
			tl = new_tl(u, v, md);
		} else if (ps_eq(k, "Device") && tl) {
			ps_copy(tl->device, sizeof tl->device, v);
		} else if (ps_eq(k, "Type") && tl) {
			ps_copy(tl->type, sizeof tl->type, v);
		}
	}
	summarise(u);
	return u->ntls;
}

/* ---- ucx_modules: the transport modules UCX's loader will find ------- */

static void module_add(struct probe_ucx_modules *m, struct pslice file)
{
	long so = ps_find(file, ".so");
	char name[sizeof m->mod[0]];
	int i;

	if (so <= 0 || !ps_starts(file, "libuct_"))
		return;
	ps_copy(name, sizeof name, ps_make(file.s, (size_t)so));
	for (i = 0; i < m->nmods; i++)
		if (!strcmp(m->mod[i], name))
			return;
	if (m->nmods >= PROBE_MAX_UCX_MODULES) {
		m->dropped++;
		return;
	}
	memcpy(m->mod[m->nmods++], name, sizeof name);
	/* Newer UCX builds the mlx5 transports (rc/dc/ud_mlx5) as their own
	 * module, libuct_ib_mlx5 (src/uct/ib/mlx5/Makefile.am), beside
	 * libuct_ib (verbs); older ones have libuct_ib alone. */
	if (!strcmp(name, "libuct_ib") || !strcmp(name, "libuct_ib_mlx5"))
		m->ib = 1;
	else if (!strcmp(name, "libuct_cuda"))
		m->cuda = 1;
	else if (!strcmp(name, "libuct_cuda_gdrcopy"))
		m->gdrcopy = 1;
}

static void module_dir(struct probe_ucx_modules *m, struct pslice k,
		       struct pslice v)
{
	static const struct { const char *key; enum probe_ucx_mod_dir kind; } kinds[] = {
		{ "libucs_dir", PROBE_UCXMOD_LIBUCS }, { "wheel_dir", PROBE_UCXMOD_WHEEL },
		{ "env_dir", PROBE_UCXMOD_ENV },
	};
	size_t i;

	for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (ps_eq(k, kinds[i].key) && !m->dir[0] && v.n) {
			ps_copy(m->dir, sizeof m->dir, v);
			m->kind = kinds[i].kind;
		}
}

int probe_parse_ucx_modules(const char *t, size_t n, struct probe_ucx_modules *m)
{
	struct ptext it;
	struct pslice line, k, v;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		if (!ps_split(line, '=', &k, &v))
			continue;
		if (ps_eq(k, "module"))
			module_add(m, v);
		else
			module_dir(m, k, v);
	}
	return m->nmods;
}
