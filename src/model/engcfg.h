/* One role's engine configuration as KV exchange needs it (issue 41),
 * and the prefill/decode pair rules over two of them (checks.md J11,
 * J12, J7b).  Filled from a worker's command and args and its variables,
 * so a running pod (check/framework.c) and a recipe's component
 * (recipe/rules.c) reach the same finding from the same settings.
 *
 * A leaf module like model/fwrules.h: no I/O, no kube, probe or check
 * types.  JSON values (vLLM's --kv-transfer-config, --kv-events-config)
 * are read with cJSON; only the keys below are kept, never the text. */
#ifndef MODEL_ENGCFG_H
#define MODEL_ENGCFG_H

#include <stddef.h>

#include "model/envrules.h"
#include "model/fwfind.h"

enum engcfg_engine { ENGCFG_NONE = 0, ENGCFG_VLLM, ENGCFG_SGLANG, ENGCFG_TRTLLM };

/* vLLM's NIXL connectors move KV by pull (READ) or push (WRITE). */
enum engcfg_mode { ENGCFG_PULL = 0, ENGCFG_PUSH };

struct engcfg {
	enum engcfg_engine engine;
	/* --kv-transfer-config: 1 read, 0 not passed, -1 not JSON (why) */
	int kvcfg;
	char connector[48];     /* top-level kv_connector ("PdConnector") */
	char kv_role[16];
	/* The NIXL connector, top-level or one of a multi-connector's
	 * kv_connector_extra_config.connectors: */
	int nixl;               /* 1 present */
	enum engcfg_mode mode;
	int nixl_alone;         /* the only connector (not in a multi-connector) */
	int cross_layers;       /* its enable_cross_layers_blocks: 1, 0 */
	char backends[64];      /* its backends, ","-joined; "UCX" when unset */
	int backends_default;   /* 1: not set, vLLM's default UCX */
	long block_size;        /* --block-size, -1 unset */
	long tp, dp, pp;        /* -1 unset */
	long attn_tp;           /* SGLang attention TP (fwr_attn_tp) */
	long kv_events_port;    /* --kv-events-config endpoint's port, -1 none */
	char sgl_backend[16];   /* SGLang --disaggregation-transfer-backend */
};

/* The served model as far as the pair rules need it (probe section
 * model_config, facts_model.h): -1 unknown, 0 no, 1 yes.  known 0: the
 * config.json was not read (why says why, or NULL). */
struct engcfg_model {
	int known;
	int sliding_window, hybrid_linear, mla;
	const char *type;       /* model_type, NULL unknown */
	const char *why;
};

/* args (command and args, space- or newline-joined) and env into *c. */
/* Where the value of flag name starts in args ("--x v", "--x=v",
 * "--x 'v'": past the quote), or NULL; "--tp" is no "--tp-size". */
const char *engcfg_flag_at(const char *args, const char *name);
/* The tensor-parallel size the args ask for, -1 when they do not say. */
long engcfg_tp(const char *args);
/* SGLang's attention TP size (tp / dp with --enable-dp-attention), -1 unknown. */
long engcfg_attn_tp(const char *args);

void engcfg_read(const char *args, const struct envr_view *env, struct engcfg *c);

/* The pair rules for prefill p and decode d serving model m, one finding
 * per rule that applies (FWR_PD_*), into out (at most
 * max); the count. */
size_t engcfg_pair(const struct engcfg *p, const struct engcfg *d,
		   const struct engcfg_model *m, struct fwr_finding *out, size_t max);

/* The side channel's port range against the kv-events publisher's of one
 * vLLM worker (vllm-project/vllm#25059): a fw-vllm finding into *f, 1
 * when they overlap, else 0.  side_port: VLLM_NIXL_SIDE_CHANNEL_PORT. */
int engcfg_port_clash(const struct engcfg *c, long side_port, struct fwr_finding *f);

/* J5e: Dynamo's vLLM worker (`python3 -m dynamo.vllm`) on a Dynamo of
 * version (the ai_dynamo wheel's; NULL unknown: no finding) that removed
 * its --connector flag (1.0.0rc5 on, ai-dynamo/dynamo PR #6513): a fw-vllm
 * finding into *f and 1 when args pass --connector, or run a prefill
 * worker without --kv-transfer-config; else 0. */
int engcfg_dyn_flags(const char *args, const char *version, struct fwr_finding *f);

#endif
