/* The framework rule book (fwrules.h).  Every rule names its source: the
 * public report or the framework's own code it was read from. */
#include "model/fwrules.h"
#include "model/engcfg.h"
#include "model/shown.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The value after flag name in t ("--x v", "--x=v", "--x 'v'"), or NULL.
 * The flag must stand alone: "--tp" does not match "--tp-size". */
static const char *flag(const char *t, const char *name, char *val, size_t n)
{
	const char *q = engcfg_flag_at(t, name);
	size_t k = 0;

	if (!q)
		return NULL;
	while (q[k] && !isspace((unsigned char)q[k]) && q[k] != '"' && q[k] != '\'' && k + 1 < n)
		k++;
	memcpy(val, q, k);
	val[k] = '\0';
	return k ? val : NULL;
}

const char *fwr_flag(const char *args, const char *name, char *val, size_t n)
{
	return *name && n ? flag(args, name, val, n) : NULL;    /* "" would walk past args */
}

/* A YAML or JSON key's scalar ("key: v", "\"key\": \"v\""), or NULL. */
static const char *key(const char *t, const char *name, char *val, size_t n)
{
	size_t l = strlen(name), k = 0;
	const char *p = t ? strstr(t, name) : NULL;

	while (p && (p[l] != '"' && p[l] != ':'))
		p = strstr(p + 1, name);
	if (!p)
		return NULL;
	p += l;
	while (*p == '"' || *p == ':' || *p == ' ' || *p == '\'')
		p++;
	while ((isalnum((unsigned char)p[k]) || p[k] == '_' || p[k] == '.') && k + 1 < n)
		k++;
	memcpy(val, p, k);
	val[k] = '\0';
	return k ? val : NULL;
}

static long num(const char *v)
{
	char *end;
	long x;

	if (!v)
		return -1;
	x = strtol(v, &end, 10);
	return *end || x < 0 ? -1 : x;
}

static long flag_num(const char *t, const char *const *names)
{
	char v[32];

	for (size_t i = 0; names[i]; i++)
		if (flag(t, names[i], v, sizeof v))
			return num(v);
	return -1;
}

long fwr_tp(const char *args)
{
	char v[32];
	long n = engcfg_tp(args);

	return n >= 0 ? n : num(key(args, "tensor_parallel_size", v, sizeof v));
}

long fwr_attn_tp(const char *args)
{
	return engcfg_attn_tp(args);
}

