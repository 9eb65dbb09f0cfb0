/* Section mooncake_dist (checks.md A9): which Mooncake transfer engine the
 * pod's Python installs, from its dist-info directory name and METADATA
 * Version: line.  Mooncake's automatic GID choice differs by release.
 * The same section lists the engines' own wheels (issue 41, checks.md
 * J5e): their names and versions go to m->engines. */
#include "internal.h"

#include <string.h>

/* A version as PEP 440 spells it ("0.3.12", "0.3.11.post1", "1.0rc1"):
 * digits, letters, '.', '+', '!', '-', '_' and at most 31 of them; anything
 * else is not kept (the value comes from the pod). */
static int version_ok(struct pslice v)
{
	if (!v.n || v.n > 31 || v.s[0] < '0' || v.s[0] > '9')
		return 0;
	for (size_t i = 0; i < v.n; i++) {
		char c = v.s[i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      c == '.' || c == '+' || c == '!' || c == '-' || c == '_'))
			return 0;
	}
	return 1;
}

/* "mooncake_transfer_engine_cuda13-0.3.12.post1.dist-info": the part after
 * the last '-' before ".dist-info" (wheel names escape '-' in the name). */
static struct pslice name_version(struct pslice dir)
{
	static const char suf[] = ".dist-info";
	size_t n = dir.n, i;

	if (n <= sizeof suf - 1 || memcmp(dir.s + n - (sizeof suf - 1), suf, sizeof suf - 1))
		return ps_make(dir.s, 0);
	n -= sizeof suf - 1;
	for (i = n; i > 0 && dir.s[i - 1] != '-'; i--)
		;
	return i ? ps_make(dir.s + i, n - i) : ps_make(dir.s, 0);
}

/* The wheels the section lists for the engine rules: a name in the
 * table, or any mooncake_transfer_engine build (_cuda13, _non_cuda...). */
static const char *const engine_names[] = {
	"vllm", "sglang", "tensorrt_llm", "ai_dynamo", "ai_dynamo_runtime", "nixl", "nixl_cu12", "nixl_cu13",
};

static int engine_name_ok(struct pslice nm)
{
	static const char mc[] = "mooncake_transfer_engine";

	if (nm.n >= sizeof ((struct probe_dist *)0)->name)
		return 0;
	for (size_t i = 0; i < sizeof engine_names / sizeof engine_names[0]; i++)
		if (ps_eq(nm, engine_names[i]))
			return 1;
	if (!ps_starts(nm, mc))
		return 0;
	for (size_t i = sizeof mc - 1; i < nm.n; i++)
		if (!((nm.s[i] >= 'a' && nm.s[i] <= 'z') || (nm.s[i] >= '0' && nm.s[i] <= '9') || nm.s[i] == '_'))
			return 0;
	return 1;
}

const char *probe_dist_version(const struct probe_engine_dists *e, const char *name)
{
	for (int i = 0; e && i < e->n; i++)
		if (!strcmp(e->d[i].name, name))
			return e->d[i].version[0] ? e->d[i].version : NULL;
	return NULL;
}

/* A "dist=" line: a new entry for a known wheel not listed yet, its
 * version the name's until a METADATA one replaces it; the entry, or
 * NULL when the line is not kept. */
static struct probe_dist *engine_dist(struct probe_engine_dists *e, struct pslice dir)
{
	struct pslice ver = name_version(dir), nm;
	struct probe_dist *d;

	if (!ver.n)
		return NULL;
	nm = ps_make(dir.s, (size_t)(ver.s - dir.s) - 1);
	if (!engine_name_ok(nm))
		return NULL;
	for (int i = 0; i < e->n; i++)
		if (ps_eq(nm, e->d[i].name))
			return NULL;    /* the first directory of a name wins */
	if (e->n >= PROBE_ENGINE_DISTS) {
		e->dropped++;
		return NULL;
	}
	d = &e->d[e->n++];
	ps_copy(d->name, sizeof d->name, nm);
	if (version_ok(ver))
		ps_copy(d->version, sizeof d->version, ver);
	return d;
}

int probe_parse_mooncake(const char *t, size_t n, struct probe_mooncake *m)
{
	struct ptext it;
	struct pslice line, k, v, named = { NULL, 0 };
	struct probe_dist *eng = NULL;
	int in_dist = 0;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		if (!ps_split(line, '=', &k, &v))
			continue;
		if (ps_eq(k, "dist"))
			eng = engine_dist(&m->engines, v);
		else if (ps_eq(k, "version") && eng) {
			if (version_ok(v))
				ps_copy(eng->version, sizeof eng->version, v);
			eng = NULL;
		}
		if (ps_eq(k, "dist") && in_dist) {
			/* the last Mooncake directory had no version line: its name's */
			if (version_ok(named))
				ps_copy(m->version, sizeof m->version, named);
			in_dist = 0;
		}
		if (ps_eq(k, "dist") && ps_starts(v, "mooncake_transfer_engine")) {
			m->ndists++;
			in_dist = !m->version[0];
			named = name_version(v);
			if (in_dist)
				ps_copy(m->dist, sizeof m->dist, v);
		} else if (ps_eq(k, "version") && in_dist) {
			if (version_ok(v))
				ps_copy(m->version, sizeof m->version, v);
			else if (version_ok(named))
				ps_copy(m->version, sizeof m->version, named);
			in_dist = 0;
		}
	}
	if (in_dist && version_ok(named))
		ps_copy(m->version, sizeof m->version, named);
	return m->ndists;
}
