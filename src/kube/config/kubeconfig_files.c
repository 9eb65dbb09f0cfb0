/* kubeconfig_files.c: which kubeconfig files are read (kubeconfig.md §1):
 * --kubeconfig (one file, must exist), else $KUBECONFIG (a ':' list,
 * deduplicated, missing files skipped), else $HOME/.kube/config. */
#define _DEFAULT_SOURCE  /* strsep */
#include "kubeconfig.h"
#include "kubeconfig_model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/log.h"
#include "util/xalloc.h"

static const char *nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

void kc_set_release(struct kc_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		kc_file_release(&s->files[i]);
	free(s->files);
	s->files = NULL;
	s->n = 0;
}

int kc_set_add_buffer(struct kc_set *s, const char *data, size_t len,
			  const char *path, struct err *e)
{
	struct kc_file f;

	if (kc_file_parse(data, len, path, &f, e) < 0)
		return -1;
	ALLOC_GROW(s->files, s->n + 1, s->alloc);
	s->files[s->n++] = f;
	log_at(6, "Config loaded from file:  %s", path);
	return 0;
}

static int set_add_file(struct kc_set *s, const char *path, struct err *e)
{
	char *data, why[512];
	size_t len;
	int rc;

	if (kc_read_file(path, KC_MAX_CONFIG_FILE, &data, &len, why, sizeof(why)) < 0)
		return err_set(e, ERR_CONFIG, "error loading config file \"%s\": %s",
			       path, why);
	rc = kc_set_add_buffer(s, data, len, path, e);
	kc_free_secret(data, len);
	return rc;
}

static int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 || errno != ENOENT;
}

/* $KUBECONFIG: split on ':', empties ignored, duplicates dropped, missing
 * files skipped silently. */
static int load_env_list(struct kc_set *s, const char *list, struct err *e)
{
	char *copy = xstrdup(list), *p = copy, *tok;
	char **seen = xcalloc(strlen(list) + 1, sizeof(*seen));
	size_t n_seen = 0, i;
	int rc = 0;

	while (!rc && (tok = strsep(&p, ":"))) {
		int dup = 0;
		if (!*tok)
			continue;
		for (i = 0; i < n_seen; i++)
			dup |= !strcmp(seen[i], tok);
		if (dup)
			continue;
		seen[n_seen++] = tok;
		if (!exists(tok)) {
			log_at(6, "Config not found: %s", tok);
			continue;
		}
		rc = set_add_file(s, tok, e);
	}
	free(seen);
	free(copy);
	return rc;
}

int kc_set_load(const struct kube_overrides *ov, struct kc_set *s, struct err *e)
{
	const char *list, *home;
	char tmp[128];
	int rc = 0;

	if (nonempty(ov->kubeconfig)) {
		struct stat st;
		if (stat(ov->kubeconfig, &st) < 0 && errno == ENOENT)
			return err_set(e, ERR_CONFIG, "stat %s: %s", ov->kubeconfig,
				       kc_strerror(ENOENT, tmp, sizeof(tmp)));
		return set_add_file(s, ov->kubeconfig, e);
	}
	if ((list = kc_env("KUBECONFIG")))
		return load_env_list(s, list, e);
	if ((home = kc_env("HOME"))) {
		char *path = xasprintf("%s/.kube/config", home);
		if (exists(path))
			rc = set_add_file(s, path, e);
		free(path);
	}
	return rc;
}
