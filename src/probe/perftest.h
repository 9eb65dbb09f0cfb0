/* check --transfer: the fixed in-pod scripts that run ucx_perftest between
 * two pods, and the parse of what the client prints.
 *
 * The scripts (src/probe/xfer_perftest.sh and xfer_cleanup.sh, embedded at build time) are the only
 * commands besides the probe that the plugin ever execs, and only with
 * --transfer; their arguments are values the plugin generates or validates
 * (perftest_valid_ip), never user text.
 */
#ifndef PROBE_PERFTEST_H
#define PROBE_PERFTEST_H

#include <stddef.h>

/* server TOKEN PORT SECONDS | client TOKEN IP PORT SIZE ITERS MEM SECONDS */
extern const char xfer_perftest[];
extern const char xfer_cleanup[];  /* TOKEN */

struct perftest_result {
	int final;              /* a "Final:" line was read */
	long iterations;
	double lat_avg_us;      /* latency, average (usec) */
	double bw_mbs;          /* bandwidth, overall (MB/s, 2^20 bytes) */
	char lanes[192];        /* transports UCX chose, e.g. "tcp/eth0" ("" unknown) */
	char error[192];        /* first UCX ERROR / script message, "" none */
};

/* Reads the client's output (stdout and stderr mixed). */
void perftest_parse(const char *text, size_t len, struct perftest_result *r);

/* 1 when s is an IPv4 or IPv6 address literal (inet_pton), the only form a
 * pod IP may take before it goes into an argv. */
int perftest_valid_ip(const char *s);

#endif
