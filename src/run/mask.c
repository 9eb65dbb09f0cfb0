/* The one renderer of a pod's transport environment (mask.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/envrules.h"
#include "run/mask.h"
#include "util/buf.h"
#include "util/sha256.h"
#include "util/xalloc.h"

/* The Secret whose value variable name may hold, after the rules of
 * pod_info.secret_env (pods.h); copies its name into out (n bytes) and
 * returns 1, or 0 when the variable is not from a Secret. */
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
			/* secretKeyRef names the variable itself: it wins; among
			 * envFrom rules the last one wins, as in the kubelet. */
			exact |= *line != '*';
			snprintf(out, n, "%.*s", (int)(nl - eq - 1), eq + 1);
			found = 1;
		}
	}
	return found && (exact || !exempt);
}

void run_mask_mark(struct probe_facts *f, const char *secret_env)
{
	char secret[256];

	for (size_t k = 0; k < f->env.n; k++) {
		struct probe_env_var *v = &f->env.var[k];

		if (secret_of(secret_env, v->name, secret, sizeof(secret)))
			v->secret = xstrdup(secret);
	}
}

/* One thing to hide and what shows instead. */
struct word {
	char *text;     /* owned */
	size_t len;
	const char *mask;   /* borrowed from the variable */
};

struct words {
	struct word *w;
	size_t n, cap;
};

static void add(struct words *ws, char *text, const char *mask)
{
	if (ws->n == ws->cap) {
		ws->cap = ws->cap ? 2 * ws->cap : 16;
		ws->w = xrealloc(ws->w, ws->cap * sizeof *ws->w);
	}
	ws->w[ws->n++] = (struct word){ text, strlen(text), mask };
}

/* UCX's own transport and alias names (ucs/config/parser.c aliases, uct
 * component names): an entry that is one of them tells nothing about a
 * Secret, and masking it would hide "rc" in every UCX finding. */
static int transport_word(const char *e, size_t n)
{
	static const char *const alias[] = {
		"all", "rc", "rc_x", "rc_v", "dc", "dc_x", "ud", "ud_x", "ud_v",
		"ib", "shm", "sm", "mm", "cuda", "rocm", "ugni", NULL
	};
	char buf[32];

	if (n >= sizeof buf)
		return 0;
	memcpy(buf, e, n);
	buf[n] = 0;
	for (size_t i = 0; alias[i]; i++)
		if (!strcmp(buf, alias[i]))
			return 1;
	return envr_tl_by_name(buf) >= 0;
}

/* An RDMA device of this pod, as "mlx5_0" or "mlx5_0:1": sysfs shows it
 * to anyone who can read the pod anyway. */
static int device_word(const struct probe_facts *f, const char *e, size_t n)
{
	const char *colon = memchr(e, ':', n);
	size_t dn = colon ? (size_t)(colon - e) : n;

	for (int i = 0; i < f->sysfs_ib.ndevs; i++) {
		const char *d = f->sysfs_ib.dev[i].name;

		if (strlen(d) == dn && !strncmp(d, e, dn))
			return 1;
	}
	return 0;
}

/* The words that would show variable v: "NAME=value", the value, and each
 * of its ","-entries (a leading "^" aside) of 3 bytes or more that is not
 * a transport or device name. */
static void words_of(const struct probe_facts *f, const struct probe_env_var *v,
		     const char *mask, struct words *ws)
{
	const char *e = v->value, *end;

	add(ws, xasprintf("%s=%s", v->name, v->value), mask);
	if (strlen(v->value) >= 3)
		add(ws, xstrdup(v->value), mask);
	for (; *e; e = *end ? end + 1 : end) {
		size_t n;

		end = strchr(e, ',');
		end = end ? end : e + strlen(e);
		e += *e == '^';
		n = (size_t)(end - e);
		if (n >= 3 && !transport_word(e, n) && !device_word(f, e, n))
			add(ws, xstrndup(e, n), mask);
	}
}

static int by_length_desc(const void *a, const void *b)
{
	const struct word *x = a, *y = b;

	return (x->len < y->len) - (x->len > y->len);
}

