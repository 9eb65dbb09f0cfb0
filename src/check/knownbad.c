/* The known-bad checks (issue 26 item 2, issue 43, checks.md F5): the
 * rows of the known-issues table (data/known-issues.yaml, known.h), each
 * a combination of component versions with conditions on the pod's facts
 * that a public report shows broken.  The code only finds the pod's
 * versions and evaluates each row (known_cond.c); the rows are data, and
 * a user's --known-issues file adds or overrides them
 * (check_context.known).  Adding a row: docs/known-issues.md.
 *
 * Three checks read it, one per component, so that a finding lands in the
 * column of the thing to change (UCX, NIXL or Mooncake) and breaks that
 * component's link (table.def): ucx-known-bad, nixl-known-bad and
 * mooncake-known-bad. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/known_int.h"
#include "probe/facts.h"

/* The versions of the component a check reads, "" ended: UCX's from
 * ucx_info -v; Mooncake's the pip-installed transfer engine (A9's
 * mooncake_dist); NIXL's the CUDA builds pip holds, else the one wheel
 * (before 1.1.0 "nixl" was the build itself). */
static int versions(const struct check_input *in, enum check_id id,
		    const char *out[PROBE_NIXL_DIST_COUNT])
{
	const struct probe_facts *f = in->f;
	int n = 0;

	if (id == CK_UCX_KNOWN_BAD) {
		if (f->ucx.major >= 0 && f->ucx.version[0])
			out[n++] = f->ucx.version;
		return n;
	}
	if (id == CK_MOONCAKE_KNOWN_BAD) {
		if (f->mooncake.version[0])
			out[n++] = f->mooncake.version;
		return n;
	}
	for (int d = PROBE_NIXL_DIST_CU12; d < PROBE_NIXL_DIST_COUNT; d++)
		if (f->nixl.dist_version[d][0])
			out[n++] = f->nixl.dist_version[d];
	if (!n && f->nixl.dist_version[PROBE_NIXL_DIST_NIXL][0])
		out[n++] = f->nixl.dist_version[PROBE_NIXL_DIST_NIXL];
	if (!n && f->nixl.python_version[0])
		out[n++] = f->nixl.python_version;
	return n;
}

/* ---- judging ----------------------------------------------------------- */

static enum known_column column_of(enum check_id id)
{
	return id == CK_UCX_KNOWN_BAD ? KNOWN_COL_UCX :
	       id == CK_MOONCAKE_KNOWN_BAD ? KNOWN_COL_MOONCAKE : KNOWN_COL_NIXL;
}

/* Appends what a row saw to why: " with A", then ", B". */
static void seen(char *why, size_t n, int *parts, const char *what)
{
	size_t used = strlen(why);

	if (!what[0] || used >= n)
		return;
	snprintf(why + used, n - used, "%s%s", (*parts)++ ? ", " : " with ", what);
}

/* Every version range of r but its column's holds for the pod, and every
 * condition: 1, with what was seen appended to why. */
static int row_holds(const struct kb_in *k, const struct known_row *r, char *why, size_t n)
{
	enum known_comp own = known_column_comp(r->column);
	char w[200], v[64];
	int parts = 0;

	for (int c = 0; c < KC__COUNT; c++) {
		if (c == (int)own || !r->versions[c])
			continue;
		known_comp_version(k, (enum known_comp)c, v, sizeof v);
		if (!v[0] || !known_in_range(r->versions[c], v))
			return 0;
		snprintf(w, sizeof w, "%s %s", known_comp_name((enum known_comp)c), v);
		seen(why, n, &parts, w);
	}
	for (int i = 0; i < r->ncond; i++) {
		if (!known_cond_holds(k, &r->cond[i], w, sizeof w))
			return 0;
		seen(why, n, &parts, w);
	}
	return 1;
}

/* The first row of check id that the pod matches (worst first), with the
 * version and the conditions seen in why; NULL when none. */
static const struct known_row *match(const struct kb_in *k, const struct known_table *t,
				     enum check_id id, const char *what, const char *const *ver,
				     int nver, char *why, size_t n)
{
	const struct known_row *hit = NULL;
	char w[400];

	for (size_t i = 0; i < t->n; i++) {
		const struct known_row *r = &t->row[i];
		const char *own = r->versions[known_column_comp(r->column)];

		for (int j = 0; j < nver && r->column == column_of(id); j++) {
			snprintf(w, sizeof w, "%s %s", what, ver[j]);
			if (!known_in_range(own, ver[j]) || !row_holds(k, r, w, sizeof w))
				continue;
			if (!hit || (r->fail && !hit->fail)) {
				hit = r;
				copy_str(why, n, w);
			}
			break;
		}
	}
	return hit;
}

static int rows_of(const struct known_table *t, enum check_id id)
{
	int n = 0;

	for (size_t i = 0; i < t->n; i++)
		n += t->row[i].column == column_of(id);
	return n;
}

/* The libucp NIXL's UCX plugin loads (E1's ldd) is the one a NIXL wheel
 * bundles: auditwheel copies it into the wheel's <dist>.libs under a
 * private hashed SONAME ("libucp-6b1f3e2a.so.0", "libucp-nixl-..."), and
 * contrib/wheel_add_ucx_plugins.py points the plugin at it (RPATH
 * $ORIGIN/..:$ORIGIN, DT_NEEDED replaced by that name): no other copy has
 * the name, so the wheel runs on the UCX it was built with. */
static const char *wheel_bundled_ucp(const struct probe_facts *f)
{
	const char *p = f->nixl_ucx_ldd.lib[PROBE_UCXLIB_UCP], *base = strrchr(p, '/');
	size_t dl;

	if (f->nixl_ucx_ldd.src.status != PROBE_OK || !base || strncmp(base + 1, "libucp-", 7))
		return NULL;
	dl = (size_t)(base - p);
	return dl >= 5 && !strncmp(base - 5, ".libs", 5) ? p : NULL;
}

