/* The strings of -o json and -o yaml documents, made safe once for both
 * writers (issue 12, issue 37 item 6):
 *  - valid UTF-8: cJSON writes a string's bytes as they are, so one invalid
 *    byte from a pod or the server would make the document unreadable to jq
 *    or Python; each bad byte becomes U+FFFD (util/safe.h, the rule Go's
 *    encoding/json applies to kubectl's own -o json);
 *  - no C0/C1 control character: cJSON would write ESC as \u001b, which
 *    `jq -r` turns back into a raw ESC on a terminal; they are spelled as
 *    the text report spells them (safe_doc(): "^[", "\r", "\u009b");
 *  - no key twice in one object: keys from the cluster that differed only
 *    after a NUL (C strings stop there) or in bytes that the two rules
 *    above make equal would be duplicates, which YAML forbids and JSON
 *    parsers resolve by dropping one; the later one is renamed visibly. */
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "util/safe.h"
#include "util/xalloc.h"

static void set_key(cJSON *j, char *k)
{
	if (!(j->type & cJSON_StringIsConst))
		free(j->string);
	j->type &= ~cJSON_StringIsConst;
	j->string = k;
}

static int key_in(const cJSON *from, const cJSON *to, const cJSON *self, const char *k)
{
	for (const cJSON *it = from; it != to; it = it->next)
		if (it != self && it->string && !strcmp(it->string, k))
			return 1;
	return 0;
}

/* A key equal to an earlier sibling's becomes "KEY#2" (or #3, ...: the
 * first that no sibling has), so both values stay in the document. */
static void distinct_keys(cJSON *first)
{
	for (cJSON *it = first; it; it = it->next) {
		char *k = NULL;

		if (!it->string || !key_in(first, it, NULL, it->string))
			continue;
		for (unsigned n = 2; !k || key_in(first, NULL, it, k); n++) {
			free(k);
			k = xasprintf("%s#%u", it->string, n);
		}
		set_key(it, k);
	}
}

/* j's key, its string or, for an object or array, everything below it;
 * not j's siblings (report_yaml_value() gets one member of a mapping).
 * Nesting of our own documents is shallow; the recursion follows the tree
 * we built, never input. */
void report_doc_clean(cJSON *j)
{
	if (!j)
		return;
	if (j->string && !safe_is_doc(j->string))
		set_key(j, safe_doc(j->string));
	if (cJSON_IsString(j) && !safe_is_doc(j->valuestring)) {
		char *v = safe_doc(j->valuestring);
		if (!(j->type & cJSON_IsReference))
			free(j->valuestring);
		j->type &= ~cJSON_IsReference;
		j->valuestring = v;
	}
	if (!cJSON_IsObject(j) && !cJSON_IsArray(j))
		return;
	for (cJSON *it = j->child; it; it = it->next)
		report_doc_clean(it);
	if (cJSON_IsObject(j))
		distinct_keys(j->child);
}

int report_emit_json(FILE *out, cJSON *doc)
{
	/* Cleaned first, then printed as kubectl prints JSON (json_indent.c). */
	report_doc_clean(doc);
	return report_print_json_doc(out, doc);
}
