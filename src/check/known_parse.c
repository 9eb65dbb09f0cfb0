/* The known-issues file (docs/known-issues.md, schema/known-issues.schema.json)
 * into struct known_table: libyaml loads the document, each field is
 * checked here, and an error names the file, the line (libyaml's mark of
 * the offending node) and the field. */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "check/known_int.h"
#include "probe/facts.h"
#include "util/err.h"
#include "util/xalloc.h"

/* The embedded data/known-issues.yaml (Makefile, tests/tools/embed.sh). */
extern const char known_issues_yaml[];
extern const size_t known_issues_yaml_len;

/* A file larger than this is not a table of known issues. */
#define KNOWN_MAX_FILE (4u << 20)
#define KNOWN_MAX_ROWS 4096
#define KNOWN_MAX_STR 2048

#define KNOWN_NAME_(e, s) s,
static const char *const comp_names[KC__COUNT] = { KNOWN_COMPONENTS(KNOWN_NAME_) };
static const char *const cond_names[KCOND__COUNT] = { KNOWN_CONDS(KNOWN_NAME_) };
#undef KNOWN_NAME_
/* The columns are rows of table.def: their names are the rows' own. */
static const enum check_id column_check[KNOWN_COL__COUNT] = {
	CK_UCX_KNOWN_BAD, CK_NIXL_KNOWN_BAD, CK_MOONCAKE_KNOWN_BAD
};
/* The columns' own components: a row always gives its range. */
static const enum known_comp column_comp[KNOWN_COL__COUNT] = { KC_UCX, KC_NIXL, KC_MOONCAKE };

const char *known_comp_name(enum known_comp c) { return comp_names[c]; }
const char *known_cond_name(enum known_cond_kind k) { return cond_names[k]; }
const char *known_column_name(enum known_column c) { return check_def_of(column_check[c])->name; }
enum known_comp known_column_comp(enum known_column c) { return column_comp[c]; }

/* What a walk over one document needs to word an error. */
struct kp {
	yaml_document_t *doc;
	const char *file;
	struct err *e;
	char where[96];                 /* "issues[3] (id x)" */
};

static int fail_at(struct kp *p, const yaml_node_t *n, const char *field,
		   const char *what)
{
	return err_set(p->e, ERR_USAGE, "%s:%zu: %s%s%s: %s", p->file,
		       n ? n->start_mark.line + 1 : 1, p->where,
		       *p->where && *field ? " " : "", field, what);
}

static yaml_node_t *node(struct kp *p, int i)
{
	return yaml_document_get_node(p->doc, i);
}

/* A scalar's text, or NULL (with the error) when n is not a scalar of at
 * most KNOWN_MAX_STR bytes without control characters. */
static const char *scalar(struct kp *p, yaml_node_t *n, const char *field)
{
	const unsigned char *s;

	if (!n || n->type != YAML_SCALAR_NODE)
		return fail_at(p, n, field, "must be a string"), NULL;
	if (n->data.scalar.length > KNOWN_MAX_STR)
		return fail_at(p, n, field, "longer than 2048 bytes"), NULL;
	s = n->data.scalar.value;
	if (strlen((const char *)s) != n->data.scalar.length)
		return fail_at(p, n, field, "contains a NUL byte"), NULL;
	for (; *s; s++)
		if (*s < 0x20 || *s == 0x7f)
			return fail_at(p, n, field, "contains a control character"), NULL;
	return (const char *)n->data.scalar.value;
}

static int one_of(const char *v, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v, names[i]))
			return i;
	return -1;
}

/* "1.3.0-1.3.2 1.4.0-": each range FROM-UNTIL with FROM a version that
 * starts with a digit and UNTIL empty or one. */
