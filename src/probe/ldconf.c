/* The directories of ld.so.cache (checks.md F6), rebuilt from the
 * /etc/ld.so.conf files the probe printed, the way glibc's ldconfig reads
 * them (elf/ldconfig.c parse_conf, parse_conf_include, add_dir_1):
 *   - '#' ends a line; leading blanks are skipped; a blank line is nothing;
 *   - "include" and a blank: every blank-separated pattern after it is a
 *     glob, relative to the including file's directory, whose matches are
 *     read in sorted order (glob(3)), each where the include stands;
 *   - "hwcap" and a blank: ignored;
 *   - anything else is one directory: "=TYPE" and after cut, trailing
 *     blanks and slashes trimmed; a directory already listed is skipped.
 * ldconfig adds its built-in directories after these; the cache lists a
 * library name's copies in the order their directories were read, and
 * ld.so takes the first (elf/dl-cache.c search_cache).  The globs match
 * only the files the probe printed, which are the ones the pod's shell
 * globbed; every line is pod text, capped in size and count. */
#include "internal.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/xalloc.h"
#include "util/strcopy.h"

/* ldconfig recurses without a bound (a file including itself never ends);
 * here at most MAX_DEPTH deep and MAX_READS file reads in all. */
#define MAX_DEPTH 8
#define MAX_READS 64

static void add_dir(struct probe_stack *s, const char *line, const char *from)
{
	char d[256];
	size_t n;

	copy_str(d, sizeof d, line);
	d[strcspn(d, "=")] = '\0';
	n = strlen(d);
	while (n > 0 && isspace((unsigned char)d[n - 1]))
		d[--n] = '\0';
	while (n > 1 && d[n - 1] == '/')
		d[--n] = '\0';
	if (!n || d[0] != '/')
		return;
	for (int i = 0; i < s->nldcache; i++)
		if (!strcmp(s->ldcache[i].dir, d))
			return;
	if (s->nldcache >= PROBE_MAX_LDCACHE_DIRS) {
		s->ldcache_dropped++;
		return;
	}
	s->ldcache = xrealloc(s->ldcache, (size_t)(s->nldcache + 1) * sizeof *s->ldcache);
	copy_str(s->ldcache[s->nldcache].dir, sizeof s->ldcache[0].dir, d);
	copy_str(s->ldcache[s->nldcache].from, sizeof s->ldcache[0].from, from);
	s->nldcache++;
}

static void read_file(struct probe_stack *s, int file, int depth, int *budget);

/* The printed files matching pattern, in strcmp order (glob's in the C
 * locale the probe runs under), each read in turn. */
static void include(struct probe_stack *s, int file, const char *pat, int depth, int *budget)
{
	char full[512];
	int done[PROBE_MAX_LDCONF_FILES] = { 0 };

	if (*budget <= 0)
		return;
	if (pat[0] != '/') {
		const char *f = s->ldconf_file[file], *slash = strrchr(f, '/');

		snprintf(full, sizeof full, "%.*s/%s", slash ? (int)(slash - f) : 0, f, pat);
	} else {
		copy_str(full, sizeof full, pat);
	}
	/* Each file matched once (reading one changes no name); a file
	 * that does not match counts as done. */
	for (int i = 0; i < s->nldconf_files; i++)
		done[i] = fnmatch(full, s->ldconf_file[i], FNM_PATHNAME | FNM_PERIOD) != 0;
	for (;;) {
		int next = -1;

		for (int i = 0; i < s->nldconf_files; i++)
			if (!done[i] && (next < 0 || strcmp(s->ldconf_file[i], s->ldconf_file[next]) < 0))
				next = i;
		if (next < 0)
			return;
		done[next] = 1;
		read_file(s, next, depth + 1, budget);
	}
}

static int word_is(const char *p, const char *w)
{
	size_t n = strlen(w);

	return !strncasecmp(p, w, n) && (p[n] == ' ' || p[n] == '\t');
}

static void conf_line(struct probe_stack *s, int file, const char *text, int depth, int *budget)
{
	char l[256], *p, *tok, *save = NULL;

	copy_str(l, sizeof l, text);
	l[strcspn(l, "#")] = '\0';
	for (p = l; isspace((unsigned char)*p); p++)
		;
	if (!*p)
		return;
	/* ldconfig: "include" case-sensitive, "hwcap" not */
	if (!strncmp(p, "include", 7) && (p[7] == ' ' || p[7] == '\t')) {
		for (tok = strtok_r(p + 8, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
			include(s, file, tok, depth, budget);
		return;
	}
	if (word_is(p, "hwcap"))
		return;
	add_dir(s, p, s->ldconf_file[file]);
}

static void read_file(struct probe_stack *s, int file, int depth, int *budget)
{
	if (depth > MAX_DEPTH || *budget <= 0)
		return;
	--*budget;
	for (int i = 0; i < s->nldconf_lines; i++)
		if (s->ldconf_line[i].file == file)
			conf_line(s, file, s->ldconf_line[i].text, depth, budget);
}

void probe_stack_ldcache(struct probe_stack *s)
{
	free(s->ldcache);
	s->ldcache = NULL;
	s->nldcache = s->ldcache_dropped = 0;
	for (int i = 0; i < s->nldconf_files; i++)
		if (!strcmp(s->ldconf_file[i], "/etc/ld.so.conf")) {
			int budget = MAX_READS;

			read_file(s, i, 0, &budget);
			return;
		}
}
