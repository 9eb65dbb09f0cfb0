/* Which NIXL and UCX really load (checks.md F6-F8, issue 26 item 1): the
 * dynamic loader's choice replayed from the probe's nixl_stack lines.
 *
 * ld.so(8) looks a DT_NEEDED name up in: DT_RPATH of the object when it
 * has no DT_RUNPATH, LD_LIBRARY_PATH, DT_RUNPATH, then ld.so.cache and the
 * default directories; a library LD_PRELOAD loaded (same name) is taken
 * first, whatever the paths.  The copy the object's own RPATH/RUNPATH
 * names is the one it was built and shipped with; another copy winning is
 * the shadowing of ai-dynamo/dynamo#6671.  ld.so.cache's step searches
 * the directories ldconfig read from /etc/ld.so.conf (probe/ldconf.c) in
 * its order, then its built-in ones.  The search is replayed only over
 * copies the probe listed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/internal.h"
#include "probe/facts.h"
#include "util/buf.h"

/* ---- paths ------------------------------------------------------------- */

/* Collapses "//", "/./" and "dir/.." of an absolute path in place. */
static void path_norm(char *p)
{
	char *out = p, *in = p;

	if (*p != '/')
		return;
	while (*in) {
		while (*in == '/')
			in++;
		if (!*in)
			break;
		char *end = strchr(in, '/');
		size_t n = end ? (size_t)(end - in) : strlen(in);

		if (n == 1 && in[0] == '.') {
			/* skip */
		} else if (n == 2 && in[0] == '.' && in[1] == '.') {
			while (out > p && *--out != '/')
				;
		} else {
			*out++ = '/';
			memmove(out, in, n);
			out += n;
		}
		in += n;
	}
	if (out == p)
		*out++ = '/';
	*out = '\0';
}

/* dir/name of a copy the probe listed, normalised; NULL when none. */
static const char *copy_in(const struct probe_stack *s, const char *dir,
			   const char *name)
{
	/* On the stack: pods are judged on several threads at once. */
	char want[600], got[600];

	snprintf(want, sizeof want, "%s/%s", dir, name);
	path_norm(want);
	for (int i = 0; i < s->ncopies; i++) {
		copy_str(got, sizeof got, s->copy[i]);
		path_norm(got);
		if (!strcmp(got, want))
			return s->copy[i];
	}
	return NULL;
}

/* The first copy of name in a ':' list of directories ($ORIGIN, ${ORIGIN}
 * the object's directory), into out; 1 when found. */
static int search_list(const struct probe_stack *s, const char *list,
		       const char *origin, const char *name, char *out, size_t n)
{
	char dir[600];
	const char *p = list, *c;

	while (p && *p) {
		size_t l;

		c = strchr(p, ':');
		l = c ? (size_t)(c - p) : strlen(p);
		if (l >= 9 && !strncmp(p, "${ORIGIN}", 9))
			snprintf(dir, sizeof dir, "%s%.*s", origin, (int)(l - 9), p + 9);
		else if (l >= 7 && !strncmp(p, "$ORIGIN", 7))
			snprintf(dir, sizeof dir, "%s%.*s", origin, (int)(l - 7), p + 7);
		else
			copy_strn(dir, sizeof dir, p, (size_t)l);
		if (l && dir[0] == '/' && copy_in(s, dir, name)) {
			copy_str(out, n, copy_in(s, dir, name));
			return 1;
		}
		p = c ? c + 1 : NULL;
	}
	return 0;
}

/* LD_PRELOAD entries (':' or ' ' separated) whose file name is name. */
static int preloaded(const char *preload, const char *name, char *out, size_t n)
{
	const char *p = preload;
	size_t nl = strlen(name);

	while (p && *p) {
		size_t l = strcspn(p, ": ");
		const char *base = p;

		for (size_t k = 0; k < l; k++)
			if (p[k] == '/')
				base = p + k + 1;

		if ((size_t)(p + l - base) == nl && !strncmp(base, name, nl)) {
			copy_strn(out, n, p, (size_t)l);
			return 1;
		}
		p += l;
		p += strspn(p, ": ");
	}
	return 0;
}

/* ---- one object's libraries ------------------------------------------- */

