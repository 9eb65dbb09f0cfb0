/* OBSERVED O7-O10 (observed.h, docs/checks.md O): the worker's KV
 * metrics over check --observe's window, next to its RDMA ports' bytes.
 *
 * Each row judges a difference of two reads of a counter; a counter that
 * went back (the worker restarted between the reads) gives no
 * difference, and a series the worker does not export gives a skip that
 * says so: never ok without both reads.  An idle window (no byte moved,
 * no token pulled) says "no KV traffic in the window" and changes
 * nothing. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "check/internal.h"
#include "check/observed.h"

enum delta { D_NONE, D_BACK, D_OK };

/* end - start of series k into *d.  NIXL's agent_errors_total has no
 * series until the first error (a labelled family, prometheus-cpp shows
 * only the label sets it has): absent at the start of a NIXL text, it
 * counts from 0. */
static enum delta delta(const struct observed_kv *o, enum kvm k, double *d)
{
	unsigned bit = 1u << k, tx = 1u << KVM_NIXL_TX;
	double s = o->start.v[k];

	*d = 0;
	if (k == KVM_NIXL_ERRORS && !(o->start.seen & bit) && (o->start.seen & tx) &&
	    (o->end.seen & tx))
		return *d = (o->end.seen & bit) ? o->end.v[k] : 0, D_OK;
	if (!(o->start.seen & bit) || !(o->end.seen & bit))
		return D_NONE;
	if (o->end.v[k] < s)
		return D_BACK;
	*d = o->end.v[k] - s;
	return D_OK;
}

