/* libFuzzer target: the printers on arbitrary reports (issue 12).  The
 * input, split at NUL bytes, fills every string of a report (pod names,
 * nodes, images, errors, finding texts, remedies, fix-first) with whatever
 * bytes it holds: escapes, C1, bidi controls, invalid UTF-8.  Each printer
 * writes to memory and the target aborts when
 *  - the table, findings or verdict line hold a terminal control (anything
 *    below 0x20 but '\n', DEL, C1, a bidi control) or invalid UTF-8;
 *  - -o json is not valid UTF-8 or does not parse back;
 *  - -o yaml fails, is not valid UTF-8 or does not parse back.
 * Built and run by tests/fuzz/run.sh like the other targets.
 */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "report/report.h"
#include "report/table.h"
#include "util/safe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NSTR 48

/* The input as up to NSTR NUL-terminated strings (pointers into buf). */
static size_t split(char *buf, size_t n, const char **s)
{
	size_t k = 0, i = 0;

	while (k < NSTR && i <= n) {
		s[k++] = buf + i;
		while (i < n && buf[i])
			i++;
		i++;
	}
	for (i = k; i < NSTR; i++)
		s[i] = "";
	return k;
}

/* 1 when text may reach a terminal: valid UTF-8, no control but '\n'. */
static int terminal_safe(const char *t)
{
	const unsigned char *p = (const unsigned char *)t;
	unsigned cp;
	size_t n;

	while (*p) {
		n = safe_utf8_seq(p, &cp);
		if (!n || (cp < 0x20 && cp != '\n') || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) ||
		    cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
		    (cp >= 0x2066 && cp <= 0x2069))
			return 0;
		p += n;
	}
	return 1;
}

static int yaml_parses(const char *t, size_t n)
{
	yaml_parser_t p;
	yaml_document_t d;
	int ok;

	if (!yaml_parser_initialize(&p))
		abort();
	yaml_parser_set_input_string(&p, (const unsigned char *)t, n);
	ok = yaml_parser_load(&p, &d);
	if (ok)
		yaml_document_delete(&d);
	yaml_parser_delete(&p);
	return ok;
}

typedef void (*printer)(FILE *, const struct report *, const struct report_style *);

static char *capture(printer f, int (*g)(FILE *, const struct report *),
		     const struct report *r, const struct report_style *st, size_t *len, int *rc)
{
	char *out = NULL;
	FILE *m = open_memstream(&out, len);

	if (!m)
		abort();
	*rc = 0;
	if (f)
		f(m, r, st);
	else
		*rc = g(m, r);
	fclose(m);
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pod_info pods[4];
	struct run_pod rp[4];
	struct err_denial den[4];  /* borrowed by rp[i].reason.denied / log_denied */
	enum verdict_status pv[4];
	struct verdict_finding fs[3];
	char *fpods[3][2], *fnodes[3][1];
	struct verdict v;
	struct report r = { 0 };  /* no DGDs: r.dgd, r.group NULL */
	struct report_style st = { 1, 0, 0 };
	const char *s[NSTR];
	char *buf = malloc(size + 1), *out;
	size_t i, len, k = 0;
	cJSON *back;
	int rc;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	split(buf, size, s);
	memset(pods, 0, sizeof(pods));
	memset(rp, 0, sizeof(rp));
	memset(fs, 0, sizeof(fs));
	memset(&v, 0, sizeof(v));
	for (i = 0; i < 4; i++) {
		pods[i].namespace = (char *)s[k++];
		pods[i].name = (char *)s[k++];
		pods[i].role = (char *)s[k++];
		pods[i].node = (char *)s[k++];
		pods[i].node_ip = (char *)s[k++];
		pods[i].pod_ip = (char *)s[k++];
		pods[i].container = (char *)s[k++];
		pods[i].image = (char *)s[k++];
		pods[i].phase = (char *)s[k++];
		rp[i].pod = &pods[i];
		/* Every kind of miss, and a typed denial of hostile words: the
		 * summary's RBAC hint must keep them terminal-safe too. */
		rp[i].reason.kind = (enum reason_kind)(size > i + 8 ? data[i + 8] % 4 + 1 : REASON_EXEC);
		rp[i].reason.why = (char *)s[k++];
		memset(&den[i], 0, sizeof(den[i]));
		snprintf(den[i].verb, sizeof(den[i].verb), "%s", s[(k + 1) % NSTR]);
		snprintf(den[i].resource, sizeof(den[i].resource), "%s", s[(k + 2) % NSTR]);
		snprintf(den[i].user, sizeof(den[i].user), "%s", s[(k + 3) % NSTR]);
		snprintf(den[i].ns, sizeof(den[i].ns), "%s", s[(k + 4) % NSTR]);
		rp[i].reason.denied = &den[i];
		rp[i].log_denied = &den[i];
		pv[i] = (enum verdict_status)(size > i ? data[i] % 3 : 0);
	}
	for (i = 0; i < 3; i++) {
		fs[i].name = "fuzz";
		fs[i].status = (enum check_status)(size > i + 4 ? data[i + 4] % 4 : 0);
		fs[i].text = (char *)s[(k + i) % NSTR];
		fs[i].remedy = (char *)s[(k + 3 + i) % NSTR];
		fpods[i][0] = (char *)s[(i * 7) % NSTR];
		fpods[i][1] = (char *)s[(i * 7 + 1) % NSTR];
		fnodes[i][0] = (char *)s[(i * 7 + 3) % NSTR];
		fs[i].pods = fpods[i];
		fs[i].npods = 2;
		fs[i].nodes = fnodes[i];
		fs[i].nnodes = 1;
	}
	v.status = (enum verdict_status)(size ? data[size - 1] % 3 : 0);
	v.fabric = (enum fabric)(size > 1 ? data[1] % 6 : 0);
	v.fix_first = (char *)s[NSTR - 1];
	v.unconfirmed = (char *)s[NSTR - 2];
	v.findings = fs;
	v.nfindings = 3;
	v.npods = 4;
	v.pod = pv;
	r.pods = rp;
	r.n = 4;
	r.verdict = &v;
	r.all_namespaces = size > 2 && (data[2] & 1);

	out = capture(report_print_table, NULL, &r, &st, &len, &rc);
	if (!terminal_safe(out))
		abort();
	free(out);
	out = capture(report_print_summary, NULL, &r, &st, &len, &rc);
	if (!terminal_safe(out))
		abort();
	free(out);
	out = capture(NULL, report_print_json, &r, &st, &len, &rc);
	back = cJSON_Parse(out);
	if (rc || !safe_is_utf8(out) || !back)
		abort();
	cJSON_Delete(back);
	free(out);
	out = capture(NULL, report_print_yaml, &r, &st, &len, &rc);
	if (rc || !safe_is_utf8(out) || !yaml_parses(out, len))
		abort();
	free(out);
	free(buf);
	return 0;
}
