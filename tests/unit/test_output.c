/* The report's text layer: coloured cells padded by what is visible,
 * UTF-8 widths, and wrapping between words. */
#define _GNU_SOURCE
#include "t.h"

#include <stdint.h>

#include "report/report_int.h"
#include "report/table.h"

static char *table_string(const struct table *t)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	table_print(t, f, 0);
	fclose(f);
	return s;
}

static void test_colour_does_not_shift_columns(void)
{
	const char *h[] = { "POD", "RDMA", "VERDICT" };
	const char *r1[] = { "a", "fail", "NotReady" };
	const char *s1[] = { NULL, "31", "31" };
	const char *r2[] = { "bb", "ok", "Ready" };
	const char *s2[] = { NULL, "32", "32" };
	struct table *t = table_new(3, h);
	char *s;

	table_add_row_sgr(t, r1, s1);
	table_add_row_sgr(t, r2, s2);
	s = table_string(t);
	/* POD is 6 wide (minimum), RDMA 4 + 3: the escapes count nothing. */
	CHECK_STR(s, "POD   RDMA   VERDICT\n"
		     "a     \033[31mfail\033[0m   \033[31mNotReady\033[0m\n"
		     "bb    \033[32mok\033[0m     \033[32mReady\033[0m\n");
	free(s);
	table_free(t);
}

static void test_utf8_width(void)
{
	const char *h[] = { "NODE", "X" };
	const char *r1[] = { "n\xc3\xb6" "de-\xe2\x82\xac", "1" };   /* "nöde-€" is 6 columns, 9 bytes */
	const char *r2[] = { "plain", "2" };
	struct table *t = table_new(2, h);
	char *s;

	CHECK_INT(table_text_width("n\xc3\xb6" "de-\xe2\x82\xac"), 6);
	table_add_row(t, r1);
	table_add_row(t, r2);
	s = table_string(t);
	CHECK_STR(s, "NODE     X\n"
		     "n\xc3\xb6" "de-\xe2\x82\xac   1\n"
		     "plain    2\n");
	free(s);
	table_free(t);
}

static char *wrap_string(const char *text, size_t width)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	report_wrap(f, "fail ", 5, text, 5, width);
	fclose(f);
	return s;
}

static void test_wrap(void)
{
	char *s = wrap_string("one two three four five", 15);

	CHECK_STR(s, "fail one two\n     three four\n     five\n");
	free(s);
	/* A word longer than a line is never cut. */
	s = wrap_string("a averyveryverylongword b", 12);
	CHECK_STR(s, "fail a\n     averyveryverylongword\n     b\n");
	free(s);
	/* Width 0 (not a terminal): the text as it is. */
	s = wrap_string("x  y", 0);
	CHECK_STR(s, "fail x  y\n");
	free(s);
	/* Multi-byte characters count as one column each. */
	s = wrap_string("\xc3\xa9\xc3\xa9\xc3\xa9 \xc3\xa9\xc3\xa9", 11);
	CHECK_STR(s, "fail \xc3\xa9\xc3\xa9\xc3\xa9 \xc3\xa9\xc3\xa9\n");
	free(s);
}

static void test_verdict_tokens(void)
{
	CHECK_STR(report_verdict_token(VERDICT_READY), "Ready");
	CHECK_STR(report_verdict_token(VERDICT_NOT_READY), "NotReady");
	CHECK_STR(report_verdict_token(VERDICT_UNVERIFIED), "Unverified");
	CHECK_STR(report_status_sgr(CHECK_FAIL), "31");
	CHECK_STR(report_status_sgr(CHECK_WARN), "33");
	CHECK_STR(report_status_sgr(CHECK_OK), "32");
	CHECK_STR(report_status_sgr(CHECK_SKIPPED), "2");
}

