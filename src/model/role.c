/* Roles from component types and commands (role.h). */
#include "model/role.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

char *model_shell_uncomment(const char *text)
{
	char *out = xstrdup(text ? text : "");
	char q = 0;

	for (char *p = out; *p; p++) {
		if (q) {
			if (*p == q)
				q = 0;
			else if (*p == '\\' && q == '"' && p[1])
				p++;
		} else if (*p == '\'' || *p == '"') {
			q = *p;
		} else if (*p == '\\' && p[1]) {
			p++;
		} else if (*p == '#' && (p == out || isspace((unsigned char)p[-1]))) {
			while (*p && *p != '\n')
				*p++ = ' ';
			if (!*p)
				break;
		}
	}
	return out;
}

/* The word after flag at p (blanks or '=' then optional quotes), into v. */
static void word_after(const char *p, char *v, size_t n)
{
	size_t k = 0;

	while (*p == '=' || *p == ' ' || *p == '\t' || *p == '"' || *p == '\'' || *p == '\\' ||
	       *p == '\n')
		p++;
	while (p[k] && (isalnum((unsigned char)p[k]) || p[k] == '_' || p[k] == '$' ||
			p[k] == '{' || p[k] == '-') && k + 1 < n)
		k++;
	memcpy(v, p, k);
	v[k] = '\0';
}

/* flag standing alone at p: a blank, quote or the text's start before it,
 * and a blank, '=' or quote after. */
static int alone(const char *text, const char *p, size_t len)
{
	char b = p > text ? p[-1] : ' ', a = p[len];

	return (isspace((unsigned char)b) || b == '"' || b == '\'') &&
	       (isspace((unsigned char)a) || a == '=' || a == '"' || a == '\'' || a == '\0');
}

/* Folds one role seen into *role: a second, different one is "both". */
static void seen(const char **role, const char *r, int *both)
{
	if (*role && strcmp(*role, r))
		*both = 1;
	*role = r;
}

static void mode_flags(const char *t, const char **role, int *both)
{
	static const char f[] = "--disaggregation-mode";

	for (const char *p = strstr(t, f); p; p = strstr(p + 1, f)) {
		char v[32];

		if (!alone(t, p, sizeof f - 1))
			continue;
		word_after(p + sizeof f - 1, v, sizeof v);
		if (!strcmp(v, "prefill") || !strcmp(v, "decode"))
			seen(role, !strcmp(v, "prefill") ? "prefill" : "decode", both);
		else if (v[0] == '$' || v[0] == '\0')
			*both = 1;   /* a variable: not known here */
	}
}

/* The deprecated aliases (components/src/dynamo/mocker/args.py: "use
 * --disaggregation-mode=prefill") and vLLM's kv_role (vllm/config/
 * kv_transfer.py: kv_producer sends KV, kv_consumer receives it). */
static void other_flags(const char *t, const char **role, int *both)
{
	static const struct { const char *word; const char *role; } w[] = {
		{ "--is-prefill-worker", "prefill" }, { "--is-decode-worker", "decode" },
		{ "kv_producer", "prefill" }, { "kv_consumer", "decode" },
	};

	for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
		const char *p = strstr(t, w[i].word);

		if (p && (w[i].word[0] != '-' || alone(t, p, strlen(w[i].word))))
			seen(role, w[i].role, both);
	}
}

const char *model_role_from_args(const char *args)
{
	char *t;
	const char *role = NULL;
	int both = 0;

	if (!args || !*args)
		return NULL;
	t = model_shell_uncomment(args);
	mode_flags(t, &role, &both);
	if (!role && !both)
		other_flags(t, &role, &both);
	free(t);
	return both ? NULL : role;
}

int model_args_engine(const char *args)
{
	static const char *const m[] = { "dynamo.vllm", "dynamo.sglang", "dynamo.trtllm" };
	char *t;
	int hit = 0;

	if (!args)
		return 0;
	t = model_shell_uncomment(args);
	for (size_t i = 0; i < sizeof m / sizeof m[0] && !hit; i++) {
		const char *p = strstr(t, m[i]);
		size_t l = strlen(m[i]);

		hit = p && !isalnum((unsigned char)p[l]) && p[l] != '_' && p[l] != '.';
	}
	free(t);
	return hit;
}

long model_tp_default(const char *args, long tp)
{
	static const char *const w[] = { "tensor-parallel", "tensor_parallel", "--tp", "-tp", "tp_size" };

	if (tp >= 0 || !model_args_engine(args))
		return tp;
	for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
		if (strstr(args, w[i]))
			return -1;
	return 1;
}

static int is(const char *s, const char *w)
{
	return s && !strcmp(s, w);
}

const char *model_role(const char *type, const char *sub, const char *args)
{
	const char *r;

	if (is(type, "prefill") || is(type, "decode"))
		return type;
	if (is(type, "worker") && (is(sub, "prefill") || is(sub, "decode")))
		return sub;
	if (type && *type && !is(type, "worker") && !is(type, "main"))
		return type;   /* frontend, planner, epp, ...: never a KV worker */
	r = model_role_from_args(args);
	if (r)
		return r;
	if (is(type, "worker") || (is(type, "main") && model_args_engine(args)))
		return "worker";
	return type && *type ? type : "-";
}
