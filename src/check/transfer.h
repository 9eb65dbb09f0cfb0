/* check --transfer (opt-in, checks.md K / dynamo.md 5.2): which pod pairs
 * to test, and the TRANSFER result of one real ucx_perftest between a
 * prefill (client) and a decode (server) pod.  Knows nothing of exec: the
 * caller runs the scripts and hands over what came back. */
#ifndef CHECK_TRANSFER_H
#define CHECK_TRANSFER_H

#include <stddef.h>

#include "check.h"

struct perftest_result;
struct probe_facts;

#define TRANSFER_MAX_PAIRS 16

/* One candidate pod for pair choice. */
struct transfer_pod {
	const char *role;       /* "prefill", "decode", ... */
	const char *node;
	const char *group;      /* namespace + graph: pairs never cross it */
	int usable;             /* probed, Running, has a pod IP */
};

struct transfer_pair {
	size_t client;          /* index of the prefill pod */
	size_t server;          /* index of the decode pod */
};

/* One prefill-decode pair per (prefill node, decode node) of each group,
 * in pod order, at most max; returns how many were written to out. */
size_t transfer_pick_pairs(const struct transfer_pod *pods, size_t n,
			   struct transfer_pair *out, size_t max);

/* What one test gave. */
struct transfer_outcome {
	const char *client_pod, *server_pod;
	int no_tool;            /* ucx_perftest missing in one pod: names it */
	const char *missing_in; /* the pod without it */
	const char *failure;    /* why it did not finish (time limit, cancel,
				 * exec error), NULL when the client ended */
	const char *server_error;  /* the server's own error line, or NULL */
	const struct perftest_result *res;  /* the client's output, parsed */
	double expect_gbps;     /* the pair's RDMA port rate, 0 unknown */
};

/* The fastest Active RDMA port of a pod in Gb/s (0 none or unknown). */
double transfer_port_rate(const struct probe_facts *f);

/* Appends the "transfer" result (family TRANSFER) to out. */
void transfer_judge(const struct transfer_outcome *o, struct check_results *out);

#endif