static void test_junit_escapes_hostile_text(void)
{
	struct pod_info pod = { 0 };
	struct check_result c = { 0 };
	struct run_pod rp = { 0 };
	enum verdict_status pv[1] = { VERDICT_NOT_READY };
	struct verdict v = { .pod = pv };
	struct report r = { 0 };
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	pod.namespace = "ns";
	pod.name = "p<&>\"'";
	pod.role = "decode";
	pod.node = "n\x1b[31m";
	pod.container = "main";
	check_results_init(&rp.results);
	c.name = "rdma-devices";
	c.family = FAM_RDMA;
	c.status = CHECK_FAIL;
	c.detail = "bad \xff byte, BEL \x07, U+FFFF \xef\xbf\xbf";
	c.remedy = "fix </failure> here";
	check_results_add(&rp.results, &c);
	rp.pod = &pod, rp.probed = 1;
	r.pods = &rp, r.n = 1, r.verdict = &v;
	CHECK_INT(report_print_junit(f, &r), 0);
	fclose(f);
	CHECK(strstr(s, "name=\"ns/p&lt;&amp;&gt;&quot;&apos;\"") != NULL);
	CHECK(strstr(s, "hostname=\"n^[[31m\"") != NULL);
	/* Invalid UTF-8 and U+FFFF: U+FFFD; a C0 control: caret notation. */
	CHECK(strstr(s, "message=\"bad \xef\xbf\xbd byte, BEL ^G, U+FFFF \xef\xbf\xbd\"") != NULL);
	CHECK(strstr(s, "fix: fix &lt;/failure&gt; here</failure>") != NULL);
	CHECK(strchr(s, '\x1b') == NULL && strchr(s, '\x07') == NULL && strchr(s, '\xff') == NULL);
	free(s);
	check_results_release(&rp.results);
}

/* report_sink: the run's notices one per line, and the progress line
 * only when the caller asks for it, drawn in place and erased. */
static void test_sink(void)
{
	struct run_sink s;
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	struct pod_info hung = { 0 };
	const struct run_progress a = { 3, 8, 0, NULL, 0, 0 };
	const struct run_progress b = { 7, 8, 1, &hung, 12500, 60000 };
	const struct run_progress c = { 8, 8, 1, NULL, 0, 60000 };

	hung.namespace = "dynamo", hung.name = "qwen-decode-3\033]0;x\a";
	report_sink(&s, f, 1);
	s.progress(&a, s.arg);
	s.progress(&b, s.arg);
	s.progress(&c, s.arg);
	s.progress_done(8, s.arg);
	s.notice("transfer: no probed prefill and decode pods to test between", s.arg);
	report_sink(&s, f, 0);
	CHECK(s.progress == NULL && s.progress_done == NULL);
	s.notice("warning: x", s.arg);
	fclose(f);
	/* The pod in flight longest and its deadline, its name through the
	 * terminal rule; each line clears what a longer one left. */
	CHECK_STR(out, "\rprobing 3/8 pods\033[K"
		  "\rprobing 7/8 pods, 1 failed; waiting for dynamo/qwen-decode-3^[]0;x^G "
		  "(12s of its 60s deadline)\033[K"
		  "\rprobing 8/8 pods, 1 failed\033[K\r\033[K"
		  "transfer: no probed prefill and decode pods to test between\nwarning: x\n");
	free(out);
}

/* Reasons as values (issue 24): the summary groups pods by the reason's
 * own words, says "not probed" once, and takes its RBAC hint from the
 * typed denial alone, never from a message's text. */
static char *summary_of(struct run_pod *rp, size_t n)
{
	struct verdict v = { 0 };
	struct report r = { 0 };
	struct report_style st = { 0 };
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	r.pods = rp, r.n = n, r.verdict = &v;
	report_print_summary(f, &r, &st);
	fclose(f);
	return s;
}

