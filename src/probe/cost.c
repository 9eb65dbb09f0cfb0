/* Section probe_cost: the probe's own wall and CPU time (facts_cost.h). */
#include "facts.h"

#include "ptext.h"

/* "SECONDS[.FRACTION]" in ms (digits past the third dropped); -1 when
 * not a number of that shape or over 10^8 s (the long stays in range). */
static long ms_of(struct pslice x)
{
	long sec = 0, ms = 0, scale = 100;
	size_t i = 0;

	if (!x.n || x.s[0] < '0' || x.s[0] > '9')
		return -1;
	for (; i < x.n && x.s[i] >= '0' && x.s[i] <= '9'; i++) {
		if (sec > 100000000L)
			return -1;
		sec = sec * 10 + (x.s[i] - '0');
	}
	if (i < x.n && x.s[i] == '.')
		for (i++; i < x.n && x.s[i] >= '0' && x.s[i] <= '9'; i++, scale /= 10)
			ms += scale * (x.s[i] - '0');
	return i == x.n ? sec * 1000 + ms : -1;
}

/* One `times` figure, "MmS.FFFs" (busybox: "Mm S.FFs"): ms, -1 if not. */
static long times_ms(struct pslice *rest)
{
	struct pslice tok, m;
	long min = 0, sec, at;

	if (!ps_token(rest, &tok))
		return -1;
	at = ps_find(tok, "m");
	m = ps_make(tok.s, at < 0 ? 0 : (size_t)at);
	if (at < 0 || m.n > 6 || !ps_is_digits(m) || !ps_long(m, &min))
		return -1;
	tok = ps_from(tok, (size_t)at + 1);
	if (!tok.n && !ps_token(rest, &tok))
		return -1;
	if (!tok.n || tok.s[tok.n - 1] != 's')
		return -1;
	sec = ms_of(ps_make(tok.s, tok.n - 1));
	return sec < 0 ? -1 : min * 60000 + sec;
}

/* A line of two `times` figures added to *cpu; 0 when it is one. */
static int times_line(struct pslice line, long *cpu)
{
	long a = times_ms(&line), b = a < 0 ? -1 : times_ms(&line);

	if (b < 0 || ps_trim(line).n)
		return -1;
	*cpu = (*cpu < 0 ? 0 : *cpu) + a + b;
	return 0;
}

int probe_parse_cost(const char *t, size_t n, struct probe_cost *c)
{
	struct ptext it;
	struct pslice line, k, v;
	long up0 = -1, up1 = -1;

	c->wall_ms = c->cpu_ms = -1;
	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		line = ps_trim(line);
		if (ps_split(line, '=', &k, &v)) {
			if (ps_eq(k, "uptime0"))
				up0 = ms_of(v);
			else if (ps_eq(k, "uptime1"))
				up1 = ms_of(v);
		} else {
			(void)times_line(line, &c->cpu_ms);
		}
	}
	if (up0 >= 0 && up1 >= up0)
		c->wall_ms = up1 - up0;
	return c->wall_ms < 0 && c->cpu_ms < 0 ? -1 : 0;
}
