/* One role's engine configuration and the prefill/decode pair rules
 * (engcfg.h).  Every rule names its source: the engine's own code or the
 * public report it was read from. */
#include "model/engcfg.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#define JSON_MAX 8192

/* Where the value of flag name starts in t ("--x v", "--x=v", "--x 'v'"),
 * or NULL.  The flag stands alone: "--tp" is no "--tp-size". */
const char *engcfg_flag_at(const char *t, const char *name)
{
	size_t l = strlen(name);

	for (const char *p = t ? strstr(t, name) : NULL; p; p = strstr(p + 1, name)) {
		const char *q = p + l;

		if (p > t && !isspace((unsigned char)p[-1]) && p[-1] != '"' && p[-1] != '\'')
			continue;
		if (*q != '=' && !isspace((unsigned char)*q))
			continue;
		while (*q == '=' || *q == '"' || *q == '\'' || isspace((unsigned char)*q))
			q++;
		return q;
	}
	return NULL;
}

/* The JSON object at v ("{...}", strings honoured) copied into out with
 * shell-escaped quotes (\") undone: a worker run by `sh -c` carries its
 * JSON that way.  0 when v holds no whole object. */
static int json_span(const char *v, char *out, size_t n)
{
	int depth = 0, str = 0, shell;
	size_t k = 0;

	if (!v || *v != '{')
		return 0;
	shell = v[1] == '\\' && v[2] == '"';    /* {\"key\": ...} */
	for (const char *p = v; *p && k + 2 < n; p++) {
		char c = *p;

		if (shell && c == '\\' && p[1] == '"')
			c = *++p;    /* a shell-escaped quote */
		else if (c == '\\' && str && p[1]) {
			out[k++] = c;    /* a JSON escape: kept whole */
			out[k++] = *++p;
			continue;
		}
		if (c == '"')
			str = !str;
		else if (!str && c == '{')
			depth++;
		else if (!str && c == '}' && --depth == 0) {
			out[k++] = c;
			out[k] = '\0';
			return 1;
		}
		out[k++] = c;
	}
	return 0;
}

static cJSON *flag_json(const char *args, const char *name)
{
	char *buf = malloc(JSON_MAX);
	cJSON *j = NULL;

	if (buf && json_span(engcfg_flag_at(args, name), buf, JSON_MAX))
		j = cJSON_Parse(buf);
	free(buf);
	return j;
}

static long flag_long(const char *args, const char *const *names)
{
	for (size_t i = 0; names[i]; i++) {
		const char *v = engcfg_flag_at(args, names[i]);
		char *end;
		long x;

		if (!v || !isdigit((unsigned char)*v))
			continue;
		x = strtol(v, &end, 10);
		if (!*end || isspace((unsigned char)*end) || *end == '"' || *end == '\'')
			return x;
	}
	return -1;
}

long engcfg_tp(const char *args)
{
	static const char *const tp[] = {
		"--tensor-parallel-size", "--tp-size", "--tp", "-tp", "--tensor_parallel_size", NULL,
	};

	return flag_long(args, tp);
}

long engcfg_attn_tp(const char *args)
{
	static const char *const dp[] = { "--dp-size", "--dp", "--data-parallel-size", NULL };
	long tp = engcfg_tp(args), d = flag_long(args, dp);

	if (tp < 0)
		tp = 1;    /* SGLang's default --tp-size */
	if (args && strstr(args, "--enable-dp-attention") && d > 0)
		return tp / d;
	return tp;
}

/* The word after flag name into out ("" when not passed). */
static void flag_word(const char *args, const char *name, char *out, size_t n)
{
	const char *v = engcfg_flag_at(args, name);
	size_t k = 0;

	while (v && v[k] && !isspace((unsigned char)v[k]) && v[k] != '"' && v[k] != '\'' && k + 1 < n)
		k++;
	snprintf(out, n, "%.*s", (int)k, v ? v : "");
}

static void copy(char *dst, size_t n, const char *s)
{
	snprintf(dst, n, "%s", s ? s : "");
}

static const char *jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int jtrue(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (cJSON_IsString(v))
		return !strcasecmp(v->valuestring, "true");
	return cJSON_IsTrue(v);
}

static int is_nixl(const char *name)
{
	return name && strstr(name, "Nixl");
}

