/* A known-issues table back out in the file's own format (`known-issues
 * -o json|yaml`), so that what it prints is a valid --known-issues file:
 * cJSON writes the JSON, libyaml's emitter the YAML (block style, every
 * string quoted where YAML would read it as something else). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include <yaml.h>

#include "check/known.h"
#include "util/xalloc.h"

/* ---- one tree of both outputs -------------------------------------- */

static cJSON *versions_json(const struct known_row *r)
{
	cJSON *v = cJSON_CreateObject();

	for (int c = 0; c < KC__COUNT; c++)
		if (r->versions[c])
			cJSON_AddStringToObject(v, known_comp_name((enum known_comp)c), r->versions[c]);
	return v;
}

static cJSON *row_json(const struct known_row *r)
{
	cJSON *o = cJSON_CreateObject(), *w = cJSON_CreateArray();

	cJSON_AddStringToObject(o, "id", r->id);
	cJSON_AddStringToObject(o, "check", known_column_name(r->column));
	cJSON_AddItemToObject(o, "versions", versions_json(r));
	for (int i = 0; i < r->ncond; i++) {
		cJSON *c = cJSON_CreateObject();

		cJSON_AddStringToObject(c, known_cond_name(r->cond[i].kind), r->cond[i].arg);
		cJSON_AddItemToArray(w, c);
	}
	if (r->ncond)
		cJSON_AddItemToObject(o, "when", w);
	else
		cJSON_Delete(w);
	cJSON_AddStringToObject(o, "severity", r->fail ? "fail" : "warn");
	cJSON_AddStringToObject(o, "effect", r->effect);
	cJSON_AddStringToObject(o, "fix", r->fix);
	if (r->paste)
		cJSON_AddStringToObject(o, "paste", r->paste);
	if (r->way)
		cJSON_AddStringToObject(o, "way", r->way);
	cJSON_AddStringToObject(o, "source", r->source);
	cJSON_AddStringToObject(o, "url", r->url);
	return o;
}

static cJSON *table_json(const struct known_table *t)
{
	cJSON *root = cJSON_CreateObject(), *a = cJSON_CreateArray();

	cJSON_AddNumberToObject(root, "version", 1);
	for (size_t i = 0; i < t->n; i++)
		cJSON_AddItemToArray(a, row_json(&t->row[i]));
	cJSON_AddItemToObject(root, "issues", a);
	return root;
}

/* ---- YAML: the same tree through libyaml's emitter -------------------- */

static int emit(yaml_emitter_t *em, yaml_event_t *ev)
{
	return yaml_emitter_emit(em, ev) ? 0 : -1;
}

/* Strings double-quoted: "1.22.0-", "y", "on" stay strings for any YAML
 * reader; keys plain. */
static int emit_scalar(yaml_emitter_t *em, const char *s, int key)
{
	yaml_event_t ev;

	yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s),
				     1, 1, key ? YAML_PLAIN_SCALAR_STYLE :
				     YAML_DOUBLE_QUOTED_SCALAR_STYLE);
	return emit(em, &ev);
}

static int emit_node(yaml_emitter_t *em, const cJSON *n, int flow);

static int emit_object(yaml_emitter_t *em, const cJSON *n, int flow)
{
	yaml_event_t ev;
	const cJSON *c;

	yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, flow ? YAML_FLOW_MAPPING_STYLE :
					    YAML_BLOCK_MAPPING_STYLE);
	if (emit(em, &ev) < 0)
		return -1;
	cJSON_ArrayForEach(c, n)
		if (emit_scalar(em, c->string, 1) < 0 || emit_node(em, c, 0) < 0)
			return -1;
	yaml_mapping_end_event_initialize(&ev);
	return emit(em, &ev);
}

static int emit_node(yaml_emitter_t *em, const cJSON *n, int flow)
{
	yaml_event_t ev;
	const cJSON *c;
	char num[32];

	if (cJSON_IsString(n))
		return emit_scalar(em, n->valuestring, 0);
	if (cJSON_IsNumber(n)) {
		snprintf(num, sizeof num, "%d", n->valueint);
		return emit_scalar(em, num, 1);
	}
	if (cJSON_IsObject(n))
		return emit_object(em, n, flow);
	yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
	if (emit(em, &ev) < 0)
		return -1;
	/* a condition is one pair: flow style reads as the file does */
	cJSON_ArrayForEach(c, n)
		if (emit_node(em, c, cJSON_GetArraySize(c) == 1) < 0)
			return -1;
	yaml_sequence_end_event_initialize(&ev);
	return emit(em, &ev);
}

static int write_handler(void *data, unsigned char *buffer, size_t size)
{
	return fwrite(buffer, 1, size, (FILE *)data) == size;
}

static int write_yaml(FILE *out, const cJSON *root)
{
	yaml_emitter_t em;
	yaml_event_t ev;
	int rc = -1;

	if (!yaml_emitter_initialize(&em))
		xalloc_die();
	yaml_emitter_set_output(&em, write_handler, out);
	yaml_emitter_set_unicode(&em, 1);
	yaml_emitter_set_width(&em, -1);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	if (emit(&em, &ev) < 0)
		goto done;
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
	if (emit(&em, &ev) < 0 || emit_node(&em, root, 0) < 0)
		goto done;
	yaml_document_end_event_initialize(&ev, 1);
	if (emit(&em, &ev) < 0)
		goto done;
	yaml_stream_end_event_initialize(&ev);
	rc = emit(&em, &ev);
done:
	yaml_emitter_delete(&em);
	return rc;
}

int known_table_write(FILE *out, const struct known_table *t, int yaml)
{
	cJSON *root = table_json(t);
	int rc;

	if (yaml) {
		rc = write_yaml(out, root);
	} else {
		char *s = cJSON_Print(root);

		if (!s)
			xalloc_die();
		rc = fprintf(out, "%s\n", s) < 0 ? -1 : 0;
		cJSON_free(s);
	}
	cJSON_Delete(root);
	return rc;
}
