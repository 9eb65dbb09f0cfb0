#include "report.h"

#include <string.h>

#include "ptext.h"

static int name_ok(struct pslice n)
{
	size_t i;

	if (n.n == 0 || n.n > 32)
		return 0;
	for (i = 0; i < n.n; i++) {
		char c = n.s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
			return 0;
	}
	return 1;
}

/* Garbage from a pod goes into an error message: keep it to one short
 * printable line. */
static void printable(char *dst, size_t dstsz, struct pslice x)
{
	size_t i;

	ps_copy(dst, dstsz, x);
	for (i = 0; dst[i]; i++)
		if ((unsigned char)dst[i] < 0x20 || (unsigned char)dst[i] >= 0x7f)
			dst[i] = '?';
}

/* The version line: "dynamo-interconnect-probe vN".  Leading blank lines
 * are tolerated (some exec paths add one); nothing else is. */
static int check_version(struct ptext *it, struct probe_report *r, struct err *e)
{
	struct pslice line, rest, tok;
	long v;

	do {
		if (!ptext_line(it, &line))
			return err_set(e, ERR_PROTOCOL, "not a probe report (empty output)");
		line = ps_trim(line);
	} while (line.n == 0);
	rest = line;
	if (!ps_token(&rest, &tok) || !ps_eq(tok, PROBE_REPORT_MAGIC)) {
		char shown[48];
		printable(shown, sizeof shown, line);
		return err_set(e, ERR_PROTOCOL,
			       "not a probe report (first line \"%s\")", shown);
	}
	if (!ps_token(&rest, &tok) || tok.n < 2 || tok.s[0] != 'v' ||
	    !ps_is_digits(ps_from(tok, 1)) || !ps_long(ps_from(tok, 1), &v) ||
	    v != PROBE_REPORT_VERSION || ps_trim(rest).n) {
		char shown[24];
		printable(shown, sizeof shown,
			  ps_trim(ps_from(line, strlen(PROBE_REPORT_MAGIC))));
		return err_set(e, ERR_PROTOCOL,
			       "unsupported probe report version \"%s\" (this build reads v%d)",
			       shown, PROBE_REPORT_VERSION);
	}
	r->version = (int)v;
	return 0;
}

static struct probe_section *open_section(struct probe_report *r,
					  struct pslice name, const char *body)
{
	struct probe_section *s;

	if (r->nsections >= PROBE_REPORT_MAX_SECTIONS) {
		r->dropped++;
		return NULL;
	}
	s = &r->section[r->nsections++];
	ps_copy(s->name, sizeof s->name, name);
	s->rc = -1;
	s->complete = 0;
	s->body = body;
	s->len = 0;
	return s;
}

/* "@@@ end NAME rc=N" closing the open section NAME. */
static int parse_end(struct pslice rest, const struct probe_section *cur, int *rc)
{
	struct pslice tok;
	long v;

	if (!ps_token(&rest, &tok) || !ps_eq(tok, cur->name))
		return 0;
	if (!ps_token(&rest, &tok) || !ps_starts(tok, "rc=") ||
	    !ps_is_digits(ps_from(tok, 3)) || tok.n > 6 || !ps_long(ps_from(tok, 3), &v))
		return 0;
	*rc = (int)v;
	return 1;
}

/* The next line start at or after p that begins "@@@", else end.  memchr
 * for '@' (rare in tool output) walks the bodies far faster than memmem
 * for "\n@@@" did; p itself is never a line start here. */
static const char *next_marker(const char *p, const char *end)
{
	while ((size_t)(end - p) >= 3) {
		const char *at = memchr(p, '@', (size_t)(end - p) - 2);

		if (!at)
			break;
		if (at[-1] == '\n' && at[1] == '@' && at[2] == '@')
			return at;
		p = at + 1;
	}
	return end;
}

/* A marker line: opens, closes or ends.  Returns 1 when it was a marker. */
static int marker(struct probe_report *r, struct pslice line, const char *next,
		  struct probe_section **cur)
{
	struct pslice rest = ps_from(line, 3), tok;
	int rc;

	if (!ps_token(&rest, &tok))
		return 0;
	if (ps_eq(tok, "done") && !ps_trim(rest).n) {
		*cur = NULL;
		r->done = 1;
		return 1;
	}
	if (ps_eq(tok, "end")) {
		if (*cur && parse_end(rest, *cur, &rc)) {
			(*cur)->rc = rc;
			(*cur)->complete = 1;
			*cur = NULL;
			return 1;
		}
		return 0;
	}
	if (!name_ok(tok) || ps_trim(rest).n)
		return 0;
	/* A new section while one is open: the open one was cut short. */
	*cur = open_section(r, tok, next);
	return 1;
}

int probe_report_split(const char *text, size_t len, struct probe_report *r,
		       struct err *e)
{
	struct ptext it;
	struct pslice line;
	struct probe_section *cur = NULL;

	memset(r, 0, sizeof *r);
	if (!text || len == 0)
		return err_set(e, ERR_PROTOCOL, "not a probe report (empty output)");
	if (len > PROBE_REPORT_MAX_BYTES)
		return err_set(e, ERR_PROTOCOL, "probe report too large (%zu bytes)", len);
	ptext_init(&it, text, len);
	if (check_version(&it, r, e) < 0)
		return -1;
	while (it.p < it.end) {
		/* Only lines starting "@@@" can be markers: jump to the next one
		 * (memmem) instead of walking every line of the bodies. */
		const char *m = it.p;

		if (it.end - m < 3 || memcmp(m, "@@@", 3))
			m = next_marker(it.p, it.end);
		if (cur && m > it.p)
			cur->len = (size_t)(m - cur->body);
		it.p = m;
		if (!ptext_line(&it, &line))
			break;
		if (!marker(r, line, it.p, &cur) && cur)
			cur->len = (size_t)(it.p - cur->body);
	}
	return 0;
}

const struct probe_section *probe_report_find(const struct probe_report *r,
					      const char *name)
{
	int i;

	for (i = 0; i < r->nsections; i++)
		if (!strcmp(r->section[i].name, name))
			return &r->section[i];
	return NULL;
}
