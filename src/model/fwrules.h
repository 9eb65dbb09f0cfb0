/* The framework rule book (issue 26 item 3, checks.md J5-J10): what the
 * worker's own arguments and framework variables do to its KV transfer,
 * for vLLM's NixlConnector, SGLang's disaggregation, TensorRT-LLM's cache
 * transceiver and Mooncake.  `env` judges a recipe's component with it
 * (recipe/rules.c), `check` a pod's spec args and env (check/framework.c),
 * so the same settings reach the same verdict on either path.
 *
 * A leaf module like model/envrules.h: no I/O, no kube, probe or check
 * types.  Every finding is copied into the caller's array; its strings
 * are static except detail, its own buffer.  Argument text is never
 * copied into a finding whole (it may hold tokens): only the values of
 * the flags judged.
 */
#ifndef MODEL_FWRULES_H
#define MODEL_FWRULES_H

#include <stddef.h>

#include "model/envrules.h"
#include "model/fwfind.h"

/* TensorRT-LLM's engine config file as a running pod's probe read it
 * (the keys J9 needs, nothing else).  Numbers -1 when not set. */
struct fwr_engine {
	int read;                     /* 1: read; 0: named but unreadable */
	const char *path;             /* as the worker's argv names it */
	const char *why;              /* when not read: "not found", ... */
	long max_input_len, max_tokens_in_buffer, tp;
	const char *backend;          /* cache_transceiver_config.backend, NULL unset */
};

/* How the worker's Dynamo picks the NIXL side-channel host when
 * VLLM_NIXL_SIDE_CHANNEL_HOST is unset (checks.md J5f): ai-dynamo/dynamo
 * PR #6539's detection, or the older code that falls back to 127.0.0.1. */
enum fwr_hostip {
	FWR_HOSTIP_UNKNOWN = 0,
	FWR_HOSTIP_DETECT,
	FWR_HOSTIP_FALLBACK,
};

/* One worker as the book sees it.  Unknown numbers are -1, unknown
 * strings NULL. */
struct fwr_worker {
	/* The container's command and args joined by spaces (and, for a
	 * recipe, the text of the engine config it ships), or NULL. */
	const char *args;
	const struct envr_view *env;  /* framework and transport variables */
	const char *role;             /* "prefill", "decode", "worker", ... */
	int kv_cross;                 /* KV leaves the pod */
	int cross_node;               /* prefill and decode on other nodes: 1, 0, -1 unknown */
	unsigned fabric;              /* ENVR_FAB_* requested or found; 0 none */
	long gpus;                    /* GPUs of the pod (nvidia.com/gpu) */
	int nodes;                    /* nodes of one worker (multinode.nodeCount), >= 1 */
	/* ","-joined RDMA devices the pod has (live pods), NULL unknown:
	 * then only the syntax of a device list is judged. */
	const char *devices;
	/* The engine config file its argv names, NULL when none was read or
	 * named (a recipe's config is in args already). */
	const struct fwr_engine *engine;
	/* The Dynamo the worker runs (the ai_dynamo wheel's version as the
	 * probe read it, checks.md J5e), NULL unknown (a recipe). */
	const char *dynamo_version;
	int host_network;             /* the pod's hostNetwork: 1, 0, -1 unknown */
	/* The pod's own hostname as its resolver answers (J5f): an IPv4
	 * address, "unresolved", or NULL unknown (a recipe, an old probe). */
	const char *host_self;
	enum fwr_hostip host_detect;
};

/* The findings for w (ok ones too: each check that applies reports once,
 * its worst rule; a check that does not apply reports nothing) into out,
 * at most FWR_MAX; the count. */
size_t fwr_eval(const struct fwr_worker *w, struct fwr_finding *out);
/* The prefill/decode pair rules (model/engcfg.h: attention TP for the
 * model kind, connectors, block sizes) for the decode side, into out (at
 * most max); the count.  m: the served model, NULL unknown. */
struct engcfg_model;
size_t fwr_pairs(const struct fwr_worker *prefill, const struct fwr_worker *decode,
		 const struct engcfg_model *m, struct fwr_finding *out, size_t max);
/* The word after flag name in args ("--x v", "--x=v", quotes dropped)
 * into val (n bytes); val, or NULL when args do not pass the flag. */
const char *fwr_flag(const char *args, const char *name, char *val, size_t n);
/* The tensor-parallel size the args ask for, -1 when they do not say. */
long fwr_tp(const char *args);
/* SGLang's attention TP size (tp / dp with --enable-dp-attention), -1 unknown. */
long fwr_attn_tp(const char *args);

#endif