/* vLLM kv_connector/v1/base.py: prefer_cross_layer_blocks is False but
 * for the NixlConnector asked for it and the OffloadingConnector. */
static int prefers_cross(const cJSON *conn)
{
	const char *name = jstr(conn, "kv_connector");
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(conn, "kv_connector_extra_config");

	if (is_nixl(name))
		return jtrue(x, "enable_cross_layers_blocks");
	return name && !strcmp(name, "OffloadingConnector");
}

/* The NIXL connector's own settings: backends (nixl_connector.py:
 * get_from_extra_config("backends", ["UCX"])) and cross-layer blocks. */
static void nixl_entry(const cJSON *conn, struct engcfg *c)
{
	const char *name = jstr(conn, "kv_connector");
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(conn, "kv_connector_extra_config");
	const cJSON *be = cJSON_GetObjectItemCaseSensitive(x, "backends"), *e;

	c->nixl = 1;
	c->mode = strstr(name, "Push") ? ENGCFG_PUSH : ENGCFG_PULL;
	c->cross_layers = jtrue(x, "enable_cross_layers_blocks");
	c->backends[0] = '\0';
	cJSON_ArrayForEach(e, be) {
		size_t k = strlen(c->backends);

		if (cJSON_IsString(e))
			snprintf(c->backends + k, sizeof c->backends - k, "%s%s", k ? "," : "",
				 e->valuestring);
	}
	if (cJSON_IsString(be))
		copy(c->backends, sizeof c->backends, be->valuestring);
	c->backends_default = !*c->backends;
	if (c->backends_default)
		copy(c->backends, sizeof c->backends, "UCX");
}

/* vLLM multi_connector.py: a MultiConnector (Dynamo's PdConnector is one)
 * lists its connectors in kv_connector_extra_config.connectors, and uses
 * cross-layer blocks only when every one of them prefers them. */
static void read_kvcfg(const cJSON *j, struct engcfg *c)
{
	const char *name = jstr(j, "kv_connector");
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, "kv_connector_extra_config");
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(x, "connectors"), *e;
	int all = 1, n = 0;

	copy(c->connector, sizeof c->connector, name);
	copy(c->kv_role, sizeof c->kv_role, jstr(j, "kv_role"));
	if (is_nixl(name)) {
		nixl_entry(j, c);
		c->nixl_alone = 1;
		return;
	}
	cJSON_ArrayForEach(e, list) {
		n++;
		all &= prefers_cross(e);
		if (!c->nixl && is_nixl(jstr(e, "kv_connector")))
			nixl_entry(e, c);
	}
	if (c->nixl && !(n && all))
		c->cross_layers = 0;    /* asked for, not used: the multi-connector decides */
}

static long events_port(const char *args)
{
	cJSON *j = flag_json(args, "--kv-events-config");
	const char *ep = jstr(j, "endpoint"), *colon = ep ? strrchr(ep, ':') : NULL;
	long port = -1;

	if (colon && isdigit((unsigned char)colon[1]) &&
	    (!cJSON_GetObjectItemCaseSensitive(j, "enable_kv_cache_events") || jtrue(j, "enable_kv_cache_events")))
		port = strtol(colon + 1, NULL, 10);
	cJSON_Delete(j);
	return port;
}

static enum engcfg_engine engine_of(const char *args)
{
	if (!args)
		return ENGCFG_NONE;
	if (strstr(args, "sglang") && strstr(args, "--disaggregation-mode"))
		return ENGCFG_SGLANG;
	if (strstr(args, "vllm") || strstr(args, "--kv-transfer-config"))
		return ENGCFG_VLLM;
	return strstr(args, "trtllm") ? ENGCFG_TRTLLM : ENGCFG_NONE;
}

/* A flag with no value ("--is-prefill-worker") as a word of args. */
static int has_word(const char *args, const char *w)
{
	size_t l = strlen(w);

	for (const char *p = args ? strstr(args, w) : NULL; p; p = strstr(p + 1, w))
		if ((p == args || isspace((unsigned char)p[-1])) && (!p[l] || isspace((unsigned char)p[l]) || p[l] == '='))
			return 1;
	return 0;
}