/* Without ldd: the plugin directory NIXL uses is a wheel's
 * (SITE/nixl_cuNN.libs/nixl or SITE/.nixl_cuNN.mesonpy.libs/plugins) and
 * the probe listed that wheel's SITE/nixl_cuNN.libs/libucp-* (F6's
 * listing), which the plugins name by that private name. */
static const char *wheel_listed_ucp(const struct probe_facts *f)
{
	const char *dir = f->nixl.plugin_dir[0] ? f->nixl.plugin_dir : f->nixl.wheel_dir;
	const char *w = strstr(dir, "/nixl_cu"), *m = strstr(dir, "/.nixl_cu");
	char want[300];
	size_t site, dl;

	if (m && (!w || m < w))
		w = m;
	if (!w)
		return NULL;
	site = (size_t)(w - dir);
	w += w[1] == '.' ? 2 : 1;
	dl = strspn(w + 7, "0123456789");
	if (!dl)
		return NULL;
	snprintf(want, sizeof want, "%.*s/%.*s.libs/libucp-", (int)site, dir, (int)(7 + dl), w);
	for (int i = 0; i < f->stack.ncopies; i++)
		if (!strncmp(f->stack.copy[i], want, strlen(want)))
			return f->stack.copy[i];
	return NULL;
}

/* What the ok of nixl-known-bad says of the ai-dynamo/nixl#386 row when
 * there was no build UCX to compare: answered by the UCX that loads. */
static void build_ucx_note(const struct probe_facts *f, char *b, size_t n)
{
	char built[32];
	const char *ucp = wheel_bundled_ucp(f), *listed = ucp ? NULL : wheel_listed_ucp(f);

	known_build_ucx(f, built);
	if (built[0])
		b[0] = '\0';
	else if (ucp)
		snprintf(b, n, "; ai-dynamo/nixl#386 does not apply: NIXL's UCX plugin loads the UCX "
			 "bundled with the wheel (%s), the one it was built with", ucp);
	else if (listed)
		snprintf(b, n, "; ai-dynamo/nixl#386 does not apply: NIXL's plugins are the wheel's, "
			 "which name its bundled UCX (%s) by a private name: the UCX it was built with", listed);
	else
		snprintf(b, n, "; ai-dynamo/nixl#386 not judged: the UCX this NIXL was built with is "
			 "not reported (no nixl-versions.txt, no UCX bundled with a wheel)");
}

/* Emits row r's finding with its way out: the variable to paste first in
 * the remedy and as the result's suggested variable, where there is one. */
static void way_out(const struct kb_in *k, const struct known_row *r, enum check_id id,
		    const char *why, struct check_results *out)
{
	char paste[300], fix[600], name[64];
	const char *eq;

	if (r->paste)
		copy_str(paste, sizeof paste, r->paste);
	else if (!r->way || known_way(k, r->way, paste, sizeof paste) != 1)
		paste[0] = '\0';
	if (paste[0])
		snprintf(fix, sizeof fix, "set %s on the workers (%s)", paste, r->fix);
	else
		copy_str(fix, sizeof fix, r->fix);
	emit(out, id, r->fail ? hard(k->in) : CHECK_WARN, fix,
	     "%s: %s (%s)", why, r->effect, r->source);
	eq = strchr(paste, '=');
	if (!eq)
		return;
	copy_strn(name, sizeof name, paste, (size_t)(eq - paste));
	emit_suggest(out, name, eq + 1);
}

static void judge(const struct kb_in *k, enum check_id id, const char *what,
		  struct check_results *out)
{
	const char *ver[PROBE_NIXL_DIST_COUNT];
	int nver = versions(k->in, id, ver);
	const struct known_table *t = k->in->ctx->known ? k->in->ctx->known : known_builtin();
	char why[400];
	const struct known_row *r;

	if (!nver) {
		/* nothing to compare: a skip without a remedy (no ucx_info in
		 * a wheel image, TensorRT-LLM's C++ NIXL) */
		if (id == CK_MOONCAKE_KNOWN_BAD)
			emit_na(out, id, "no Mooncake transfer engine installed: no known-bad row judged");
		else
			emit_na(out, id, "%s version not reported: no known-bad row judged", what);
		return;
	}
	r = match(k, t, id, what, ver, nver, why, sizeof why);
	if (!r) {
		char note[400] = "";

		if (id == CK_NIXL_KNOWN_BAD)
			build_ucx_note(k->in->f, note, sizeof note);
		emit(out, id, CHECK_OK, NULL, "%s %s%s: none of the %d known-bad combinations%s",
		     what, ver[0], nver > 1 ? " (and another build)" : "", rows_of(t, id), note);
		return;
	}
	way_out(k, r, id, why, out);
}

void check_knownbad(const struct check_input *in, struct check_results *out)
{
	struct kb_in k = { .in = in };
	struct envr_var *owned = book_view(&in->f->env, &k.env);

	if (!in->cross_pod) {
		emit_na(out, CK_UCX_KNOWN_BAD, "KV stays inside this pod");
		emit_na(out, CK_NIXL_KNOWN_BAD, "KV stays inside this pod");
		emit_na(out, CK_MOONCAKE_KNOWN_BAD, "KV stays inside this pod");
	} else {
		judge(&k, CK_UCX_KNOWN_BAD, "UCX", out);
		judge(&k, CK_NIXL_KNOWN_BAD, "NIXL", out);
		judge(&k, CK_MOONCAKE_KNOWN_BAD, "Mooncake", out);
	}
	free(owned);
}
