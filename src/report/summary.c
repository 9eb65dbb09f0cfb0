/* Below the check table: the findings worst first, the pods that could not
 * be probed grouped by reason, one RBAC hint for a 403, and the verdict.
 * On a terminal the lines wrap at its width between words. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "table.h"
#include "util/buf.h"
#include "util/safe.h"
#include "util/xalloc.h"

#define NAMES_SHOWN 3        /* pods named on a grouped line */
#define SUMMARY_LINE_MAX 65536

void report_wrap(FILE *out, const char *lead, size_t lead_w, const char *raw,
		 size_t indent, size_t width)
{
	/* Text from the cluster or a pod reaches the terminal only through
	 * the terminal rule (util/safe.h); the lead is ours. */
	char *text = safe_term(raw);

	fputs(lead, out);
	table_wrap(out, text, lead_w, indent, width);
	free(text);
}

/* ---- pods not probed, one line per reason -------------------------- */

/* The reason's words (bare: model/reason.h) with the pod's own name taken
 * out ("pods \"<pod>\" is forbidden"), so that one cause on 400 pods is
 * one line.  Owned. */
static char *reason_key(const struct run_pod *p)
{
	const char *e = p->reason.why && *p->reason.why ? p->reason.why : "not probed";
	const char *name = p->pod->name;
	size_t n = name ? strlen(name) : 0;
	struct buf b = BUF_INIT(SUMMARY_LINE_MAX);

	while (*e) {
		if (n && !strncmp(e, name, n)) {
			buf_appends(&b, "<pod>");
			e += n;
		} else {
			buf_append(&b, e++, 1);
		}
	}
	return buf_detach(&b, NULL);
}

#define INDENT 5             /* continuation lines, under the "fix:" */

/* "<status> <text>", the status word coloured, wrapped at st->width.  A
 * text that starts "NAME STATUS " says its status once: "fail rdma-devices
 * on 1 of 7 pods: ...", not "fail rdma-devices fail on ...". */
static void finding_line(FILE *out, enum check_status status, const char *name,
			 const char *text, const struct report_style *st)
{
	const char *w = check_status_name(status);
	size_t nl = name ? strlen(name) : 0, wl = strlen(w);
	char lead[160], paint[48];

	if (nl && nl < 64 && !strncmp(text, name, nl) && text[nl] == ' ' &&
	    !strncmp(text + nl + 1, w, wl) && text[nl + 1 + wl] == ' ') {
		snprintf(lead, sizeof(lead), "%s %s ", report_paint(w, (int)status, st->color,
				paint, sizeof(paint)), name);
		report_wrap(out, lead, wl + nl + 2, text + nl + wl + 2, INDENT, st->width);
		return;
	}
	snprintf(lead, sizeof(lead), "%s ", report_paint(w, (int)status, st->color,
							 paint, sizeof(paint)));
	report_wrap(out, lead, wl + 1, text, INDENT, st->width);
}

static void fix_line(FILE *out, const char *remedy, const struct report_style *st)
{
	report_wrap(out, "     fix: ", 10, remedy, INDENT + 5, st->width);
}

/* "caused by it: rdma-verbs, ucx-rdma, ..." (verdict fold.c). */
static void folded_line(FILE *out, const struct verdict_finding *f, const struct report_style *st)
{
	struct buf b = BUF_INIT(SUMMARY_LINE_MAX);

	for (size_t i = 0; i < f->nfolded; i++)
		buf_appendf(&b, "%s%s", i ? ", " : "", f->folded[i]);
	if (f->nfolded)
		report_wrap(out, "     also caused by it: ", 24, buf_str(&b), INDENT + 5, st->width);
	buf_release(&b);
}

static void print_group(FILE *out, const struct report *r, char **keys, size_t first,
			size_t count, const struct report_style *st)
{
	struct buf b = BUF_INIT(SUMMARY_LINE_MAX);
	size_t shown = 0;

	if (count == r->n && count > 1)
		buf_appendf(&b, "all %zu pods not probed (", count);
	else
		buf_appendf(&b, "%zu of %zu pod%s not probed (", count, r->n, r->n == 1 ? "" : "s");
	for (size_t i = first; i < r->n && shown < NAMES_SHOWN; i++)
		if (keys[i] && !strcmp(keys[i], keys[first]))
			buf_appendf(&b, "%s%s", shown++ ? ", " : "", r->pods[i].pod->name);
	if (count > shown)
		buf_appendf(&b, " and %zu more", count - shown);
	/* One pod: its own words; several: the shared words. */
	buf_appendf(&b, "): %s", count == 1 && r->pods[first].reason.why &&
		    *r->pods[first].reason.why ? r->pods[first].reason.why : keys[first]);
	finding_line(out, CHECK_SKIPPED, NULL, buf_str(&b), st);
	buf_release(&b);
}

