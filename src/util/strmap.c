/* String to dense id (strmap.h). */
#include "strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* FNV-1a: short keys, no adversary that gains from collisions beyond a
 * slower run (the keys come from our own digests and pod names). */
static size_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)(h ^ (h >> 32));
}

void strmap_init(struct strmap *m)
{
	memset(m, 0, sizeof(*m));
}

static size_t *slot(const struct strmap *m, const char *key, size_t *at)
{
	size_t mask = m->cap - 1, i = hash(key) & mask;

	while (m->key[i] && strcmp(m->key[i], key))
		i = (i + 1) & mask;
	*at = i;
	return m->key[i] ? &m->id[i] : NULL;
}

static void grow(struct strmap *m)
{
	struct strmap old = *m;

	m->cap = old.cap ? old.cap * 2 : 16;
	m->key = xcalloc(m->cap, sizeof(*m->key));
	m->id = xcalloc(m->cap, sizeof(*m->id));
	for (size_t i = 0; i < old.cap; i++) {
		size_t at;

		if (!old.key[i])
			continue;
		slot(m, old.key[i], &at);
		m->key[at] = old.key[i];
		m->id[at] = old.id[i];
	}
	free(old.key);
	free(old.id);
}

size_t strmap_id(struct strmap *m, const char *key, int *added)
{
	size_t at, *id;

	if (2 * (m->n + 1) > m->cap)
		grow(m);
	id = slot(m, key, &at);
	if (added)
		*added = !id;
	if (id)
		return *id;
	m->key[at] = key;
	m->id[at] = m->n;
	return m->n++;
}

void strmap_release(struct strmap *m)
{
	free(m->key);
	free(m->id);
	memset(m, 0, sizeof(*m));
}