static int ranges_ok(const char *v)
{
	int n = 0;

	for (const char *p = v; *p;) {
		size_t len = strcspn(p, " "), from = strcspn(p, "-");

		if (len && (from >= len || !from || !isdigit((unsigned char)p[0]) ||
			    (from + 1 < len && !isdigit((unsigned char)p[from + 1])) ||
			    memchr(p + from + 1, '-', len - from - 1)))
			return 0;
		n += len > 0;
		p += len;
		p += strspn(p, " ");
	}
	return n > 0;
}

static int parse_versions(struct kp *p, yaml_node_t *m, struct known_row *r)
{
	if (m->type != YAML_MAPPING_NODE)
		return fail_at(p, m, "versions", "must be a mapping of component to ranges");
	for (yaml_node_pair_t *q = m->data.mapping.pairs.start; q < m->data.mapping.pairs.top; q++) {
		const char *k = scalar(p, node(p, q->key), "versions"), *v;
		int c;

		if (!k)
			return -1;
		c = one_of(k, comp_names, KC__COUNT);
		if (c < 0)
			return fail_at(p, node(p, q->key), "versions", "unknown component (see docs/known-issues.md)");
		v = scalar(p, node(p, q->value), "versions");
		if (!v)
			return -1;
		if (!ranges_ok(v))
			return fail_at(p, node(p, q->value), "versions",
				       "ranges must read FROM-UNTIL (\"1.3.0-1.3.2 1.4.0-\")");
		free(r->versions[c]);
		r->versions[c] = xstrdup(v);
	}
	return 0;
}

/* A transport name this build reads. */
static int tl_knows(const char *a)
{
	for (int i = 0; i < PROBE_TL_COUNT; i++)
		if (!strcmp(a, probe_ucx_tl_name((enum probe_ucx_tl)i)))
			return 1;
	return 0;
}

/* env-equals and env-contains take NAME=TEXT; the others one word, and
 * the names of what this build can see. */
static int cond_arg_ok(enum known_cond_kind k, const char *a)
{
	static const char *const fabrics[] = { "infiniband", "roce", "efa", "nvlink", "tcp" };
	static const char *const arches[] = { "aarch64", "arm64", "x86_64" };
	static const char *const devices[] = { "bond", "efa" };
	static const char *const placements[] = { "same-node", "cross-node" };
	size_t name = strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.:/");

	switch (k) {
	case KCOND_ENV_EQUALS: case KCOND_ENV_CONTAINS:
		return strchr(a, '=') && a[0] != '=';
	case KCOND_CASE: return known_case_exists(a);
	case KCOND_FABRIC: return one_of(a, fabrics, 5) >= 0;
	case KCOND_ARCH: return one_of(a, arches, 3) >= 0;
	case KCOND_DEVICE: return one_of(a, devices, 2) >= 0;
	case KCOND_PLACEMENT: return one_of(a, placements, 2) >= 0;
	case KCOND_MODULE: case KCOND_MODULE_ABSENT: return known_module_ok(a);
	case KCOND_TL_ALLOWED: case KCOND_TL_LISTED: return tl_knows(a);
	case KCOND_ENGINE_EQUALS: return known_engine_arg_ok(a);
	default:
		return name && !a[name];
	}
}

static int parse_when(struct kp *p, yaml_node_t *s, struct known_row *r)
{
	if (s->type != YAML_SEQUENCE_NODE)
		return fail_at(p, s, "when", "must be a list of CONDITION: ARGUMENT");
	for (yaml_node_item_t *i = s->data.sequence.items.start; i < s->data.sequence.items.top; i++) {
		yaml_node_t *c = node(p, *i);
		const char *k, *v;
		int kind;

		if (!c || c->type != YAML_MAPPING_NODE ||
		    c->data.mapping.pairs.top - c->data.mapping.pairs.start != 1)
			return fail_at(p, c, "when", "each condition is one CONDITION: ARGUMENT");
		if (r->ncond == KNOWN_MAX_CONDS)
			return fail_at(p, c, "when", "more than 8 conditions");
		k = scalar(p, node(p, c->data.mapping.pairs.start->key), "when");
		if (!k)
			return -1;
		kind = one_of(k, cond_names, KCOND__COUNT);
		if (kind < 0)
			return fail_at(p, c, "when", "unknown condition (see docs/known-issues.md)");
		v = scalar(p, node(p, c->data.mapping.pairs.start->value), "when");
		if (!v)
			return -1;
		if (!cond_arg_ok((enum known_cond_kind)kind, v))
			return fail_at(p, c, "when", "malformed argument of this condition");
		r->cond[r->ncond].kind = (enum known_cond_kind)kind;
		r->cond[r->ncond++].arg = xstrdup(v);
	}
	return 0;
}