/* The NEEDED names this judges: NIXL's and UCX's libraries. */
static int watched(const char *name)
{
	return !strncmp(name, "libnixl", 7) || !strncmp(name, "libucp", 6) ||
	       !strncmp(name, "libuct", 6) || !strncmp(name, "libucs", 6);
}

enum from { FROM_NONE, FROM_PRELOAD, FROM_RPATH, FROM_LPATH, FROM_RUNPATH, FROM_CACHE, FROM_SYSTEM };

static const char *const from_name[] = {
	"", "LD_PRELOAD", "DT_RPATH", "LD_LIBRARY_PATH", "DT_RUNPATH", "ld.so.cache",
	"the default directories",
};

/* ldconfig's built-in directories (after the conf files' in the cache)
 * and ld.so's default ones, searched last. */
static const char *const system_dirs =
	"/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib/aarch64-linux-gnu:"
	"/usr/lib/aarch64-linux-gnu:/lib64:/usr/lib64:/lib:/usr/lib";

/* ld.so(8)'s order for one name; the winner into out. */
static enum from resolve(const struct probe_stack *s, const struct probe_stack_elf *e,
			 const char *origin, const char *name, char *out, size_t n)
{
	if (preloaded(s->preload, name, out, n))
		return FROM_PRELOAD;
	if (e->has_rpath && !e->has_runpath && search_list(s, e->rpath, origin, name, out, n))
		return FROM_RPATH;
	if (search_list(s, s->lpath, origin, name, out, n))
		return FROM_LPATH;
	if (e->has_runpath && search_list(s, e->runpath, origin, name, out, n))
		return FROM_RUNPATH;
	for (int i = 0; i < s->nldcache; i++)
		if (copy_in(s, s->ldcache[i].dir, name)) {
			copy_str(out, n, copy_in(s, s->ldcache[i].dir, name));
			return FROM_CACHE;
		}
	if (search_list(s, system_dirs, origin, name, out, n))
		return FROM_SYSTEM;
	return FROM_NONE;
}

/* The copy the object's own RPATH/RUNPATH names (what it ships with). */
static int own_copy(const struct probe_stack *s, const struct probe_stack_elf *e,
		    const char *origin, const char *name, char *out, size_t n)
{
	const char *list = e->has_runpath ? e->runpath : e->has_rpath ? e->rpath : NULL;

	return list && search_list(s, list, origin, name, out, n);
}

static void dirname_of(const char *path, char *out, size_t n)
{
	const char *slash = strrchr(path, '/');

	snprintf(out, n, "%.*s", slash ? (int)(slash - path) : 0, path);
}

static int elf_read(const struct probe_stack_elf *e)
{
	return e->elf_rc == 0 && (e->nneeded || e->has_rpath || e->has_runpath);
}

/* ---- F6 nixl-lib-shadow ----------------------------------------------- */

static int is_ucx(const char *name)
{
	return !strncmp(name, "libucp", 6) || !strncmp(name, "libuct", 6) || !strncmp(name, "libucs", 6);
}

/* The conf file that put win's directory into ld.so.cache. */
static const char *cache_from(const struct probe_stack *s, const char *win)
{
	char dir[600];

	dirname_of(win, dir, sizeof dir);
	path_norm(dir);
	for (int i = 0; i < s->nldcache; i++)
		if (!strcmp(s->ldcache[i].dir, dir))
			return s->ldcache[i].from;
	return "";
}

/* What one NEEDED library resolves to, kept for the finding. */
struct pick {
	const struct probe_stack_elf *e;
	const char *name;
	enum from f;
	char win[600];
};

/* A UCX library the object names no copy of loads from another UCX than
 * the one ucx_info describes (E1's comparison, replayed without ldd):
 * NIXL then runs on a UCX it was not necessarily built for
 * (ai-dynamo/nixl#334, #386) and the UCX checks judge another copy. */
static int foreign_ucx(const struct check_input *in, const struct pick *p)
{
	const struct probe_ucx *u = &in->f->ucx;
	char mine[600], theirs[256];

	if (!is_ucx(p->name) || !u->library_path[0] || p->f == FROM_NONE)
		return 0;
	lib_dir(p->win, mine, sizeof mine);
	lib_dir(u->library_path, theirs, sizeof theirs);
	path_norm(mine);
	path_norm(theirs);
	return strcmp(mine, theirs) != 0;
}