/* "1.5 GB" (decimal, as O1 writes port bytes). */
static void human(double v, char *b, size_t n)
{
	static const char *const unit[] = { "B", "kB", "MB", "GB", "TB", "PB" };
	int u = 0;

	while (v >= 1000.0 && u < 5)
		v /= 1000.0, u++;
	snprintf(b, n, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

/* What the worker says it moved: NIXL agent bytes (tx + rx), else vLLM's
 * NIXL bytes, and the prompt tokens it pulled; into text.  -1: a counter
 * went back; 0: nothing moved; 1: something did. */
static int served(const struct observed_kv *o, char *text, size_t n)
{
	double tx = 0, rx = 0, vb = 0, tok = 0;
	enum delta a = delta(o, KVM_NIXL_TX, &tx), b = delta(o, KVM_NIXL_RX, &rx),
		   c = delta(o, KVM_VLLM_BYTES, &vb), t = delta(o, KVM_TOK_PULLED, &tok);
	char h[32];
	size_t w = 0;

	if (a == D_BACK || b == D_BACK || c == D_BACK || t == D_BACK)
		return -1;
	text[0] = '\0';
	if (tx + rx > 0) {
		human(tx + rx, h, sizeof h);
		w += (size_t)snprintf(text + w, n - w, "NIXL agents moved %s", h);
	} else if (vb > 0) {
		human(vb, h, sizeof h);
		w += (size_t)snprintf(text + w, n - w, "vLLM's NIXL connector moved %s", h);
	}
	if (tok > 0 && w < n)
		snprintf(text + w, n - w, "%s%.0f prompt tokens pulled", w ? ", " : "", tok);
	return tx + rx + vb + tok > 0;
}

/* O7: traffic served but no byte on any RDMA rail. */
static void rdma_row(const struct observed_kv *o, const struct check_context *ctx,
		     struct check_results *out)
{
	char what[160], h[32];
	int moved = served(o, what, sizeof what);

	if (moved < 0) {
		emit(out, CK_OBSERVED_KV_RDMA, CHECK_SKIPPED, NULL,
		     "a KV counter of %s went back between the reads (the worker restarted?)", o->endpoints);
		return;
	}
	if (!moved) {
		emit(out, CK_OBSERVED_KV_RDMA, CHECK_SKIPPED, NULL,
		     "no KV traffic in the window (%lds): %s shows no KV byte moved and no prompt token pulled",
		     o->window_s, o->endpoints);
		return;
	}
	if (o->rails_sampled < 0) {
		emit(out, CK_OBSERVED_KV_RDMA, CHECK_SKIPPED, NULL,
		     "%s in %lds, but the RDMA port counters were not read in the window", what, o->window_s);
		return;
	}
	if (o->rail_bytes > 0) {
		human((double)o->rail_bytes, h, sizeof h);
		emit(out, CK_OBSERVED_KV_RDMA, CHECK_OK, NULL, "%s in %lds; its node's %ld RDMA ports moved %s",
		     what, o->window_s, o->rails_sampled, h);
		return;
	}
	if (ctx && !ctx->kv_peers_apart) {
		emit_na(out, CK_OBSERVED_KV_RDMA, "%s in %lds and no RDMA port moved a byte, but a peer of the "
			"other role shares the node: KV may stay on it (NVLink, shared memory)", what, o->window_s);
		return;
	}
	emit(out, CK_OBSERVED_KV_RDMA, CHECK_FAIL, NULL,
	     "%s in %lds, but none of the node's %ld RDMA ports moved a byte: KV travels over TCP or "
	     "another interface (aws-samples/aws-do-eks PR #66)", what, o->window_s, o->rails_sampled);
}

/* O8 and O10: a failure counter k that must not rise.  absent: why a
 * text without it is skipped. */
static void rise_row(const struct observed_kv *o, enum check_id id, enum kvm k,
		     const char *source, const char *absent, struct check_results *out)
{
	double d;

	switch (delta(o, k, &d)) {
	case D_NONE:
		emit(out, id, CHECK_SKIPPED, NULL, "%s: %s", o->endpoints, absent);
		return;
	case D_BACK:
		emit(out, id, CHECK_SKIPPED, NULL, "%s went back between the reads (the worker restarted?)",
		     kvm_name(k));
		return;
	case D_OK:
		break;
	}
	if (d > 0)
		emit(out, id, CHECK_FAIL, NULL, "%s rose by %.0f in %lds (%s)", kvm_name(k), d,
		     o->window_s, source);
	else
		emit(out, id, CHECK_OK, NULL, "%s did not rise in %lds", kvm_name(k), o->window_s);
}

/* O9: a decode that computed prompt tokens and pulled none. */
static void recompute_row(const struct observed_kv *o, const struct check_context *ctx,
			  struct check_results *out)
{
	double pulled, computed;
	enum delta a, b;

	if (!ctx || !ctx->role || strcmp(ctx->role, "decode")) {
		emit_na(out, CK_OBSERVED_KV_RECOMPUTE, "only a decode pulls KV from a prefill");
		return;
	}
	a = delta(o, KVM_TOK_PULLED, &pulled);
	b = delta(o, KVM_TOK_COMPUTED, &computed);
	if (a == D_NONE || b == D_NONE || a == D_BACK || b == D_BACK) {
		emit(out, CK_OBSERVED_KV_RECOMPUTE, CHECK_SKIPPED, NULL, "%s: %s",
		     o->endpoints, a == D_BACK || b == D_BACK
			? "vllm:prompt_tokens_by_source_total went back between the reads (the worker restarted?)"
			: "no vllm:prompt_tokens_by_source_total for external_kv_transfer and local_compute "
			  "(not vLLM, or a vLLM before the series)");
		return;
	}
	if (pulled == 0 && computed == 0)
		emit(out, CK_OBSERVED_KV_RECOMPUTE, CHECK_SKIPPED, NULL,
		     "no KV traffic in the window (%lds): no prompt token computed or pulled", o->window_s);
	else if (pulled == 0)
		emit(out, CK_OBSERVED_KV_RECOMPUTE, CHECK_WARN, NULL,
		     "the decode computed %.0f prompt tokens itself and pulled none from a prefill in %lds: "
		     "it recomputes the prompts (aws-samples/aws-do-eks PR #66)", computed, o->window_s);
	else
		emit(out, CK_OBSERVED_KV_RECOMPUTE, CHECK_OK, NULL,
		     "the decode pulled %.0f prompt tokens and computed %.0f itself in %lds", pulled, computed,
		     o->window_s);
}

static const enum check_id kv_rows[] = {
	CK_OBSERVED_KV_RDMA, CK_OBSERVED_KV_FAILED, CK_OBSERVED_KV_RECOMPUTE, CK_OBSERVED_NIXL_ERRORS,
};

void check_observed_kv(const struct observed_kv *o, const struct check_context *ctx,
		       struct check_results *out)
{
	if (o->unread) {
		for (size_t i = 0; i < sizeof kv_rows / sizeof kv_rows[0]; i++)
			emit(out, kv_rows[i], CHECK_SKIPPED, NULL, "%s", o->unread);
		return;
	}
	rdma_row(o, ctx, out);
	rise_row(o, CK_OBSERVED_KV_FAILED, KVM_VLLM_FAILED, "vllm-project/vllm#52234: failed KV "
		 "transfers answer with wrong text and HTTP 200",
		 "no vllm:nixl_num_failed_transfers_total (not vLLM's NIXL connector)", out);
	recompute_row(o, ctx, out);
	rise_row(o, CK_OBSERVED_NIXL_ERRORS, KVM_NIXL_ERRORS, "NIXL's telemetry counts every error "
		 "status of its agent", "no NIXL telemetry (agent_tx_bytes_total) in the worker's metrics", out);
}
