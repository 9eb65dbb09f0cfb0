/* check -o junit: the report as JUnit XML for CI test tabs (the Ant/Jenkins
 * format: Jenkins' junit-10.xsd, jenkinsci/xunit-plugin, is the schema CI
 * servers read).  One testsuite per pod, one testcase per check: fail and
 * warn are <failure type="fail|warn">, skipped is <skipped>; a pod not
 * probed is one skipped pod-probe case; cross-pod findings (prefill vs
 * decode, odd node out) are a last "cross-pod" testsuite.  All text is
 * valid UTF-8 (util/safe.h) and escaped for XML 1.0. */
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "verdict/graph.h"
#include "util/safe.h"
#include "util/xalloc.h"

/* Writes s escaped for XML text and attribute values.  XML 1.0 has no way
 * to write C0 controls other than TAB, LF, CR, or U+FFFE/U+FFFF, even as a
 * character reference: they become caret notation or U+FFFD. */
static void xml_text(FILE *out, const char *raw)
{
	char *s = safe_utf8(raw);

	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		case '\n': fputs("&#10;", out); break;
		case '\r': fputs("&#13;", out); break;
		case '\t': fputs("&#9;", out); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(out, "^%c", *p == 0x7f ? '?' : *p + 0x40);
			else if (p[0] == 0xef && p[1] == 0xbf && (p[2] == 0xbe || p[2] == 0xbf)) {
				fputs("\xef\xbf\xbd", out);
				p += 2;
			} else
				fputc(*p, out);
		}
	}
	free(s);
}

static void attr(FILE *out, const char *name, const char *value)
{
	fprintf(out, " %s=\"", name);
	xml_text(out, value ? value : "");
	fputc('"', out);
}

struct counts {
	size_t tests, failures, skipped;
};

static void count_pod(const struct run_pod *p, struct counts *c)
{
	memset(c, 0, sizeof(*c));
	if (!p->probed) {
		c->tests = c->skipped = 1;
		return;
	}
	for (size_t i = 0; i < p->results.n; i++) {
		enum check_status s = p->results.v[i].status;
		c->tests++;
		c->failures += s == CHECK_FAIL || s == CHECK_WARN;
		c->skipped += s == CHECK_SKIPPED;
	}
}

static int cross_pod(const struct verdict_finding *f)
{
	return graph_finding_is_cross(f->name);
}

static void count_cross(const struct verdict *v, struct counts *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < v->nfindings; i++)
		if (cross_pod(&v->findings[i])) {
			c->tests++;
			c->failures += v->findings[i].status == CHECK_FAIL ||
				       v->findings[i].status == CHECK_WARN;
			c->skipped += v->findings[i].status == CHECK_SKIPPED;
		}
}

/* One testcase; status decides its child element. */
static void testcase(FILE *out, const char *name, const char *classname,
		     enum check_status st, const char *detail, const char *remedy)
{
	fputs("    <testcase", out);
	attr(out, "name", name);
	attr(out, "classname", classname);
	if (st == CHECK_OK) {
		fputs("/>\n", out);
		return;
	}
	fputs(">\n      ", out);
	if (st == CHECK_SKIPPED) {
		fputs("<skipped", out);
		attr(out, "message", detail);
		fputs("/>\n", out);
	} else {
		fputs("<failure", out);
		attr(out, "type", check_status_name(st));
		attr(out, "message", detail);
		fputc('>', out);
		xml_text(out, detail);
		if (remedy && *remedy) {
			fputs("&#10;fix: ", out);
			xml_text(out, remedy);
		}
		fputs("</failure>\n", out);
	}
	fputs("    </testcase>\n", out);
}

static void suite_open(FILE *out, const char *name, const struct counts *c, const char *host)
{
	fputs("  <testsuite", out);
	attr(out, "name", name);
	fprintf(out, " tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\"",
		c->tests, c->failures, c->skipped);
	if (host && *host)
		attr(out, "hostname", host);
	fputs(">\n", out);
}

static void property(FILE *out, const char *name, const char *value)
{
	fputs("      <property", out);
	attr(out, "name", name);
	attr(out, "value", value);
	fputs("/>\n", out);
}

/* Where the report comes from, as properties of every suite (JUnit has
 * no place above a testsuite for them). */
static void source_properties(FILE *out, const struct report_source *s)
{
	if (!s)
		return;
	property(out, "generated", s->generated);
	property(out, "plugin-version", s->version);
	property(out, "probe-script-sha256", s->probe_sha256);
	property(out, "context", s->context);
	property(out, "server", s->server);
	property(out, "scope", s->all_namespaces ? "all namespaces" : s->namespace);
}

static void pod_suite(FILE *out, const struct run_pod *p, enum verdict_status verdict,
		      const struct report_source *src)
{
	const struct pod_info *pod = p->pod;
	struct counts c;
	size_t n = strlen(pod->namespace ? pod->namespace : "") + strlen(pod->name) + 2;
	char *name = xmalloc(n), *cls;

	snprintf(name, n, "%s/%s", pod->namespace ? pod->namespace : "", pod->name);
	count_pod(p, &c);
	suite_open(out, name, &c, pod->node);
	fputs("    <properties>\n", out);
	property(out, "role", pod->role);
	property(out, "node", pod->node);
	property(out, "container", pod->container);
	property(out, "verdict", verdict_name(verdict));
	source_properties(out, src);
	fputs("    </properties>\n", out);
	if (!p->probed) {
		char *line = reason_line(&p->reason);

		testcase(out, check_def_of(CK_POD_PROBE)->name, pod->name, CHECK_SKIPPED, line, NULL);
		free(line);
	} else {
		for (size_t i = 0; i < p->results.n; i++) {
			const struct check_result *r = &p->results.v[i];
			size_t cn = strlen(pod->name) + 24;

			cls = xmalloc(cn);
			/* "pod.FAMILY": CI trees show the pod as the package. */
			snprintf(cls, cn, "%s.%s", pod->name, check_family_name(r->family));
			testcase(out, r->name, cls, r->status, r->detail, r->remedy);
			free(cls);
		}
	}
	fputs("  </testsuite>\n", out);
	free(name);
}

int report_print_junit(FILE *out, const struct report *r)
{
	struct counts all = { 0, 0, 0 }, c;
	const struct verdict *v = r->verdict;

	for (size_t i = 0; i < r->n; i++) {
		count_pod(&r->pods[i], &c);
		all.tests += c.tests, all.failures += c.failures, all.skipped += c.skipped;
	}
	count_cross(v, &c);
	all.tests += c.tests, all.failures += c.failures;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", out);
	attr(out, "name", "dynamo-interconnect check");
	fprintf(out, " tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n", all.tests, all.failures);
	for (size_t i = 0; i < r->n; i++)
		pod_suite(out, &r->pods[i], report_pod_verdict(r, i), r->source);
	if (c.tests) {
		suite_open(out, "cross-pod", &c, NULL);
		for (size_t i = 0; i < v->nfindings; i++)
			if (cross_pod(&v->findings[i]))
				testcase(out, v->findings[i].name, "cross-pod", v->findings[i].status,
					 v->findings[i].text, v->findings[i].remedy);
		fputs("  </testsuite>\n", out);
	}
	fputs("</testsuites>\n", out);
	return ferror(out) ? -1 : 0;
}