static void test_summary_reasons(void)
{
	static const char forbid_a[] = "Error from server (Forbidden): pods \"qwen-0\" is forbidden: "
		"User \"u\" cannot get resource \"pods/exec\" in API group \"\" in the namespace \"demo\"";
	static const char forbid_b[] = "Error from server (Forbidden): pods \"qwen-1\" is forbidden: "
		"User \"u\" cannot get resource \"pods/exec\" in API group \"\" in the namespace \"demo\"";
	struct pod_info pod[3] = { { 0 } };
	struct run_pod rp[3] = { { 0 } };
	struct err_denial d = { "u", "get", "pods/exec", "demo" }, d_log, *copy;
	char *s, *line;

	for (int i = 0; i < 3; i++) {
		pod[i].name = (char *)(i == 0 ? "qwen-0" : i == 1 ? "qwen-1" : "c");
		rp[i].pod = &pod[i];
	}
	reason_set(&rp[0].reason, REASON_EXEC, forbid_a);
	reason_set(&rp[1].reason, REASON_EXEC, forbid_b);
	reason_set(&rp[2].reason, REASON_SKIPPED, "pod is Pending");
	/* The message alone, as before the typed denial: no hint. */
	s = summary_of(rp, 3);
	CHECK_HAS(s, "skipped 2 of 3 pods not probed (qwen-0, qwen-1): Error from server (Forbidden): "
		  "pods \"<pod>\" is forbidden");
	CHECK_HAS(s, "skipped 1 of 3 pods not probed (c): pod is Pending\n");
	CHECK(strstr(s, "hint:") == NULL);
	CHECK(strstr(s, "not probed: ") == NULL);
	free(s);
	/* The typed denial on one pod, a log denial on another: one hint,
	 * each verb and resource once. */
	rp[1].reason.denied = reason_denial_copy(&d);   /* reason_release frees it */
	d.resource[0] = '\0';
	copy = reason_denial_copy(&d);
	CHECK(copy != NULL && copy != &d);                /* verb set: a denial */
	free(copy);
	d.verb[0] = '\0';
	CHECK(reason_denial_copy(&d) == NULL);            /* no verb: none */
	CHECK(reason_denial_copy(NULL) == NULL);
	d_log = *rp[1].reason.denied;
	snprintf(d_log.resource, sizeof(d_log.resource), "pods/log");
	rp[2].log_denied = &d_log;         /* borrowed: run_release is not called */
	s = summary_of(rp, 3);
	CHECK_HAS(s, "hint: user \"u\" cannot get pods/exec or get pods/log: ");
	CHECK_HAS(s, "kubectl auth can-i get pods --subresource=exec -n demo;"
		  " kubectl auth can-i get pods --subresource=log -n demo\n");
	free(s);
	/* The words: the list's reason is prefixed once, others shown as they came. */
	line = reason_line(&rp[2].reason);
	CHECK_STR(line, "not probed: pod is Pending");
	free(line);
	line = reason_line(&rp[0].reason);
	CHECK_STR(line, forbid_a);
	free(line);
	for (int i = 0; i < 3; i++)
		reason_release(&rp[i].reason);
	line = reason_line(&rp[0].reason);
	CHECK_STR(line, "not probed");
	free(line);
}

/* The default table's NOT OK cell (brief.c), and the wrapped last column. */
static void test_brief_cell(void)
{
	int fam[REPORT_MAX_FAMS], none[REPORT_MAX_FAMS];
	char c[REPORT_BRIEF_MAX];

	for (size_t f = 0; f < REPORT_MAX_FAMS; f++)
		fam[f] = CHECK_OK, none[f] = -1;
	/* report_columns: RDMA GPUDIRECT GDRCOPY NVLINK UCX NIXL EFA ENV ... */
	fam[0] = CHECK_FAIL, fam[1] = CHECK_SKIPPED, fam[4] = CHECK_FAIL, fam[7] = CHECK_WARN;
	CHECK(report_brief_cell(fam, report_ncolumns, SIZE_MAX, c, sizeof(c)) == 4);
	CHECK_STR(c, "RDMA,UCX fail; ENV warn; GPUDIRECT skipped");
	report_brief_cell(fam, report_ncolumns, 2, c, sizeof(c));
	CHECK_STR(c, "RDMA,UCX fail; +2 more");
	report_brief_cell(fam, report_ncolumns, 0, c, sizeof(c));
	CHECK_STR(c, "2 fail, 1 warn, 1 skipped");
	fam[0] = fam[1] = fam[4] = fam[7] = CHECK_OK;
	CHECK(report_brief_cell(fam, report_ncolumns, SIZE_MAX, c, sizeof(c)) == 0);
	CHECK_STR(c, "");
	report_brief_cell(none, report_ncolumns, SIZE_MAX, c, sizeof(c));
	CHECK_STR(c, "-");
}

static void test_wrapped_last_column(void)
{
	const char *h[] = { "CHECK", "DETAIL" };
	const char *r[] = { "a", "one two three four five six seven eight nine ten" };
	struct table *t = table_new(2, h);
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	table_add_row(t, r);
	table_print_wrapped(t, f, 0, 30);
	fclose(f);
	/* CHECK is 8 wide: the detail goes on under DETAIL, never cut, no
	 * line past 30 columns ("... four five" would be 31). */
	CHECK_STR(s, "CHECK   DETAIL\n"
		     "a       one two three four\n"
		     "        five six seven eight\n"
		     "        nine ten\n");
	free(s);
	table_free(t);
}

int main(void)
{
	test_brief_cell();
	test_wrapped_last_column();
	test_summary_reasons();
	test_sink();
	test_colour_does_not_shift_columns();
	test_utf8_width();
	test_wrap();
	test_verdict_tokens();
	test_junit_escapes_hostile_text();
	return T_DONE("test_output");
}