static void print_unprobed(FILE *out, const struct report *r, const struct report_style *st)
{
	char **keys = xcalloc(r->n ? r->n : 1, sizeof(*keys));

	for (size_t i = 0; i < r->n; i++)
		if (!r->pods[i].probed)
			keys[i] = reason_key(&r->pods[i]);
	for (size_t i = 0; i < r->n; i++) {
		size_t count = 0;
		int seen = 0;

		if (!keys[i])
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = keys[j] && !strcmp(keys[j], keys[i]);
		if (seen)
			continue;
		for (size_t j = i; j < r->n; j++)
			count += keys[j] && !strcmp(keys[j], keys[i]);
		print_group(out, r, keys, i, count, st);
	}
	for (size_t i = 0; i < r->n; i++)
		free(keys[i]);
	free(keys);
}

/* ---- one RBAC hint for every 403 ------------------------------------ */

#define HINT_MAX 4

struct rbac_gap {
	char verb[32], resource[64];
};

struct rbac_hint {
	struct rbac_gap gap[HINT_MAX];
	size_t n;
	char user[128], ns[128];
};

/* Adds one denial (typed where the server's Forbidden arrived: util/err.h
 * err_denial) to the hint, once per verb and resource. */
static void rbac_add(struct rbac_hint *h, const struct err_denial *d)
{
	if (!d || !d->verb[0])
		return;
	for (size_t i = 0; i < h->n; i++)
		if (!strcmp(h->gap[i].verb, d->verb) && !strcmp(h->gap[i].resource, d->resource))
			return;
	if (h->n < HINT_MAX) {
		snprintf(h->gap[h->n].verb, sizeof(h->gap[h->n].verb), "%s", d->verb);
		snprintf(h->gap[h->n].resource, sizeof(h->gap[h->n].resource), "%s", d->resource);
		h->n++;
	}
	if (!h->user[0])
		snprintf(h->user, sizeof(h->user), "%s", d->user);
	if (!h->ns[0])
		snprintf(h->ns, sizeof(h->ns), "%s", d->ns);
}

/* A name as one shell word: as it is when plain, else in single quotes;
 * NULL when even that cannot hold it. */
