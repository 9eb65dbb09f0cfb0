/* JSON the way kubectl prints it: Go's json.MarshalIndent with two spaces
 * ("key": value, empty {} and [] on one line).  cJSON_Print indents with
 * tabs; we take cJSON's compact text, whose escaping is cJSON's own, and
 * only add whitespace outside strings. */
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "util/buf.h"

#define JSON_MAX ((size_t)1 << 30)

static void newline(struct buf *b, int depth)
{
	buf_appends(b, "\n");
	for (int i = 0; i < depth; i++)
		buf_appends(b, "  ");
}

char *report_json_indent(const char *compact)
{
	return report_json_indent_at(compact, 0);
}

char *report_json_indent_at(const char *compact, int depth)
{
	struct buf b = BUF_INIT(JSON_MAX);
	int in_str = 0;

	for (const char *p = compact; *p; p++) {
		char c = *p;

		if (in_str) {
			buf_append(&b, p, 1);
			if (c == '\\' && p[1])
				buf_append(&b, ++p, 1);
			else if (c == '"')
				in_str = 0;
			continue;
		}
		switch (c) {
		case '"':
			in_str = 1;
			buf_append(&b, p, 1);
			break;
		case '{':
		case '[':
			buf_append(&b, p, 1);
			if (p[1] == (c == '{' ? '}' : ']')) {
				buf_append(&b, ++p, 1);
				break;
			}
			newline(&b, ++depth);
			break;
		case '}':
		case ']':
			newline(&b, --depth);
			buf_append(&b, p, 1);
			break;
		case ',':
			buf_append(&b, p, 1);
			newline(&b, depth);
			break;
		case ':':
			buf_appends(&b, ": ");
			break;
		default:
			buf_append(&b, p, 1);
		}
	}
	if (b.overflowed)
		return NULL;
	return buf_detach(&b, NULL);
}

int report_print_json_doc(FILE *out, const cJSON *doc)
{
	char *compact = cJSON_PrintUnformatted(doc);
	char *s = compact ? report_json_indent(compact) : NULL;
	int rc = s && fprintf(out, "%s\n", s) > 0 ? 0 : -1;

	free(compact);
	free(s);
	return rc;
}
