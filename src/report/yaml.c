/* A cJSON tree written through libyaml's emitter, so YAML output is the
 * JSON document, field for field, with YAML's quoting and escaping done by
 * libyaml; we only say which strings must not be plain (looks_typed()). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "report.h"
#include "report_int.h"
#include "util/safe.h"

static int emit(yaml_emitter_t *em, yaml_event_t *ev)
{
	return yaml_emitter_emit(em, ev) ? 0 : -1;
}

/* Every libyaml call is checked: an initializer that fails leaves the event
 * as it was, and emitting that stale event again freed its value twice
 * (issue 12).  Trees are cleaned before (json.c report_doc_clean()); a key
 * of our own goes through the same rule here, as libyaml refuses a value
 * that is not valid UTF-8. */
static int scalar(yaml_emitter_t *em, const char *s, int plain_ok)
{
	yaml_event_t ev;
	char *fixed = safe_is_doc(s) ? NULL : safe_doc(s);
	const char *v = fixed ? fixed : s ? s : "";
	int ok;

	/* libyaml picks the plain style whenever the text is a valid plain
	 * scalar, whatever a resolver makes of it (emitter.c
	 * yaml_emitter_analyze_scalar looks at indicators only): a string
	 * that reads as another type is quoted by forbidding the plain style.
	 * libyaml copies the value, so ours is freed at once. */
	ok = yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)v, (int)strlen(v),
					  plain_ok, 1,
					  plain_ok ? YAML_ANY_SCALAR_STYLE
						   : YAML_SINGLE_QUOTED_SCALAR_STYLE);
	free(fixed);
	return ok ? emit(em, &ev) : -1;
}

/* 1 when a plain s could load as anything but a string under the YAML 1.1
 * types (yaml.org/type: bool incl. y/n/on/off, null, int with 0b/0x/0o/_
 * and base 60, float with .inf/.nan and _, timestamp, value "=", merge
 * "<<") or the 1.2 core schema (spec 1.2.2 section 10.3.2), in any case:
 * a string that starts like a number is quoted whatever follows. */
static int looks_typed(const char *s)
{
	static const char *const words[] = { "true", "false", "null", "yes", "no", "on", "off",
					     "y", "n", "~", "", "=", "<<", NULL };
	const char *t = s + (*s == '+' || *s == '-');
	int i;

	for (i = 0; words[i]; i++)
		if (!strcasecmp(s, words[i]))
			return 1;
	if (!strcasecmp(t, ".inf") || !strcasecmp(t, ".nan"))
		return 1;
	if (isdigit((unsigned char)t[0]))
		return 1;
	/* 1.1 float [-+]?([0-9][0-9_]*)?\.[0-9.]*([eE][-+][0-9]+)?: "." and
	 * ".." too, and ".e+3" (an empty fraction, then the exponent). */
	return t[0] == '.' && (!t[1] || isdigit((unsigned char)t[1]) || t[1] == '.' ||
			       t[1] == '_' || t[1] == 'e' || t[1] == 'E');
}

static int node(yaml_emitter_t *em, const cJSON *j);

static int mapping(yaml_emitter_t *em, const cJSON *j)
{
	yaml_event_t ev;
	const cJSON *it;

	if (!yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE) ||
	    emit(em, &ev))
		return -1;
	cJSON_ArrayForEach(it, j)
		if (scalar(em, it->string, !looks_typed(it->string)) || node(em, it))
			return -1;
	return yaml_mapping_end_event_initialize(&ev) ? emit(em, &ev) : -1;
}

static int sequence(yaml_emitter_t *em, const cJSON *j)
{
	yaml_event_t ev;
	const cJSON *it;

	if (!yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE) ||
	    emit(em, &ev))
		return -1;
	cJSON_ArrayForEach(it, j)
		if (node(em, it))
			return -1;
	return yaml_sequence_end_event_initialize(&ev) ? emit(em, &ev) : -1;
}

static int node(yaml_emitter_t *em, const cJSON *j)
{
	char num[64];

	if (cJSON_IsObject(j))
		return mapping(em, j);
	if (cJSON_IsArray(j))
		return sequence(em, j);
	if (cJSON_IsString(j))
		return scalar(em, j->valuestring, !looks_typed(j->valuestring));
	if (cJSON_IsNumber(j)) {
		snprintf(num, sizeof(num), "%.17g", j->valuedouble);
		return scalar(em, num, 1);
	}
	if (cJSON_IsBool(j))
		return scalar(em, cJSON_IsTrue(j) ? "true" : "false", 1);
	return scalar(em, "null", 1);
}

static int write_file(void *data, unsigned char *buf, size_t n)
{
	return fwrite(buf, 1, n, data) == n;
}

/* Stream, document and (with top_map) the top mapping opened on a new
 * emitter writing to out; NULL when libyaml refuses. */
static yaml_emitter_t *open_emitter(FILE *out, int top_map)
{
	yaml_emitter_t *em = malloc(sizeof(*em));
	yaml_event_t ev;

	if (!em)
		return NULL;
	if (!yaml_emitter_initialize(em)) {
		free(em);
		return NULL;
	}
	yaml_emitter_set_output(em, write_file, out);
	yaml_emitter_set_unicode(em, 1);
	yaml_emitter_set_width(em, -1);
	if (!yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) || emit(em, &ev) ||
	    !yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) || emit(em, &ev) ||
	    (top_map && (!yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
							      YAML_BLOCK_MAPPING_STYLE) ||
			 emit(em, &ev)))) {
		yaml_emitter_delete(em);
		free(em);
		return NULL;
	}
	return em;
}

/* Closes (with top_map) the top mapping, the document and the stream. */
static int close_emitter(yaml_emitter_t *em, int top_map, int rc)
{
	yaml_event_t ev;

	if (rc == 0 && top_map)
		rc = yaml_mapping_end_event_initialize(&ev) ? emit(em, &ev) : -1;
	if (rc == 0)
		rc = yaml_document_end_event_initialize(&ev, 1) ? emit(em, &ev) : -1;
	if (rc == 0)
		rc = yaml_stream_end_event_initialize(&ev) ? emit(em, &ev) : -1;
	yaml_emitter_delete(em);
	free(em);
	return rc;
}

int report_emit_yaml(FILE *out, cJSON *doc)
{
	yaml_emitter_t *em = open_emitter(out, 0);

	report_doc_clean(doc);
	return em ? close_emitter(em, 0, node(em, doc)) : -1;
}

struct yaml_emitter_s *report_yaml_begin(FILE *out)
{
	return open_emitter(out, 1);
}

int report_yaml_key(struct yaml_emitter_s *em, const char *key)
{
	return scalar(em, key, !looks_typed(key));
}

int report_yaml_value(struct yaml_emitter_s *em, cJSON *j)
{
	report_doc_clean(j);
	return node(em, j);
}

int report_yaml_seq(struct yaml_emitter_s *em, int start)
{
	yaml_event_t ev;

	if (start)
		return yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
							    YAML_BLOCK_SEQUENCE_STYLE)
			       ? emit(em, &ev) : -1;
	return yaml_sequence_end_event_initialize(&ev) ? emit(em, &ev) : -1;
}

int report_yaml_end(struct yaml_emitter_s *em, int rc)
{
	return close_emitter(em, 1, rc);
}
