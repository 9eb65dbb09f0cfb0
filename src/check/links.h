/* The KV path of one pod, link by link (checks.md N).
 *
 * The path a worker's KV takes is a chain: device in the pod -> link up ->
 * userspace access -> GPU memory reachable by the NIC -> locked memory ->
 * an environment that keeps that path -> a NIXL backend that can use it.
 * Which checks prove each link depends on the fabric (IB/RoCE with UCX,
 * EFA with LIBFABRIC, NVLink inside one node).  A link is
 *   proven   a check that shows it passed (a warning there is a
 *            degradation on a working link),
 *   broken   a check on it failed,
 *   missing  every check that could show it was skipped (not run, tool
 *            missing): no evidence either way.
 * Links the pod does not need (every check on them not applicable) are
 * left out.
 *
 * Pure over struct check_results: computed from the results by name and
 * family, so it holds for results built by hand (tests) and for the LOGS
 * and drift results added after check_pod().
 */
#ifndef CHECK_LINKS_H
#define CHECK_LINKS_H

#include <stddef.h>

#include "check/check.h"

enum check_link_id {
	LINK_DEVICE = 0,
	LINK_UP,
	LINK_ACCESS,
	LINK_GPU_MEMORY,
	LINK_MEMLOCK,
	LINK_ENV,
	LINK_BACKEND,
	LINK__COUNT
};

enum check_link_status { LINK_PROVEN = 0, LINK_BROKEN, LINK_MISSING };

struct check_link {
	enum check_link_id id;
	const char *name;        /* stable id: "device", "link-up", ... (static) */
	const char *title;       /* for prose: "GPU memory reachable by the NIC" */
	enum check_link_status status;
	const char *check;       /* the check that decided; static, or NULL */
	char source[128];        /* proven/broken: what showed it */
	char detail[256];        /* the deciding check's detail; missing: what
				  * would show it */
};

/* "proven", "broken", "missing" (the JSON words). */
const char *check_link_status_name(enum check_link_status s);
/* The name of a link id ("device", ...). */
const char *check_link_name(enum check_link_id id);

/* The path whose link rules apply on fabric f (IB/RoCE, EFA, NVLink;
 * unknown and TCP are judged as IB/RoCE). */
enum check_path check_path_of(enum fabric f);
/* 0 when every check links.c proves a link with is on that link in the
 * table (table.def); else -1, why says which (test_checks.c). */
int check_links_consistent(char *why, size_t n);

/* Fills out[] with the links of r's fabric that apply, in path order;
 * returns how many (0 when r has no results). */
size_t check_links(const struct check_results *r,
		   struct check_link out[LINK__COUNT]);

/* What the pod's KV would ride on, read off its links: TCP when a link
 * whose break leaves UCX/libfabric no fast transport is broken (every link
 * but gpu-memory, whose break stages through host memory and stays on the
 * fabric: checks.md N), else the fabric's transport; UNKNOWN when the
 * fabric is. */
enum check_kv { CHECK_KV_RDMA, CHECK_KV_NVLINK, CHECK_KV_UNKNOWN, CHECK_KV_TCP };
enum check_kv check_kv_transport(const struct check_results *r);

#endif
