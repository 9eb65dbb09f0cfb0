/* libFuzzer target: a DynamoGraphDeployment or its List (src/kube/api/dgd.c,
 * dgd_parse: the item-by-item walk, the per-item bounds), then judged
 * against one pod (src/check/dgd.c).  The first byte picks the version:
 * even v1beta1, odd v1alpha1.  Seeds: tests/fuzz/corpus_dgd (issue 37's
 * hostile shapes).  Aborts when an item is neither read nor skipped with
 * a one-line reason, or a skipped one holds components. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check/dgd.h"
#include "kube/api/dgd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct dgd_pod pod = { "dynamo", "p", "qwen", "decode", "h", "UCX_TLS=rc\n", 1, NULL };
	struct dgd_set s;
	struct dgd_findings f;
	struct err e;
	unsigned sel = size ? data[0] : 0;

	if (size) {
		data++;
		size--;
	}
	memset(&s, 0, sizeof(s));
	memset(&f, 0, sizeof(f));
	err_clear(&e);
	if (dgd_parse((const char *)data, size, sel & 1 ? "v1alpha1" : "v1beta1", &s, &e) == 0) {
		for (size_t i = 0; i < s.n; i++)
			if (!s.items[i].skipped || strchr(s.items[i].skipped, '\n') ||
			    (*s.items[i].skipped && s.items[i].ncomp))
				abort();
		dgd_judge(&s, &pod, 1, &f);
	} else if (!e.msg[0] || strchr(e.msg, '\n'))
		abort();   /* a refusal is one line, never empty */
	dgd_findings_release(&f);
	dgd_set_release(&s);
	return 0;
}
