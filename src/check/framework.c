/* checks.md J5-J10 on a running worker: the framework rule book
 * (model/fwrules.h) over the container's command and args (the pod spec)
 * and its main process's env (the probe), so `check` and `env` reach the
 * same findings from the same settings.  One result per fw-* check that
 * applies; none for a framework the worker does not run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/internal.h"
#include "model/engcfg.h"
#include "model/envrules.h"
#include "model/fwrules.h"
#include "model/podspec.h"
#include "model/shown.h"
#include "util/buf.h"

/* The book's check ids (model/fwfind.h) as table rows: no default, so
 * an id without its row does not compile (-Wswitch). */
static enum check_id fw_id(enum fwr_check c)
{
	switch (c) {
	case FWR_VLLM: return CK_FW_VLLM;
	case FWR_SGLANG: return CK_FW_SGLANG;
	case FWR_TRTLLM: return CK_FW_TRTLLM;
	case FWR_MOONCAKE: return CK_FW_MOONCAKE;
	case FWR_TP_NODES: return CK_FW_TP_NODES;
	case FWR_PD_TP: return CK_FW_PD_PARALLEL;
	case FWR_PD_CONNECTOR: return CK_FW_PD_CONNECTOR;
	case FWR_PD_BLOCKS: return CK_FW_PD_BLOCKS;
	case FWR__COUNT: break;
	}
	return CK__COUNT;
}

/* The prefill/decode pair rules: judged on the decode, from its peer. */
static int fw_pair_rule(enum fwr_check c)
{
	return c == FWR_PD_TP || c == FWR_PD_CONNECTOR || c == FWR_PD_BLOCKS;
}

static unsigned fw_fabric(const struct check_input *in)
{
	if (in->fabric == FABRIC_INFINIBAND || in->fabric == FABRIC_ROCE)
		return ENVR_FAB_IB;
	return in->fabric == FABRIC_EFA ? ENVR_FAB_EFA : 0;
}

/* ","-joined RDMA device names of the pod into b; NULL when no list
 * could be read (the book then judges only a device list's syntax). */
static const char *fw_devices(const struct check_input *in, struct buf *b)
{
	const struct probe_rdma_list *l = in->f ? rdma_list(in->f) : NULL;

	if (!l)
		return NULL;
	for (int i = 0; i < l->ndevs; i++)
		buf_appendf(b, "%s%s", i ? "," : "", l->dev[i].name);
	return buf_str(b);
}

static void fw_emit(const struct check_input *in, const struct fwr_finding *f, int pair,
		    int engine, struct check_results *out)
{
	enum check_id id = fw_id(f->check);

	if (id == CK__COUNT)
		return;
	if (!env_readable(in)) {
		emit(out, id, CHECK_SKIPPED, "allow the probe to read /proc/1/environ",
		     "the main process's environment could not be read, so its framework variables are unknown");
		return;
	}
	emit(out, id, f->unknown ? CHECK_SKIPPED : f->sev == ENVR_FAIL ? CHECK_FAIL : f->sev == ENVR_WARN ? CHECK_WARN : CHECK_OK,
	     f->remedy, "%s", f->detail);
	/* What showed it (check.h); the rule's citation is docs/checks.md's. */
	emit_source(out, pair ? "the pod specs' command and args"
		    : engine ? "the pod spec's command and args, /proc/1/environ, the engine config file (probe section trtllm_engine)"
			     : "the pod spec's command and args, /proc/1/environ");
}

/* What the output may say of the engine config's path (model/shown.h). */
struct fw_eng_text {
	char path[300];
	char why[400];
};

/* The path as the pod spec names it, into txt->path: the spec's word
 * after the flag, expanded from plain values.  0 when the word names a
 * variable with no plain value (a Secret's, a fieldRef's): then the
 * probe's reading is not used (issue 37: "/${HF_TOKEN}", "$(HF_TOKEN)"
 * printed the Secret).  A word argv has that the spec does not name
 * (the image's entrypoint, a wrapper) is not printed. */
