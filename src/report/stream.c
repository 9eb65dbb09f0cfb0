/* -o json and -o yaml written pod by pod (issue 27): the document's bytes
 * are those of the whole tree (report_json()), but only one pod's subtree
 * is in memory at a time, so the printer's memory does not grow with the
 * pod count.  The head (apiVersion, kind, verdict) and the nodes array are
 * small: the verdict names each pod at most VERDICT_NAMES_MAX times per
 * finding, the nodes one entry per node. */
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "report_int.h"

/* One subtree as it sits depth levels deep in the document: cleaned
 * (json.c), compact, indented; written without a newline.  0 or -1. */
static int put_json(FILE *out, cJSON *j, int depth, int drop_last)
{
	char *compact, *s;
	int rc;

	report_doc_clean(j);
	compact = cJSON_PrintUnformatted(j);
	if (!compact)
		return -1;
	/* The head is the document's opening: its closing brace comes last. */
	if (drop_last)
		compact[strlen(compact) - 1] = '\0';
	s = report_json_indent_at(compact, depth);
	cJSON_free(compact);
	rc = s && fputs(s, out) >= 0 ? 0 : -1;
	free(s);
	return rc;
}

static int put_owned(FILE *out, cJSON *j, int depth, int drop_last)
{
	int rc = j ? put_json(out, j, depth, drop_last) : -1;

	cJSON_Delete(j);
	return rc;
}

int report_print_json(FILE *out, const struct report *r)
{
	int rc = put_owned(out, report_json_head(r), 0, 1);

	if (rc == 0)
		rc = fputs(r->n ? ",\n  \"pods\": [" : ",\n  \"pods\": []", out) < 0 ? -1 : 0;
	for (size_t i = 0; rc == 0 && i < r->n; i++) {
		rc = fputs(i ? ",\n    " : "\n    ", out) < 0 ? -1 : 0;
		if (rc == 0)
			rc = put_owned(out, report_json_pod(r, i), 2, 0);
	}
	if (rc == 0 && r->n)
		rc = fputs("\n  ]", out) < 0 ? -1 : 0;
	if (rc == 0)
		rc = fputs(",\n  \"nodes\": ", out) < 0 ? -1 : 0;
	if (rc == 0)
		rc = put_owned(out, report_nodes_json(r), 1, 0);
	if (rc == 0 && r->dgd)
		rc = fputs(",\n  \"dynamoGraphDeployments\": ", out) < 0 ? -1
			: put_owned(out, report_dgd_json(r), 1, 0);
	return rc == 0 && fputs("\n}\n", out) >= 0 ? 0 : -1;
}

/* The head's keys and values, in order, into the open top mapping. */
static int yaml_head(yaml_emitter_t *em, const struct report *r)
{
	cJSON *head = report_json_head(r);
	cJSON *it;
	int rc = head ? 0 : -1;

	cJSON_ArrayForEach(it, head)
		if (rc == 0)
			rc = report_yaml_key(em, it->string) || report_yaml_value(em, it) ? -1 : 0;
	cJSON_Delete(head);
	return rc;
}

int report_print_yaml(FILE *out, const struct report *r)
{
	yaml_emitter_t *em = report_yaml_begin(out);
	cJSON *j;
	int rc;

	if (!em)
		return -1;
	rc = yaml_head(em, r);
	if (rc == 0)
		rc = report_yaml_key(em, "pods") || report_yaml_seq(em, 1) ? -1 : 0;
	for (size_t i = 0; rc == 0 && i < r->n; i++) {
		j = report_json_pod(r, i);
		rc = j ? report_yaml_value(em, j) : -1;
		cJSON_Delete(j);
	}
	if (rc == 0)
		rc = report_yaml_seq(em, 0) || report_yaml_key(em, "nodes") ? -1 : 0;
	if (rc == 0) {
		j = report_nodes_json(r);
		rc = j ? report_yaml_value(em, j) : -1;
		cJSON_Delete(j);
	}
	if (rc == 0 && r->dgd) {
		j = report_dgd_json(r);
		rc = j && !report_yaml_key(em, "dynamoGraphDeployments") ? report_yaml_value(em, j) : -1;
		cJSON_Delete(j);
	}
	return report_yaml_end(em, rc);
}
