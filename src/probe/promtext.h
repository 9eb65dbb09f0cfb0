/* The workers' KV metrics (issue 45 point 1, docs/checks.md O7-O10): a
 * bounded parser of the Prometheus text exposition format for text read
 * from a worker through the API server's pod proxy, untrusted.
 *
 * Only the few series the OBSERVED rules judge are kept, each summed over
 * its label sets (one per NIXL agent, one per vLLM engine); every other
 * series is read past.  A text that is not the format (a line that does
 * not parse) is rejected whole, as Prometheus rejects such a scrape
 * (prometheus/common expfmt TextParser): half a text is never judged. */
#ifndef PROBE_PROMTEXT_H
#define PROBE_PROMTEXT_H

#include <stddef.h>

#define PROMTEXT_MAX_BYTES (4u << 20)   /* what the GET keeps */
#define PROMTEXT_MAX_LINES 200000u
#define PROMTEXT_MAX_LINE 65536u

/* The kept series.  NIXL's Prometheus exporter (ai-dynamo/nixl
 * src/plugins/telemetry/prometheus/prometheus_exporter.cpp, README.md):
 * agent_tx_bytes_total, agent_rx_bytes_total, agent_errors_total{status}.
 * vLLM (vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py
 * NixlPromMetrics; vllm/v1/metrics/loggers.py): the histogram
 * vllm:nixl_bytes_transferred (its _sum), the counter
 * vllm:nixl_num_failed_transfers, and
 * vllm:prompt_tokens_by_source_total{source=...}. */
enum kvm {
	KVM_NIXL_TX = 0,        /* agent_tx_bytes_total */
	KVM_NIXL_RX,            /* agent_rx_bytes_total */
	KVM_NIXL_ERRORS,        /* agent_errors_total, every status */
	KVM_VLLM_BYTES,         /* vllm:nixl_bytes_transferred_sum */
	KVM_VLLM_FAILED,        /* vllm:nixl_num_failed_transfers_total */
	KVM_TOK_PULLED,         /* prompt_tokens_by_source_total{source="external_kv_transfer"} */
	KVM_TOK_COMPUTED,       /* prompt_tokens_by_source_total{source="local_compute"} */
	KVM__COUNT
};

struct kv_metrics {
	double v[KVM__COUNT];   /* the sum over the series' label sets */
	unsigned seen;          /* bit (1u << KVM_x): the text had that series */
};

/* "agent_tx_bytes_total", ... (the series as the text names it). */
const char *kvm_name(enum kvm k);

/* Adds the kept series of text (len bytes, not NUL-terminated) to *out
 * (which the caller zeroed).  0, or -1 with why (n bytes) saying, in
 * one line, where the text is not the format or past a cap. */
int promtext_parse(const char *text, size_t len, struct kv_metrics *out, char *why, size_t n);

#endif
