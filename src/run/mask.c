/* The one renderer of a pod's transport environment (mask.h). */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cancel.h"
#include "model/envrules.h"
#include "model/shown.h"
#include "run/mask.h"
#include "util/buf.h"
#include "util/sha256.h"
#include "util/xalloc.h"

void run_mask_mark(struct probe_facts *f, const char *secret_env)
{
	char secret[256];

	for (size_t k = 0; k < f->env.n; k++) {
		struct probe_env_var *v = &f->env.var[k];

		if (shown_origin(secret_env, NULL, v->name, secret, sizeof(secret)) == SHOWN_SECRET)
			v->secret = xstrdup(secret);
	}
}

/* One thing to hide and what shows instead. */
struct word {
	uint64_t hash;      /* mask_hash() of its text */
	size_t len;
	size_t keep;        /* bytes kept before the mask ("NAME=" of NAME=value) */
	const char *mask;   /* borrowed from the variable */
};

/* The words of a pod's marked variables: an open-addressing set keyed by
 * (length, hash), and the distinct lengths, longest first.  One scan of a
 * text per distinct length finds every word (Karp-Rabin), so the work is
 * the text's length times the distinct lengths (at most sqrt(2 x the
 * values' size)), never times the words (issue 37: 200,000 entries of a
 * 2 MB Secret-fed value made it 7.5 s a pod). */
struct words {
	struct word *w;         /* the set: len 0 marks a free slot */
	size_t cap, n;          /* cap a power of two, n used */
	size_t *lens, nlens, caplens;
	uint64_t *pow;          /* pow[k]: BASE^lens[k], once lens are sorted */
	size_t steps;           /* probes made (tests count the work) */
	unsigned char first[256];   /* 1: some word starts with this byte */
};

#define MASK_BASE 0x100000001b3ull   /* odd: the powers never vanish mod 2^64 */

static uint64_t mask_hash(const char *s, size_t n)
{
	uint64_t h = 0;

	for (size_t i = 0; i < n; i++)
		h = h * MASK_BASE + (unsigned char)s[i] + 1;
	return h;
}

static uint64_t power(uint64_t b, size_t e)
{
	uint64_t r = 1;

	for (; e; e >>= 1, b *= b)
		if (e & 1)
			r *= b;
	return r;
}

static struct word *slot(const struct words *ws, uint64_t h, size_t len)
{
	size_t i = (size_t)(h ^ (h >> 29) ^ len) & (ws->cap - 1);

	while (ws->w[i].len && (ws->w[i].len != len || ws->w[i].hash != h))
		i = (i + 1) & (ws->cap - 1);
	return &ws->w[i];
}

static void grow(struct words *ws)
{
	struct words old = *ws;

	ws->cap = old.cap ? 2 * old.cap : 64;
	ws->w = xcalloc(ws->cap, sizeof *ws->w);
	for (size_t i = 0; i < old.cap; i++)
		if (old.w[i].len)
			*slot(ws, old.w[i].hash, old.w[i].len) = old.w[i];
	free(old.w);
}

static void add_len(struct words *ws, size_t len)
{
	for (size_t i = 0; i < ws->nlens; i++)
		if (ws->lens[i] == len)
			return;
	if (ws->nlens == ws->caplens) {
		ws->caplens = ws->caplens ? 2 * ws->caplens : 16;
		ws->lens = xrealloc(ws->lens, ws->caplens * sizeof *ws->lens);
	}
	ws->lens[ws->nlens++] = len;
}

/* Adds the n bytes at text; the first mask of equal text wins. */
static void add(struct words *ws, const char *text, size_t n, size_t keep, const char *mask)
{
	uint64_t h = mask_hash(text, n);
	struct word *w;

	if (!n)
		return;
	if (2 * (ws->n + 1) > ws->cap)
		grow(ws);
	w = slot(ws, h, n);
	if (w->len)
		return;
	*w = (struct word){ h, n, keep, mask };
	ws->first[(unsigned char)text[0]] = 1;
	ws->n++;
	add_len(ws, n);
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

/* A part of a value worth hiding: 3 bytes or more, no transport or
 * device name. */
static void add_part(const struct probe_facts *f, struct words *ws, const char *e, size_t n,
		     const char *mask)
{
	if (n >= 3 && !transport_word(e, n) && !device_word(f, e, n))
		add(ws, e, n, 0, mask);
}

/* The words that would show variable v: "NAME=value", the value, each of
 * its entries (split at "," and blanks, a leading "^" aside) and each
 * entry's parts around a ":" (a rule names "dev" of "dev:port",
 * fwrules.c devices_missing), each of 3 bytes or more that is not a
 * transport or device name. */
static void words_of(const struct probe_facts *f, const struct probe_env_var *v,
		     const char *mask, struct words *ws)
{
	const char *e = v->value;
	char *nv = xasprintf("%s=%s", v->name, v->value);

	add(ws, nv, strlen(nv), strlen(v->name) + 1, mask);
	free(nv);
	if (strlen(v->value) >= 3)
		add(ws, v->value, strlen(v->value), 0, mask);
	while (*e) {
		size_t n = strcspn(e, ", \t");
		const char *c;

		if (*e == '^')
			e++, n -= n > 0;
		add_part(f, ws, e, n, mask);
		if ((c = memchr(e, ':', n))) {
			add_part(f, ws, e, (size_t)(c - e), mask);
			add_part(f, ws, c + 1, n - (size_t)(c - e) - 1, mask);
		}
		e += n;
		e += strspn(e, ", \t");
	}
}

static int by_length_desc(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x < y) - (x > y);
}

