/* Hostile strings through every printer (issue 12): the YAML writer must not
 * fail or free twice on invalid UTF-8, JSON and YAML come out valid UTF-8,
 * table cells and completion candidates carry no terminal control.  Issue
 * 37 item 6: no control character in a document's strings either (jq -r
 * would print it raw), every YAML scalar that YAML 1.1 or 1.2 could read as
 * another type quoted, keys too, and no key twice in a mapping. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

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
	CHECK_HAS(s, "^[]0;pwned^G\\r");    /* spelled as the table spells them */
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
	CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(back, "ucxTls")),
		  "tls\xef\xbf\xbd^[]0;pwned^G\\r\n\\u202e\\u009b2J");
	CHECK(cJSON_GetObjectItem(back, "key\xef\xbf\xbd") != NULL);
	cJSON_Delete(back);
	free(s);
	cJSON_Delete(d);
}

/* Strings that YAML 1.1 (yaml.org/type) or 1.2 would load as another type:
 * value, merge, sexagesimal, ints with _ and 0b/0o/0x, floats, .inf/.nan,
 * null, bools (y/n/on/off in any case), timestamps, the empty string. */
static const char *const typed[] = {
	"=", "<<", "1:20", "190:20:30.15", "1_2_3", "-1_000", "+12", "1e3", ".5", "._5",
	".inf", "-.INF", "+.Inf", ".NaN", "0b101", "0o17", "0x1F", "017", "~", "null", "NULL",
	"Null", "y", "N", "yes", "No", "ON", "off", "True", "FALSE", "2026-12-07",
	"2001-12-14t21:59:43.10-05:00", "", ".", "-.", "..", "+.5",
};
#define NTYPED (sizeof(typed) / sizeof(typed[0]))

/* The scalars of a YAML text as libyaml reads them back: their values in
 * order into vals (n at most), *plain set when any was plain. */
static size_t yaml_scalars(const char *text, char **vals, size_t n, int *nplain)
{
	yaml_parser_t p;
	yaml_event_t ev;
	size_t got = 0;
	int done = 0;

	*nplain = 0;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
	while (!done) {
		if (!yaml_parser_parse(&p, &ev)) {
			CHECK(!"libyaml reads the document back");
			break;
		}
		if (ev.type == YAML_SCALAR_EVENT && got < n) {
			vals[got++] = strdup((const char *)ev.data.scalar.value);
			*nplain += ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	return got;
}

static char *yaml_of(cJSON *d)
{
	FILE *f = tmpfile();

	CHECK_INT(report_emit_yaml(f, d), 0);
	cJSON_Delete(d);
	return slurp(f);
}

static void test_yaml_types_quoted(void)
{
	for (size_t i = 0; i < NTYPED; i++) {
		cJSON *d = cJSON_CreateObject();
		char *vals[4] = { 0 }, *s;
		int nplain;

		cJSON_AddStringToObject(d, typed[i], typed[i]);   /* as key and value */
		s = yaml_of(d);
		CHECK_INT(yaml_scalars(s, vals, 4, &nplain), 2);
		if (nplain)
			fprintf(stderr, "plain: %s\n", s);
		CHECK_INT(nplain, 0);
		CHECK_STR(vals[0] ? vals[0] : "(none)", typed[i]);
		CHECK_STR(vals[1] ? vals[1] : "(none)", typed[i]);
		for (size_t k = 0; k < 4; k++)
			free(vals[k]);
		free(s);
	}
}

/* Plain stays plain where no resolver reads it as another type, as kubectl
 * writes it (nvcr.io/x:1.2, rc,cuda_copy, a name with a digit inside). */
static void test_yaml_strings_stay_plain(void)
{
	cJSON *d = cJSON_CreateObject();
	char *vals[8] = { 0 }, *s;
	int nplain;

	cJSON_AddStringToObject(d, "image", "nvcr.io/nvidia/vllm-runtime:0.6.1");
	cJSON_AddStringToObject(d, "ucxTls", "rc,cuda_copy");
	cJSON_AddStringToObject(d, "pod", "qwen-decode-0");
	s = yaml_of(d);
	CHECK_INT(yaml_scalars(s, vals, 8, &nplain), 6);
	CHECK_INT(nplain, 6);
	for (size_t k = 0; k < 8; k++)
		free(vals[k]);
	free(s);
}

/* Keys that cleaning (or a NUL that cut a C string) made equal: both kept,
 * the later renamed, never dropped; a name already taken is skipped. */
static void test_duplicate_keys(void)
{
	cJSON *d = cJSON_CreateObject(), *lim = cJSON_CreateObject();
	FILE *f = tmpfile();
	char *s;

	cJSON_AddStringToObject(lim, "cpu", "1");
	cJSON_AddStringToObject(lim, "cpu", "2");     /* "cpu\0shadow" as C has it */
	cJSON_AddStringToObject(lim, "cpu#2", "3");
	cJSON_AddStringToObject(lim, "a\x01", "4");
	cJSON_AddStringToObject(lim, "a^A", "5");
	cJSON_AddItemToObject(d, "limits", lim);
	CHECK_INT(report_emit_json(f, d), 0);
	s = slurp(f);
	CHECK_HAS(s, "\"cpu\": \"1\"");
	CHECK_HAS(s, "\"cpu#3\": \"2\"");
	CHECK_HAS(s, "\"cpu#2\": \"3\"");
	CHECK_HAS(s, "\"a^A\": \"4\"");
	CHECK_HAS(s, "\"a^A#2\": \"5\"");
	free(s);
	/* The same tree as YAML: the writer cleans it too. */
	lim = cJSON_CreateObject();
	cJSON_AddStringToObject(lim, "cpu", "1");
	cJSON_AddStringToObject(lim, "cpu", "2");
	s = yaml_of(lim);
	CHECK_HAS(s, "cpu#2: '2'");
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
	test_yaml_types_quoted();
	test_yaml_strings_stay_plain();
	test_duplicate_keys();
	test_table();
	test_completion();
	return T_DONE("test_output_safe");
}
