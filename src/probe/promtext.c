/* The Prometheus text format, bounded, for the workers' KV metrics
 * (promtext.h).  The grammar is the exposition format's
 * (prometheus/docs content/docs/instrumenting/exposition_formats.md):
 * "# ..." comment, HELP and TYPE lines; samples
 * NAME[{LABEL="VALUE",...}] VALUE [TIMESTAMP]; names [a-zA-Z_:][a-zA-Z0-9_:]*,
 * label values with the escapes \\ \" \n.  The text is not NUL-terminated:
 * every read is against its end. */
#include "probe/promtext.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kvm_names[KVM__COUNT] = {
	"agent_tx_bytes_total", "agent_rx_bytes_total", "agent_errors_total",
	"vllm:nixl_bytes_transferred_sum", "vllm:nixl_num_failed_transfers_total",
	"vllm:prompt_tokens_by_source_total{source=\"external_kv_transfer\"}",
	"vllm:prompt_tokens_by_source_total{source=\"local_compute\"}",
};

const char *kvm_name(enum kvm k)
{
	return k < KVM__COUNT ? kvm_names[k] : "?";
}

/* One line being read: [p, end). */
struct cur {
	const char *p, *end;
};

static int name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}

static int name_char(char c)
{
	return name_start(c) || (c >= '0' && c <= '9');
}

static void blanks(struct cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

/* A name at c (label names take no ':', but reading them as names too
 * rejects nothing the format allows). Its length; 0: none. */
static size_t read_name(struct cur *c)
{
	const char *s = c->p;

	if (c->p >= c->end || !name_start(*c->p))
		return 0;
	while (c->p < c->end && name_char(*c->p))
		c->p++;
	return (size_t)(c->p - s);
}

/* A quoted label value into v (cut to n - 1 bytes; the rest still read).
 * 0, or -1 when it is not one. */
static int read_quoted(struct cur *c, char *v, size_t n)
{
	size_t k = 0;

	if (c->p >= c->end || *c->p++ != '"')
		return -1;
	while (c->p < c->end && *c->p != '"') {
		char ch = *c->p++;

		if (ch == '\\') {
			if (c->p >= c->end)
				return -1;
			ch = *c->p++;
			if (ch != '\\' && ch != '"' && ch != 'n')
				return -1;
			ch = ch == 'n' ? '\n' : ch;
		}
		if (k + 1 < n)
			v[k++] = ch;
	}
	v[k] = '\0';
	if (c->p >= c->end)
		return -1;
	c->p++;                 /* the closing quote */
	return 0;
}

/* {LABEL="VALUE",...}: the value of label "source" into src (n bytes,
 * "" when none).  0, or -1 when not the format. */
static int read_labels(struct cur *c, char *src, size_t n)
{
	char v[64];

	src[0] = '\0';
	if (c->p >= c->end || *c->p != '{')
		return 0;
	c->p++;
	for (;;) {
		const char *ln;
		size_t len;

		blanks(c);
		if (c->p < c->end && *c->p == '}')
			break;
		ln = c->p;
		if (!(len = read_name(c)))
			return -1;
		blanks(c);
		if (c->p >= c->end || *c->p++ != '=')
			return -1;
		blanks(c);
		if (read_quoted(c, v, sizeof v) < 0)
			return -1;
		if (len == 6 && !memcmp(ln, "source", 6)) {
			size_t m = strnlen(v, n - 1);   /* cut, as read_quoted cuts */

			memcpy(src, v, m);
			src[m] = '\0';
		}
		blanks(c);
		if (c->p < c->end && *c->p == ',') {
			c->p++;
			continue;
		}
		if (c->p >= c->end || *c->p != '}')
			return -1;
		break;
	}
	c->p++;
	return 0;
}

/* A float token (Go's ParseFloat forms: 1e3, NaN, +Inf) into *d; 0, or
 * -1 when the token is not one. */
static int read_value(struct cur *c, double *d)
{
	char tok[64], *e;
	size_t k = 0;

	while (c->p < c->end && *c->p != ' ' && *c->p != '\t') {
		if (k + 1 >= sizeof tok)
			return -1;
		tok[k++] = *c->p++;
	}
	tok[k] = '\0';
	if (!k)
		return -1;
	*d = strtod(tok, &e);
	return *e ? -1 : 0;
}

/* The kept series a sample of name (len bytes) and source label is, or
 * KVM__COUNT for one that is not kept. */
static enum kvm kept(const char *name, size_t len, const char *source)
{
	static const char tokens[] = "vllm:prompt_tokens_by_source_total";

	if (len == sizeof tokens - 1 && !memcmp(name, tokens, len))
		return !strcmp(source, "external_kv_transfer") ? KVM_TOK_PULLED
			: !strcmp(source, "local_compute") ? KVM_TOK_COMPUTED : KVM__COUNT;
	for (int k = 0; k < KVM_TOK_PULLED; k++)
		if (strlen(kvm_names[k]) == len && !memcmp(kvm_names[k], name, len))
			return (enum kvm)k;
	return KVM__COUNT;
}

/* One sample line; NULL, or why it is not one. */
static const char *sample(struct cur *c, struct kv_metrics *out)
{
	const char *name = c->p;
	size_t len = read_name(c);
	char source[32];
	double d, ts;
	enum kvm k;

	if (!len)
		return "no metric name";
	if (read_labels(c, source, sizeof source) < 0)
		return "bad labels";
	if (c->p >= c->end || (*c->p != ' ' && *c->p != '\t'))
		return "no value";
	blanks(c);
	if (read_value(c, &d) < 0)
		return "bad value";
	blanks(c);
	if (c->p < c->end && (read_value(c, &ts) < 0 || ts != floor(ts)))
		return "bad timestamp";
	blanks(c);
	if (c->p < c->end)
		return "text after the value";
	if ((k = kept(name, len, source)) == KVM__COUNT)
		return NULL;
	/* A counter: finite and not negative, else nothing to subtract. */
	if (!isfinite(d) || d < 0)
		return "a kept counter is not a finite non-negative number";
	out->v[k] += d;
	out->seen |= 1u << k;
	return NULL;
}

int promtext_parse(const char *text, size_t len, struct kv_metrics *out, char *why, size_t n)
{
	const char *p = text, *end = text + len;
	unsigned line = 0;

	if (len > PROMTEXT_MAX_BYTES) {
		snprintf(why, n, "the metrics text is over %u MiB", PROMTEXT_MAX_BYTES >> 20);
		return -1;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *bad;
		struct cur c = { p, nl ? nl : end };

		if (++line > PROMTEXT_MAX_LINES || (size_t)(c.end - c.p) > PROMTEXT_MAX_LINE) {
			snprintf(why, n, "the metrics text is past %u lines or a line past %u bytes",
				 PROMTEXT_MAX_LINES, PROMTEXT_MAX_LINE);
			return -1;
		}
		if (c.end > c.p && c.end[-1] == '\r')
			c.end--;
		p = nl ? nl + 1 : end;
		blanks(&c);
		if (c.p == c.end || *c.p == '#')
			continue;
		if ((bad = sample(&c, out)) != NULL) {
			snprintf(why, n, "not the Prometheus text format at line %u: %s", line, bad);
			return -1;
		}
	}
	return 0;
}
