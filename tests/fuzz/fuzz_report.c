/* libFuzzer target: arbitrary bytes as a probe report (report.c and every
 * parser behind probe_parse_report), plus the log scanner on the same bytes.
 * A "dynamo-interconnect-probe v1" line is prepended to half of the inputs
 * (chosen by the first byte) so the fuzzer reaches the parsers quickly.
 *
 * Build and run (from the repository root):
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -std=c11 \
 *     -D_POSIX_C_SOURCE=200809L -Isrc tests/fuzz/fuzz_report.c \
 *     src/probe/[!p]*.c src/probe/ptext.c src/util/err.c src/util/xalloc.c \
 *     -o build/fuzz_report
 *   sh tests/fuzz/seed_report.sh build/fuzz-report-corpus
 *   build/fuzz_report -max_total_time=120 -max_len=65536 build/fuzz-report-corpus
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probe/facts.h"
#include "probe/logscan.h"

static const char head[] = "dynamo-interconnect-probe v1\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct probe_facts f;
	static struct logscan ls;
	struct err e;
	char *buf;
	size_t off = 0;

	if (size == 0)
		return 0;
	/* An exact-size heap copy, so ASan sees any read past the end. */
	buf = malloc(size - 1 + sizeof head);
	if (!buf)
		return 0;
	if (data[0] & 1) {
		memcpy(buf, head, sizeof head - 1);
		off = sizeof head - 1;
	}
	memcpy(buf + off, data + 1, size - 1);
	probe_facts_init(&f);
	(void)probe_parse_report(buf, off + size - 1, &f, &e);
	probe_facts_release(&f);
	logscan_init(&ls);
	(void)logscan_text(&ls, buf, off + size - 1);
	free(buf);
	return 0;
}