/* Fields that are one string, by name, into the row. */
static char **str_field(struct known_row *r, const char *k)
{
	static const char *const names[] = { "id", "effect", "fix", "paste", "way", "source", "url" };

	switch (one_of(k, names, (int)(sizeof names / sizeof names[0]))) {
	case 0: return &r->id;
	case 1: return &r->effect;
	case 2: return &r->fix;
	case 3: return &r->paste;
	case 4: return &r->way;
	case 5: return &r->source;
	case 6: return &r->url;
	default: return NULL;
	}
}

static int parse_enum_field(struct kp *p, const char *k, yaml_node_t *v, struct known_row *r)
{
	static const char *const sevs[] = { "warn", "fail" };
	const char *s = scalar(p, v, k);
	int i;

	if (!s)
		return -1;
	if (!strcmp(k, "severity")) {
		if ((i = one_of(s, sevs, 2)) < 0)
			return fail_at(p, v, k, "must be fail or warn");
		r->fail = i;
		return 0;
	}
	for (i = 0; i < KNOWN_COL__COUNT && strcmp(s, known_column_name((enum known_column)i)); i++)
		;
	if (i == KNOWN_COL__COUNT)
		return fail_at(p, v, k, "must be ucx-known-bad, nixl-known-bad or mooncake-known-bad");
	r->column = (enum known_column)i;
	return 0;
}

static int parse_field(struct kp *p, const char *k, yaml_node_t *v, struct known_row *r,
		       unsigned *seen)
{
	char **s = str_field(r, k);

	if (s) {
		const char *t = scalar(p, v, k);

		if (!t)
			return -1;
		free(*s);
		*s = xstrdup(t);
		return 0;
	}
	if (!strcmp(k, "check") || !strcmp(k, "severity")) {
		*seen |= !strcmp(k, "check") ? 1u : 2u;
		return parse_enum_field(p, k, v, r);
	}
	if (!strcmp(k, "versions"))
		return parse_versions(p, v, r);
	if (!strcmp(k, "when"))
		return parse_when(p, v, r);
	return fail_at(p, v, k, "unknown field (see docs/known-issues.md)");
}

/* What every row must have, and what its fields must say together. */
static int row_complete(struct kp *p, yaml_node_t *m, const struct known_row *r,
			unsigned seen)
{
	const char *const req[] = { "id", "effect", "fix", "source", "url" };
	const char *missing = NULL;

	for (size_t i = 0; i < sizeof req / sizeof req[0] && !missing; i++)
		if (!*str_field((struct known_row *)r, req[i]))
			missing = req[i];
	if (!missing && !(seen & 1u))
		missing = "check";
	if (!missing && !(seen & 2u))
		missing = "severity";
	if (missing)
		return fail_at(p, m, missing, "missing");
	if (!r->versions[column_comp[r->column]])
		return fail_at(p, m, "versions", r->column == KNOWN_COL_UCX ?
			       "must give the ucx range of a ucx-known-bad row" :
			       r->column == KNOWN_COL_NIXL ?
			       "must give the nixl range of a nixl-known-bad row" :
			       "must give the mooncake range of a mooncake-known-bad row");
	if (strspn(r->id, "abcdefghijklmnopqrstuvwxyz0123456789-_.") != strlen(r->id) || !r->id[0])
		return fail_at(p, m, "id", "only a-z, 0-9, '-', '_' and '.'");
	if (strncmp(r->url, "https://", 8))
		return fail_at(p, m, "url", "must start with https://");
	if (r->paste && (!strchr(r->paste, '=') || r->paste[0] == '='))
		return fail_at(p, m, "paste", "must read NAME=value");
	if (r->way && !known_way_exists(r->way))
		return fail_at(p, m, "way", "unknown way out (see docs/known-issues.md)");
	if (r->way && r->paste)
		return fail_at(p, m, "way", "give paste or way, not both");
	return 0;
}

