/* libFuzzer target: a --known-issues FILE (check/known_parse.c), merged
 * into the built-in rows, then written back (known_emit.c) as JSON and
 * YAML; what is written must parse again to as many rows (the round trip
 * `known-issues -o yaml` promises).  The bytes are the file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check/known.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void round_trip(const struct known_table *t, int yaml)
{
	struct known_table back = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct err e;

	if (!f)
		abort();
	if (known_table_write(f, t, yaml) < 0)
		abort();
	fclose(f);
	err_clear(&e);
	if (known_table_parse(&back, text, len, "out", &e) < 0 || back.n != t->n) {
		fprintf(stderr, "written table does not read back: %s\n%s\n", e.msg, text);
		abort();
	}
	known_table_release(&back);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct known_table t = { 0 };
	struct err e;

	known_table_copy_builtin(&t);
	err_clear(&e);
	if (known_table_parse(&t, (const char *)data, size, "fuzz.yaml", &e) == 0) {
		round_trip(&t, 0);
		round_trip(&t, 1);
	}
	known_table_release(&t);
	return 0;
}
