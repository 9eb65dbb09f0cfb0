/* libFuzzer target: arbitrary bytes as a worker's log.  Runs the log
 * scanner, the LOGS judge over its signatures (each first line quoted and
 * masked) and the quoting on the raw text, and checks that no quote leaves
 * a control or non-ASCII byte or passes its length.
 *
 * Built and run by tests/fuzz/build.sh and run.sh (seeded with the
 * scenario logs and the log fixtures).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "check/logs.h"
#include "probe/logscan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void clean_or_die(const char *q)
{
	size_t n = strlen(q);

	if (n > CHECK_LOGS_QUOTE_MAX)
		abort();
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)q[i] < 0x20 || (unsigned char)q[i] >= 0x7f)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct logscan s;
	struct logs_outcome o = { &s, NULL, 0, "main", 5000 };
	struct check_context ctx;
	struct check_results r;
	char q[CHECK_LOGS_QUOTE_MAX + 1];
	char *text = malloc(size + 1);   /* exact size: ASan sees overreads */

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	logscan_init(&s);
	(void)logscan_text(&s, text, size);
	memset(&ctx, 0, sizeof(ctx));
	ctx.kv_known = 1;
	ctx.kv_cross_pod = size & 1;
	check_results_init(&r);
	check_logs(&o, &ctx, &r);
	check_results_release(&r);
	check_logs_quote(text, q, sizeof q);
	clean_or_die(q);
	for (int g = 0; g < LOGSIG_COUNT; g++) {
		check_logs_quote(s.first[g], q, sizeof q);
		clean_or_die(q);
	}
	free(text);
	return 0;
}
