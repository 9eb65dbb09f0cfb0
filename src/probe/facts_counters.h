/* Part of facts.h (which includes it; include facts.h, not this): the
 * RDMA ports' counters sampled twice, the observe window apart (section
 * rail_counters, check --observe, issue 45; docs/checks.md O).
 *
 * Counter names are the kernel's: the IB PMA port counters under
 * ports/N/counters/ (drivers/infiniband/core/sysfs.c), mlx5's
 * ports/N/hw_counters/ (drivers/infiniband/hw/mlx5/counters.c) and
 * EFA's port stats (drivers/infiniband/hw/efa/efa_verbs.c
 * efa_port_stats_descs).  Only numbers leave the pod. */
#ifndef DI_PROBE_FACTS_COUNTERS_H
#define DI_PROBE_FACTS_COUNTERS_H

#include <stdint.h>

#define PROBE_MAX_RAIL_PORTS 32

/* The counters the probe reads, in probe.sh's _obs_names order. */
enum probe_ctr {
	CTR_XMIT_DATA,            /* counters/port_xmit_data: octets / 4 (IBA PortXmitData) */
	CTR_RCV_DATA,             /* counters/port_rcv_data: octets / 4 */
	CTR_SYMBOL_ERROR,
	CTR_LINK_DOWNED,
	CTR_LINK_ERROR_RECOVERY,
	CTR_RCV_ERRORS,
	CTR_LOCAL_LINK_INTEGRITY,
	CTR_EXCESSIVE_BUF_OVERRUN,
	CTR_XMIT_DISCARDS,
	CTR_RNR_NAK_RETRY,        /* hw_counters/rnr_nak_retry_err */
	CTR_LOCAL_ACK_TIMEOUT,    /* hw_counters/local_ack_timeout_err */
	CTR_EFA_TX_BYTES,         /* hw_counters/tx_bytes (EFA: bytes) */
	CTR_EFA_RX_BYTES,
	CTR_EFA_RDMA_READ_BYTES,
	CTR_EFA_RDMA_READ_RESP_BYTES,
	CTR_EFA_RDMA_WRITE_BYTES,
	CTR_EFA_RDMA_WRITE_RECV_BYTES,
	CTR__COUNT
};

/* "counters/port_xmit_data", ...; NULL out of range. */
const char *probe_ctr_name(enum probe_ctr c);

/* One port: its two samples (have[s] bit c: counter c read in sample s). */
struct probe_rail_port {
	char dev[32];
	int port;
	char link_layer[16];      /* "InfiniBand", "Ethernet", "unknown" */
	int rate_gbps;            /* the rate file's first number; 0 unknown */
	uint64_t v[2][CTR__COUNT];
	uint32_t have[2];
};

struct probe_counters {
	struct probe_src src;     /* NOT_LOOKED without --observe */
	long window_s;            /* the window the probe slept; 0 unknown */
	long uptime_s;            /* section port_counters: the node's uptime; 0 unknown */
	size_t n;
	size_t dropped;           /* ports past PROBE_MAX_RAIL_PORTS */
	struct probe_rail_port port[PROBE_MAX_RAIL_PORTS];
};

/* Section rail_counters: "window=N", "port DEV PORT LL RATE", "s0|s1 DEV
 * PORT NAME VALUE"; anything else (or a malformed number) is ignored.
 * Section port_counters is its first sample alone, with "uptime=N".
 * Returns the samples it took. */
int probe_parse_counters(const char *t, size_t n, struct probe_counters *c);

/* Counter c of port p moved by *d in the window: 1, or 0 when a sample is
 * missing or the counter went back (reset or wrap: NVSentinel link-counter
 * detection §6 takes no delta across a reset). */
int probe_ctr_delta(const struct probe_rail_port *p, enum probe_ctr c, uint64_t *d);

/* Data bytes port p moved both ways in the window: 4 x (port_xmit_data +
 * port_rcv_data) (IBA: the counters count 4-octet words), else EFA's
 * tx_bytes + rx_bytes; -1 when neither pair was sampled twice. */
int64_t probe_rail_bytes(const struct probe_rail_port *p);

#endif
