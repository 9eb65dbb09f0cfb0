/* Section versions (issue 43): the versions and the module the
 * known-issues rows key on that no other section reads (docs/product.md):
 * libfabric's own version, the AWS EFA installer's, the machine and
 * whether efa_nv_peermem is loaded.  Every line is pod text: a value that
 * is no plain version or word is refused here again, unknown lines are
 * ignored. */
#include "internal.h"

#include <string.h>

/* A version as the tools print it ("1.22.0amzn4.0", "1.38.1", "2.1.0a1"):
 * a digit first, then digits, letters, '.', '+', '-', '_', '~'; fewer than
 * max bytes. */
static int version_ok(struct pslice v, size_t max)
{
	if (!v.n || v.n >= max || v.s[0] < '0' || v.s[0] > '9')
		return 0;
	for (size_t i = 0; i < v.n; i++) {
		char c = v.s[i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      c == '.' || c == '+' || c == '-' || c == '_' || c == '~'))
			return 0;
	}
	return 1;
}

/* uname -m: x86_64, aarch64, ppc64le, ... (letters, digits, '_'). */
static int arch_ok(struct pslice v, size_t max)
{
	if (!v.n || v.n >= max)
		return 0;
	for (size_t i = 0; i < v.n; i++)
		if (!((v.s[i] >= '0' && v.s[i] <= '9') || (v.s[i] >= 'a' && v.s[i] <= 'z') ||
		      v.s[i] == '_'))
			return 0;
	return 1;
}

/* Copies v into dst (size max) when ok says it is plain, else empties
 * dst and counts it refused. */
static int take(char *dst, size_t max, struct pslice v, int (*ok)(struct pslice, size_t),
		int *nbad)
{
	if (ok(v, max)) {
		ps_copy(dst, max, v);
		return 1;
	}
	dst[0] = '\0';
	(*nbad)++;
	return 0;
}

static int module_state(struct probe_versions *v, struct pslice w)
{
	if (ps_eq(w, "loaded"))
		v->efa_nv_peermem = PROBE_MODSTATE_LOADED;
	else if (ps_eq(w, "absent"))
		v->efa_nv_peermem = PROBE_MODSTATE_ABSENT;
	else {
		v->efa_nv_peermem = PROBE_MODSTATE_UNKNOWN;
		v->nbad++;
		return 0;
	}
	return 1;
}

int probe_parse_versions(const char *t, size_t n, struct probe_versions *v)
{
	struct ptext it;
	struct pslice line, k, val;
	int got = 0;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		if (!ps_split(line, '=', &k, &val))
			continue;
		if (ps_eq(k, "libfabric"))
			got += take(v->libfabric, sizeof v->libfabric, val, version_ok, &v->nbad);
		else if (ps_eq(k, "efa_installer"))
			got += take(v->efa_installer, sizeof v->efa_installer, val, version_ok, &v->nbad);
		else if (ps_eq(k, "arch"))
			got += take(v->arch, sizeof v->arch, val, arch_ok, &v->nbad);
		else if (ps_eq(k, "efa_nv_peermem"))
			got += module_state(v, val);
	}
	return got;
}
