/* Section model_config (issue 41): the served model's config.json as far
 * as KV exchange needs it, as probe.sh picked it in the pod.  Every line is
 * pod text: a value that is no plain word or number is refused here again,
 * unknown keys are ignored, so nothing but the fixed fields is kept. */
#include "internal.h"

#include <string.h>

static const struct {
	const char *word;
	enum probe_model_state state;
} states[] = {
	{ "ok", PROBE_MODEL_OK },
	{ "absent", PROBE_MODEL_ABSENT },
	{ "denied", PROBE_MODEL_DENIED },
	{ "too_large", PROBE_MODEL_TOO_LARGE },
	{ "unresolved", PROBE_MODEL_UNRESOLVED },
};

static enum probe_model_state state_word(struct pslice w)
{
	for (size_t i = 0; i < sizeof states / sizeof states[0]; i++)
		if (ps_eq(w, states[i].word))
			return states[i].state;
	return PROBE_MODEL_UNKNOWN;
}

static int is_alnum(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* Token prefixes (Hugging Face, OpenAI, GitHub, Slack, AWS, a JWT): such a
 * word is refused even when short and plain, as probe.sh does. */
static int tokenish(struct pslice v)
{
	static const char *const pre[] = {
		"hf_", "sk-", "sk_", "ghp_", "gho_", "github_pat_", "xox", "AKIA", "eyJ",
	};

	for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
		if (ps_starts(v, pre[i]))
			return 1;
	return 0;
}

/* model_type: letters, digits, '_', '.', '-'; 1 to 31 bytes (the field). */
static int word_ok(struct pslice v, size_t max)
{
	if (!v.n || v.n > max || tokenish(v))
		return 0;
	for (size_t i = 0; i < v.n; i++)
		if (!is_alnum(v.s[i]) && v.s[i] != '_' && v.s[i] != '.' && v.s[i] != '-')
			return 0;
	return 1;
}

/* architectures[0] is a transformers class name ("DeepseekV3ForCausalLM",
 * "Qwen2_5_VLForConditionalGeneration": 34 bytes, more than a plain word's
 * 32): an upper-case letter, then letters, digits and '_' only, ending in
 * "For<Task>" or "Model".  A token ("hf_...", "sk-...") cannot pass. */
static int arch_ok(struct pslice v, size_t max)
{
	long f;

	if (!v.n || v.n > max || v.s[0] < 'A' || v.s[0] > 'Z')
		return 0;
	for (size_t i = 0; i < v.n; i++)
		if (!is_alnum(v.s[i]) && v.s[i] != '_')
			return 0;
	if (v.n >= 5 && !memcmp(v.s + v.n - 5, "Model", 5))
		return 1;
	f = ps_find(v, "For");
	return f > 0 && (size_t)f + 3 < v.n;
}

/* A count of at most 6 digits (heads, layers), else -1. */
static int count(struct pslice v)
{
	long x;

	return v.n && v.n <= 6 && ps_is_digits(v) && ps_long(v, &x) ? (int)x : -1;
}

static int flag(struct pslice v)
{
	return ps_eq(v, "1") ? 1 : ps_eq(v, "0") ? 0 : -1;
}

/* The int field of key k, or NULL. */
static int *int_field(struct probe_model_config *m, struct pslice k, int *is_count)
{
	*is_count = 1;
	if (ps_eq(k, "num_key_value_heads"))
		return &m->num_kv_heads;
	if (ps_eq(k, "num_hidden_layers"))
		return &m->num_layers;
	*is_count = 0;
	return ps_eq(k, "sliding_window") ? &m->sliding_window
	     : ps_eq(k, "hybrid_linear") ? &m->hybrid_linear
	     : ps_eq(k, "mla") ? &m->mla
	     : ps_eq(k, "text_config") ? &m->text_config : NULL;
}

/* "bad=KEY": the key's value was no plain word; it is unknown. */
static void refuse(struct probe_model_config *m, struct pslice k)
{
	int is_count, *ip = int_field(m, k, &is_count);

	if (ip)
		*ip = ip == &m->text_config ? 0 : -1;
	else if (ps_eq(k, "model_type"))
		m->model_type[0] = '\0';
	else if (ps_eq(k, "architecture"))
		m->architecture[0] = '\0';
	else
		return;
	m->nbad++;
}

/* One key=value line; returns 1 when a field took it. */
static int take(struct probe_model_config *m, struct pslice k, struct pslice v)
{
	int is_count, x, *ip;

	if (ps_eq(k, "model_type") || ps_eq(k, "architecture")) {
		int arch = ps_eq(k, "architecture");
		char *dst = arch ? m->architecture : m->model_type;
		size_t sz = arch ? sizeof m->architecture : sizeof m->model_type;

		if (arch ? arch_ok(v, sz - 1) : word_ok(v, sz - 1)) {
			ps_copy(dst, sz, v);
			return 1;
		}
		refuse(m, k);
		return 0;
	}
	if ((ip = int_field(m, k, &is_count)) == NULL)
		return 0;
	x = is_count ? count(v) : flag(v);
	if (x < 0) {
		refuse(m, k);
		return 0;
	}
	*ip = x;
	return 1;
}

int probe_parse_model_config(const char *t, size_t n, struct probe_model_config *m)
{
	struct ptext it;
	struct pslice line, k, v;
	int got = 0;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		if (!ps_split(line, '=', &k, &v))
			continue;
		if (ps_eq(k, "state"))
			m->state = state_word(v);
		else if (ps_eq(k, "source"))
			m->source = ps_eq(v, "path") ? PROBE_MODEL_SRC_PATH
				  : ps_eq(v, "hub") ? PROBE_MODEL_SRC_HUB : PROBE_MODEL_SRC_UNKNOWN;
		else if (ps_eq(k, "bad"))
			refuse(m, v);
		else
			got += take(m, k, v);
	}
	return got;
}