static void put(struct fwr_finding *f, enum fwr_check check, enum envr_sev sev,
		const char *remedy, const char *source, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static void put(struct fwr_finding *f, enum fwr_check check, enum envr_sev sev,
		const char *remedy, const char *source, const char *fmt, ...)
{
	va_list ap;

	f->check = check, f->sev = sev, f->remedy = remedy, f->source = source, f->unknown = 0;
	va_start(ap, fmt);
	vsnprintf(f->detail, sizeof f->detail, fmt, ap);
	va_end(ap);
}

static int has(const char *t, const char *s)
{
	return t && strstr(t, s);
}

static int loopback(const char *h)
{
	return !strcmp(h, "localhost") || !strncmp(h, "127.", 4) || !strcmp(h, "::1") ||
	       !strcmp(h, "0.0.0.0");
}

/* The scalar of key name within the n bytes after the first "scope" in t
 * ("cache_transceiver_config: {backend: X}"), or NULL: a key that means
 * other things elsewhere (TensorRT-LLM's top-level `backend: pytorch`). */
static const char *key_in(const char *t, const char *scope, const char *name,
			  char *val, size_t n)
{
	const char *p = t ? strstr(t, scope) : NULL;
	char win[2048];

	if (!p)
		return NULL;
	snprintf(win, sizeof win, "%s", p + strlen(scope));
	return key(win, name, val, n);
}

/* The ","-entries of list that are no device of the ","-joined devs
 * ("mlx5_0" matches "mlx5_0" and "mlx5_0:1"), into bad; their count.
 * A JSON or file value ({..., /path) is not a list: 0. */
static int devices_missing(const char *list, const char *devs, char *bad, size_t n)
{
	char one[64];
	int k = 0;

	*bad = '\0';
	if (!devs || !list || *list == '{' || *list == '/' || !strcmp(list, "auto"))
		return 0;
	for (const char *p = list; *p;) {
		size_t l = strcspn(p, ", "), c;

		snprintf(one, sizeof one, "%.*s", (int)l, p);
		c = strcspn(one, ":");
		one[c] = '\0';
		if (*one) {
			const char *h = strstr(devs, one);
			size_t ol = strlen(one);
			int found = 0;

			for (; h && !found; h = strstr(h + 1, one))
				found = (h == devs || h[-1] == ',') && (h[ol] == ',' || h[ol] == '\0');
			if (!found) {
				size_t b = strlen(bad);

				snprintf(bad + b, n - b, "%s%s", k ? ", " : "", one);
				k++;
			}
		}
		p += l;
		while (*p == ',' || *p == ' ')
			p++;
	}
	return k;
}

/* Variable name's value as a finding prints it (model/shown.h): itself, or
 * "<from secret S>" when a Secret may have set it, never a part of it. */
static const char *env_shown(const struct envr_view *env, const char *name, char *out, size_t n)
{
	const struct envr_var *v = envr_find(env, name);

	return shown_value(v ? v->value : NULL, v ? v->secret : NULL, out, n);
}

#define SRC_27083 "vllm-project/vllm#27083; vLLM docs features/nixl_connector_usage (VLLM_NIXL_SIDE_CHANNEL_HOST, default localhost)"
#define SRC_HOSTNET "ray-project/ray PR #60817 (hostNetwork: the auto-detected side-channel IP is the node's external, NAT'd one); ai-dynamo/dynamo components/src/dynamo/vllm/args.py get_host_ip (hostname resolution, then the UDP-connect default route)"
#define SRC_SELF_HOST "ai-dynamo/dynamo PR #1878, PR #2108 (get_host_ip: gethostbyname of the hostname, 127.0.0.1 on gaierror or a failed bind); PR #6539 (components/src/dynamo/vllm/args.py get_host_ip, _is_routable: loopback and link-local skipped, then the UDP-connect default route, else RuntimeError)"
#define SRC_DYN_HOST "ai-dynamo/dynamo components/src/dynamo/vllm (ensure_side_channel_host: the pod's IP when unset)"

/* The worker runs vLLM's own server: `vllm serve` (any space between the
 * words: a recipe joins argv with newlines) or its OpenAI entrypoint.  A
 * spec with args and no command runs the image's entrypoint, which tells
 * nothing, so the rules that depend on the launcher do not fire then. */
static int plain_serve(const char *t)
{
	for (const char *p = t ? strstr(t, "vllm") : NULL; p; p = strstr(p + 1, "vllm")) {
		const char *q = p + 4;

		if (p > t && !isspace((unsigned char)p[-1]) && p[-1] != '/' && p[-1] != '"')
			continue;
		if (!isspace((unsigned char)*q))
			continue;
		while (isspace((unsigned char)*q))
			q++;
		if (!strncmp(q, "serve", 5) && (!q[5] || isspace((unsigned char)q[5])))
			return 1;
	}
	return has(t, "vllm.entrypoints.openai.api_server");
}

#define SRC_KVCFG "vLLM vllm/config/kv_transfer.py (KVTransferConfig.__post_init__: kv_role one of kv_producer, kv_consumer, kv_both; required with kv_connector)"
#define SRC_BUFDEV "vLLM kv_connector/v1/nixl/utils.py (_NIXL_SUPPORTED_DEVICE: on cuda the kv buffer is cuda or cpu)"

/* J5: the --kv-transfer-config of a NixlConnector worker as vLLM's own
 * validation reads it.  A missing or unknown kv_role stops the engine at
 * start under `vllm serve` (Dynamo's worker fills it).  A kv_buffer_device
 * CUDA cannot use does too, judged only on a worker with NVIDIA GPUs
 * (Dynamo's hetero recipe runs an Intel XPU encoder with "xpu").  A cpu
 * buffer moves KV through host memory (no GPUDirect) while it crosses
 * pods. */
static int vllm_config(const struct fwr_worker *w, struct fwr_finding *f)
{
	char role[32], dev[32];
	const char *r = key_in(w->args, "--kv-transfer-config", "kv_role", role, sizeof role);
	const char *d = key_in(w->args, "--kv-transfer-config", "kv_buffer_device", dev, sizeof dev);

	if (!has(w->args, "--kv-transfer-config") || !has(w->args, "NixlConnector"))
		return 0;
	if (!r && plain_serve(w->args))
		put(f, FWR_VLLM, ENVR_FAIL, "add \"kv_role\":\"kv_both\" to --kv-transfer-config", SRC_KVCFG,
		    "--kv-transfer-config names NixlConnector without kv_role: vLLM refuses to start");
	else if (r && strcmp(r, "kv_producer") && strcmp(r, "kv_consumer") && strcmp(r, "kv_both"))
		put(f, FWR_VLLM, ENVR_FAIL, "set \"kv_role\":\"kv_both\" in --kv-transfer-config", SRC_KVCFG,
		    "kv_role %s is none of kv_producer, kv_consumer, kv_both: vLLM refuses to start", r);
	else if (d && w->gpus > 0 && strcmp(d, "cuda") && strcmp(d, "cpu"))
		put(f, FWR_VLLM, ENVR_FAIL, "set \"kv_buffer_device\":\"cuda\" (or drop it)", SRC_BUFDEV,
		    "kv_buffer_device %s is not supported by the NixlConnector on CUDA (cuda, cpu)", d);
	else if (d && !strcmp(d, "cpu") && w->kv_cross && (w->fabric & (ENVR_FAB_IB | ENVR_FAB_EFA)))
		put(f, FWR_VLLM, ENVR_WARN, "set \"kv_buffer_device\":\"cuda\" so KV moves GPU to GPU", SRC_BUFDEV,
		    "kv_buffer_device cpu: KV is staged through host memory on an RDMA fabric (no GPUDirect)");
	else
		return 0;
	return 1;
}

/* The side channel's ports against the kv-events publisher's (engcfg.h). */
static int side_clash(const struct fwr_worker *w, long port, struct fwr_finding *f)
{
	struct engcfg c;

	engcfg_read(w->args, w->env, &c);
	return engcfg_port_clash(&c, port, f);
}

/* J5f: the pod's hostname gives Dynamo's vLLM worker no routable address
 * (checks.md J5f): it does not resolve, or only to loopback or
 * link-local (Debian's "127.0.1.1 HOST" line of a node's /etc/hosts,
 * which a hostNetwork pod sees).  0 when it resolves to one, or the probe
 * did not look. */
static int host_unroutable(const char *a)
{
	return a && (!strcmp(a, "unresolved") || loopback(a) || !strncmp(a, "169.254.", 8));
}

/* J5f's finding for a Dynamo vLLM worker with the side-channel host
 * unset: the code without PR #6539 advertises 127.0.0.1 (or the loopback
 * answer) silently, so a decode in another pod cannot hand it KV; with
 * #6539 the default route's address is taken instead (no finding).  The
 * code not known: a warning naming both. */
static void self_host(const struct fwr_worker *w, struct fwr_finding *f)
{
	const char *remedy = "set VLLM_NIXL_SIDE_CHANNEL_HOST from valueFrom fieldRef status.podIP "
			     "(or make the pod's hostname resolve to its IP)";
	char what[64];

	if (!strcmp(w->host_self, "unresolved"))
		snprintf(what, sizeof what, "does not resolve");
	else
		snprintf(what, sizeof what, "resolves only to %s", w->host_self);
	if (w->host_detect == FWR_HOSTIP_FALLBACK)
		put(f, FWR_VLLM, ENVR_FAIL, remedy, SRC_SELF_HOST,
		    "the pod's hostname %s and VLLM_NIXL_SIDE_CHANNEL_HOST is unset: this Dynamo (without PR #6539) "
		    "advertises 127.0.0.1 or that address as its NIXL side channel, silently; a peer in another pod "
		    "cannot reach it (handshake fails, prompts recomputed)", what);
	else
		put(f, FWR_VLLM, ENVR_WARN, remedy, SRC_SELF_HOST,
		    "the pod's hostname %s and VLLM_NIXL_SIDE_CHANNEL_HOST is unset: Dynamo without PR #6539 "
		    "advertises 127.0.0.1 silently (the peer cannot reach it); with it the worker takes the default "
		    "route's address, or stops with RuntimeError when there is none", what);
}

/* J5: the side channel's host is where the peer connects for the NIXL
 * handshake; a loopback address makes a decode in another pod reach its
 * own agent ("Remote NIXL agent engine ID mismatch", the prompt is
 * recomputed).  Dynamo's vLLM worker sets the pod's IP itself when the
 * variable is unset; plain `vllm serve` keeps the default localhost. */
static int rule_vllm(const struct fwr_worker *w, struct fwr_finding *f)
{
	const struct envr_var *h = envr_find(w->env, "VLLM_NIXL_SIDE_CHANNEL_HOST");
	const char *port = envr_get(w->env, "VLLM_NIXL_SIDE_CHANNEL_PORT");
	int dyn = has(w->args, "dynamo.vllm"), hc, df;
	struct fwr_finding cfg, flags;
	char hp[32], shown[160];
	long p, http;

	if (!has(w->args, "NixlConnector") && !dyn)
		return 0;
	hc = vllm_config(w, &cfg);
	df = engcfg_dyn_flags(w->args, w->dynamo_version, &flags);
	if (h && !h->dynamic && h->value && loopback(h->value) && w->kv_cross)
		put(f, FWR_VLLM, ENVR_FAIL, "set VLLM_NIXL_SIDE_CHANNEL_HOST to the pod's IP (valueFrom fieldRef status.podIP)",
		    SRC_27083, "VLLM_NIXL_SIDE_CHANNEL_HOST=%s is loopback while KV crosses pods: the peer's NIXL handshake reaches its own agent (engine ID mismatch, prompts recomputed)",
		    env_shown(w->env, "VLLM_NIXL_SIDE_CHANNEL_HOST", shown, sizeof shown));
	else if (!h && plain_serve(w->args) && w->kv_cross)
		put(f, FWR_VLLM, ENVR_FAIL, "set VLLM_NIXL_SIDE_CHANNEL_HOST to the pod's IP (valueFrom fieldRef status.podIP)",
		    SRC_27083, "VLLM_NIXL_SIDE_CHANNEL_HOST unset under vllm serve: the side channel is localhost, so a peer in another pod cannot hand KV (engine ID mismatch)");
	else if (port && ((p = num(port)) < 1 || p > 65535))
		put(f, FWR_VLLM, ENVR_FAIL, "set VLLM_NIXL_SIDE_CHANNEL_PORT to a free port number",
		    "vLLM vllm/envs.py (VLLM_NIXL_SIDE_CHANNEL_PORT is int)",
		    "VLLM_NIXL_SIDE_CHANNEL_PORT=%s is no port number",
		    env_shown(w->env, "VLLM_NIXL_SIDE_CHANNEL_PORT", shown, sizeof shown));
	else if (port && (http = num(flag(w->args, "--port", hp, sizeof hp))) > 0 && http == num(port))
		put(f, FWR_VLLM, ENVR_FAIL, "give the NIXL side channel a port of its own",
		    "vLLM nixl_connector.py (the side channel listens on VLLM_NIXL_SIDE_CHANNEL_PORT + dp rank)",
		    "VLLM_NIXL_SIDE_CHANNEL_PORT=%s is also the server's --port",
		    env_shown(w->env, "VLLM_NIXL_SIDE_CHANNEL_PORT", shown, sizeof shown));
	else if (port && side_clash(w, num(port), f))
		;    /* vllm-project/vllm#25059 */
	else if (!h && dyn && w->kv_cross && host_unroutable(w->host_self) && w->host_detect != FWR_HOSTIP_DETECT)
		self_host(w, f);
	else if (!h && dyn && w->host_network == 1 && w->kv_cross)
		put(f, FWR_VLLM, ENVR_WARN, "set VLLM_NIXL_SIDE_CHANNEL_HOST from valueFrom fieldRef status.podIP (the node's cluster IP on the host network)",
		    SRC_HOSTNET, "hostNetwork: true with VLLM_NIXL_SIDE_CHANNEL_HOST unset: Dynamo takes the side-channel host from the node's hostname or default route, which on the host network may be the node's external address its peers cannot reach (NIXL handshake times out)");
	else if (!h && !dyn) {
		/* the image's entrypoint: the launcher is unknown */
		if (hc)
			*f = cfg;
		return hc;
	} else
		put(f, FWR_VLLM, ENVR_OK, NULL, h ? SRC_27083 : SRC_DYN_HOST,
		    "NIXL side channel %s", h ? (h->dynamic ? "host set at run time" : "host set")
					       : "host: Dynamo sets the pod's IP");
	if (hc && cfg.sev > f->sev)
		*f = cfg;    /* one result per check: its worst rule */
	if (df)
		*f = flags;  /* J5e: the worker does not start, whatever else holds */
	return 1;
}

/* SGLang: --disaggregation-transfer-backend (server_args.py choices), and
 * under Mooncake (the default) the devices --disaggregation-ib-device
 * hands its transfer engine, which fails on a device the pod lacks
 * ("Failed to open device", "RdmaTransport: No available RNIC",
 * kvcache-ai/Mooncake#1384); other backends are not judged on it, and
 * mooncake_tcp drops it. */
static int rule_sglang(const struct fwr_worker *w, struct fwr_finding *f)
{
	char be[32], ib[256], bad[128];

	if (!has(w->args, "sglang") || !has(w->args, "--disaggregation-mode"))
		return 0;
	if (!flag(w->args, "--disaggregation-transfer-backend", be, sizeof be))
		snprintf(be, sizeof be, "mooncake");
	if (!strcmp(be, "fake"))
		put(f, FWR_SGLANG, ENVR_FAIL, "use --disaggregation-transfer-backend nixl",
		    "sgl-project/sglang python/sglang/srt/disaggregation/fake (testing only)",
		    "SGLang transfer backend 'fake' moves no KV (testing only)");
	else if (!strcmp(be, "mooncake") && flag(w->args, "--disaggregation-ib-device", ib, sizeof ib) &&
		 devices_missing(ib, w->devices, bad, sizeof bad))
		put(f, FWR_SGLANG, ENVR_FAIL, "name RDMA devices of the pod in --disaggregation-ib-device (or drop it: Mooncake then detects them)",
		    "sgl-project/sglang server_args.py (--disaggregation-ib-device: device names, comma-separated)",
		    "--disaggregation-ib-device names %s, not an RDMA device of this pod: the transfer engine cannot open it", bad);
	else
		put(f, FWR_SGLANG, ENVR_OK, NULL, "sgl-project/sglang server_args.py (--disaggregation-transfer-backend)",
		    "SGLang transfer backend %s", be);
	return 1;
}

#define SRC_10024 "NVIDIA/TensorRT-LLM#10024 (rail endpoint deserialization fails, NIXL_ERR_BACKEND)"
#define SRC_5523 "ai-dynamo/dynamo PR #5523; NVIDIA/TensorRT-LLM PR #3798 (max tokens >= the longest input)"

/* The engine config's value of one J9 key: the args' (a recipe's config
 * text, JSON in args) first, else the file's. */
static long eng_num(const struct fwr_worker *w, const char *name, long file)
{
	char v[32];
	long x = num(key(w->args, name, v, sizeof v));

	return x >= 0 || !w->engine || !w->engine->read ? x : file;
}

/* TensorRT-LLM: the two NIXL backend variables, and the transfer buffer
 * against the longest input (the engine config's YAML, JSON in args, or
 * the file --extra-engine-args names as the probe read it). */
static int rule_trtllm(const struct fwr_worker *w, struct fwr_finding *f)
{
	const struct fwr_engine *e = w->engine;
	int both = envr_find(w->env, "NIXL_BACKEND") && envr_find(w->env, "TRTLLM_NIXL_KVCACHE_BACKEND");
	long buf = eng_num(w, "max_tokens_in_buffer", e ? e->max_tokens_in_buffer : -1);
	long max = eng_num(w, "max_input_len", e ? e->max_input_len : -1);
	char be[32];
	const char *tb = key_in(w->args, "cache_transceiver_config", "backend", be, sizeof be);

	if (!has(w->args, "trtllm") && !has(w->args, "cache_transceiver_config") &&
	    !envr_find(w->env, "TRTLLM_NIXL_KVCACHE_BACKEND"))
		return 0;
	if (!tb && e && e->read)
		tb = e->backend;
	/* Only max_input_len bounds a prompt: max_seq_len counts the output
	 * too (Dynamo's DeepSeek-V3.2 recipe: buffer 120000, seq 121000). */
	if (both)
		put(f, FWR_TRTLLM, ENVR_FAIL, "set only TRTLLM_NIXL_KVCACHE_BACKEND (unset NIXL_BACKEND)", SRC_10024,
		    "NIXL_BACKEND and TRTLLM_NIXL_KVCACHE_BACKEND both set: the KV agents disagree on rail endpoints and transfers fail");
	else if (tb && strcasecmp(tb, "DEFAULT") && strcasecmp(tb, "UCX") && strcasecmp(tb, "NIXL") &&
		 strcasecmp(tb, "MOONCAKE") && strcasecmp(tb, "MPI"))
		put(f, FWR_TRTLLM, ENVR_FAIL, "set cache_transceiver_config.backend to DEFAULT, NIXL or UCX",
		    "NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm_args.py (CacheTransceiverConfig.backend: DEFAULT, UCX, NIXL, MOONCAKE, MPI)",
		    "cache_transceiver_config.backend %s is no cache transceiver backend: the worker refuses its config", tb);
	else if (buf > 0 && buf % 32)
		put(f, FWR_TRTLLM, ENVR_FAIL, "make max_tokens_in_buffer a multiple of tokens_per_block (32)",
		    "NVIDIA/TensorRT-LLM cacheTransBuffer.cpp (maxNumTokens %% tokensPerBlock == 0); ai-dynamo/aiconfigurator PR #459",
		    "max_tokens_in_buffer %ld is no multiple of tokens_per_block 32: the worker aborts at start", buf);
	else if (buf > 0 && max > buf)
		put(f, FWR_TRTLLM, ENVR_FAIL, "raise cache_transceiver_config.max_tokens_in_buffer to the longest input", SRC_5523,
		    "max_tokens_in_buffer %ld below the longest input %ld: longer prompts take the dynamic buffer, which fails with NIXL", buf, max);
	else if (e && !e->read && (buf < 0 || max < 0)) {
		/* The settings live in a file the probe could not read: unknown,
		 * never ok. */
		put(f, FWR_TRTLLM, ENVR_OK, "make the engine config named by the worker's args readable in the pod (its ConfigMap mounted at that path)",
		    SRC_5523, "engine config %.120s %s: max_tokens_in_buffer against max_input_len not judged",
		    e->path && *e->path ? e->path : "(empty path)", e->why ? e->why : "not read");
		f->unknown = 1;
	} else if (e && e->read && e->path && *e->path)
		put(f, FWR_TRTLLM, ENVR_OK, NULL, SRC_5523,
		    "TensorRT-LLM cache transceiver settings consistent (engine config %.120s read)", e->path);
	else
		put(f, FWR_TRTLLM, ENVR_OK, NULL, SRC_5523, "TensorRT-LLM cache transceiver settings consistent");
	return 1;
}

/* Mooncake's transfer engine: MOONCAKE_PROTOCOL (rdma, tcp). */
static int rule_mooncake(const struct fwr_worker *w, struct fwr_finding *f)
{
	const char *p = envr_get(w->env, "MOONCAKE_PROTOCOL");
	const char *dev = envr_get(w->env, "MOONCAKE_DEVICE");
	const struct envr_var *dv = envr_find(w->env, "MOONCAKE_DEVICE");
	char bad[128], shown[160];

	if (!p && !dev)
		return 0;
	if (dev && devices_missing(dev, w->devices, bad, sizeof bad))
		/* from a Secret: no device name of it, whole or cut */
		put(f, FWR_MOONCAKE, ENVR_FAIL, "set MOONCAKE_DEVICE to RDMA devices of the pod (or leave it empty to detect them)",
		    "kvcache-ai/Mooncake mooncake-store config (MOONCAKE_DEVICE: device_name, comma-separated RDMA devices)",
		    "MOONCAKE_DEVICE names %s, not an RDMA device of this pod",
		    dv->secret ? shown_value(NULL, dv->secret, shown, sizeof shown) : bad);
	else if (!p)
		put(f, FWR_MOONCAKE, ENVR_OK, NULL, "kvcache-ai/Mooncake mooncake-store config", "MOONCAKE_DEVICE devices present");
	else if (!strcmp(p, "tcp") && w->kv_cross && (w->fabric & (ENVR_FAB_IB | ENVR_FAB_EFA)))
		put(f, FWR_MOONCAKE, ENVR_FAIL, "set MOONCAKE_PROTOCOL=rdma",
		    "kvcache-ai/Mooncake docs (transfer engine protocol rdma|tcp)",
		    "MOONCAKE_PROTOCOL=tcp on an RDMA fabric: KV moves over TCP");
	else
		put(f, FWR_MOONCAKE, ENVR_OK, NULL, "kvcache-ai/Mooncake docs", "MOONCAKE_PROTOCOL=%s",
		    env_shown(w->env, "MOONCAKE_PROTOCOL", shown, sizeof shown));
	return 1;
}

/* The hosts of an mpirun in t (`-H a,b` / `--host a,b`: Dynamo's
 * TensorRT-LLM leader lists one per node, backend_trtllm.go), -1 none. */
static long mpirun_hosts(const char *t)
{
	static const char *const h[] = { "-H", "--host", "--hosts", NULL };
	char v[1024];
	long n = 1;

	if (!has(t, "mpirun"))
		return -1;
	for (size_t i = 0; h[i]; i++)
		if (flag(t, h[i], v, sizeof v)) {
			for (const char *c = v; *c; c++)
				n += *c == ',';
			return n;
		}
	return -1;
}

/* The nodes one worker spans as its args say: SGLang's and vLLM's
 * --nnodes (Dynamo's operator injects it for SGLang, backend_sglang.go),
 * dynamo-run's --num-nodes, mpirun's host list; -1 when they do not say. */
static long args_nodes(const char *t)
{
	static const char *const nn[] = { "--nnodes", "--num-nodes", NULL };
	long n = flag_num(t, nn), m = mpirun_hosts(t);

	return n > m ? n : m;
}

/* A worker that spans nodes without saying how many: a Ray cluster
 * (Dynamo's vLLM multinode leader runs `ray start --head`,
 * backend_vllm.go). */
static int multinode_sign(const char *t)
{
	return has(t, "ray start --head") || has(t, "ray start --address");
}

/* J7: tensor parallelism within the GPUs the worker has, on every node
 * it spans (its args, or what the pod or recipe says: w->nodes). */
static int rule_tp(const struct fwr_worker *w, struct fwr_finding *f)
{
	long tp = fwr_tp(w->args), nodes = args_nodes(w->args);

	if (tp < 0 && w->engine && w->engine->read)
		tp = w->engine->tp;    /* TensorRT-LLM's tensor_parallel_size in its file */
	if (tp < 0 || w->gpus <= 0)
		return 0;
	if (nodes < w->nodes)
		nodes = w->nodes;
	if (nodes < 1)
		nodes = 1;
	if (tp > w->gpus * nodes && nodes == 1 && multinode_sign(w->args)) {
		put(f, FWR_TP_NODES, ENVR_OK, "run `check` with the DynamoGraphDeployment's pods all listed, or set --nnodes",
		    "checks.md J7; ai-dynamo/dynamo deploy/cloud/operator/internal/dynamo/backend_vllm.go (ray start --head)",
		    "tensor-parallel size %ld above %ld GPUs: the worker spans nodes (a Ray cluster) whose count the pod does not say",
		    tp, w->gpus);
		f->unknown = 1;
	} else if (tp > w->gpus * nodes)
		put(f, FWR_TP_NODES, ENVR_FAIL, "request as many GPUs as the tensor-parallel size, or lower it",
		    "checks.md J7 (vLLM/SGLang: world size = tp x pp GPUs)",
		    "tensor-parallel size %ld but %ld GPUs on %ld node(s)", tp, w->gpus, nodes);
	else if (tp > w->gpus)
		/* Multi-node TP is a deliberate layout of Dynamo's own
		 * recipes (DeepSeek-R1 on SGLang, 2 x 8 GPUs): no finding. */
		put(f, FWR_TP_NODES, ENVR_OK, NULL, "checks.md J7",
		    "tensor-parallel size %ld across %ld nodes of %ld GPUs", tp, nodes, w->gpus);
	else
		put(f, FWR_TP_NODES, ENVR_OK, NULL, "checks.md J7", "tensor-parallel size %ld within %ld GPUs per node", tp, w->gpus);
	return 1;
}

size_t fwr_eval(const struct fwr_worker *w, struct fwr_finding *out)
{
	size_t n = 0;

	n += (size_t)rule_vllm(w, &out[n]);
	n += (size_t)rule_sglang(w, &out[n]);
	n += (size_t)rule_trtllm(w, &out[n]);
	n += (size_t)rule_mooncake(w, &out[n]);
	n += (size_t)rule_tp(w, &out[n]);
	return n;
}

/* The pair rules are engcfg.c's, over each side's engine config. */
size_t fwr_pairs(const struct fwr_worker *p, const struct fwr_worker *d,
		 const struct engcfg_model *m, struct fwr_finding *out, size_t max)
{
	struct engcfg a, b;

	engcfg_read(p->args, p->env, &a);
	engcfg_read(d->args, d->env, &b);
	return engcfg_pair(&a, &b, m, out, max);
}