static void emit_foreign(const struct check_input *in, const struct probe_stack *s,
			 const struct pick *p, struct check_results *out)
{
	char theirs[256], via[300] = "";

	lib_dir(in->f->ucx.library_path, theirs, sizeof theirs);
	if (p->f == FROM_CACHE && cache_from(s, p->win)[0])
		snprintf(via, sizeof via, " (its directory from %s)", cache_from(s, p->win));
	emit(out, CK_NIXL_LIB_SHADOW, CHECK_WARN,
	     "put the UCX NIXL was built with first (LD_LIBRARY_PATH), or remove the other UCX's ld.so.conf.d file and rerun ldconfig",
	     "%s needs %s and names no copy of it: %s's %s loads%s, not a copy of the UCX "
	     "ucx_info describes %s (ld.so(8) order; E1; ai-dynamo/nixl#334)",
	     p->e->path, p->name, from_name[p->f], p->win, via, theirs);
}

/* ld.so.cache's order stands on ld.so.conf as the probe read it: a file,
 * a line or an include match past its bounds (probe.sh ldconf_cut,
 * ldconf_files_capped) leaves the cache step unknown, so a resolution that
 * reached it is not judged on a part (issue 37 item 3: no silent loss). */
static int conf_partial(const struct probe_stack *s)
{
	return s->ldconf_files_dropped || s->ldconf_lines_dropped || s->ldcache_dropped;
}

/* What judge_shadow gathers over the objects: libraries judged, the first
 * resolution seen, the first foreign UCX, and whether a resolution reached
 * the cache step (or found no copy) while ld.so.conf was read in part. */
struct shadow_acc {
	int njudged, unknown;
	struct pick first, foreign;
};

/* Judges one object: 1 when it emitted (a shadowed copy). */
static int shadow_elf(const struct check_input *in, const struct probe_stack *s,
		      const struct probe_stack_elf *e, struct shadow_acc *acc,
		      struct check_results *out)
{
	char origin[256], own[600];
	struct pick p = { .e = e };

	dirname_of(e->path, origin, sizeof origin);
	for (int j = 0; j < e->nneeded; j++) {
		if (!watched(e->needed[j]))
			continue;
		acc->njudged++;
		p.name = e->needed[j];
		p.f = resolve(s, e, origin, p.name, p.win, sizeof p.win);
		if ((p.f == FROM_NONE || p.f >= FROM_CACHE) && conf_partial(s)) {
			acc->unknown = 1;
			continue;
		}
		if (p.f != FROM_NONE)
			path_norm(p.win);
		if (p.f != FROM_NONE && !acc->first.e)
			acc->first = p;
		if (!own_copy(s, e, origin, p.name, own, sizeof own)) {
			if (!acc->foreign.e && foreign_ucx(in, &p))
				acc->foreign = p;
			continue;
		}
		path_norm(own);
		if (p.f == FROM_NONE || !strcmp(p.win, own))
			continue;
		emit(out, CK_NIXL_LIB_SHADOW, hard(in), NULL,
		     "%s needs %s: %s's %s is loaded, not %s that its %s names "
		     "(ld.so(8): %s comes first; ai-dynamo/dynamo#6671)",
		     e->path, p.name, from_name[p.f], p.win, own,
		     e->has_runpath ? "DT_RUNPATH" : "DT_RPATH", from_name[p.f]);
		return 1;
	}
	return 0;
}

static void shadow_unread(const struct probe_stack *s, struct check_results *out)
{
	char b[160];

	if (s->tool_reported && s->tool == PROBE_ELF_NONE)
		snprintf(b, sizeof b, "no readelf or objdump in the image: the RUNPATH of NIXL's objects was not read%s",
			 s->nelfs ? ", and no ldd answer to say which copy loads" : "");
	else if (!s->nelfs)
		snprintf(b, sizeof b, "no NIXL UCX plugin or wrapper found to read");
	else
		snprintf(b, sizeof b, "the dynamic section of NIXL's objects could not be read");
	/* No tool or no object: nothing to replay, so, as E1 without
	 * ldd, not applicable (never ok); a tool that failed is a skip. */
	if ((s->tool_reported && s->tool == PROBE_ELF_NONE) || !s->nelfs)
		emit_na(out, CK_NIXL_LIB_SHADOW, "%s (%d copies of NIXL/UCX libraries listed)",
			b, s->ncopies);
	else
		emit(out, CK_NIXL_LIB_SHADOW, CHECK_SKIPPED, NULL, "%s (%d copies of NIXL/UCX libraries listed)",
		     b, s->ncopies);
}

