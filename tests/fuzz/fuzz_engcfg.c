/* libFuzzer target: one role's engine config (model/engcfg.c: the flags,
 * --kv-transfer-config and --kv-events-config through cJSON, shell-escaped
 * JSON) and the pair rules over two of them, all on pod text (a container's
 * command and args).  The bytes up to the first NUL are the prefill's
 * args, the rest the decode's; the model kind comes from the size.
 * engcfg_dyn_flags takes the prefill's bytes as a Dynamo version. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/engcfg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct engcfg_model m = { (int)(size & 1), (int)(size >> 1 & 1) - (int)(size >> 4 & 1),
					(int)(size >> 2 & 1), (int)(size >> 3 & 1), "gpt_oss", NULL };
	char *t = malloc(size + 2);
	const char *d;
	struct engcfg p, q;
	struct fwr_finding out[FWR_MAX], f;

	if (!t)
		return 0;
	memcpy(t, data, size);
	t[size] = t[size + 1] = '\0';
	d = t + strlen(t) + 1 <= t + size ? t + strlen(t) + 1 : t + size;
	engcfg_read(t, NULL, &p);
	engcfg_read(d, NULL, &q);
	engcfg_pair(&p, &q, size & 32 ? NULL : &m, out, FWR_MAX);
	engcfg_port_clash(&q, (long)(size % 70000), &f);
	/* J5e on the decode's args, the prefill's first word as the version */
	engcfg_dyn_flags(d, t, &f);
	free(t);
	return 0;
}
