/* What a rule may print of a pod's environment (shown.h). */
#include "model/shown.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* The Secret whose value variable name may hold (shown.h rules); copies
 * its name into out (n bytes) and returns 1, or 0. */
static int secret_of(const char *secret_env, const char *name, char *out, size_t n)
{
	const char *line = secret_env, *nl;
	size_t len = strlen(name);
	int exempt = 0, found = 0, exact = 0;

	for (; line && (nl = strchr(line, '\n')); line = nl + 1) {
		const char *eq = strchr(line, '=');
		const char *key = line + (*line == '*' || *line == '!');
		size_t klen;

		if (*line == '!') {
			exempt |= (size_t)(nl - key) == len && !strncmp(key, name, len);
			continue;
		}
		if (!eq || eq > nl)
			continue;
		klen = (size_t)(eq - key);
		if (*line == '*' ? !exact && len >= klen && !strncmp(key, name, klen)
				 : klen == len && !strncmp(key, name, len)) {
			exact |= *line != '*';
			snprintf(out, n, "%.*s", (int)(nl - eq - 1), eq + 1);
			found = 1;
		}
	}
	return found && (exact || !exempt);
}

/* The value of "NAME=VALUE" line name (l bytes) in lines, its length in
 * *vn; NULL when none. */
static const char *line_value(const char *lines, const char *name, size_t l, size_t *vn)
{
	for (const char *p = lines, *nl; p && (nl = strchr(p, '\n')); p = nl + 1)
		if ((size_t)(nl - p) > l && p[l] == '=' && !strncmp(p, name, l)) {
			*vn = (size_t)(nl - p) - l - 1;
			return p + l + 1;
		}
	return NULL;
}

/* "!NAME" line: env sets name (l bytes) without a Secret. */
static int set_by_env(const char *secret_env, const char *name, size_t l)
{
	for (const char *p = secret_env, *nl; p && (nl = strchr(p, '\n')); p = nl + 1)
		if (*p == '!' && (size_t)(nl - p - 1) == l && !strncmp(p + 1, name, l))
			return 1;
	return 0;
}

enum shown_from shown_origin(const char *secret_env, const char *plain_env, const char *name,
			     char *secret, size_t n)
{
	size_t vn;

	if (secret_of(secret_env, name, secret, n))
		return SHOWN_SECRET;
	if (line_value(plain_env, name, strlen(name), &vn))
		return SHOWN_PLAIN;
	return set_by_env(secret_env, name, strlen(name)) ? SHOWN_OTHER : SHOWN_IMAGE;
}

const char *shown_value(const char *value, const char *secret, char *out, size_t n)
{
	if (secret)
		snprintf(out, n, "<from secret %s>", secret);
	else
		snprintf(out, n, "%s", value ? value : "");
	return out;
}

struct spec_vars {
	const char *secret_env, *plain_env;
	char *why;
	size_t wn;
};

/* The plain value of name (l bytes) appended to out (at *at, n bytes);
 * 0 with why set when it has none. */
static int put_plain(const struct spec_vars *sv, const char *name, size_t l,
		     char *out, size_t n, size_t *at)
{
	char key[256], secret[128];
	size_t vn;
	const char *v = line_value(sv->plain_env, name, l, &vn);

	if (!v) {
		snprintf(key, sizeof key, "%.*s", (int)l, name);
		switch (shown_origin(sv->secret_env, NULL, key, secret, sizeof secret)) {
		case SHOWN_SECRET:
			snprintf(sv->why, sv->wn, "%s is from Secret %s", key, secret);
			break;
		case SHOWN_OTHER:
			snprintf(sv->why, sv->wn, "%s is set by valueFrom, not a plain value of the pod spec", key);
			break;
		default:
			snprintf(sv->why, sv->wn, "%s is not set by the pod spec", key);
		}
		return 0;
	}
	if (*at < n)    /* cut at n - 1 bytes; *at still counts the rest */
		snprintf(out + *at, n - *at, "%.*s", (int)vn, v);
	*at += vn;
	return 1;
}

static size_t name_len(const char *s)
{
	size_t k = 0;

	if (!isalpha((unsigned char)*s) && *s != '_')
		return 0;
	while (isalnum((unsigned char)s[k]) || s[k] == '_')
		k++;
	return k;
}

/* One pass over w into out: the kubelet's $(VAR) (kube != 0) or the
 * shell's $VAR / ${VAR}.  0 when a reference is to no plain value. */
static int expand(const struct spec_vars *sv, const char *w, int kube, char *out, size_t n)
{
	size_t at = 0;

	for (const char *p = w; *p; p++) {
		const char *name = NULL, *end;
		size_t l = 0;

		if (*p == '$' && kube && p[1] == '$') {
			p++;          /* $$: one literal $ */
		} else if (*p == '$' && kube && p[1] == '(' && (end = strchr(p + 2, ')'))) {
			name = p + 2, l = (size_t)(end - name), p = end;
		} else if (!kube && (*p == '`' || (*p == '$' && p[1] == '('))) {
			snprintf(sv->why, sv->wn, "a command substitution the plugin does not run");
			return 0;
		} else if (*p == '$' && !kube && p[1] == '{') {
			name = p + 2, l = name_len(name);
			if (name[l] != '}') {
				snprintf(sv->why, sv->wn, "a shell expansion the plugin does not evaluate");
				return 0;
			}
			p = name + l;
		} else if (*p == '$' && !kube && (l = name_len(p + 1))) {
			name = p + 1, p += l;
		}
		if (name && !put_plain(sv, name, l, out, n, &at))
			return 0;
		if (!name && at + 1 < n)
			out[at++] = *p;
	}
	if (at >= n)
		at = n - 1;
	out[at] = '\0';
	return 1;
}

int shown_spec_word(const char *word, const char *secret_env, const char *plain_env,
		    char *out, size_t n, char *why, size_t wn)
{
	struct spec_vars sv = { secret_env, plain_env, why, wn };
	char mid[1024];

	*why = '\0';
	if (n && expand(&sv, word, 1, mid, sizeof mid) && expand(&sv, mid, 0, out, n))
		return 1;
	snprintf(out, n, "%s", word);
	return 0;
}
