/* di_parse: TEST-ONLY driver of the probe report parser, for measuring
 * instructions per byte (bench/parse.sh runs it under callgrind) and for
 * the fuzz/regression checks.
 *
 *   di_parse FILE [N]   parse FILE N times (default 1), each into new facts
 *                       as src/run does per pod, and print one summary line
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/facts.h"
#include "util/err.h"
#include "../unit/probe_fixture.h"

int main(int argc, char **argv)
{
	size_t len = 0;
	long reps = argc > 2 ? strtol(argv[2], NULL, 10) : 1;
	char *text;
	struct err e;
	int rc = 0;

	(void)t_pass;
	(void)t_fail;
	if (argc < 2 || reps < 1) {
		fprintf(stderr, "usage: di_parse FILE [N]\n");
		return 2;
	}
	if (!(text = fx_read_path(argv[1], &len))) {
		fprintf(stderr, "di_parse: cannot read %s\n", argv[1]);
		return 2;
	}
	for (long i = 0; i < reps; i++) {
		struct probe_facts *f = probe_facts_new();

		err_clear(&e);
		rc = probe_parse_report(text, len, f, &e);
		if (i == reps - 1)
			printf("bytes=%zu rc=%d complete=%d rdma=%d ucx_tls=%d gpus=%d%s%s\n",
			       len, rc, f->complete, f->sysfs_ib.ndevs, f->ucx.ntls,
			       f->nvsmi.ngpus, rc ? " error=" : "", rc ? e.msg : "");
		probe_facts_free(f);
	}
	free(text);
	return rc ? 1 : 0;
}
