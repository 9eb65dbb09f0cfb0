/* check -o html: one self-contained page for people (no script, no
 * external style, font or image): the verdict, a node-by-family heat
 * table, each graph's prefill -> decode pairs drawn as an SVG graph with
 * each edge coloured by what KV would use, every finding (with the log line
 * it quotes), and the pods grouped by node so 1,000 pods stay readable.
 * Text is valid UTF-8 (util/safe.h) and HTML-escaped. */
#include <stdlib.h>
#include <string.h>

#include "../check/links.h"
#include "report_int.h"
#include "util/safe.h"
#include "util/xalloc.h"

static void esc(FILE *out, const char *raw)
{
	char *s = safe_utf8(raw ? raw : "");

	for (const char *p = s; *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default:
			/* C0 controls are not allowed in HTML text: a visible mark. */
			if ((unsigned char)*p < 0x20 && *p != '\n' && *p != '\t')
				fputs("\xef\xbf\xbd", out);
			else
				fputc(*p, out);
		}
	}
	free(s);
}

static const char *status_class(int s)
{
	static const char *const c[] = { "ok", "warn", "fail", "skipped" };

	return s >= 0 && s <= 3 ? c[s] : "none";
}

static const char *verdict_class(enum verdict_status v)
{
	return v == VERDICT_READY ? "ok" : v == VERDICT_NOT_READY ? "fail" : "warn";
}

static const char style[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}"
	"h1{font-size:20px}h2{font-size:17px;margin-top:28px}"
	/* 800 px wide: a wide table scrolls inside itself, long words wrap. */
	"table{border-collapse:collapse;display:block;max-width:100%;overflow-x:auto}"
	"td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}"
	"p,.finding,code{overflow-wrap:anywhere}.source{color:#555;font-size:12px}"
	".ok{background:#c8e6c9}.warn{background:#fff3b0}.fail{background:#ffcdd2}"
	".skipped{background:#e0e0e0;color:#555}.none{background:#fff;color:#aaa}"
	".verdict{display:inline-block;padding:4px 12px;border-radius:4px;font-weight:bold}"
	".finding{margin:6px 0;padding:6px 10px;border-left:6px solid #ccc}"
	".finding.fail{border-color:#c62828}.finding.warn{border-color:#f9a825}"
	".finding.skipped{border-color:#9e9e9e}"
	"code.log{display:block;white-space:pre-wrap;background:#263238;color:#eceff1;"
	"padding:4px 8px;margin-top:4px}"
	".legend span{display:inline-block;width:28px;height:6px;margin:0 4px 2px 12px}"
	"details{margin:4px 0}summary{cursor:pointer}";

/* What KV between two pods would ride on: each pod's from its KV-path
 * links (links.h, the one link model), the pair's the worse of the two. */
/* Worst last: an edge takes the worst kind among its pairs. */
enum kv_path { KV_RDMA, KV_NVLINK, KV_UNKNOWN, KV_NOT_READY, KV_TCP };

#define KV_KINDS 5
static const char *const kv_name[] = { "RDMA", "NVLink", "unknown", "a NotReady pod", "TCP" };
static const char *const kv_colour[] = { "#2e7d32", "#1565c0", "#9e9e9e", "#6a1b9a", "#c62828" };

/* A NotReady pod has no healthy edge, whatever its transport looks like:
 * its failed check is what the edge says. */
static enum kv_path pod_path(const struct report *r, size_t i)
{
	static const enum kv_path of[] = {
		[CHECK_KV_RDMA] = KV_RDMA, [CHECK_KV_NVLINK] = KV_NVLINK,
		[CHECK_KV_UNKNOWN] = KV_UNKNOWN, [CHECK_KV_TCP] = KV_TCP,
	};
	const struct run_pod *p = &r->pods[i];
	enum kv_path k = p->probed ? of[check_kv_transport(&p->results)] : KV_UNKNOWN;

	return k != KV_TCP && report_pod_verdict(r, i) == VERDICT_NOT_READY ? KV_NOT_READY : k;
}

