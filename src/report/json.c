/* JSON output that strict parsers accept: cJSON writes a string's bytes as
 * they are, so one invalid UTF-8 byte from a pod or the server would make the
 * whole document unreadable to jq or Python.  Every key and string value is
 * made valid first, U+FFFD for each bad byte (util/safe.h, the rule Go's
 * encoding/json applies to kubectl's own -o json). */
#include <stdlib.h>

#include "report_int.h"
#include "util/safe.h"

/* Nesting of our own documents is shallow; the recursion follows the tree
 * we built, never input. */
void report_valid_utf8(cJSON *j)
{
	cJSON *it;

	for (; j; j = j->next) {
		if (j->string && !safe_is_utf8(j->string)) {
			char *k = safe_utf8(j->string);
			if (!(j->type & cJSON_StringIsConst))
				free(j->string);
			j->type &= ~cJSON_StringIsConst;
			j->string = k;
		}
		if (cJSON_IsString(j) && !safe_is_utf8(j->valuestring)) {
			char *v = safe_utf8(j->valuestring);
			if (!(j->type & cJSON_IsReference))
				free(j->valuestring);
			j->type &= ~cJSON_IsReference;
			j->valuestring = v;
		}
		it = j->child;
		if (it && (cJSON_IsObject(j) || cJSON_IsArray(j)))
			report_valid_utf8(it);
	}
}

int report_emit_json(FILE *out, cJSON *doc)
{
	/* Valid UTF-8 first, then printed as kubectl prints JSON (json_indent.c). */
	report_valid_utf8(doc);
	return report_print_json_doc(out, doc);
}