/* ---- F6 from ldd alone (no readelf, no objdump: issue 39 item 3) ------ */

/* Is dir where an object in origin ships its libraries: origin itself,
 * below it (TensorRT-LLM's libs/nixl), or its parent (a wheel's plugin in
 * nixl_cuNN.libs/nixl with its UCX one level up, RPATH $ORIGIN/..)? */
static int ships_beside(const char *origin, const char *dir)
{
	char up[600];
	size_t ol = strlen(origin);

	if (!strncmp(dir, origin, ol) && (!dir[ol] || dir[ol] == '/'))
		return 1;
	dirname_of(origin, up, sizeof up);
	return !strcmp(dir, up);
}

/* Copies of name (a file name starting with it: "libucp.so.0" matches
 * libucp.so.0.0.0) in how many directories, and into beside the first
 * one that ships beside origin ("" none). */
static int copy_dirs(const struct probe_stack *s, const char *name, const char *origin,
		     char *beside, size_t n)
{
	char dir[600], seen[8][600];
	int ndirs = 0;

	beside[0] = '\0';
	for (int i = 0; i < s->ncopies; i++) {
		const char *b = strrchr(s->copy[i], '/');
		int dup = 0;

		if (!b || strncmp(b + 1, name, strlen(name)))
			continue;
		dirname_of(s->copy[i], dir, sizeof dir);
		path_norm(dir);
		for (int k = 0; k < ndirs && k < 8; k++)
			dup |= !strcmp(seen[k], dir);
		if (dup)
			continue;
		if (ndirs < 8)
			copy_str(seen[ndirs], sizeof seen[0], dir);
		ndirs++;
		if (!beside[0] && ships_beside(origin, dir) &&
		    (size_t)snprintf(beside, n, "%s/%s", dir, b + 1) >= n)
			beside[0] = '\0';   /* too long to name: not judged */
	}
	return ndirs;
}

/* One object's ldd lines: 1 when it emitted (another copy than the one it
 * ships beside loads while several are listed). */
static int ldd_shadow_elf(const struct check_input *in, const struct probe_stack *s,
			  const struct probe_stack_elf *e, int *njudged, struct check_results *out)
{
	char origin[600], dir[600], beside[600];

	dirname_of(e->path, origin, sizeof origin);
	path_norm(origin);
	for (int j = 0; j < e->nldd; j++) {
		const struct probe_ldd_line *l = &e->ldd[j];

		if (l->not_found || !l->path[0] || !watched(l->name))
			continue;
		(*njudged)++;
		dirname_of(l->path, dir, sizeof dir);
		path_norm(dir);
		if (copy_dirs(s, l->name, origin, beside, sizeof beside) < 2 || !beside[0] ||
		    ships_beside(origin, dir))
			continue;
		emit(out, CK_NIXL_LIB_SHADOW, hard(in), NULL,
		     "%s needs %s: ldd under PID 1's LD_LIBRARY_PATH loads %s, not %s it ships "
		     "beside (%s in several directories; no readelf or objdump in the image, so "
		     "ldd's answer stands in for the RUNPATH replay; ai-dynamo/dynamo#6671)",
		     e->path, l->name, l->path, beside, l->name);
		return 1;
	}
	return 0;
}

/* No dynamic section read: judge from ldd's resolution where ldd
 * answered, else say which missing tool left it unjudged.  1 when it
 * emitted. */
static int judge_shadow_ldd(const struct check_input *in, const struct probe_stack *s,
			    struct check_results *out)
{
	int nread = 0, njudged = 0;