static enum kv_path pair_path(enum kv_path a, enum kv_path b)
{
	if (a == KV_TCP || b == KV_TCP)
		return KV_TCP;
	if (a == KV_NOT_READY || b == KV_NOT_READY)
		return KV_NOT_READY;
	if (a == KV_UNKNOWN || b == KV_UNKNOWN)
		return KV_UNKNOWN;
	return a == KV_NVLINK && b == KV_NVLINK ? KV_NVLINK : KV_RDMA;
}

static int same(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* "Made TIME by kubectl-dynamo_interconnect vX (probe sha256 ...) against
 * context C (server S), namespace N". */
static void print_source(FILE *out, const struct report_source *s)
{
	if (!s)
		return;
	fputs("<p class=\"source\">Made ", out);
	esc(out, s->generated ? s->generated : "");
	fputs(" by kubectl-dynamo_interconnect v", out);
	esc(out, s->version ? s->version : "");
	fputs(" (probe script sha256 <code>", out);
	esc(out, s->probe_sha256 ? s->probe_sha256 : "");
	fputs("</code>) against context ", out);
	esc(out, s->context && *s->context ? s->context : "(none)");
	fputs(" (server ", out);
	esc(out, s->server ? s->server : "");
	fputs("), ", out);
	if (s->all_namespaces)
		fputs("all namespaces", out);
	else {
		fputs("namespace ", out);
		esc(out, s->namespace ? s->namespace : "");
	}
	fputs("</p>\n", out);
}

static void print_verdict(FILE *out, const struct report *r)
{
	const struct verdict *v = r->verdict;

	fprintf(out, "<h1>Dynamo interconnect: <span class=\"verdict %s\">%s</span></h1>\n<p>",
		verdict_class(v->status), verdict_name(v->status));
	fprintf(out, "fabric %s; %zu pod%s, %zu probed, %zu ready</p>\n", fabric_name(v->fabric),
		v->npods, v->npods == 1 ? "" : "s", v->nprobed, v->nready);
	if (v->fix_first) {
		fputs("<p><b>Fix first:</b> ", out);
		esc(out, v->fix_first);
		fputs("</p>\n", out);
	}
	if (v->unconfirmed) {
		fputs("<p><b>Not confirmed:</b> ", out);
		esc(out, v->unconfirmed);
		fputs("</p>\n", out);
	}
}

static void print_heat(FILE *out, const struct report *r)
{
	size_t n;
	struct report_node *v = report_nodes_collect(r, &n);

	fputs("<h2>Nodes by family</h2>\n<table id=\"heat\"><tr><th>NODE</th><th>PODS</th>", out);
	for (size_t f = 0; f < report_ncolumns; f++)
		if (report_node_family_shown(v, n, f))
			fprintf(out, "<th>%s</th>", report_column_name(report_columns[f]));
	fputs("<th>VERDICT</th></tr>\n", out);
	for (size_t i = 0; i < n; i++) {
		fputs("<tr><td>", out);
		esc(out, *v[i].name ? v[i].name : "<none>");
		fprintf(out, "</td><td>%zu</td>", v[i].npods);
		for (size_t f = 0; f < report_ncolumns; f++)
			if (report_node_family_shown(v, n, f))
				fprintf(out, "<td class=\"%s\">%s</td>", status_class(v[i].fam[f]),
					v[i].fam[f] < 0 ? "-"
					: check_status_name((enum check_status)v[i].fam[f]));
		fprintf(out, "<td class=\"%s\">%s</td></tr>\n", verdict_class(v[i].verdict),
			report_verdict_token(v[i].verdict));
	}
	fputs("</table>\n", out);
	free(v);
}

/* ---- the prefill -> decode graph, grouped by node --------------------- */

struct side {
	const char *node;
	size_t npods;
};

static size_t add_side(struct side *s, size_t n, const char *node)
{
	for (size_t i = 0; i < n; i++)
		if (same(s[i].node, node)) {
			s[i].npods++;
			return n;
		}
	s[n].node = node ? node : "";
	s[n].npods = 1;
	return n + 1;
}

static size_t side_index(const struct side *s, size_t n, const char *node)
{
	for (size_t i = 0; i < n; i++)
		if (same(s[i].node, node))
			return i;
	return 0;
}

static void side_box(FILE *out, const struct side *s, double x, double y, const char *role)
{
	fprintf(out, "<rect x=\"%.0f\" y=\"%.0f\" width=\"220\" height=\"30\" rx=\"4\" "
		"fill=\"#eceff1\" stroke=\"#607d8b\"/>", x, y);
	fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\">%s ", x + 8, y + 19, role);
	esc(out, *s->node ? s->node : "<none>");
	fprintf(out, " (%zu)</text>\n", s->npods);
}

