/* Section nixl_stack (F6-F8): the library copies the worker's loader can
 * reach and the dynamic sections of NIXL's objects, as probe.sh prints
 * them.  Every line is pod text: fields are cut to their size, lists to
 * their cap (counted in *_dropped), unknown lines ignored. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"

void probe_stack_free(struct probe_stack *s)
{
	for (int i = 0; i < s->ncopies; i++)
		free(s->copy[i]);
	free(s->copy);
	free(s->elf);
	free(s->ldconf_file);
	free(s->ldconf_line);
	free(s->ldcache);
	s->copy = NULL;
	s->elf = NULL;
	s->ldconf_file = NULL;
	s->ldconf_line = NULL;
	s->ldcache = NULL;
	s->ncopies = s->nelfs = s->nldconf_files = s->nldconf_lines = s->nldcache = 0;
}

/* "ldconf_file=PATH" opens a file, "ldconf=LINE" adds a line to it; a
 * line before any file, or past a cap, is counted and dropped. */
static void ldconf_kv(struct probe_stack *s, int *cur, int is_file, struct pslice v)
{
	if (is_file) {
		s->ldconf_reported = 1;
		*cur = -1;
		if (s->nldconf_files >= PROBE_MAX_LDCONF_FILES || !v.n || v.s[0] != '/' ||
		    v.n >= sizeof s->ldconf_file[0]) {
			s->ldconf_files_dropped++;
			return;
		}
		s->ldconf_file = xrealloc(s->ldconf_file,
					  (size_t)(s->nldconf_files + 1) * sizeof *s->ldconf_file);
		ps_copy(s->ldconf_file[s->nldconf_files], sizeof s->ldconf_file[0], v);
		*cur = s->nldconf_files++;
		return;
	}
	if (*cur < 0 || s->nldconf_lines >= PROBE_MAX_LDCONF_LINES) {
		s->ldconf_lines_dropped++;
		return;
	}
	s->ldconf_line = xrealloc(s->ldconf_line,
				  (size_t)(s->nldconf_lines + 1) * sizeof *s->ldconf_line);
	s->ldconf_line[s->nldconf_lines].file = *cur;
	ps_copy(s->ldconf_line[s->nldconf_lines].text, sizeof s->ldconf_line[0].text, v);
	s->nldconf_lines++;
}

static void add_copy(struct probe_stack *s, struct pslice v)
{
	if (!v.n || v.s[0] != '/')
		return;
	for (int i = 0; i < s->ncopies; i++)
		if (strlen(s->copy[i]) == v.n && !memcmp(s->copy[i], v.s, v.n))
			return;
	if (s->ncopies >= PROBE_MAX_STACK_COPIES || v.n > 255) {
		s->copies_dropped++;
		return;
	}
	s->copy = xrealloc(s->copy, (size_t)(s->ncopies + 1) * sizeof *s->copy);
	s->copy[s->ncopies++] = xstrndup(v.s, v.n);
}

static struct probe_stack_elf *new_elf(struct probe_stack *s, struct pslice v)
{
	struct probe_stack_elf *e;

	if (s->nelfs >= PROBE_MAX_STACK_ELFS) {
		s->elfs_dropped++;
		return NULL;
	}
	s->elf = xrealloc(s->elf, (size_t)(s->nelfs + 1) * sizeof *s->elf);
	e = &s->elf[s->nelfs++];
	memset(e, 0, sizeof *e);
	e->elf_rc = e->ldd_rc = -1;
	ps_copy(e->path, sizeof e->path, v);
	return e;
}

static int rc_of(struct pslice v)
{
	long x;

	return ps_long(v, &x) && x >= 0 && x < 256 ? (int)x : -1;
}

/* The value of a dynamic entry: readelf's "[...]" or objdump's last
 * token ("  RUNPATH   $ORIGIN/nixl/"). */
static struct pslice dyn_value(struct pslice line)
{
	long open = ps_find(line, "["), close;
	struct pslice rest, tok, last = ps_make(line.s, 0);

	if (open >= 0) {
		rest = ps_from(line, (size_t)open + 1);
		close = ps_find(rest, "]");
		return ps_make(rest.s, close >= 0 ? (size_t)close : rest.n);
	}
	rest = line;
	while (ps_token(&rest, &tok))
		last = tok;
	return last;
}

/* readelf "(NEEDED)" / objdump "NEEDED" as the first word. */
static int dyn_is(struct pslice line, const char *tag)
{
	char paren[16];
	struct pslice rest = line, tok;

	snprintf(paren, sizeof paren, "(%s)", tag);
	if (ps_find(line, paren) >= 0)
		return 1;
	return ps_token(&rest, &tok) && ps_eq(tok, tag);
}

