#include "listguard.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

void listguard_init(struct listguard *g)
{
	memset(g, 0, sizeof(*g));
}

void listguard_release(struct listguard *g)
{
	size_t i;

	for (i = 0; i < g->ntokens; i++)
		free(g->tokens[i]);
	free(g->tokens);
	memset(g, 0, sizeof(*g));
}

/* At most LISTGUARD_MAX_PAGES tokens, so a linear search costs at worst a
 * few million short compares over a whole list: nothing next to a page. */
static int seen(const struct listguard *g, const char *tok)
{
	size_t i;

	for (i = 0; i < g->ntokens; i++)
		if (!strcmp(g->tokens[i], tok))
			return 1;
	return 0;
}

int listguard_page(struct listguard *g, size_t body_bytes, size_t items,
		   const char *next, struct err *e)
{
	g->pages++;
	g->bytes += body_bytes;
	if (g->bytes > LISTGUARD_MAX_BYTES)
		return err_set(e, ERR_PROTOCOL,
			       "the list from the server passed %llu MiB in %u pages: "
			       "narrow it with -n or -l", LISTGUARD_MAX_BYTES >> 20, g->pages);
	if (items > LISTGUARD_MAX_ITEMS)
		return err_set(e, ERR_PROTOCOL,
			       "the list from the server passed %d pods: narrow it with -n or -l",
			       LISTGUARD_MAX_ITEMS);
	if (!next)
		return 0;
	if (seen(g, next))
		return err_set(e, ERR_PROTOCOL,
			       "the server returned a continue token it had already returned "
			       "(page %u): the list does not advance", g->pages);
	if (g->pages >= LISTGUARD_MAX_PAGES)
		return err_set(e, ERR_PROTOCOL,
			       "the pod list did not end after %d pages", LISTGUARD_MAX_PAGES);
	ALLOC_GROW(g->tokens, g->ntokens + 1, g->cap);
	g->tokens[g->ntokens++] = xstrdup(next);
	return 0;
}