/* One graph: prefill groups (by node) left, decode groups right, an edge
 * per pair of groups in the colour of the worst path among their pairs. */
static void graph_svg(FILE *out, const struct report *r, const char *ns, const char *graph)
{
	struct side *pre = xcalloc(r->n + 1, sizeof(*pre)), *dec = xcalloc(r->n + 1, sizeof(*dec));
	size_t np = 0, nd = 0, rows;
	int *edge;
	size_t *count;

	for (size_t i = 0; i < r->n; i++) {
		const struct pod_info *p = r->pods[i].pod;
		if (!same(p->namespace, ns) || !same(p->graph, graph))
			continue;
		if (same(p->role, "prefill"))
			np = add_side(pre, np, p->node);
		else if (same(p->role, "decode"))
			nd = add_side(dec, nd, p->node);
	}
	edge = xcalloc(np * nd + 1, sizeof(*edge));
	count = xcalloc(np * nd + 1, sizeof(*count));
	for (size_t k = 0; k < np * nd; k++)
		edge[k] = -1;
	for (size_t i = 0; i < r->n; i++) {
		const struct pod_info *a = r->pods[i].pod;
		if (!same(a->namespace, ns) || !same(a->graph, graph) || !same(a->role, "prefill"))
			continue;
		for (size_t j = 0; j < r->n; j++) {
			const struct pod_info *b = r->pods[j].pod;
			size_t k;
			int kind;
			if (!same(b->namespace, ns) || !same(b->graph, graph) || !same(b->role, "decode"))
				continue;
			k = side_index(pre, np, a->node) * nd + side_index(dec, nd, b->node);
			kind = (int)pair_path(pod_path(r, i), pod_path(r, j));
			if (kind > edge[k])
				edge[k] = kind;
			count[k]++;
		}
	}
	fputs("<h3>", out);
	esc(out, ns);
	fputs(" / ", out);
	esc(out, graph && *graph ? graph : "(no graph label)");
	fprintf(out, ": %zu prefill node%s, %zu decode node%s</h3>\n", np, np == 1 ? "" : "s",
		nd, nd == 1 ? "" : "s");
	rows = np > nd ? np : nd;
	/* viewBox: the graph scales down in a narrow window (800 px). */
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"760\" height=\"%zu\" "
		"viewBox=\"0 0 760 %zu\" style=\"max-width:100%%;height:auto\" role=\"img\">\n",
		rows * 40 + 20, rows * 40 + 20);
	for (size_t a = 0; a < np; a++)
		for (size_t b = 0; b < nd; b++) {
			size_t k = a * nd + b;
			if (edge[k] < 0)
				continue;
			fprintf(out, "<line x1=\"230\" y1=\"%zu\" x2=\"530\" y2=\"%zu\" stroke=\"%s\" "
				"stroke-width=\"2\"><title>%zu pair%s: %s</title></line>\n",
				a * 40 + 25, b * 40 + 25, kv_colour[edge[k]], count[k],
				count[k] == 1 ? "" : "s", kv_name[edge[k]]);
		}
	for (size_t a = 0; a < np; a++)
		side_box(out, &pre[a], 10, (double)(a * 40 + 10), "prefill");
	for (size_t b = 0; b < nd; b++)
		side_box(out, &dec[b], 530, (double)(b * 40 + 10), "decode");
	fputs("</svg>\n", out);
	free(edge);
	free(count);
	free(pre);
	free(dec);
}

static void print_graphs(FILE *out, const struct report *r)
{
	fputs("<h2>Prefill to decode, by graph</h2>\n<p class=\"legend\">KV would use:", out);
	for (int k = 0; k < KV_KINDS; k++)
		fprintf(out, "<span style=\"background:%s\"></span>%s", kv_colour[k], kv_name[k]);
	fputs("</p>\n<p>Boxes are a role's pods on one node; an edge takes the worst path among "
	      "its pairs (TCP: a pod whose fabric is TCP or that fails an RDMA, UCX or ENV "
	      "check; a NotReady pod: any failed check).</p>\n", out);
	for (size_t i = 0; i < r->n; i++) {
		const struct pod_info *p = r->pods[i].pod;
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = same(r->pods[j].pod->namespace, p->namespace) &&
			       same(r->pods[j].pod->graph, p->graph);
		if (!seen)
			graph_svg(out, r, p->namespace, p->graph);
	}
}

