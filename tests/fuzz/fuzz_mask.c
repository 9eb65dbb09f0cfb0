/* libFuzzer target: the Secret masker (run/mask.c) and the spec-word
 * printer (model/shown.c) on hostile values.  The bytes are three parts
 * split at NUL: the transport environment as probe.sh sends it ("NAME=
 * VALUE" lines, probe_parse_env), the spec's Secret rules (pods.h
 * secret_env lines, also read as plain_env), and a text to mask (a rule's
 * detail; also the spec word to expand).  Memory errors and hangs are
 * what it looks for: 1 MiB of text and a 64 KiB value stay linear. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/shown.h"
#include "probe/facts.h"
#include "run/mask.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The next part of [*p, end) up to a NUL, as an owned string. */
static char *part(const uint8_t **p, const uint8_t *end)
{
	const uint8_t *nul = memchr(*p, 0, (size_t)(end - *p));
	size_t n = (size_t)((nul ? nul : end) - *p);
	char *s = malloc(n + 1);

	memcpy(s, *p, n);
	s[n] = '\0';
	*p = nul ? nul + 1 : end;
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	char *env = part(&p, end), *rules = part(&p, end), *text = part(&p, end);
	struct probe_facts *f = probe_facts_new();
	char out[256], why[256];
	size_t steps;

	f->env.src.status = PROBE_OK;
	probe_parse_env(env, strlen(env), &f->env);
	run_mask_mark(f, rules);
	free(run_mask_text_counted(f, text, &steps));
	shown_spec_word(text, rules, rules, out, sizeof out, why, sizeof why);
	probe_facts_free(f);
	free(env), free(rules), free(text);
	return 0;
}