static void row_release(struct known_row *r)
{
	free(r->id), free(r->effect), free(r->fix), free(r->paste), free(r->way);
	free(r->source), free(r->url);
	for (int c = 0; c < KC__COUNT; c++)
		free(r->versions[c]);
	for (int i = 0; i < r->ncond; i++)
		free(r->cond[i].arg);
	memset(r, 0, sizeof(*r));
}

static int parse_row(struct kp *p, yaml_node_t *m, long idx, struct known_row *r)
{
	unsigned seen = 0;

	memset(r, 0, sizeof(*r));
	snprintf(p->where, sizeof p->where, "issues[%ld]", idx);
	if (!m)
		return fail_at(p, m, "", "each issue must be a mapping");
	r->line = (int)m->start_mark.line + 1;
	if (m->type != YAML_MAPPING_NODE)
		return fail_at(p, m, "", "each issue must be a mapping");
	for (yaml_node_pair_t *q = m->data.mapping.pairs.start; q < m->data.mapping.pairs.top; q++) {
		const char *k = scalar(p, node(p, q->key), "field name");

		if (!k || parse_field(p, k, node(p, q->value), r, &seen) < 0)
			return -1;
		if (!strcmp(k, "id"))
			snprintf(p->where, sizeof p->where, "issues[%ld] (id %.60s)", idx, r->id);
	}
	return row_complete(p, m, r, seen);
}

static yaml_node_t *issues_of(struct kp *p, yaml_node_t *root)
{
	yaml_node_t *seq = NULL;

	if (!root || root->type != YAML_MAPPING_NODE)
		return fail_at(p, root, "issues", "the file must be a mapping with an issues list"), NULL;
	for (yaml_node_pair_t *q = root->data.mapping.pairs.start; q < root->data.mapping.pairs.top; q++) {
		yaml_node_t *k = node(p, q->key), *v = node(p, q->value);
		const char *name = scalar(p, k, "field name");

		if (!name)
			return NULL;
		if (!strcmp(name, "issues")) {
			if (v->type != YAML_SEQUENCE_NODE)
				return fail_at(p, v, "issues", "must be a list"), NULL;
			seq = v;
		} else if (strcmp(name, "version")) {
			return fail_at(p, k, name, "unknown top-level field (version, issues)"), NULL;
		}
	}
	if (!seq)
		fail_at(p, root, "issues", "missing");
	return seq;
}

static void table_put(struct known_table *t, struct known_row *r)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->row[i].id, r->id)) {
			row_release(&t->row[i]);
			t->row[i] = *r;
			return;
		}
	t->row = xalloc_grow(t->row, t->n + 1, &t->cap, sizeof(*t->row));
	t->row[t->n++] = *r;
}

/* The rows of seq into fresh (all or none), ids unique within the file. */
static int parse_rows(struct kp *p, yaml_node_t *seq, struct known_table *fresh)
{
	for (yaml_node_item_t *i = seq->data.sequence.items.start; i < seq->data.sequence.items.top; i++) {
		long idx = (long)(i - seq->data.sequence.items.start);
		struct known_row r;

		if (idx >= KNOWN_MAX_ROWS)
			return fail_at(p, node(p, *i), "issues", "more than 4096 rows");
		if (parse_row(p, node(p, *i), idx, &r) < 0) {
			row_release(&r);
			return -1;
		}
		for (size_t j = 0; j < fresh->n; j++)
			if (!strcmp(fresh->row[j].id, r.id)) {
				row_release(&r);
				return fail_at(p, node(p, *i), "id", "given twice in this file");
			}
		table_put(fresh, &r);
	}
	return 0;
}