static const char *shell_word(const char *s, char *buf, size_t n)
{
	if (!*s || strchr(s, '\'') || strlen(s) + 3 > n)
		return NULL;
	if (strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@._:-") == strlen(s))
		return s;
	snprintf(buf, n, "'%s'", s);
	return buf;
}

void report_rbac_command(char *buf, size_t n, const char *user, const char *ns)
{
	static const char sa[] = "system:serviceaccount:";
	char q1[160], q2[160];
	const char *who = user ? shell_word(user, q1, sizeof(q1)) : NULL;
	const char *where = ns && *ns ? shell_word(ns, q2, sizeof(q2)) : NULL;
	const char *flag = "--user";

	if (who && !strncmp(user, sa, sizeof(sa) - 1) && strchr(user + sizeof(sa) - 1, ':')) {
		flag = "--serviceaccount";
		who = shell_word(user + sizeof(sa) - 1, q1, sizeof(q1));
	}
	snprintf(buf, n, "kubectl dynamo-interconnect rbac %s %s %s%s | kubectl apply -f -",
		 flag, who ? who : "USER", where ? "-n " : "-A", where ? where : "");
}

static void print_rbac_hint(FILE *out, const struct report *r, const struct report_style *st)
{
	struct rbac_hint h;
	struct buf b = BUF_INIT(SUMMARY_LINE_MAX);
	const char *ns;
	char cmd[512];

	memset(&h, 0, sizeof(h));
	for (size_t i = 0; i < r->n; i++) {
		rbac_add(&h, r->pods[i].reason.denied);
		rbac_add(&h, r->pods[i].log_denied);
	}
	if (!h.n)
		return;
	ns = h.ns[0] ? h.ns : "NAMESPACE";
	buf_appendf(&b, "user \"%s\" cannot ", h.user[0] ? h.user : "(you)");
	for (size_t i = 0; i < h.n; i++)
		buf_appendf(&b, "%s%s %s", i ? (i + 1 == h.n ? " or " : ", ") : "",
			    h.gap[i].verb, h.gap[i].resource);
	report_rbac_command(cmd, sizeof(cmd), h.user, h.ns);
	buf_appendf(&b, ": grant the plugin's role with %s (the roles of deploy/rbac.yaml); "
		    "confirm with", cmd);
	for (size_t i = 0; i < h.n; i++) {
		const char *slash = strchr(h.gap[i].resource, '/');
		if (slash)
			buf_appendf(&b, "%s kubectl auth can-i %s %.*s --subresource=%s -n %s",
				    i ? ";" : "", h.gap[i].verb, (int)(slash - h.gap[i].resource),
				    h.gap[i].resource, slash + 1, ns);
		else
			buf_appendf(&b, "%s kubectl auth can-i %s %s -n %s", i ? ";" : "",
				    h.gap[i].verb, h.gap[i].resource, ns);
	}
	report_wrap(out, "hint: ", 6, buf_str(&b), INDENT + 1, st->width);
	buf_release(&b);
}

/* ---- the summary ---------------------------------------------------- */

static int any_unprobed(const struct report *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (!r->pods[i].probed)
			return 1;
	return 0;
}

void report_print_summary(FILE *out, const struct report *r,
			  const struct report_style *st)
{
	const struct verdict *v = r->verdict;
	int unprobed = any_unprobed(r), grouped = 0;

	if (v->nfindings || unprobed)
		fputc('\n', out);
	for (size_t i = 0; i < v->nfindings; i++) {
		const struct verdict_finding *f = &v->findings[i];

		/* The verdict has one "pod-probe" finding per pod; the
		 * table's reader wants one line per reason. */
		if (!strcmp(f->name, check_def_of(CK_POD_PROBE)->name)) {
			if (!grouped++)
				print_unprobed(out, r, st);
			continue;
		}
		finding_line(out, f->status, f->name, f->text, st);
		if (report_has_fix(f->status, f->remedy))
			fix_line(out, f->remedy, st);
		folded_line(out, f, st);
	}
	if (unprobed && !grouped)
		print_unprobed(out, r, st);
	print_rbac_hint(out, r, st);
	report_print_verdict(out, r, st);
}

/* "Fix first: CHECK STATUS on WHO; fix: REMEDY": the check and its fix in
 * one line; the detail is the finding's own line above.  Any other
 * fix-first (a DGD's) as the verdict words it. */
static void fix_first(FILE *out, const struct verdict *v, const struct report_style *st)
{
	const struct verdict_finding *f = v->nfindings ? &v->findings[0] : NULL;
	char *line;

	if (!f || !f->head || !f->remedy || strncmp(v->fix_first, f->text, strlen(f->text))) {
		report_wrap(out, "Fix first: ", 11, v->fix_first, INDENT, st->width);
		return;
	}
	line = xasprintf("%s; fix: %s", f->head, f->remedy);
	report_wrap(out, "Fix first: ", 11, line, INDENT, st->width);
	free(line);
}

void report_print_verdict(FILE *out, const struct report *r,
			  const struct report_style *st)
{
	const struct verdict *v = r->verdict;
	char buf[64];

	fprintf(out, "\nVerdict: %s (fabric: %s; %zu pod%s, %zu probed, %zu ready",
		report_paint(verdict_name(v->status), report_verdict_color(v->status),
			     st->color, buf, sizeof(buf)),
		fabric_name(v->fabric), v->npods, v->npods == 1 ? "" : "s",
		v->nprobed, v->nready);
	/* checks.md N: warnings are counted with the verdict, never hide it. */
	if (v->nwarnings)
		fprintf(out, ", %zu warning%s", v->nwarnings, v->nwarnings == 1 ? "" : "s");
	fputs(")\n", out);
	if (v->fix_first)
		fix_first(out, v, st);
	if (v->unconfirmed)
		report_wrap(out, "Not confirmed: ", 15, v->unconfirmed, INDENT, st->width);
}
