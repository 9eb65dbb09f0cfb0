/* libFuzzer target: arbitrary bytes as a worker's /metrics text (check
 * --observe reads it through the pod proxy: untrusted).  The bytes up to
 * the first NUL are the first read, the rest the second; each is parsed
 * (probe/promtext.c) and the rows O7-O10 judged over the two
 * (check/observed_kv.c).  Aborts when a kept value is not a finite,
 * non-negative number or a detail is empty. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check/observed.h"
#include "probe/promtext.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void sane_or_die(const struct kv_metrics *m)
{
	for (int k = 0; k < KVM__COUNT; k++)
		if (!isfinite(m->v[k]) || m->v[k] < 0)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *t = (const char *)data, *nul = memchr(t, '\0', size);
	size_t a = nul ? (size_t)(nul - t) : size;
	struct observed_kv o = { .endpoints = "fuzz", .window_s = 10, .rails_sampled = 8 };
	struct check_context ctx = { .role = size & 1 ? "decode" : "prefill", .kv_peers_apart = 1 };
	struct check_results r;
	char why[200];

	if (promtext_parse(t, a, &o.start, why, sizeof why) < 0 && !why[0])
		abort();
	if (nul && promtext_parse(nul + 1, size - a - 1, &o.end, why, sizeof why) < 0 && !why[0])
		abort();
	sane_or_die(&o.start);
	sane_or_die(&o.end);
	o.rail_bytes = (int64_t)(size & 2);
	check_results_init(&r);
	check_observed_kv(&o, &ctx, &r);
	for (size_t i = 0; i < r.n; i++)
		if (!r.v[i].detail || !r.v[i].detail[0])
			abort();
	check_results_release(&r);
	return 0;
}