	if (!s->tool_reported || s->tool != PROBE_ELF_NONE)
		return 0;
	for (int i = 0; i < s->nelfs; i++) {
		const struct probe_stack_elf *e = &s->elf[i];

		if (e->ldd_rc < 0 || e->ldd_rc == 127 || !e->nldd)
			continue;
		nread++;
		if (ldd_shadow_elf(in, s, e, &njudged, out))
			return 1;
	}
	if (!nread)
		return 0;
	emit(out, CK_NIXL_LIB_SHADOW, CHECK_OK, NULL,
	     "no readelf or objdump in the image (RUNPATH not read): judged from ldd under PID 1's "
	     "LD_LIBRARY_PATH on %d NIXL object(s), %d NIXL/UCX libraries each load the copy the "
	     "object ships beside or the only one listed (%d copies listed)",
	     nread, njudged, s->ncopies);
	return 1;
}

static void judge_shadow(const struct check_input *in, const struct probe_stack *s,
			 struct check_results *out)
{
	struct shadow_acc acc = { 0 };
	char seen[700] = "";
	int nread = 0;

	for (int i = 0; i < s->nelfs; i++) {
		if (!elf_read(&s->elf[i]))
			continue;
		nread++;
		if (shadow_elf(in, s, &s->elf[i], &acc, out))
			return;
	}
	if (!nread) {
		if (!judge_shadow_ldd(in, s, out))
			shadow_unread(s, out);
		return;
	}
	if (acc.foreign.e) {
		emit_foreign(in, s, &acc.foreign, out);
		return;
	}
	if (acc.unknown) {
		emit(out, CK_NIXL_LIB_SHADOW, CHECK_SKIPPED, NULL,
		     "/etc/ld.so.conf and its includes were not read whole (a file, line or include "
		     "match past the probe's bounds), so ld.so.cache's order is not known: the "
		     "libraries that reach that step are not judged");
		return;
	}
	if (acc.first.e)
		snprintf(seen, sizeof seen, "; %s from %s: %s", acc.first.name,
			 from_name[acc.first.f], acc.first.win);
	emit(out, CK_NIXL_LIB_SHADOW, CHECK_OK, NULL,
	     "%d NIXL object(s) read, %d NIXL/UCX libraries each resolve to the copy the object names "
	     "or the UCX ucx_info describes (%d copies listed, %d ld.so.cache directories)%s",
	     nread, acc.njudged, s->ncopies, s->nldcache, seen);
}

/* F7/F8 with no ldd -r answer: without an object or without ldd there is
 * nothing to judge, so not applicable, as E1 without ldd (never ok); an
 * ldd that ran and failed is a skip with its reason. */
static void no_ldd_result(const struct probe_stack *s, struct check_results *out, enum check_id id)
{
	int ran = 0;

	for (int i = 0; i < s->nelfs; i++)
		ran |= s->elf[i].ldd_rc != 127 && s->elf[i].ldd_rc != -1;
	if (!s->nelfs)
		emit_na(out, id, "no NIXL object found to run ldd -r on");
	else if (!ran)
		emit_na(out, id, "no ldd in the image: NIXL's objects were not resolved");
	else
		emit(out, id, CHECK_SKIPPED, NULL, "%s",
		     "ldd -r did not answer on NIXL's objects (it failed or timed out)");
}

/* ---- F7 nixl-cuda-mix ------------------------------------------------- */

/* "libcudart.so.12" -> 12; 0 when not a libcudart name. */
static int cudart_major(const char *name)
{
	long m;
	char *end;

	if (strncmp(name, "libcudart.so.", 13))
		return 0;
	m = strtol(name + 13, &end, 10);
	return end != name + 13 && m > 0 && m < 1000 ? (int)m : 0;
}

static void judge_cuda(const struct check_input *in, const struct probe_stack *s,
		       struct check_results *out)
{
	const char *first = NULL, *firstobj = NULL;
	int major = 0, nread = 0;