/* libyaml's loader keeps aliases as shared nodes; this walk is of fixed
 * depth, so neither an alias bomb nor deep nesting can run it away. */
int known_table_parse(struct known_table *t, const char *text, size_t len,
		      const char *file, struct err *e)
{
	struct known_table fresh = { 0 };
	yaml_parser_t parser;
	yaml_document_t doc;
	struct kp p = { &doc, file, e, "" };
	yaml_node_t *seq;
	int rc = -1;

	if (!yaml_parser_initialize(&parser))
		xalloc_die();
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		err_set(e, ERR_USAGE, "%s:%zu:%zu: not YAML: %s", file,
			parser.problem_mark.line + 1, parser.problem_mark.column + 1,
			parser.problem ? parser.problem : "invalid");
		yaml_parser_delete(&parser);
		return -1;
	}
	seq = issues_of(&p, yaml_document_get_root_node(&doc));
	if (seq && parse_rows(&p, seq, &fresh) == 0) {
		for (size_t i = 0; i < fresh.n; i++)
			table_put(t, &fresh.row[i]);
		fresh.n = 0;
		rc = 0;
	}
	known_table_release(&fresh);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return rc;
}

int known_table_load(struct known_table *t, const char *path, struct err *e)
{
	FILE *f = fopen(path, "rb");
	char *text;
	size_t n;
	int rc;

	if (!f)
		return err_set(e, ERR_USAGE, "%s: %s", path, strerror(errno));
	text = xmalloc(KNOWN_MAX_FILE + 1);
	n = fread(text, 1, KNOWN_MAX_FILE + 1, f);
	rc = ferror(f) ? err_set(e, ERR_USAGE, "%s: read error", path) :
	     n > KNOWN_MAX_FILE ? err_set(e, ERR_USAGE, "%s: larger than 4 MiB", path) :
	     known_table_parse(t, text, n, path, e);
	fclose(f);
	free(text);
	return rc;
}

void known_table_release(struct known_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		row_release(&t->row[i]);
	free(t->row);
	memset(t, 0, sizeof(*t));
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void row_copy(struct known_row *d, const struct known_row *s)
{
	*d = *s;
	d->id = xstrdup(s->id), d->effect = xstrdup(s->effect), d->fix = xstrdup(s->fix);
	d->source = xstrdup(s->source), d->url = xstrdup(s->url);
	d->paste = dup_or_null(s->paste), d->way = dup_or_null(s->way);
	for (int c = 0; c < KC__COUNT; c++)
		d->versions[c] = dup_or_null(s->versions[c]);
	for (int i = 0; i < s->ncond; i++)
		d->cond[i].arg = xstrdup(s->cond[i].arg);
}

void known_table_copy_builtin(struct known_table *t)
{
	const struct known_table *b = known_builtin();

	for (size_t i = 0; i < b->n; i++) {
		struct known_row r;

		row_copy(&r, &b->row[i]);
		table_put(t, &r);
	}
}

/* The built-in table, parsed at the first use by any thread.  The file is
 * part of the build and tests/unit/test_known.c parses it: failing here
 * is a build defect, reported and fatal. */
static struct known_table builtin;
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;

static void builtin_load(void)
{
	struct err e;

	err_clear(&e);
	if (known_table_parse(&builtin, known_issues_yaml, known_issues_yaml_len,
			      "data/known-issues.yaml", &e) < 0) {
		fprintf(stderr, "internal error: %s\n", e.msg);
		abort();
	}
}

const struct known_table *known_builtin(void)
{
	pthread_once(&builtin_once, builtin_load);
	return &builtin;
}
