/* Transport settings hidden in text: shell args and engine configs
 * (dynamo.md §1.4 "Other ways transport settings get set"). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/vocab.h"
#include "recipe/internal.h"
#include "util/xalloc.h"

static int ident_char(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_';
}

/* Command position: line start, after ; & | ( or the words export / env. */
static int at_command(const char *text, const char *p)
{
	const char *q = p;

	while (q > text && (q[-1] == ' ' || q[-1] == '\t'))
		q--;
	if (q == text || strchr("\n;&|(", q[-1]))
		return 1;
	if (q - text >= 6 && !strncmp(q - 6, "export", 6) &&
	    (q - 6 == text || !ident_char(q[-7])))
		return 1;
	return q - text >= 3 && !strncmp(q - 3, "env", 3) && (q - 3 == text || !ident_char(q[-4]));
}

/* The literal value at v, or NULL when the shell computes it. */
static char *shell_value(const char *v)
{
	char quote = (*v == '"' || *v == '\'') ? *v : 0;
	const char *s = v + (quote != 0), *e = s;

	if (quote)
		while (*e && *e != quote)
			e++;
	else
		while (*e && !strchr(" \t\n;&|)", *e))
			e++;
	if (memchr(s, '$', (size_t)(e - s)) || memchr(s, '`', (size_t)(e - s)) || (quote && !*e))
		return NULL;
	return xstrndup(s, (size_t)(e - s));
}

void recipe_scan_shell(struct recipe_component *c, const char *text)
{
	for (const char *p = text; *p; p++) {
		const char *e = p;
		char name[129], *val;

		if ((p > text && (ident_char(p[-1]) || p[-1] == '$' || p[-1] == '{')) ||
		    !isupper((unsigned char)*p))
			continue;
		while (ident_char(*e))
			e++;
		if (*e != '=' || e - p > 128 || !at_command(text, p))
			continue;
		memcpy(name, p, (size_t)(e - p));
		name[e - p] = 0;
		if (!model_env_allowed(name, strlen(name)))
			continue;
		val = shell_value(e + 1);
		recipe_env_set(c, name, val ? val : "<set at run time>", RECIPE_SRC_ARGS, !val);
		free(val);
		p = e;
	}
}

/* Occurrences of one key looked at per text: a recipe has a handful, and
 * each strstr() is linear (under ASan it even measures the whole rest). */
#define MAX_HITS 32

/* needle within the first window bytes of p (stopping at the NUL). */
static const char *find_near(const char *p, size_t window, const char *needle)
{
	size_t n = strlen(needle);

	for (size_t i = 0; i < window && p[i]; i++)
		if (!strncmp(p + i, needle, n))
			return p + i;
	return NULL;
}

/* The token after key (skipping quotes, ':', '=', blanks), into out. */
static int token_after(const char *p, char *out, size_t n)
{
	size_t i = 0;

	while (*p && strchr("\"': =\t\\", *p))
		p++;
	while (*p && (ident_char(*p) || *p == '-' || *p == '.') && i + 1 < n)
		out[i++] = *p++;
	out[i] = 0;
	return i > 0;
}

static void scan_vllm(struct recipe_component *c, const char *text)
{
	int hits = 0;

	for (const char *p = text; hits++ < MAX_HITS && (p = strstr(p, "kv_connector")); p += 12) {
		char conn[64], backends[96] = "";
		const char *b, *end;
		size_t i = 0;

		if (ident_char(p[12]) || !token_after(p + 12, conn, sizeof conn))
			continue;
		/* backends of the same config: before the next kv_connector key */
		b = find_near(p + 12, 4096, "\"backends\"");
		if (!b)
			b = find_near(p + 12, 4096, "backends:");
		end = find_near(p + 12, 4096, "kv_connector\"");
		if (b && (!end || b < end) && (b = strchr(b, '['))) {
			for (b++; *b && *b != ']' && i + 1 < sizeof backends; b++)
				if (ident_char(*b) || *b == ',')
					backends[i++] = *b;
			backends[i] = 0;
		}
		if (*backends)
			recipe_kv_add(c, "vllm %s backends=%s", conn, backends);
		else
			recipe_kv_add(c, "vllm %s", conn);
	}
}

static void scan_flag(struct recipe_component *c, const char *text, const char *key,
		      const char *label, size_t window)
{
	size_t kl = strlen(key);
	int hits = 0;

	for (const char *p = text; hits++ < MAX_HITS && (p = strstr(p, key)); p += kl) {
		char tok[64];
		const char *b = p + kl;

		if (window) {   /* a YAML block: backend: X below the key */
			const char *k = find_near(b, window, "backend");
			if (!k)
				continue;
			b = k + 7;
		}
		if (token_after(b, tok, sizeof tok))
			recipe_kv_add(c, "%s=%s", label, tok);
	}
}

void recipe_scan_kv(struct recipe_component *c, const char *text)
{
	if (!text || !*text)
		return;
	recipe_args_add(c, text);
	scan_vllm(c, text);
	scan_flag(c, text, "--disaggregation-transfer-backend", "sglang transfer-backend", 0);
	/* the same in SGLang's --config YAML (server_args.py reads its keys
	 * as the flags) */
	scan_flag(c, text, "\ndisaggregation-transfer-backend:", "sglang transfer-backend", 0);
	scan_flag(c, text, "cache_transceiver_config", "trtllm cache_transceiver backend", 200);
}

/* The literal value of NAME (len bytes) in c->plain, the last one set. */
static const char *plain_value(const struct recipe_component *c, const char *name, size_t len)
{
	for (size_t i = c->nplain; i-- > 0;)
		if (!strncmp(c->plain[i], name, len) && c->plain[i][len] == '=')
			return c->plain[i] + len + 1;
	return NULL;
}

void recipe_scan_kv_vars(struct recipe_component *c, const char *text)
{
	static const char f[] = "--kv-transfer-config";
	int hits = 0;

	for (const char *p = text; hits++ < MAX_HITS && (p = strstr(p, f)); p += sizeof f - 1) {
		const char *q = p + sizeof f - 1, *v;
		char close = 0;
		size_t n = 0;

		while (*q == ' ' || *q == '=' || *q == '"' || *q == '\t')
			q++;
		if (*q++ != '$')
			continue;
		if (*q == '(' || *q == '{')
			close = *q++ == '(' ? ')' : '}';
		while (ident_char(q[n]))
			n++;
		if (!n || (close && q[n] != close))
			continue;
		v = plain_value(c, q, n);
		if (v && !strchr(v, '$'))
			recipe_scan_kv(c, v);
	}
}
