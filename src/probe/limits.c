/* /proc/<pid>/limits and the Cap* lines of /proc/<pid>/status (E5, H1, H2). */
#include "internal.h"

/* "Max locked memory   65536   65536   bytes" or "unlimited". */
static long long limit_value(struct pslice tok)
{
	long v;

	if (ps_eq(tok, "unlimited"))
		return PROBE_UNLIMITED;
	if (ps_is_digits(tok) && tok.n < 19 && ps_long(tok, &v))
		return v;
	return -1;
}

int probe_parse_limits(const char *t, size_t n, struct probe_limits *l)
{
	struct ptext it;
	struct pslice line, rest, tok;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		line = ps_trim(line);
		if (!ps_starts(line, "Max locked memory"))
			continue;
		rest = ps_from(line, 17);
		if (ps_token(&rest, &tok))
			l->memlock_soft = limit_value(tok);
		if (ps_token(&rest, &tok))
			l->memlock_hard = limit_value(tok);
		return 1;
	}
	return 0;
}

int probe_parse_status_caps(const char *t, size_t n, struct probe_limits *l)
{
	struct ptext it;
	struct pslice line, k, v;
	unsigned long long x;
	int found = 0;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		if (!ps_split(line, ':', &k, &v) || !ps_hex64(v, &x))
			continue;
		if (ps_eq(k, "CapEff")) {
			l->cap_eff = x;
			l->have_caps = found = 1;
		} else if (ps_eq(k, "CapPrm")) {
			l->cap_prm = x;
		} else if (ps_eq(k, "CapBnd")) {
			l->cap_bnd = x;
		}
	}
	if (l->have_caps) {
		l->ipc_lock = (int)((l->cap_eff >> PROBE_CAP_IPC_LOCK) & 1);
		l->sys_resource = (int)((l->cap_eff >> PROBE_CAP_SYS_RESOURCE) & 1);
		l->sys_admin = (int)((l->cap_eff >> PROBE_CAP_SYS_ADMIN) & 1);
	}
	return found;
}
