/* The known-issues table as a kubectl table (report/known.h). */
#include <stdio.h>
#include <stdlib.h>

#include "check/known.h"
#include "report/known.h"
#include "report/table.h"
#include "util/buf.h"
#include "util/safe.h"

/* "ucx 1.22.0-, libfabric 2.1.0-2.3.0" */
static void versions_cell(const struct known_row *r, struct buf *b)
{
	for (int c = 0; c < KC__COUNT; c++)
		if (r->versions[c])
			buf_appendf(b, "%s%s %s", b->len ? ", " : "",
				    known_comp_name((enum known_comp)c), r->versions[c]);
}

/* "env-false NIXL_TELEMETRY_ENABLE, device bond"; "-" when none. */
static void when_cell(const struct known_row *r, struct buf *b)
{
	for (int i = 0; i < r->ncond; i++)
		buf_appendf(b, "%s%s %s", i ? ", " : "", known_cond_name(r->cond[i].kind),
			    r->cond[i].arg);
	if (!r->ncond)
		buf_appendf(b, "-");
}

void report_print_known(FILE *out, const struct known_table *t, int no_headers)
{
	static const char *const head[] = { "ID", "CHECK", "SEVERITY", "VERSIONS", "WHEN", "SOURCE" };
	struct table *tab = table_new(6, head);

	for (size_t i = 0; i < t->n; i++) {
		const struct known_row *r = &t->row[i];
		struct buf v = BUF_INIT(1024), w = BUF_INIT(4096);
		char *cell[6];

		versions_cell(r, &v);
		when_cell(r, &w);
		cell[0] = safe_term(r->id);
		cell[1] = safe_term(known_column_name(r->column));
		cell[2] = safe_term(r->fail ? "fail" : "warn");
		cell[3] = safe_term(buf_str(&v));
		cell[4] = safe_term(buf_str(&w));
		cell[5] = safe_term(r->source);
		table_add_row(tab, (const char *const *)cell);
		for (int c = 0; c < 6; c++)
			free(cell[c]);
		buf_release(&v), buf_release(&w);
	}
	table_print(tab, out, no_headers);
	table_free(tab);
}
