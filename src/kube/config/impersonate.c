/* Impersonation headers in client-go's names and order (impersonate.h). */
#include "impersonate.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"
#include "kube/http/urlpath.h"

#define EXTRA_PREFIX "Impersonate-Extra-"

/* net/http's isTokenTable (client-go legalHeaderByte), minus '%'. */
static int key_keeps(unsigned char b)
{
	return b < 0x80 && (isalnum(b) || strchr("!#$&'*+-.^_`|~", b) != NULL);
}

/* "Impersonate-Extra-" + headerKeyEscape(key[0..n)).  Caller frees. */
static char *extra_name(const char *key, size_t n)
{
	char *esc = urlpath_escape(key, n, key_keeps);
	char *out = xasprintf(EXTRA_PREFIX "%s", esc);

	free(esc);
	return out;
}

void impersonate_each(const struct kube_config *cfg,
		      void (*fn)(const char *name, const char *value, void *arg),
		      void *arg)
{
	char *const *p;

	/* client-go only wraps the transport when a user is set; kubeconfig
	 * validation already refuses groups, uid or extra without one. */
	if (!cfg->impersonate_user || !*cfg->impersonate_user)
		return;
	fn("Impersonate-User", cfg->impersonate_user, arg);
	if (cfg->impersonate_uid && *cfg->impersonate_uid)
		fn("Impersonate-Uid", cfg->impersonate_uid, arg);
	for (p = cfg->impersonate_groups; p && *p; p++)
		fn("Impersonate-Group", *p, arg);
	for (p = cfg->impersonate_extra; p && *p; p++) {
		const char *eq = strchr(*p, '=');
		size_t klen = eq ? (size_t)(eq - *p) : strlen(*p);
		char *name = extra_name(*p, klen);

		fn(name, eq ? eq + 1 : "", arg);
		free(name);
	}
}