static int word_byte(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* text with every token-bounded occurrence of a word replaced; owned. */
static char *scrub(const struct words *ws, const char *text)
{
	struct buf b = BUF_INIT(1u << 20);     /* a detail is one line */
	const char *s = text;

	while (*s) {
		size_t i;

		for (i = 0; i < ws->n; i++) {
			const struct word *w = &ws->w[i];

			if (!strncmp(s, w->text, w->len) && (s == text || !word_byte(s[-1])) &&
			    !word_byte(s[w->len]))
				break;
		}
		if (i < ws->n) {
			if (!strchr(ws->w[i].text, '='))
				buf_appends(&b, ws->w[i].mask);
			else    /* NAME=<from secret S> */
				buf_appendf(&b, "%.*s%s",
					    (int)(strchr(ws->w[i].text, '=') - ws->w[i].text + 1),
					    ws->w[i].text, ws->w[i].mask);
			s += ws->w[i].len;
		} else {
			buf_append(&b, s++, 1);
		}
	}
	/* Past the cap the text is gone: say so rather than print half. */
	return b.overflowed ? xstrdup("(hidden: too long to mask)") : buf_detach(&b, NULL);
}

/* The words of every marked variable of f, longest first (so that
 * "NAME=value" wins over the value and the value over one entry), with
 * masks ("<from secret S>") in *masks, both owned by the caller. */
static void collect(const struct probe_facts *f, struct words *ws, char ***masks)
{
	*masks = xcalloc(f->env.n + 1, sizeof **masks);
	for (size_t k = 0; k < f->env.n; k++) {
		const struct probe_env_var *v = &f->env.var[k];

		if (!v->secret || !v->value)
			continue;
		(*masks)[k] = xasprintf("<from secret %s>", v->secret);
		words_of(f, v, (*masks)[k], ws);
	}
	if (ws->n)
		qsort(ws->w, ws->n, sizeof *ws->w, by_length_desc);
}

static void release(struct words *ws, char **masks, size_t n)
{
	for (size_t i = 0; i < ws->n; i++)
		free(ws->w[i].text);
	free(ws->w);
	for (size_t i = 0; i < n; i++)
		free(masks[i]);
	free(masks);
}

static void scrub_owned(const struct words *ws, char **s)
{
	char *t;

	if (!*s)
		return;
	t = scrub(ws, *s);
	free(*s);
	*s = t;
}

static void scrub_array(const struct words *ws, char *a, size_t n)
{
	char *t = scrub(ws, a);

	snprintf(a, n, "%s", t);
	free(t);
}

char *run_mask_text(const struct probe_facts *f, const char *text)
{
	struct words ws = { 0 };
	char **masks, *t;

	collect(f, &ws, &masks);
	t = scrub(&ws, text);
	release(&ws, masks, f->env.n);
	return t;
}

void run_mask_apply(struct probe_facts *f, struct check_results *r)
{
	struct words ws = { 0 };
	char **masks;

	collect(f, &ws, &masks);
	for (size_t i = 0; ws.n && i < r->n; i++) {
		scrub_owned(&ws, &r->v[i].detail);
		scrub_owned(&ws, &r->v[i].remedy);
		scrub_owned(&ws, &r->v[i].source);
	}
	if (ws.n) {
		scrub_array(&ws, r->summary.net_dev_bad, sizeof r->summary.net_dev_bad);
		scrub_array(&ws, r->summary.ucx_tls_shown, sizeof r->summary.ucx_tls_shown);
	}
	for (size_t k = 0; k < f->env.n; k++) {
		struct probe_env_var *v = &f->env.var[k];

		if (!masks[k])
			continue;
		if (!strcmp(v->name, "UCX_TLS"))
			snprintf(r->summary.ucx_tls_shown, sizeof r->summary.ucx_tls_shown,
				 "%s", masks[k]);
		free(v->digest);
		v->digest = xmalloc(SHA256_HEX_LEN + 1);
		sha256_hex(v->value, strlen(v->value), v->digest);
		free(v->value);
		v->value = xstrdup(masks[k]);
	}
	release(&ws, masks, f->env.n);
}
