/* Part of facts.h (which includes it; include facts.h, not this): what the
 * probe says it cost in the pod (section probe_cost, its last; issue 46).
 * The bytes it sent are not here: the plugin counts them as they arrive
 * (run.h struct run_probe_cost). */
#ifndef DI_PROBE_FACTS_COST_H
#define DI_PROBE_FACTS_COST_H

#include <stddef.h>

struct probe_cost {
	struct probe_src src;       /* NOT_LOOKED: a probe without the section */
	long wall_ms;               /* uptime1 - uptime0 (10 ms steps); -1: not read */
	long cpu_ms;                /* the sum of `times`' four figures; -1: not read */
};

/* Section probe_cost: "uptime0=SECONDS.CC", "uptime1=SECONDS.CC" (the
 * node's /proc/uptime) and `times`' lines ("0m0.010000s 0m0.000000s";
 * bash prints 3 decimals, busybox "0m 0.01s").  Returns 0, or -1 when
 * neither figure was read. */
int probe_parse_cost(const char *t, size_t n, struct probe_cost *c);

#endif
