/* Comma lists (clist.h). */
#include "clist.h"

#include <string.h>
#include <strings.h>

int clist_has(const char *list, const char *item, size_t len, int nocase)
{
	for (const char *p = list; p && *p;) {
		size_t l = strcspn(p, ",");

		if (l == len && !(nocase ? strncasecmp(p, item, len) : strncmp(p, item, len)))
			return 1;
		p += l;
		if (*p == ',')
			p++;
	}
	return 0;
}
