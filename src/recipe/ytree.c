/* YAML events -> struct ynode tree, with caps (see ytree.h for why). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "recipe/ytree.h"
#include "util/xalloc.h"

struct anchor {
	char *name;
	struct ynode *node;
};

struct builder {
	struct ytree_docs *out;
	struct ytree_doc *doc;          /* the open document */
	struct ynode *stack[YTREE_MAX_DEPTH];
	int depth;
	struct anchor *anchors;         /* per document, as YAML scopes them */
	size_t nanchors, anchors_alloc;
	size_t held;                    /* nodes and alias references */
	int line, col;
	char *msg;
	size_t msgsz;
};

static int fail(struct builder *b, const yaml_mark_t *m, const char *what)
{
	b->line = (int)m->line + 1;
	b->col = (int)m->column + 1;
	snprintf(b->msg, b->msgsz, "%s", what);
	return -1;
}

static void anchors_clear(struct builder *b)
{
	for (size_t i = 0; i < b->nanchors; i++)
		free(b->anchors[i].name);
	free(b->anchors);
	b->anchors = NULL;
	b->nanchors = 0;
	b->anchors_alloc = 0;
}

/* A later anchor of the same name shadows an earlier one (YAML 1.2). */
static void anchor_add(struct builder *b, const yaml_char_t *name, struct ynode *n)
{
	if (!name)
		return;
	ALLOC_GROW(b->anchors, b->nanchors + 1, b->anchors_alloc);
	b->anchors[b->nanchors].name = xstrdup((const char *)name);
	b->anchors[b->nanchors].node = n;
	b->nanchors++;
}

static struct ynode *anchor_find(const struct builder *b, const yaml_char_t *name)
{
	for (size_t i = b->nanchors; i-- > 0;)
		if (!strcmp(b->anchors[i].name, (const char *)name))
			return b->anchors[i].node;
	return NULL;
}

static struct ynode *node_new(struct builder *b, enum ynode_kind k, const yaml_mark_t *m)
{
	struct ytree_doc *d = b->doc;
	struct ynode *n = xcalloc(1, sizeof *n);

	n->kind = k;
	n->line = (int)m->line + 1;
	n->col = (int)m->column + 1;
	n->weight = 1;
	ALLOC_GROW(d->all, d->nall + 1, d->capall);
	d->all[d->nall++] = n;
	return n;
}

/* Hangs n (owned or an alias target) under the open collection. */
static int attach(struct builder *b, struct ynode *n, const yaml_mark_t *m)
{
	struct ynode *p;

	if (++b->held > YTREE_MAX_NODES)
		return fail(b, m, "document has too many nodes");
	if (b->depth == 0) {
		if (!b->doc->root)
			b->doc->root = n;
		return 0;
	}
	p = b->stack[b->depth - 1];
	ALLOC_GROW(p->kids, p->n + 1, p->cap);
	p->kids[p->n++] = n;
	return 0;
}

static int open_coll(struct builder *b, enum ynode_kind k, const yaml_mark_t *m,
		     const yaml_char_t *anchor)
{
	struct ynode *n;

	if (b->depth >= YTREE_MAX_DEPTH)
		return fail(b, m, "nesting deeper than the limit of 128 levels");
	n = node_new(b, k, m);
	if (attach(b, n, m) < 0)
		return -1;
	/* Registered now but only findable once closed: an alias inside its own
	 * anchor would make a cycle, so the name is parked until then. */
	b->stack[b->depth++] = n;
	n->value = anchor ? xstrdup((const char *)anchor) : NULL;
	return 0;
}

static int close_coll(struct builder *b, const yaml_mark_t *m)
{
	struct ynode *n = b->stack[--b->depth];
	size_t w = 1;

	for (size_t i = 0; i < n->n; i++) {
		w += n->kids[i]->weight;
		if (w > YTREE_MAX_WEIGHT)
			return fail(b, m, "aliases expand to more than 1000000 nodes (alias bomb?)");
	}
	n->weight = w;
	if (n->value) {
		anchor_add(b, (const yaml_char_t *)n->value, n);
		free(n->value);
		n->value = NULL;
	}
	return 0;
}

static int on_scalar(struct builder *b, const yaml_event_t *ev)
{
	struct ynode *n = node_new(b, YNODE_SCALAR, &ev->start_mark);

	n->value = xstrndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
	n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	anchor_add(b, ev->data.scalar.anchor, n);
	return attach(b, n, &ev->start_mark);
}

