/* Fixture loading for the probe parser tests: tool outputs from
 * tests/fixtures/tools (or $DI_FIXTURES), first "# source:" line
 * stripped; and a sysfs tree turned into the probe's "dev/path=value" lines. */
#ifndef TESTS_PROBE_FIXTURE_H
#define TESTS_PROBE_FIXTURE_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "t.h"

static inline const char *fx_dir(void)
{
	const char *env = getenv("DI_FIXTURES");
	const char *dir = t_fixtures("tools");

	if (env && *env)
		return env;
	return dir ? dir : "tests/fixtures/tools";
}

static inline char *fx_read_path(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, r;

	if (!fp)
		return NULL;
	do {
		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap + 1);
			if (!buf)
				abort();
		}
		r = fread(buf + n, 1, cap - n, fp);
		n += r;
	} while (r > 0);
	fclose(fp);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* Loads NAME, dropping the "# source: ..." header line.  Aborts the test
 * program (loudly) when a fixture is missing: a silent skip would hide it. */
static inline char *fx_load(const char *name, size_t *len)
{
	char path[1024];
	char *buf;
	size_t n;

	snprintf(path, sizeof path, "%s/%s", fx_dir(), name);
	buf = fx_read_path(path, &n);
	if (!buf) {
		fprintf(stderr, "missing fixture %s (set DI_FIXTURES)\n", path);
		exit(2);
	}
	if (!strncmp(buf, "# source:", 9)) {
		char *nl = strchr(buf, '\n');
		size_t skip = nl ? (size_t)(nl + 1 - buf) : n;
		memmove(buf, buf + skip, n - skip + 1);
		n -= skip;
	}
	*len = n;
	return buf;
}

static inline void fx_append(char **out, size_t *len, const char *s)
{
	size_t n = strlen(s);
	*out = realloc(*out, *len + n + 1);
	if (!*out)
		abort();
	memcpy(*out + *len, s, n + 1);
	*len += n;
}

/* Walks dir/rel; every regular file becomes "rel/file=first line". */
static inline void fx_walk(const char *root, const char *rel, char **out, size_t *len)
{
	char path[2048], sub[1024], line[4096];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof path, "%s/%s", root, rel);
	if (!(d = opendir(path)))
		return;
	while ((de = readdir(d))) {
		struct stat st;
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "SOURCE.txt"))
			continue;
		snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", de->d_name);
		snprintf(path, sizeof path, "%s/%s", root, sub);
		if (stat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			fx_walk(root, sub, out, len);
		} else {
			size_t n;
			char *v = fx_read_path(path, &n), *nl;
			if (!v)
				continue;
			if ((nl = strchr(v, '\n')))
				*nl = '\0';
			snprintf(line, sizeof line, "%s=%s\n", sub, v);
			fx_append(out, len, line);
			free(v);
		}
	}
	closedir(d);
}

static inline char *fx_sysfs(const char *name, size_t *len)
{
	char root[1024];
	char *out = NULL;

	*len = 0;
	snprintf(root, sizeof root, "%s/%s", fx_dir(), name);
	fx_append(&out, len, "");
	fx_walk(root, "", &out, len);
	return out;
}

/* fx_load, from the repo's copies (tests/fixtures/tools, run from the
 * repo root) when they are there: fx_load reads $DI_FIXTURES first. */
static inline char *fx_load_repo(const char *name, size_t *len)
{
	struct stat st;

	if (stat("tests/fixtures/tools", &st) == 0 && S_ISDIR(st.st_mode))
		setenv("DI_FIXTURES", "tests/fixtures/tools", 1);
	return fx_load(name, len);
}

#endif