/* One word of Dynamo's --connector list as the JSON entry its wrapper
 * builds (components/src/dynamo/vllm/args.py _connector_to_kv_transfer_json),
 * or NULL for a word it does not know ("none" is handled by the caller). */
static cJSON *wrapper_entry(const char *w)
{
	static const char *const map[][2] = {
		{ "nixl", "NixlConnector" }, { "kvbm", "DynamoConnector" },
		{ "lmcache", "LMCacheConnectorV1" }, { "flexkv", "FlexKVConnectorV1" },
	};
	cJSON *e;

	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (!strcasecmp(w, map[i][0])) {
			e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "kv_connector", map[i][1]);
			cJSON_AddStringToObject(e, "kv_role", "kv_both");
			return e;
		}
	return NULL;
}

/* Dynamo's vLLM worker before 1.0.0rc5 (checks.md J11): `--connector
 * nixl kvbm ...` decides the connectors, one of them alone, two or more
 * inside a PdConnector; "none"/"null" none at all.  Read as the same
 * --kv-transfer-config the wrapper builds, so J11 compares either. */
static void wrapper_connector(const char *args, struct engcfg *c)
{
	const char *p = has_word(args, "--connector") ? engcfg_flag_at(args, "--connector") : NULL;
	cJSON *list = cJSON_CreateArray(), *top, *x;
	char w[16];
	int none = 0;

	for (int k = 0; p && *p && *p != '-' && k < 8; k++) {
		size_t n = strcspn(p, " \t\r\n,\"'");

		snprintf(w, sizeof w, "%.*s", (int)(n < sizeof w ? n : sizeof w - 1), p);
		none |= !strcasecmp(w, "none") || !strcasecmp(w, "null");
		if ((x = wrapper_entry(w)))
			cJSON_AddItemToArray(list, x);
		p += n;
		p += strspn(p, " \t\r\n,\"'");
	}
	if (cJSON_GetArraySize(list) == 1) {
		top = cJSON_DetachItemFromArray(list, 0);
		cJSON_Delete(list);
	} else {
		top = cJSON_CreateObject();
		if (cJSON_GetArraySize(list) > 1)
			cJSON_AddStringToObject(top, "kv_connector", "PdConnector");
		x = cJSON_AddObjectToObject(top, "kv_connector_extra_config");
		cJSON_AddItemToObject(x, "connectors", list);
	}
	if (cJSON_GetObjectItemCaseSensitive(top, "kv_connector") || none) {
		c->kvcfg = 1;
		read_kvcfg(top, c);
	}
	cJSON_Delete(top);
}

void engcfg_read(const char *args, const struct envr_view *env, struct engcfg *c)
{
	static const char *const bs[] = { "--block-size", "--page-size", NULL };
	static const char *const dp[] = { "--data-parallel-size", "--dp-size", "--dp", "-dp", NULL };
	static const char *const pp[] = { "--pipeline-parallel-size", "--pp-size", "-pp", NULL };
	cJSON *j;

	(void)env;    /* the variables are judged per role (fwrules.c) */
	memset(c, 0, sizeof *c);
	c->engine = engine_of(args);
	c->block_size = flag_long(args, bs);
	c->tp = engcfg_tp(args);
	c->dp = flag_long(args, dp);
	c->pp = flag_long(args, pp);
	c->attn_tp = c->engine == ENGCFG_SGLANG ? engcfg_attn_tp(args) : -1;
	c->kv_events_port = events_port(args);
	if (c->engine == ENGCFG_SGLANG) {
		flag_word(args, "--disaggregation-transfer-backend", c->sgl_backend, sizeof c->sgl_backend);
		if (!*c->sgl_backend)
			copy(c->sgl_backend, sizeof c->sgl_backend, "mooncake");
	}
	if (!engcfg_flag_at(args, "--kv-transfer-config")) {
		if (c->engine == ENGCFG_VLLM && strstr(args, "dynamo.vllm"))
			wrapper_connector(args, c);
		return;
	}
	j = flag_json(args, "--kv-transfer-config");
	c->kvcfg = j && cJSON_IsObject(j) ? 1 : -1;
	if (c->kvcfg == 1)
		read_kvcfg(j, c);
	cJSON_Delete(j);
}

