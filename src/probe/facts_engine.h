/* Part of facts.h (which includes it; include facts.h, not this): the
 * facts of section trtllm_engine, apart to keep facts.h readable. */
#ifndef DI_PROBE_FACTS_ENGINE_H
#define DI_PROBE_FACTS_ENGINE_H

/* ---- TensorRT-LLM's engine config file (J9) ---------------------------- */

/* What became of the file PID 1's argv names (probe.sh trtllm_engine). */
enum probe_engine_state {
	PROBE_ENGINE_UNKNOWN = 0,   /* no state line */
	PROBE_ENGINE_OK,            /* read; the keys below as found */
	PROBE_ENGINE_ABSENT,        /* no such file */
	PROBE_ENGINE_DENIED,        /* cannot be opened */
	PROBE_ENGINE_NOT_FILE,      /* a directory, device, ... */
	PROBE_ENGINE_TOO_LARGE,     /* above the probe's 256 KiB cap */
	PROBE_ENGINE_UNRESOLVED,    /* the path is empty or a shell expansion */
	PROBE_ENGINE_NO_AWK,        /* no awk to pick the keys */
};

/* Section trtllm_engine: ABSENT when PID 1's argv names no engine file.
 * Only the keys the rules need ever leave the pod; numbers are -1 when
 * the file does not set them. */
struct probe_trtllm_engine {
	struct probe_src src;
	char flag[32];                  /* "--extra-engine-args", ... */
	/* As argv names it: with a $NAME in it the probe resolved NAME in the
	 * pod, and only the name leaves it.  Not for output: the plugin
	 * prints the spec's word (model/shown.h shown_spec_word). */
	char path[256];
	int path_hidden;                /* argv's word held an environment value: not sent */
	enum probe_engine_state state;
	long max_input_len;
	long max_tokens_in_buffer;      /* cache_transceiver_config. */
	long tensor_parallel_size;
	char backend[17];               /* cache_transceiver_config.; "" unset */
	/* kv_cache_config.use_kv_cache_manager_v2 (NVIDIA/TensorRT-LLM PR
	 * #10659): 1 true, 0 false, -1 unset or not a YAML boolean. */
	int kv_manager_v2;
	int nbad;                       /* wanted keys with a value not plain */
};

/* Parses the section body into e (which starts zeroed: the numbers are set
 * to -1 here); the number of keys read. */
int probe_parse_trtllm_engine(const char *t, size_t n, struct probe_trtllm_engine *e);
/* The state as a phrase for a reason ("not found", "permission denied"). */
const char *probe_engine_state_text(enum probe_engine_state s);

/* ---- SGLang's --config YAML (issue 38) -------------------------------- */

/* Section sglang_config: ABSENT (127) when PID 1 runs no SGLang or names no
 * --config file.  Only two top-level keys leave the pod, each a plain word
 * or "" (unset, or refused: nbad counts those). */
struct probe_sglang_config {
	struct probe_src src;
	enum probe_engine_state state;
	char backend[33];               /* disaggregation-transfer-backend */
	char mode[33];                  /* disaggregation-mode */
	int nbad;
};

/* Parses the section body into c; the number of keys read.  A later line
 * for a key replaces an earlier one, as YAML's last duplicate key does. */
int probe_parse_sglang_config(const char *t, size_t n, struct probe_sglang_config *c);

#endif
