/* Section versions (issue 43): the versions and the module the
 * known-issues rows key on that no other section reads (docs/product.md):
 * libfabric's own version, the AWS EFA installer's, the machine and
 * whether efa_nv_peermem is loaded; and (issue 41, checks.md J5f) the
 * address the pod's own hostname resolves to and which side-channel host
 * detection its Dynamo vLLM worker has.  Every line is pod text: a value that
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

/* A dotted IPv4 address ("10.0.1.17"): four numbers 0-255, or the
 * word "unresolved". */
static int host_ok(struct pslice v, size_t max)
{
	int dots = 0, digits = 0, num = 0;

	if (ps_eq(v, "unresolved"))
		return v.n < max;
	if (!v.n || v.n >= max)
		return 0;
	for (size_t i = 0; i < v.n; i++) {
		if (v.s[i] == '.' && digits) {
			dots++, digits = 0, num = 0;
		} else if (v.s[i] >= '0' && v.s[i] <= '9' && digits < 3) {
			num = num * 10 + (v.s[i] - '0');
			digits++;
			if (num > 255)
				return 0;
		} else
			return 0;
	}
	return dots == 3 && digits;
}

/* One of two words into *out (their values), else unknown (0) and refused. */
static int two_words(struct pslice w, const char *a, int va, const char *b, int vb, int *out, int *nbad)
{
	if (ps_eq(w, a))
		*out = va;
	else if (ps_eq(w, b))
		*out = vb;
	else {
		*out = 0;
		(*nbad)++;
		return 0;
	}
	return 1;
}

int probe_parse_versions(const char *t, size_t n, struct probe_versions *v)
{
	struct ptext it;
	struct pslice line, k, val;
	int got = 0, mod;

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
		else if (ps_eq(k, "efa_nv_peermem")) {
			got += two_words(val, "loaded", PROBE_MODSTATE_LOADED, "absent", PROBE_MODSTATE_ABSENT,
					 &mod, &v->nbad);
			v->efa_nv_peermem = (enum probe_modstate)mod;
		} else if (ps_eq(k, "host_self"))
			got += take(v->host_self, sizeof v->host_self, val, host_ok, &v->nbad);
		else if (ps_eq(k, "dyn_hostip")) {
			got += two_words(val, "detect", PROBE_HOSTIP_DETECT, "fallback", PROBE_HOSTIP_FALLBACK,
					 &mod, &v->nbad);
			v->dyn_hostip = (enum probe_hostip)mod;
		}
	}
	return got;
}