static int fw_engine_path(const struct check_input *in, const struct probe_trtllm_engine *t,
			  struct fw_eng_text *txt)
{
	/* the flag is pod text too: only the two the probe looks for */
	const char *fl = strcmp(t->flag, "--extra_llm_api_options") ? "--extra-engine-args"
								   : "--extra_llm_api_options";
	char word[256], shown[300], why[256];

	if (!fwr_flag(in->ctx->args, fl, word, sizeof word)) {
		snprintf(txt->path, sizeof txt->path, "(named by PID 1's argv, not by the pod spec: not shown)");
		return 1;
	}
	if (!shown_spec_word(word, in->ctx->secret_env, in->ctx->plain_env, shown, sizeof shown,
			     why, sizeof why)) {
		copy_str(txt->path, sizeof txt->path, shown);
		snprintf(txt->why, sizeof txt->why, "unresolved (%s, so the file it names is not read)", why);
		return 0;
	}
	if (t->path_hidden || !strcmp(t->path, word) || !strcmp(t->path, shown))
		copy_str(txt->path, sizeof txt->path, shown);
	else
		snprintf(txt->path, sizeof txt->path, "(PID 1's argv differs from the pod spec: not shown)");
	return 1;
}

/* The engine config file the probe read for PID 1 (section trtllm_engine)
 * into *e, its printable path and reason in *txt; NULL when the section
 * names none. */
static const struct fwr_engine *fw_engine(const struct check_input *in, struct fwr_engine *e,
					  struct fw_eng_text *txt)
{
	const struct probe_trtllm_engine *t = in->f ? &in->f->trtllm_engine : NULL;
	int plain;

	if (!t || t->src.status == PROBE_NOT_LOOKED || t->src.status == PROBE_ABSENT)
		return NULL;
	plain = fw_engine_path(in, t, txt);
	*e = (struct fwr_engine){ t->src.status == PROBE_OK && t->state == PROBE_ENGINE_OK, txt->path,
				  NULL, t->max_input_len, t->max_tokens_in_buffer, t->tensor_parallel_size,
				  t->backend[0] ? t->backend : NULL };
	if (!plain) {
		*e = (struct fwr_engine){ 0, txt->path, txt->why, -1, -1, -1, NULL };
	} else if (e->read && t->nbad) {
		/* a key the rules need with a value the probe would not pass
		 * (an anchor, an expression): as good as unread */
		e->read = 0;
		e->why = "sets a key the rules need to a value that is no plain number or name";
	} else if (!e->read)
		e->why = t->state != PROBE_ENGINE_UNKNOWN || t->src.status == PROBE_OK
				 ? probe_engine_state_text(t->state)
				 : *t->src.err ? t->src.err : "not read";
	return e;
}

/* The served model as the probe read its config.json (section
 * model_config, facts_model.h) into *m: prefill and decode of one graph
 * serve one model, so the decode's own reading stands for both. */
static const struct engcfg_model *fw_model(const struct check_input *in, struct engcfg_model *m)
{
	const struct probe_model_config *c = in->f ? &in->f->model_config : NULL;

	*m = (struct engcfg_model){ 0, -1, -1, -1, NULL, "the probe read no config.json of the model" };
	if (!c || c->src.status != PROBE_OK || c->state != PROBE_MODEL_OK) {
		if (c && c->state == PROBE_MODEL_ABSENT)
			m->why = "the model's config.json is not in the pod";
		else if (c && c->state == PROBE_MODEL_DENIED)
			m->why = "the model's config.json could not be opened";
		else if (c && c->state == PROBE_MODEL_UNRESOLVED)
			m->why = "the worker's args name no model path the probe could resolve";
		return m;
	}
	*m = (struct engcfg_model){ 1, c->sliding_window, c->hybrid_linear, c->mla,
				    c->model_type[0] ? c->model_type : NULL, NULL };
	return m;
}

/* The Dynamo the pod installs (checks.md J5e): the ai_dynamo wheel that
 * holds dynamo.vllm, else ai_dynamo_runtime (one release number for both);
 * NULL when the probe listed neither. */
static const char *fw_dynamo_version(const struct check_input *in)
{
	const char *v;

	if (!in->f)
		return NULL;
	v = probe_dist_version(&in->f->mooncake.engines, "ai_dynamo");
	return v ? v : probe_dist_version(&in->f->mooncake.engines, "ai_dynamo_runtime");
}