static int word_byte(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Texts longer than this are not shown at all (a detail is one line). */
#define MASK_TEXT_MAX (1u << 20)

/* pre[i]: mask_hash() of the first i bytes of text (n + 1 of them);
 * owned.  A window's hash is then pre[i + l] - pre[i] x BASE^l. */
static uint64_t *prefix_hashes(const char *text, size_t n)
{
	uint64_t *pre = xmalloc((n + 1) * sizeof *pre);

	pre[0] = 0;
	for (size_t i = 0; i < n; i++)
		pre[i + 1] = pre[i] * MASK_BASE + (unsigned char)text[i] + 1;
	return pre;
}

/* The longest word at text[i] (a token start) that ends at a token end,
 * into *hit: 1, 0 when none, -1 when the run was cancelled. */
static int longest_at(struct words *ws, const char *text, size_t n, size_t i,
		      const uint64_t *pre, const struct word **hit)
{
	for (size_t k = 0; k < ws->nlens; k++) {
		size_t l = ws->lens[k];
		const struct word *w;

		if (i + l > n)
			continue;
		if ((++ws->steps & 4095) == 0 && cancel_why())
			return -1;
		if (word_byte(text[i + l]))
			continue;
		w = slot(ws, pre[i + l] - pre[i] * ws->pow[k], l);
		if (w->len) {
			*hit = w;
			return 1;
		}
	}
	return 0;
}

/* (*hit)[i]: the word matched at text[i], longest first, token-bounded;
 * NULL at most places.  Only a token start whose byte begins some word is
 * tried, each of the distinct lengths there, so a text with nothing to
 * hide costs one pass, no hashing and no *hit (left NULL, else owned, n
 * + 1 of them).  The number of hits, or -1 when the run was cancelled on
 * the way. */
static int find(struct words *ws, const char *text, size_t n, const struct word ***hit)
{
	uint64_t *pre = NULL;
	int hits = 0, r = 0;

	for (size_t i = 0; i < n && r >= 0; i++) {
		const struct word *w = NULL;

		if (!ws->first[(unsigned char)text[i]] || (i && word_byte(text[i - 1])))
			continue;
		if (!pre)
			pre = prefix_hashes(text, n);
		r = longest_at(ws, text, n, i, pre, &w);
		if (r > 0 && !*hit)
			*hit = xcalloc(n + 1, sizeof **hit);
		if (r > 0)
			(*hit)[i] = w, hits++;
	}
	free(pre);
	return r < 0 ? -1 : hits;
}

/* Why a text is not shown when it cannot be masked; static strings. */
static char *hidden(const char *why)
{
	return xasprintf("(hidden: %s)", why);
}

/* text with every token-bounded occurrence of a word replaced; owned.
 * A hit wins over the shorter ones it covers; a cancelled run (Ctrl-C,
 * --timeout) shows nothing rather than half a text. */
static char *scrub(struct words *ws, const char *text)
{
	size_t n = strlen(text);
	const struct word **hit = NULL;
	struct buf b = BUF_INIT(2 * MASK_TEXT_MAX);

	if (!ws->n)
		return xstrdup(text);
	if (cancel_why())
		return hidden("not masked: the run was cancelled");
	if (n > MASK_TEXT_MAX)
		return hidden("too long to mask");
	switch (find(ws, text, n, &hit)) {
	case -1:
		free(hit);
		return hidden("not masked: the run was cancelled");
	case 0:
		free(hit);
		return xstrdup(text);
	}
	for (size_t i = 0; i < n;) {
		const struct word *w = hit[i];

		if (!w) {
			size_t j = i + 1;

			while (j < n && !hit[j])
				j++;
			buf_append(&b, text + i, j - i);
			i = j;
			continue;
		}
		buf_append(&b, text + i, w->keep);
		buf_appends(&b, w->mask);
		i += w->len;
	}
	free(hit);
	return b.overflowed ? hidden("too long to mask") : buf_detach(&b, NULL);
}

/* The words of every marked variable of f, with masks ("<from secret
 * S>") in *masks, both owned by the caller. */
static void collect(const struct probe_facts *f, struct words *ws, char ***masks)
{
	*masks = xcalloc(f->env.n + 1, sizeof **masks);
	for (size_t k = 0; k < f->env.n; k++) {
		const struct probe_env_var *v = &f->env.var[k];
		char shown[300];

		if (!v->secret || !v->value)
			continue;
		(*masks)[k] = xstrdup(shown_value(v->value, v->secret, shown, sizeof shown));
		words_of(f, v, (*masks)[k], ws);
	}
	if (ws->nlens)
		qsort(ws->lens, ws->nlens, sizeof *ws->lens, by_length_desc);
	ws->pow = xmalloc((ws->nlens + 1) * sizeof *ws->pow);
	for (size_t k = 0; k < ws->nlens; k++)
		ws->pow[k] = power(MASK_BASE, ws->lens[k]);
}

static void release(struct words *ws, char **masks, size_t n)
{
	free(ws->w);
	free(ws->lens);
	free(ws->pow);
	for (size_t i = 0; i < n; i++)
		free(masks[i]);
	free(masks);
}

static void scrub_owned(struct words *ws, char **s)
{
	char *t;

	if (!*s)
		return;
	t = scrub(ws, *s);
	free(*s);
	*s = t;
}

static void scrub_array(struct words *ws, char *a, size_t n)
{
	char *t = scrub(ws, a);

	snprintf(a, n, "%s", t);
	free(t);
}

char *run_mask_text_counted(const struct probe_facts *f, const char *text, size_t *steps)
{
	struct words ws = { 0 };
	char **masks, *t;

	collect(f, &ws, &masks);
	t = scrub(&ws, text);
	*steps = ws.steps;
	release(&ws, masks, f->env.n);
	return t;
}

char *run_mask_text(const struct probe_facts *f, const char *text)
{
	size_t steps;

	return run_mask_text_counted(f, text, &steps);
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
