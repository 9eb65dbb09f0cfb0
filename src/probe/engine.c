/* Section trtllm_engine (J9): the keys of TensorRT-LLM's engine config that
 * probe.sh picked in the pod.  Every line is pod text: a value that is no
 * plain number or name is refused here again, and unknown lines ignored. */
#include "internal.h"

#include <string.h>

static const struct {
	const char *word;
	enum probe_engine_state state;
	const char *text;
} states[] = {
	{ "ok", PROBE_ENGINE_OK, "read" },
	{ "absent", PROBE_ENGINE_ABSENT, "not found" },
	{ "denied", PROBE_ENGINE_DENIED, "permission denied" },
	{ "not_a_file", PROBE_ENGINE_NOT_FILE, "not a regular file" },
	{ "too_large", PROBE_ENGINE_TOO_LARGE, "larger than the probe reads (256 KiB)" },
	{ "unresolved", PROBE_ENGINE_UNRESOLVED, "unresolved (a shell expansion the probe does not evaluate, or a variable PID 1's environment does not set to a plain path)" },
	{ "no_awk", PROBE_ENGINE_NO_AWK, "no awk in the image to read it" },
};

const char *probe_engine_state_text(enum probe_engine_state s)
{
	for (size_t i = 0; i < sizeof states / sizeof states[0]; i++)
		if (states[i].state == s)
			return states[i].text;
	return "not reported";
}

enum probe_engine_state probe_engine_state_word(struct pslice w)
{
	for (size_t i = 0; i < sizeof states / sizeof states[0]; i++)
		if (ps_eq(w, states[i].word))
			return states[i].state;
	return PROBE_ENGINE_UNKNOWN;
}

/* A plain count (at most 12 digits, as the probe passes), else -1. */
static long count(struct pslice v)
{
	long x;

	return v.n && v.n <= 12 && ps_is_digits(v) && ps_long(v, &x) ? x : -1;
}

static int name_ok(struct pslice v)
{
	if (!v.n || v.n >= 17)
		return 0;
	for (size_t i = 0; i < v.n; i++)
		if (!((v.s[i] >= 'A' && v.s[i] <= 'Z') || (v.s[i] >= 'a' && v.s[i] <= 'z') || v.s[i] == '_'))
			return 0;
	return 1;
}

/* A YAML boolean as the probe passes it (true/false in three cases);
 * anything else leaves the key unset and is counted refused. */
static int yaml_bool(struct probe_trtllm_engine *e, struct pslice v)
{
	if (ps_eq_ci(v, "true"))
		e->kv_manager_v2 = 1;
	else if (ps_eq_ci(v, "false"))
		e->kv_manager_v2 = 0;
	else {
		e->kv_manager_v2 = -1;
		e->nbad++;
		return 0;
	}
	return 1;
}

static int engine_key(struct probe_trtllm_engine *e, struct pslice k, struct pslice v)
{
	long *num = ps_eq(k, "max_input_len")          ? &e->max_input_len
		  : ps_eq(k, "tensor_parallel_size")   ? &e->tensor_parallel_size
		  : ps_eq(k, "cache_transceiver_config.max_tokens_in_buffer") ? &e->max_tokens_in_buffer
		  : NULL;

	if (num) {
		*num = count(v);
		e->nbad += *num < 0;
		return *num >= 0;
	}
	if (ps_eq(k, "kv_cache_config.use_kv_cache_manager_v2"))
		return yaml_bool(e, v);
	if (!ps_eq(k, "cache_transceiver_config.backend"))
		return 0;
	if (!name_ok(v)) {
		e->nbad++;
		return 0;
	}
	ps_copy(e->backend, sizeof e->backend, v);
	return 1;
}

int probe_parse_trtllm_engine(const char *t, size_t n, struct probe_trtllm_engine *e)
{
	struct ptext it;
	struct pslice line, k, v;
	int got = 0;

	e->max_input_len = e->max_tokens_in_buffer = e->tensor_parallel_size = -1;
	e->kv_manager_v2 = -1;
	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		if (!ps_split(line, '=', &k, &v))
			continue;
		if (ps_eq(k, "flag"))
			ps_copy(e->flag, sizeof e->flag, v);
		else if (ps_eq(k, "path"))
			ps_copy(e->path, sizeof e->path, v);
		else if (ps_eq(k, "path_hidden"))
			e->path_hidden = 1;
		else if (ps_eq(k, "bad"))
			e->nbad++;
		else if (ps_eq(k, "state"))
			e->state = probe_engine_state_word(v);
		else
			got += engine_key(e, k, v);
	}
	return got;
}