	for (int i = 0; i < s->nelfs; i++) {
		const struct probe_stack_elf *e = &s->elf[i];

		if (e->ldd_rc < 0 || e->ldd_rc == 127 || (e->ldd_rc && !e->nldd))
			continue;
		nread++;
		for (int j = 0; j < e->nldd; j++) {
			const struct probe_ldd_line *l = &e->ldd[j];
			int m = cudart_major(l->name);

			if (!m)
				continue;
			if (l->not_found) {
				emit(out, CK_NIXL_CUDA_MIX, hard(in), NULL,
				     "%s needs %s, which the loader does not find: it was built for CUDA %d "
				     "(ImportError at start; vllm-project/vllm PR #44266)",
				     e->path, l->name, m);
				return;
			}
			if (major && m != major) {
				emit(out, CK_NIXL_CUDA_MIX, hard(in), NULL,
				     "NIXL objects of two CUDA majors: %s loads %s, %s loads %s "
				     "(vllm-project/vllm PR #44266)",
				     firstobj, first, e->path, l->name);
				return;
			}
			major = m;
			first = l->name;
			firstobj = e->path;
		}
	}
	if (!nread) {
		no_ldd_result(s, out, CK_NIXL_CUDA_MIX);
		return;
	}
	if (major)
		emit(out, CK_NIXL_CUDA_MIX, CHECK_OK, NULL,
		     "NIXL's objects load one CUDA runtime (libcudart.so.%d)", major);
	else
		emit(out, CK_NIXL_CUDA_MIX, CHECK_OK, NULL,
		     "ldd -r read on %d NIXL object(s): no libcudart among their libraries", nread);
}

/* ---- F8 nixl-lib-symbols ---------------------------------------------- */

/* Python's C API (Py*, _Py*): a Python extension (the bindings,
 * nixl_ep_cpp) takes it from the interpreter that imports it, so ldd -r
 * of the file alone always lists it undefined. */
static int python_api(const char *sym)
{
	return !strncmp(sym, "Py", 2) || !strncmp(sym, "_Py", 3);
}

static void judge_symbols(const struct check_input *in, const struct probe_stack *s,
			  struct check_results *out)
{
	int nread = 0;

	for (int i = 0; i < s->nelfs; i++) {
		const struct probe_stack_elf *e = &s->elf[i];

		if (e->ldd_rc < 0 || e->ldd_rc == 127 || (e->ldd_rc && !e->nldd && !e->nundef))
			continue;
		nread++;
		for (int j = 0; j < e->nldd; j++)
			if (e->ldd[j].not_found && watched(e->ldd[j].name)) {
				emit(out, CK_NIXL_LIB_SYMBOLS, hard(in), NULL,
				     "%s: %s not found by the loader (ldd -r)", e->path, e->ldd[j].name);
				return;
			}
		int nbad = e->undef_dropped, first = -1;

		for (int j = 0; j < e->nundef; j++)
			if (!python_api(e->undef[j])) {
				nbad++;
				first = first < 0 ? j : first;
			}
		if (first >= 0) {
			emit(out, CK_NIXL_LIB_SYMBOLS, hard(in), NULL,
			     "%s: %d undefined symbol(s) under the worker's LD_LIBRARY_PATH, first %s (ldd -r; "
			     "NVIDIA/TensorRT-LLM#9752)",
			     e->path, nbad, e->undef[first]);
			return;
		}
	}
	if (!nread)
		no_ldd_result(s, out, CK_NIXL_LIB_SYMBOLS);
	else
		emit(out, CK_NIXL_LIB_SYMBOLS, CHECK_OK, NULL,
		     "ldd -r on %d NIXL object(s): every symbol and library resolves", nread);
}

void check_stack(const struct check_input *in, struct check_results *out)
{
	const struct probe_stack *s = in->f ? &in->f->stack : NULL;
	char b[160];

	if (!s || s->src.status != PROBE_OK) {
		if (s)
			src_why(&s->src, "the NIXL/UCX library listing", b, sizeof b);
		else
			snprintf(b, sizeof b, "the pod was not probed");
		emit(out, CK_NIXL_LIB_SHADOW, CHECK_SKIPPED, NULL, "%s", b);
		emit(out, CK_NIXL_CUDA_MIX, CHECK_SKIPPED, NULL, "%s", b);
		emit(out, CK_NIXL_LIB_SYMBOLS, CHECK_SKIPPED, NULL, "%s", b);
		return;
	}
	judge_shadow(in, s, out);
	judge_cuda(in, s, out);
	judge_symbols(in, s, out);
}
