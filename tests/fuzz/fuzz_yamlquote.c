/* libFuzzer target: the YAML writer's quoting (issue 37 item 6).  The
 * input, split at NUL bytes, gives up to 16 strings; they are written with
 * report_emit_yaml() as a sequence of values and as the keys of a mapping,
 * then read back with libyaml.  The target aborts when
 *  - the writer fails or libyaml cannot read its output back;
 *  - the output holds a control character but LF, or is not valid UTF-8;
 *  - a value read back differs from the cleaned input (safe_doc());
 *  - a key read back is not the cleaned input or that input renamed
 *    "KEY#N", or two keys of the mapping are equal;
 *  - a scalar is plain although a YAML 1.1 resolver (PyYAML resolver.py:
 *    bool, int, float, merge, null, timestamp, value), Go's y/n, or the 1.2
 *    core schema (0o, exponent without sign) would read it as another type.
 */
#include <cjson/cJSON.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "report/report.h"
#include "util/safe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NSTR 16

/* One ERE, case-insensitive (broader than the resolvers: stricter here). */
static const char typed_re[] =
	"^(y|n|yes|no|true|false|on|off|~|null|=|<<|"
	"[-+]?0b[0-1_]+|[-+]?0o?[0-7_]+|[-+]?(0|[1-9][0-9_]*)|[-+]?0x[0-9a-f_]+|"
	"[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\\.[0-9_]*)?|"
	"[-+]?([0-9][0-9_]*)?\\.[0-9_]*([e][-+]?[0-9]+)?|[-+]?[0-9][0-9_]*[e][-+]?[0-9]+|"
	"[-+]?\\.inf|\\.nan|"
	"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(([t]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(\\.[0-9]*)?"
	"([ \t]*(z|[-+][0-9]{1,2}(:[0-9]{2})?))?)?)$";

struct scalars {
	char *v[2 * NSTR + 4];
	int plain[2 * NSTR + 4];
	size_t n;
};

static void read_back(const char *text, size_t len, struct scalars *out)
{
	yaml_parser_t p;
	yaml_event_t ev;
	int done = 0;

	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	while (!done) {
		if (!yaml_parser_parse(&p, &ev))
			abort();        /* our output does not read back */
		if (ev.type == YAML_SCALAR_EVENT && out->n < sizeof(out->v) / sizeof(out->v[0])) {
			out->v[out->n] = strdup((const char *)ev.data.scalar.value);
			out->plain[out->n++] = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
}

static char *emit(cJSON *doc, size_t *len)
{
	char *text = NULL;
	FILE *m = open_memstream(&text, len);

	if (!m || report_emit_yaml(m, doc) != 0)
		abort();
	fclose(m);
	cJSON_Delete(doc);
	if (!safe_is_doc(text))
		abort();        /* a raw control or invalid UTF-8 in the output */
	return text;
}

/* Each plain scalar must not resolve to another type (empty: null). */
static void check_plain(const regex_t *re, const struct scalars *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->plain[i] && (!*s->v[i] || !regexec(re, s->v[i], 0, NULL, 0)))
			abort();
}

static void release(struct scalars *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
}

static int is_key_of(const char *key, const char *want)
{
	size_t n = strlen(want);

	return !strcmp(key, want) ||
	       (!strncmp(key, want, n) && key[n] == '#' && strspn(key + n + 1, "0123456789") > 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static regex_t re;
	static int compiled;
	char *buf = malloc(size + 1), *clean[NSTR], *text;
	const char *s[NSTR];
	struct scalars seq = { .n = 0 }, map = { .n = 0 };
	cJSON *a = cJSON_CreateArray(), *o = cJSON_CreateObject();
	size_t k = 0, i = 0, len;

	if (!compiled && regcomp(&re, typed_re, REG_EXTENDED | REG_ICASE | REG_NOSUB))
		abort();
	compiled = 1;
	memcpy(buf, data, size);
	buf[size] = '\0';
	while (k < NSTR && i <= size) {
		s[k++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	for (i = 0; i < k; i++) {
		clean[i] = safe_doc(s[i]);
		cJSON_AddItemToArray(a, cJSON_CreateString(s[i]));
		cJSON_AddItemToObject(o, s[i], cJSON_CreateString("v"));
	}
	text = emit(a, &len);
	read_back(text, len, &seq);
	free(text);
	if (seq.n != k)
		abort();
	for (i = 0; i < k; i++)
		if (strcmp(seq.v[i], clean[i]))
			abort();        /* a value changed on the way */
	check_plain(&re, &seq);
	text = emit(o, &len);
	read_back(text, len, &map);
	free(text);
	if (map.n != 2 * k)
		abort();
	for (i = 0; i < k; i++) {
		if (!is_key_of(map.v[2 * i], clean[i]) || strcmp(map.v[2 * i + 1], "v"))
			abort();
		for (size_t j = 0; j < i; j++)
			if (!strcmp(map.v[2 * i], map.v[2 * j]))
				abort();        /* a key twice */
	}
	check_plain(&re, &map);
	release(&seq);
	release(&map);
	for (i = 0; i < k; i++)
		free(clean[i]);
	free(buf);
	return 0;
}