static void put(struct fwr_finding *f, enum fwr_check check, enum envr_sev sev, int unknown,
		const char *remedy, const char *source, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

static void put(struct fwr_finding *f, enum fwr_check check, enum envr_sev sev, int unknown,
		const char *remedy, const char *source, const char *fmt, ...)
{
	va_list ap;

	f->check = check, f->sev = sev, f->remedy = remedy, f->source = source, f->unknown = unknown;
	va_start(ap, fmt);
	vsnprintf(f->detail, sizeof f->detail, fmt, ap);
	va_end(ap);
}

/* 1 when the ","-joined lists a and b share an entry: tokens are compared
 * in place, by length, so no entry is cut to a buffer's size. */
static int backends_meet(const char *a, const char *b)
{
	for (const char *p = a; *p;) {
		size_t l = strcspn(p, ",");

		for (const char *q = b; *q;) {
			size_t k = strcspn(q, ",");

			if (k == l && l > 0 && !memcmp(p, q, l))
				return 1;
			q += k + (q[k] == ',');
		}
		p += l + (p[l] == ',');
	}
	return 0;
}

static const char *conn_name(const struct engcfg *c)
{
	return *c->connector ? c->connector : "(no kv_connector)";
}

#define SRC_HASH "vLLM kv_connector/v1/nixl/metadata.py (compute_nixl_compatibility_hash: cross_layers_blocks, transfer_mode); multi_connector.py (prefer_cross_layer_blocks: all connectors); ai-dynamo/dynamo#10027"
#define SRC_BACKENDS "vLLM nixl_connector.py (kv_connector_extra_config.backends, default [\"UCX\"]): both agents need one backend in common"
#define REM_CONN "give prefill and decode the same kv_connector with the same kv_connector_extra_config (connector class, enable_cross_layers_blocks, backends)"

#define SRC_SGL_BE "sgl-project/sglang disaggregation/utils.py (get_kv_class: each transfer backend its own KV manager, sender, receiver and bootstrap server)"

/* J11 for SGLang: prefill and decode pick their KV classes by
 * --disaggregation-transfer-backend; two backends never pair. */
static int pair_sgl_backend(const struct engcfg *p, const struct engcfg *d, struct fwr_finding *f)
{
	if (strcmp(p->sgl_backend, d->sgl_backend))
		put(f, FWR_PD_CONNECTOR, ENVR_FAIL, 0,
		    "pass the same --disaggregation-transfer-backend to prefill and decode", SRC_SGL_BE,
		    "SGLang --disaggregation-transfer-backend: prefill %s, decode %s: the two sides cannot hand KV over",
		    p->sgl_backend, d->sgl_backend);
	else
		put(f, FWR_PD_CONNECTOR, ENVR_OK, 0, NULL, SRC_SGL_BE,
		    "SGLang --disaggregation-transfer-backend %s on both sides", d->sgl_backend);
	return 1;
}

/* J11: the two sides of a vLLM pair can complete the NIXL handshake. */
static int pair_connector(const struct engcfg *p, const struct engcfg *d, struct fwr_finding *f)
{
	const struct engcfg *odd = p->kvcfg != 1 ? p : d;

	if (p->engine == ENGCFG_SGLANG && d->engine == ENGCFG_SGLANG)
		return pair_sgl_backend(p, d, f);
	if (p->engine != ENGCFG_VLLM || d->engine != ENGCFG_VLLM || (p->kvcfg == 0 && d->kvcfg == 0))
		return 0;
	if (p->kvcfg != 1 || d->kvcfg != 1)
		put(f, FWR_PD_CONNECTOR, ENVR_OK, 1, "pass --kv-transfer-config as JSON on prefill and decode", SRC_HASH,
		    "%s %s: the connectors are not compared", odd == p ? "prefill" : "decode",
		    odd->kvcfg ? "--kv-transfer-config is not a JSON object" : "passes no --kv-transfer-config (the wrapper's default)");
	else if (p->nixl != d->nixl || (!p->nixl && strcmp(p->connector, d->connector)))
		put(f, FWR_PD_CONNECTOR, ENVR_FAIL, 0, REM_CONN, SRC_HASH,
		    "kv_connector: prefill %s%s, decode %s%s: the two sides speak different KV protocols",
		    conn_name(p), p->nixl && !p->nixl_alone ? " (with NIXL)" : "",
		    conn_name(d), d->nixl && !d->nixl_alone ? " (with NIXL)" : "");
	else if (p->nixl && p->mode != d->mode)
		put(f, FWR_PD_CONNECTOR, ENVR_FAIL, 0, REM_CONN,
		    "vLLM PR #50620 (transfer_mode push/pull in the NIXL compatibility hash)",
		    "NIXL transfer mode: prefill %s, decode %s: the handshake is refused",
		    p->mode == ENGCFG_PUSH ? "push" : "pull", d->mode == ENGCFG_PUSH ? "push" : "pull");
	else if (p->nixl && p->cross_layers != d->cross_layers)
		put(f, FWR_PD_CONNECTOR, ENVR_FAIL, 0, REM_CONN, SRC_HASH,
		    "cross-layer KV blocks: prefill %s (%s), decode %s (%s): \"NIXL compatibility hash mismatch\" at the handshake",
		    p->cross_layers ? "on" : "off", conn_name(p), d->cross_layers ? "on" : "off", conn_name(d));
	else if (p->nixl && !backends_meet(p->backends, d->backends))
		put(f, FWR_PD_CONNECTOR, ENVR_FAIL, 0,
		    "list the same kv_connector_extra_config.backends on prefill and decode", SRC_BACKENDS,
		    "NIXL backends: prefill %s%s, decode %s%s: no backend in common",
		    p->backends, p->backends_default ? " (default)" : "", d->backends, d->backends_default ? " (default)" : "");
	else
		put(f, FWR_PD_CONNECTOR, ENVR_OK, 0, NULL, SRC_HASH,
		    "kv_connector %s on both sides%s%s", conn_name(d),
		    d->nixl ? ", NIXL backends " : "", d->nixl ? d->backends : "");
	return 1;
}

#define SRC_BLOCKS "vllm-project/vllm#42895 (hybrid model, physical block sizes 32 and 16: handshake_setup_failed); vLLM PR #26759 (hetero block size for attention-only models)"

#define REM_BLOCKS "set the same --block-size (and TP) on prefill and decode of a hybrid model"

static const char *model_type(const struct engcfg_model *m)
{
	return m->type && *m->type ? m->type : "(type not read)";
}

static long block_or_default(const struct engcfg *c)
{
	return c->block_size > 0 ? c->block_size : 16;    /* vLLM's CUDA default */
}

/* J12: block sizes a vLLM pair can exchange.  Attention-only models
 * translate between sizes (PR #26759); a hybrid (Mamba / linear
 * attention) model's physical block follows the state's page size, which
 * the two sides must share. */
static int pair_blocks(const struct engcfg *p, const struct engcfg *d, const struct engcfg_model *m,
		       struct fwr_finding *f)
{
	long a = block_or_default(p), b = block_or_default(d);

	if (p->engine != ENGCFG_VLLM || d->engine != ENGCFG_VLLM || !p->nixl || !d->nixl)
		return 0;
	if (a == b && (p->block_size > 0 || p->tp == d->tp))
		put(f, FWR_PD_BLOCKS, ENVR_OK, 0, NULL, SRC_BLOCKS, "block size %ld on both sides", a);
	else if (!m || !m->known || m->hybrid_linear < 0)
		put(f, FWR_PD_BLOCKS, ENVR_OK, 1, "make the model's config.json readable in the pod", SRC_BLOCKS,
		    "block size prefill %ld, decode %ld%s; the model kind is unknown (%s), and a hybrid model cannot pair them",
		    a, b, a == b ? " with unequal TP" : "", m && m->why ? m->why : "config.json not read");
	else if (m->hybrid_linear == 1 && a != b)
		put(f, FWR_PD_BLOCKS, ENVR_FAIL, 0, REM_BLOCKS, SRC_BLOCKS,
		    "hybrid model %s: block size prefill %ld, decode %ld: every request fails handshake_setup_failed",
		    model_type(m), a, b);
	else if (m->hybrid_linear == 1)
		put(f, FWR_PD_BLOCKS, ENVR_WARN, 0, REM_BLOCKS, SRC_BLOCKS,
		    "hybrid model %s: block size %ld unset on prefill and decode, TP %ld vs %ld: each side derives its physical block size itself, and unequal ones fail handshake_setup_failed",
		    model_type(m), a, p->tp, d->tp);
	else
		put(f, FWR_PD_BLOCKS, ENVR_OK, 0, NULL, SRC_BLOCKS,
		    "block size prefill %ld, decode %ld: an attention-only model translates between them", a, b);
	return 1;
}

#define SRC_TP_SWA "sgl-project/sglang#38552, llm-d/llm-d#2433 (\"PD Disaggregation does NOT support PD different TP sizes for non-MLA SWA hybrid models\", disaggregation/nixl/conn.py maybe_send_extra)"
#define SRC_TP_MAMBA "sgl-project/sglang PR #16056 (different prefill/decode TP for Mamba hybrid models, Qwen3-Next)"
#define SRC_TP "sgl-project/sglang disaggregation/common/conn.py (attn TP head mapping); llm-d/llm-d#2433"
#define REM_TP "make one attention TP size a multiple of the other (e.g. the same --tp-size)"
#define REM_TP_EQ "give prefill and decode the same --tp-size (and attention DP)"

/* J7b: SGLang maps KV heads by the ratio of the attention TP sizes
 * (common/conn.py); neither dividing the other never pairs.  Unequal
 * sizes are refused outright for a non-MLA sliding-window model, and for
 * a Mamba hybrid before PR #16056; MLA's latent KV has no heads to split. */
static int pair_tp(const struct engcfg *p, const struct engcfg *d, const struct engcfg_model *m,
		   struct fwr_finding *f)
{
	long a = p->attn_tp, b = d->attn_tp;

	if (p->engine != ENGCFG_SGLANG || d->engine != ENGCFG_SGLANG || a <= 0 || b <= 0)
		return 0;
	if (a % b && b % a)
		put(f, FWR_PD_TP, ENVR_FAIL, 0, REM_TP, SRC_TP,
		    "SGLang attention TP: prefill %ld, decode %ld; neither divides the other, so KV heads cannot be split and the pair hangs", a, b);
	else if (a == b)
		put(f, FWR_PD_TP, ENVR_OK, 0, NULL, SRC_TP, "SGLang attention TP: prefill %ld, decode %ld", a, b);
	else if (!m || !m->known || m->mla < 0 || (m->mla == 0 && (m->sliding_window < 0 || m->hybrid_linear < 0)))
		put(f, FWR_PD_TP, ENVR_OK, 1, "make the model's config.json readable in the pod", SRC_TP_SWA,
		    "SGLang attention TP: prefill %ld, decode %ld; the model kind is unknown (%s), and a non-MLA sliding-window model refuses unequal TP",
		    a, b, m && m->why ? m->why : "config.json not read");
	else if (!m->mla && m->sliding_window == 1)
		put(f, FWR_PD_TP, ENVR_FAIL, 0, REM_TP_EQ, SRC_TP_SWA,
		    "SGLang attention TP: prefill %ld, decode %ld on %s, a non-MLA sliding-window model: SGLang refuses unequal TP (\"PD Disaggregation does NOT support PD different TP sizes\") and requests hang",
		    a, b, m->type ? m->type : "the model");
	else if (!m->mla && m->hybrid_linear == 1)
		put(f, FWR_PD_TP, ENVR_WARN, 0, REM_TP_EQ, SRC_TP_MAMBA,
		    "SGLang attention TP: prefill %ld, decode %ld on %s, a Mamba/linear-attention hybrid: only SGLang with PR #16056 slices its state between unequal TP",
		    a, b, m->type ? m->type : "the model");
	else
		put(f, FWR_PD_TP, ENVR_OK, 0, NULL, SRC_TP, "SGLang attention TP: prefill %ld, decode %ld (%s model: heads split by the ratio)",
		    a, b, m->mla ? "MLA" : "attention-only");
	return 1;
}

size_t engcfg_pair(const struct engcfg *p, const struct engcfg *d, const struct engcfg_model *m,
		   struct fwr_finding *out, size_t max)
{
	size_t n = 0;

	if (n < max)
		n += (size_t)pair_tp(p, d, m, &out[n]);
	if (n < max)
		n += (size_t)pair_connector(p, d, &out[n]);
	if (n < max)
		n += (size_t)pair_blocks(p, d, m, &out[n]);
	return n;
}

/* vllm-project/vllm#25059: the NIXL side channel listens on port +
 * dp_rank * tp + tp_rank (docs/features/nixl_connector_usage.md), the
 * kv-events publisher on its endpoint's port + dp_rank (kv_events.py
 * offset_endpoint_port): two ranges that must not meet. */
int engcfg_port_clash(const struct engcfg *c, long side_port, struct fwr_finding *f)
{
	long tp = c->tp > 0 ? c->tp : 1, dp = c->dp > 0 ? c->dp : 1;
	long s0 = side_port, s1, e0 = c->kv_events_port, e1;

	/* Values come from the pod's command line: a port outside 1-65535 or
	 * a rank count past any real GPU fleet is no port range at all, and
	 * would overflow the sums below. */
	if (side_port <= 0 || side_port > 65535 || e0 <= 0 || e0 > 65535 || tp > 65536 || dp > 65536)
		return 0;
	s1 = side_port + dp * tp;
	e1 = e0 + dp;
	if (s1 <= e0 || e1 <= s0)
		return 0;
	put(f, FWR_VLLM, ENVR_FAIL, 0, "move VLLM_NIXL_SIDE_CHANNEL_PORT (or the kv-events endpoint) so the two port ranges do not meet",
	    "vllm-project/vllm#25059; vLLM docs features/nixl_connector_usage.md (port + dp_rank * tp_size + tp_rank), distributed/kv_events.py (endpoint port + dp rank)",
	    "VLLM_NIXL_SIDE_CHANNEL_PORT %ld: side channel ports %ld-%ld and kv-events ports %ld-%ld overlap, so one listener fails to bind (Address already in use)",
	    side_port, s0, s1 - 1, e0, e1 - 1);
	return 1;
}

/* Dynamo's version v against 1.0.0rc5 in PEP 440 order (a, b, rc before
 * the release, .devN before those; .postN and +local after it): 1 at or
 * after, 0 before, -1 no version. */
static int dyn_from_rc5(const char *v)
{
	unsigned x[3], rc;
	int k = 0;
	const char *s;

	if (!v || !isdigit((unsigned char)*v) || sscanf(v, "%u.%u.%u%n", &x[0], &x[1], &x[2], &k) != 3)
		return -1;
	if (x[0] != 1 || x[1] || x[2])
		return x[0] >= 1;
	s = v + k;
	if (!strncmp(s, "rc", 2))
		return isdigit((unsigned char)s[2]) && sscanf(s + 2, "%u", &rc) == 1 ? rc >= 5 : -1;
	return !(*s == 'a' || *s == 'b' || !strncmp(s, ".dev", 4));
}

#define SRC_DYN_CONN "ai-dynamo/dynamo PR #6513 (components/src/dynamo/vllm/args.py _reject_connector_flag; a prefill worker needs --kv-transfer-config); ai-dynamo/aiconfigurator PR #519 (vllm-runtime 1.0.0rc5: CrashLoopBackOff)"
#define REM_DYN_CONN "pass --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}' instead of --connector (drop --connector none)"

int engcfg_dyn_flags(const char *args, const char *version, struct fwr_finding *f)
{
	char conn[32], mode[16];

	if (!args || !strstr(args, "dynamo.vllm") || dyn_from_rc5(version) != 1)
		return 0;
	flag_word(args, "--disaggregation-mode", mode, sizeof mode);
	if (has_word(args, "--connector")) {
		flag_word(args, "--connector", conn, sizeof conn);
		put(f, FWR_VLLM, ENVR_FAIL, 0, REM_DYN_CONN, SRC_DYN_CONN,
		    "Dynamo %s (ai_dynamo) refuses --connector %s on its vLLM worker (removed from 1.0.0rc5): the worker exits with a ValueError and crash-loops",
		    version, *conn ? conn : "(no value)");
	} else if ((has_word(args, "--is-prefill-worker") || !strcmp(mode, "prefill")) &&
		   !engcfg_flag_at(args, "--kv-transfer-config"))
		put(f, FWR_VLLM, ENVR_FAIL, 0, "add --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}' to the prefill worker",
		    SRC_DYN_CONN,
		    "Dynamo %s (ai_dynamo): a vLLM prefill worker without --kv-transfer-config exits with a ValueError (\"the default is no longer nixl\") and crash-loops",
		    version);
	else
		return 0;
	return 1;
}
