/* Section mooncake_dist (checks.md A9): which Mooncake transfer engine the
 * pod's Python installs, from its dist-info directory name and METADATA
 * Version: line.  Mooncake's automatic GID choice differs by release. */
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

int probe_parse_mooncake(const char *t, size_t n, struct probe_mooncake *m)
{
	struct ptext it;
	struct pslice line, k, v, named = { NULL, 0 };
	int in_dist = 0;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		if (!ps_split(line, '=', &k, &v))
			continue;
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