/* ---- findings and pods ------------------------------------------------ */

/* The text, with a log line it quotes ("...") shown as a log line. */
static void finding_text(FILE *out, const char *text)
{
	const char *q = strchr(text, '"'), *e = q ? strrchr(text, '"') : NULL;
	char *head;

	if (!q || e == q) {
		esc(out, text);
		return;
	}
	head = xcalloc(1, (size_t)(q - text) + 1);
	memcpy(head, text, (size_t)(q - text));
	esc(out, head);
	free(head);
	head = xcalloc(1, (size_t)(e - q));
	memcpy(head, q + 1, (size_t)(e - q - 1));
	fputs("<code class=\"log\">", out);
	esc(out, head);
	fputs("</code>", out);
	free(head);
	esc(out, e + 1);
}

static void print_findings(FILE *out, const struct report *r)
{
	const struct verdict *v = r->verdict;

	fprintf(out, "<h2>Findings (%zu)</h2>\n", v->nfindings);
	for (size_t i = 0; i < v->nfindings; i++) {
		const struct verdict_finding *f = &v->findings[i];
		fprintf(out, "<div class=\"finding %s\"><b>%s</b> ", status_class((int)f->status),
			check_status_name(f->status));
		finding_text(out, f->text);
		if (report_has_fix(f->status, f->remedy)) {
			fputs("<br><i>fix:</i> ", out);
			esc(out, f->remedy);
		}
		/* one root cause per pod: what follows from it (verdict fold.c) */
		for (size_t k = 0; k < f->nfolded; k++) {
			fputs(k ? ", " : "<br><i>also caused by it:</i> ", out);
			esc(out, f->folded[k]);
		}
		fputs("</div>\n", out);
	}
}

static void print_pods(FILE *out, const struct report *r)
{
	size_t n;
	struct report_node *v = report_nodes_collect(r, &n);

	fputs("<h2>Pods by node</h2>\n", out);
	for (size_t i = 0; i < n; i++) {
		fputs("<details><summary>", out);
		esc(out, *v[i].name ? v[i].name : "<none>");
		fprintf(out, ": %zu pod%s, <span class=\"%s\">%s</span></summary>\n<table>", v[i].npods,
			v[i].npods == 1 ? "" : "s", verdict_class(v[i].verdict),
			report_verdict_token(v[i].verdict));
		for (size_t p = 0; p < r->n; p++) {
			const struct run_pod *rp = &r->pods[p];
			enum verdict_status verdict = report_pod_verdict(r, p);

			if (!same(rp->pod->node, v[i].name))
				continue;
			fputs("<tr><td>", out);
			esc(out, rp->pod->name);
			fputs("</td><td>", out);
			esc(out, rp->pod->role);
			fprintf(out, "</td><td class=\"%s\">%s</td><td>", verdict_class(verdict),
				report_verdict_token(verdict));
			if (!rp->probed) {
				char *line = reason_line(&rp->reason);

				esc(out, line);
				free(line);
			}
			for (size_t k = 0; k < rp->results.n; k++) {
				const struct check_result *c = &rp->results.v[k];
				if (c->status == CHECK_FAIL || c->status == CHECK_WARN) {
					fprintf(out, "<span class=\"%s\">", status_class((int)c->status));
					esc(out, c->name);
					fputs("</span> ", out);
				}
			}
			fputs("</td></tr>\n", out);
		}
		fputs("</table></details>\n", out);
	}
	free(v);
}

int report_print_html(FILE *out, const struct report *r)
{
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<title>dynamo-interconnect: %s</title>\n<style>%s</style></head><body>\n",
		verdict_name(r->verdict->status), style);
	print_verdict(out, r);
	print_source(out, r->source);
	print_heat(out, r);
	print_graphs(out, r);
	print_findings(out, r);
	print_pods(out, r);
	fputs("</body></html>\n", out);
	return ferror(out) ? -1 : 0;
}