static int on_alias(struct builder *b, const yaml_event_t *ev)
{
	struct ynode *t = anchor_find(b, ev->data.alias.anchor);

	if (!t)
		return fail(b, &ev->start_mark, "unknown anchor in alias");
	return attach(b, t, &ev->start_mark);
}

static void doc_open(struct builder *b)
{
	struct ytree_docs *o = b->out;

	ALLOC_GROW(o->docs, o->n + 1, o->alloc);
	b->doc = &o->docs[o->n++];
	memset(b->doc, 0, sizeof *b->doc);
	anchors_clear(b);
}

static int on_event(struct builder *b, const yaml_event_t *ev)
{
	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		doc_open(b);
		return 0;
	case YAML_SCALAR_EVENT:
		return on_scalar(b, ev);
	case YAML_ALIAS_EVENT:
		return on_alias(b, ev);
	case YAML_SEQUENCE_START_EVENT:
		return open_coll(b, YNODE_SEQ, &ev->start_mark, ev->data.sequence_start.anchor);
	case YAML_MAPPING_START_EVENT:
		return open_coll(b, YNODE_MAP, &ev->start_mark, ev->data.mapping_start.anchor);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		return close_coll(b, &ev->start_mark);
	default:
		return 0;
	}
}

static void parser_error(struct builder *b, const yaml_parser_t *p)
{
	const yaml_mark_t *m = p->problem ? &p->problem_mark : &p->mark;

	if (p->error == YAML_MEMORY_ERROR)
		xalloc_die();
	b->line = (int)m->line + 1;
	b->col = (int)m->column + 1;
	if (p->context)
		snprintf(b->msg, b->msgsz, "%s %s", p->problem ? p->problem : "syntax error",
			 p->context);
	else
		snprintf(b->msg, b->msgsz, "%s", p->problem ? p->problem : "syntax error");
}

int ytree_parse(const char *data, size_t len, struct ytree_docs *out,
		int *line, int *col, char *msg, size_t msgsz)
{
	struct builder b;
	yaml_parser_t p;
	yaml_event_t ev;
	int rc = 0, done = 0;

	memset(out, 0, sizeof *out);
	memset(&b, 0, sizeof b);
	b.out = out, b.msg = msg, b.msgsz = msgsz;
	if (!yaml_parser_initialize(&p))
		xalloc_die();
	yaml_parser_set_input_string(&p, (const unsigned char *)data, len);
	while (!done && rc == 0) {
		if (!yaml_parser_parse(&p, &ev)) {
			parser_error(&b, &p);
			rc = -1;
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		rc = on_event(&b, &ev);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	anchors_clear(&b);
	if (rc < 0) {
		*line = b.line, *col = b.col;
		ytree_docs_free(out);
	}
	return rc;
}

void ytree_docs_free(struct ytree_docs *d)
{
	for (size_t i = 0; i < d->n; i++) {
		struct ytree_doc *doc = &d->docs[i];

		for (size_t j = 0; j < doc->nall; j++) {
			free(doc->all[j]->value);
			free(doc->all[j]->kids);
			free(doc->all[j]);
		}
		free(doc->all);
	}
	free(d->docs);
	memset(d, 0, sizeof *d);
}

const struct ynode *ynode_get(const struct ynode *map, const char *key)
{
	const struct ynode *v = NULL;

	if (!map || map->kind != YNODE_MAP)
		return NULL;
	for (size_t i = 0; i + 1 < map->n; i += 2)
		if (map->kids[i]->kind == YNODE_SCALAR && !strcmp(map->kids[i]->value, key))
			v = map->kids[i + 1];
	return v;
}

const char *ynode_str(const struct ynode *map, const char *key)
{
	const struct ynode *v = ynode_get(map, key);

	return v && v->kind == YNODE_SCALAR ? v->value : NULL;
}

const struct ynode *ynode_path(const struct ynode *n, const char *dotted)
{
	char key[128];

	while (n && *dotted) {
		size_t len = strcspn(dotted, ".");

		if (len >= sizeof key)
			return NULL;
		memcpy(key, dotted, len);
		key[len] = 0;
		n = ynode_get(n, key);
		dotted += len + (dotted[len] == '.');
	}
	return n;
}
