/* nvidia-smi -q (D3, H6): driver version, GPUs, and each GPU's Fabric block.
 * The probe filters the output in the pod to the top-level lines, the
 * indent-4 lines and the fabric keys; the full output parses the same. */
#include "internal.h"

#include <string.h>

static struct probe_gpu *new_gpu(struct probe_nvsmi *s, struct pslice bus)
{
	struct probe_gpu *g;

	if (s->ngpus >= PROBE_MAX_GPUS) {
		s->dropped++;
		return NULL;
	}
	g = &s->gpu[s->ngpus++];
	memset(g, 0, sizeof *g);
	ps_copy(g->bus_id, sizeof g->bus_id, bus);
	return g;
}

static enum probe_fabric_state fabric_state(struct pslice v)
{
	if (ps_eq_ci(v, "N/A"))
		return PROBE_FABRIC_NA;
	if (ps_eq_ci(v, "Not Started"))
		return PROBE_FABRIC_NOT_STARTED;
	if (ps_eq_ci(v, "In Progress"))
		return PROBE_FABRIC_IN_PROGRESS;
	if (ps_eq_ci(v, "Completed"))
		return PROBE_FABRIC_COMPLETED;
	return v.n ? PROBE_FABRIC_OTHER : PROBE_FABRIC_UNKNOWN;
}

/* "Key   : Value"; the separator is " : " so that bus ids keep their colons.
 * The key keeps the padding before " : " (nvidia-smi pads keys to column
 * 42): key_is() compares it, so no line pays for trimming it. */
static int kv(struct pslice line, struct pslice *k, struct pslice *v)
{
	long at = ps_find(line, " : ");

	if (at < 0) {
		struct pslice t = ps_trim(line);
		if (t.n && t.s[t.n - 1] == ':') {  /* "Key :" with an empty value */
			*k = ps_trim(ps_make(t.s, t.n - 1));
			*v = ps_make(t.s + t.n, 0);
			return 1;
		}
		return 0;
	}
	*k = ps_make(line.s, (size_t)at);
	while (k->n && ptext_blank((unsigned char)k->s[0])) {
		k->s++;
		k->n--;
	}
	*v = ps_trim(ps_from(line, (size_t)at + 3));
	return 1;
}

/* k (no leading blanks, maybe padded after) is lit: lit, then only blanks. */
static inline int key_is(struct pslice k, const char *lit)
{
	size_t n = strlen(lit), i;

	if (k.n < n || memcmp(k.s, lit, n))
		return 0;
	for (i = n; i < k.n; i++)
		if (!ptext_blank((unsigned char)k.s[i]))
			return 0;
	return 1;
}

static void fabric_kv(struct probe_gpu *g, struct pslice k, struct pslice v)
{
	if (key_is(k, "State")) {
		g->fabric_state = fabric_state(v);
		ps_copy(g->fabric_state_str, sizeof g->fabric_state_str, v);
	} else if (key_is(k, "Status")) {
		ps_copy(g->fabric_status, sizeof g->fabric_status, v);
	} else if (key_is(k, "CliqueId")) {
		ps_copy(g->clique_id, sizeof g->clique_id, v);
	} else if (key_is(k, "ClusterUUID")) {
		ps_copy(g->cluster_uuid, sizeof g->cluster_uuid, v);
	} else if (key_is(k, "Summary")) {
		ps_copy(g->health_summary, sizeof g->health_summary, v);
	} else if (key_is(k, "Bandwidth")) {
		ps_copy(g->health_bandwidth, sizeof g->health_bandwidth, v);
	}
}

int probe_parse_nvsmi_q(const char *t, size_t n, struct probe_nvsmi *s)
{
	struct ptext it;
	struct pslice line, k = { NULL, 0 }, v = { NULL, 0 }, tl;
	struct probe_gpu *g = NULL;
	int in_fabric = 0;
	long x;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		size_t ind = ps_indent(line);
		int is_kv;

		tl = ps_trim(line);
		if (!tl.n || tl.s[0] == '#' || ps_eq(tl, "--"))
			continue;
		if (ind <= 4)
			in_fabric = 0;
		is_kv = kv(line, &k, &v);   /* once: the branches below test it */
		if (ind == 0 && ps_starts(tl, "GPU ") && ps_find(tl, " : ") < 0) {
			g = new_gpu(s, ps_trim(ps_from(tl, 4)));
		} else if (ind == 0 && is_kv) {
			if (key_is(k, "Driver Version"))
				ps_copy(s->driver_version, sizeof s->driver_version, v);
			else if (key_is(k, "CUDA Version"))
				ps_copy(s->cuda_version, sizeof s->cuda_version, v);
			else if (key_is(k, "Attached GPUs") && ps_long(v, &x))
				s->attached = (int)x;
		} else if (ind > 0 && ind <= 4 && ps_eq(tl, "Fabric")) {
			/* An excerpt may start at the Fabric block (grep -C). */
			if (!g)
				g = new_gpu(s, ps_make("", 0));
			in_fabric = g != NULL;
		} else if (in_fabric && g && is_kv) {
			fabric_kv(g, k, v);
		} else if (g && ind <= 4 && is_kv) {
			if (key_is(k, "Product Name"))
				ps_copy(g->name, sizeof g->name, v);
			else if (key_is(k, "GPU UUID"))
				ps_copy(g->uuid, sizeof g->uuid, v);
		}
	}
	return s->ngpus;
}