static void dyn_line(struct probe_stack_elf *e, struct pslice line)
{
	struct pslice v = dyn_value(line);

	if (dyn_is(line, "NEEDED")) {
		if (e->nneeded >= PROBE_MAX_ELF_NEEDED || v.n >= sizeof e->needed[0]) {
			e->needed_dropped++;
			return;
		}
		ps_copy(e->needed[e->nneeded++], sizeof e->needed[0], v);
	} else if (dyn_is(line, "RUNPATH")) {
		e->has_runpath = 1;
		ps_copy(e->runpath, sizeof e->runpath, v);
	} else if (dyn_is(line, "RPATH")) {
		e->has_rpath = 1;
		ps_copy(e->rpath, sizeof e->rpath, v);
	}
}

/* "undefined symbol: NAME\t(/path)" or "NAME => PATH (0x..)" /
 * "NAME => not found". */
static void ldd_line(struct probe_stack_elf *e, struct pslice line)
{
	long at = ps_find(line, "undefined symbol:"), arrow;
	struct pslice rest, tok;
	struct probe_ldd_line *l;

	if (at >= 0) {
		rest = ps_from(line, (size_t)at + 17);
		if (!ps_token(&rest, &tok))
			return;
		if (e->nundef >= PROBE_MAX_ELF_UNDEF) {
			e->undef_dropped++;
			return;
		}
		/* "NAME, version libcudart.so.12" */
		if (tok.n && tok.s[tok.n - 1] == ',')
			tok.n--;
		ps_copy(e->undef[e->nundef++], sizeof e->undef[0], tok);
		return;
	}
	arrow = ps_find(line, "=>");
	if (arrow <= 0)
		return;
	if (e->nldd >= PROBE_MAX_ELF_LDD) {
		e->ldd_dropped++;
		return;
	}
	l = &e->ldd[e->nldd];
	ps_copy(l->name, sizeof l->name, ps_trim(ps_make(line.s, (size_t)arrow)));
	rest = ps_trim(ps_from(line, (size_t)arrow + 2));
	if (!l->name[0])
		return;
	if (ps_starts(rest, "not found"))
		l->not_found = 1;
	else if (ps_token(&rest, &tok) && tok.s[0] == '/')
		ps_copy(l->path, sizeof l->path, tok);
	else
		return;
	e->nldd++;
}

static void stack_kv(struct probe_stack *s, struct probe_stack_elf **e, int *conf,
		     struct pslice k, struct pslice v)
{
	if (ps_eq(k, "ldconf_file") || ps_eq(k, "ldconf"))
		ldconf_kv(s, conf, ps_eq(k, "ldconf_file"), v);
	else if (ps_eq(k, "ldconf_cut"))        /* a file past the probe's bounds */
		s->ldconf_lines_dropped++;
	else if (ps_eq(k, "ldconf_files_capped")) /* include matches past its cap */
		s->ldconf_files_dropped++;
	else if (ps_eq(k, "lpath"))
		ps_copy(s->lpath, sizeof s->lpath, v);
	else if (ps_eq(k, "preload"))
		ps_copy(s->preload, sizeof s->preload, v);
	else if (ps_eq(k, "elf_tool")) {
		s->tool_reported = 1;
		s->tool = ps_eq(v, "readelf") ? PROBE_ELF_READELF
			: ps_eq(v, "objdump") ? PROBE_ELF_OBJDUMP : PROBE_ELF_NONE;
	} else if (ps_eq(k, "copy"))
		add_copy(s, v);
	else if (ps_eq(k, "elf"))
		*e = v.n && v.s[0] == '/' ? new_elf(s, v) : NULL;
	else if (ps_eq(k, "copies_dropped") || ps_eq(k, "elfs_dropped")) {
		long x;

		if (ps_long(v, &x) && x > 0 && x < 1000000)
			*(ps_eq(k, "copies_dropped") ? &s->copies_dropped : &s->elfs_dropped) += (int)x;
	} else if (!*e)
		return;
	else if (ps_eq(k, "elf_rc"))
		(*e)->elf_rc = rc_of(v);
	else if (ps_eq(k, "ldd_rc"))
		(*e)->ldd_rc = rc_of(v);
	else if (ps_eq(k, "dyn"))
		dyn_line(*e, v);
	else if (ps_eq(k, "ldd"))
		ldd_line(*e, v);
}

int probe_parse_nixl_stack(const char *t, size_t n, struct probe_stack *s)
{
	struct ptext it;
	struct pslice line, k, v;
	struct probe_stack_elf *e = NULL;
	int conf = -1;
	long eq;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		line = ps_trim(line);
		/* split at the first '=' only: values hold "=>" and "=" */
		eq = ps_find(line, "=");
		if (eq <= 0)
			continue;
		k = ps_trim(ps_make(line.s, (size_t)eq));
		v = ps_trim(ps_from(line, (size_t)eq + 1));
		stack_kv(s, &e, &conf, k, v);
	}
	probe_stack_ldcache(s);
	return s->ncopies + s->nelfs;
}
