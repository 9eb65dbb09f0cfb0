/* Hostile strings through every printer (issue 12): the YAML writer must not
 * fail or free twice on invalid UTF-8, JSON and YAML come out valid UTF-8,
 * table cells and completion candidates carry no terminal control. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "complete/complete.h"
#include "report/report.h"
#include "report/table.h"
#include "util/safe.h"
#include "t.h"

#define HOSTILE "tls\xff\x1b]0;pwned\x07\r\n\xe2\x80\xae\xc2\x9b" "2J"

/* What out wrote: read back from a temporary file. */
static char *slurp(FILE *f)
{
	long n;
	char *s;

	fflush(f);
	n = ftell(f);
	rewind(f);
	s = calloc(1, (size_t)n + 1);
	if (fread(s, 1, (size_t)n, f) != (size_t)n)
		s[0] = 0;
	fclose(f);
	return s;
}

static cJSON *hostile_doc(void)
{
	cJSON *d = cJSON_CreateObject(), *a = cJSON_CreateArray();

	cJSON_AddStringToObject(d, "ucxTls", HOSTILE);
	cJSON_AddStringToObject(d, "key\xfe", "v");
	cJSON_AddItemToArray(a, cJSON_CreateString("\xc0\xaf"));
	cJSON_AddItemToArray(a, cJSON_CreateString("true"));
	cJSON_AddItemToObject(d, "list", a);
	return d;
}

static void test_yaml(void)
{
	cJSON *d = hostile_doc();
	FILE *f = tmpfile();
	char *s;

	CHECK_INT(report_emit_yaml(f, d), 0);
	s = slurp(f);
	CHECK(safe_is_utf8(s));
	CHECK_HAS(s, "tls\xef\xbf\xbd");     /* U+FFFD for 0xff */
	CHECK_HAS(s, "\\e]0;pwned\\a");      /* libyaml escapes the controls */
	CHECK(!strchr(s, '\x1b'));
	CHECK_HAS(s, "key\xef\xbf\xbd");
	CHECK_HAS(s, "'true'");
	free(s);
	cJSON_Delete(d);
}

static void test_json(void)
{
	cJSON *d = hostile_doc(), *back;
	FILE *f = tmpfile();
	char *s;

	CHECK_INT(report_emit_json(f, d), 0);
	s = slurp(f);
	CHECK(safe_is_utf8(s));
	CHECK(!strchr(s, '\x1b'));
	back = cJSON_Parse(s);
	CHECK(back != NULL);
	CHECK_HAS(cJSON_GetStringValue(cJSON_GetObjectItem(back, "ucxTls")), "tls\xef\xbf\xbd\x1b]0;");
	CHECK(cJSON_GetObjectItem(back, "key\xef\xbf\xbd") != NULL);
	cJSON_Delete(back);
	free(s);
	cJSON_Delete(d);
}

static void test_table(void)
{
	const char *h[] = { "NAME", "NODE" };
	const char *row[] = { "pod\nfake-row   node-x   READY", "\x1b[2Jnode" HOSTILE };
	struct table *t = table_new(2, h);
	FILE *f = tmpfile();
	char *s;

	table_add_row(t, row);
	table_print(t, f, 0);
	table_free(t);
	s = slurp(f);
	CHECK(safe_is_utf8(s));
	CHECK(!strchr(s, '\x1b') && !strchr(s, '\r'));
	CHECK(!strstr(s, "\xe2\x80\xae") && !strstr(s, "\xc2\x9b"));
	CHECK_HAS(s, "pod\\nfake-row");
	CHECK_HAS(s, "^[[2Jnode");
	/* header line + one row: the newline in a name adds no row */
	CHECK_INT(strchr(strchr(s, '\n') + 1, '\n') - s + 1, (long long)strlen(s));
	free(s);
}

static void test_completion(void)
{
	struct complete_result res;

	memset(&res, 0, sizeof(res));
	complete_add_names_json(&res, "{\"items\":[{\"metadata\":{\"name\":\"good\"}},"
				"{\"metadata\":{\"name\":\"evil\\nfake\"}},"
				"{\"metadata\":{\"name\":\"\\u001b]0;x\\u0007\"}}]}");
	CHECK_INT(res.n, 1);
	if (res.n)
		CHECK_STR(res.items[0], "good");
	complete_release(&res);
}

int main(void)
{
	test_yaml();
	test_json();
	test_table();
	test_completion();
	return T_DONE("test_output_safe");
}