/* The pod's own hostname's address as the probe resolved it, and which
 * side-channel host detection its Dynamo vLLM worker has (checks.md J5f);
 * NULL / unknown without a probe. */
static const char *fw_host_self(const struct check_input *in)
{
	return in->f && in->f->versions.host_self[0] ? in->f->versions.host_self : NULL;
}

static enum fwr_hostip fw_host_detect(const struct check_input *in)
{
	if (!in->f)
		return FWR_HOSTIP_UNKNOWN;
	switch (in->f->versions.dyn_hostip) {
	case PROBE_HOSTIP_DETECT: return FWR_HOSTIP_DETECT;
	case PROBE_HOSTIP_FALLBACK: return FWR_HOSTIP_FALLBACK;
	default: return FWR_HOSTIP_UNKNOWN;
	}
}

/* A worker whose command and args were not read (past the cap): every
 * fw-* check but the pair rule (which needs a prefill peer) skipped with
 * the reason, so a failing rule cannot vanish into a READY (issue 37). */
static void fw_unread(const struct check_input *in, struct check_results *out)
{
	const char *why = in->ctx->args_unread;

	if (!why || !*why)
		return;
	for (int c = 0; c < FWR__COUNT; c++)
		if (!fw_pair_rule((enum fwr_check)c)) {
			emit(out, fw_id((enum fwr_check)c), CHECK_SKIPPED,
			     "shorten the container's command line (long options in a config file)",
			     "%s, so the framework rules could not judge them", why);
			emit_source(out, "the pod spec's command and args");
		}
}

void check_framework(const struct check_input *in, struct check_results *out)
{
	static const struct envr_view none = { NULL, 0 };
	struct fwr_finding f[FWR_MAX];
	struct envr_view view = none;
	struct envr_var *vars = NULL;
	struct buf devs = BUF_INIT(4096);
	struct fwr_worker w, p;
	struct fwr_engine eng;
	struct fw_eng_text txt = { "", "" };
	size_t n;

	if (!in->ctx->args) {
		fw_unread(in, out);
		return;
	}
	if (env_readable(in))
		vars = book_view(&in->f->env, &view);
	w = (struct fwr_worker){ in->ctx->args, &view, in->ctx->role, in->cross_pod,
				 in->ctx->kv_known ? in->ctx->kv_cross_node : -1, fw_fabric(in),
				 in->spec->gpus, in->ctx->nodes > 1 ? in->ctx->nodes : 1, fw_devices(in, &devs),
				 fw_engine(in, &eng, &txt), fw_dynamo_version(in),
				 in->spec->host_network, fw_host_self(in), fw_host_detect(in) };
	n = fwr_eval(&w, f);
	for (size_t i = 0; i < n; i++)
		fw_emit(in, &f[i], 0, w.engine && f[i].check == FWR_TRTLLM, out);
	/* The pair rules need only the prefill's args, which the spec gives. */
	p = (struct fwr_worker){ in->ctx->peer_args, &none, "prefill", 1, -1, w.fabric, -1, 1, NULL, NULL, NULL, -1,
				 NULL, FWR_HOSTIP_UNKNOWN };
	if (in->ctx->peer_args) {
		struct fwr_finding pf[FWR_MAX];
		struct engcfg_model m;
		size_t np = fwr_pairs(&p, &w, fw_model(in, &m), pf, FWR_MAX);

		for (size_t i = 0; i < np; i++)
			fw_emit(in, &pf[i], 1, 0, out);
	} else if (in->ctx->peer_args_unread && strstr(w.args, "sglang")) {
		/* the TP rule's own condition on this side (an SGLang worker):
		 * the peer's side is unknown, so the rule cannot be judged */
		emit(out, CK_FW_PD_PARALLEL, CHECK_SKIPPED,
		     "shorten the prefill's command line (long options in a config file)",
		     "%s, so the prefill/decode parallelism could not be compared",
		     in->ctx->peer_args_unread);
		emit_source(out, "the pod specs' command and args");
	}
	buf_release(&devs);
	free(vars);
}
