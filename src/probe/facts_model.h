/* Part of facts.h (which includes it; include facts.h, not this): the
 * served model's config.json as far as KV exchange needs it (issue 41),
 * apart to keep facts.h under the line cap.
 *
 * Only these keys ever leave the pod (docs/product.md): a model's config
 * may carry anything, so the probe picks fixed keys and sends plain words
 * and numbers, never the file's path or any other value. */
#ifndef DI_PROBE_FACTS_MODEL_H
#define DI_PROBE_FACTS_MODEL_H

/* What became of the config.json the serving process names. */
enum probe_model_state {
	PROBE_MODEL_UNKNOWN = 0,    /* no state line */
	PROBE_MODEL_OK,             /* read; the keys below as found */
	PROBE_MODEL_ABSENT,         /* no local config.json (not downloaded yet) */
	PROBE_MODEL_DENIED,         /* cannot be opened */
	PROBE_MODEL_TOO_LARGE,      /* above the probe's size cap */
	PROBE_MODEL_UNRESOLVED,     /* argv names no model, or only an expansion */
};

/* How argv named the model: only this kind leaves the pod, never the path
 * or the hub id itself. */
enum probe_model_source {
	PROBE_MODEL_SRC_UNKNOWN = 0,
	PROBE_MODEL_SRC_PATH,       /* a local directory (absolute or under PID 1's cwd) */
	PROBE_MODEL_SRC_HUB,        /* a Hugging Face id, read from the hub cache */
};

/* Section model_config: numbers and markers are -1 when the file does not
 * say (unknown), 0 when it says no, 1 (or the count) when it says yes.
 * As probe.sh sends them: with state OK the three markers are always 0 or
 * 1 (0: none of the keys that mark it is in the file or its text_config,
 * or they say no: sliding_window null/0, use_sliding_window false,
 * kv_lora_rank null/0), so -1 means the file was not read; the counts stay
 * -1 when the key is absent or its value was refused (nbad). */
struct probe_model_config {
	struct probe_src src;
	enum probe_model_state state;
	char model_type[32];            /* "gpt_oss", "deepseek_v3", "qwen3_next" */
	char architecture[64];          /* architectures[0] */
	int sliding_window;             /* sliding_window > 0, or a sliding layer type */
	int hybrid_linear;              /* Mamba / linear-attention layers */
	int mla;                        /* kv_lora_rank > 0 (DeepSeek-style MLA) */
	int num_kv_heads;               /* num_key_value_heads */
	int num_layers;                 /* num_hidden_layers */
	/* added with the probe section (the fields above are the pair
	 * rules' contract, kept as declared) */
	enum probe_model_source source;
	int text_config;                /* 1: a nested text_config was read (multimodal) */
	int nbad;                       /* keys refused: a value no plain word/number */
};

/* Section model_config ("state=ok", then "key=value" lines of the fixed
 * set); returns the keys it took. */
int probe_parse_model_config(const char *t, size_t n, struct probe_model_config *m);

#endif
