#include "table.h"

#include <stdlib.h>
#include <string.h>

#include "../util/intern.h"
#include "../util/safe.h"
#include "../util/xalloc.h"

#define MIN_WIDTH 6
#define PADDING 3

struct table {
	int ncols;
	/* (rows + 1) * ncols, row 0 = headers; each a reference to an interned
	 * string (util/intern.h): a table of 10,000 pods holds "ok" once, not
	 * once per cell (issue 27, peak RSS). */
	const char **cells;
	const char **sgr;  /* parallel to cells: static SGR colour code or NULL */
	size_t rows;       /* data rows */
	size_t cap;        /* rows allocated, headers included */
};

/* Every cell is shown through the terminal rule (util/safe.h): a name or
 * version from the cluster or a pod cannot move the cursor, recolour,
 * retitle or add rows (issue 12). */
static const char *cell_dup(const char *s)
{
	char *shown = safe_term(s && *s ? s : "<none>");
	const char *c = intern_str(shown);

	free(shown);
	return c;
}

struct table *table_new(int ncols, const char *const *headers)
{
	struct table *t = xcalloc(1, sizeof(*t));
	int i;

	t->ncols = ncols;
	t->cap = 16;
	t->cells = xcalloc(t->cap * (size_t)ncols, sizeof(char *));
	t->sgr = xcalloc(t->cap * (size_t)ncols, sizeof(char *));
	for (i = 0; i < ncols; i++)
		t->cells[i] = intern_str(headers[i]);
	return t;
}

void table_free(struct table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < (t->rows + 1) * (size_t)t->ncols; i++)
		intern_unref(t->cells[i], NULL);
	free(t->cells);
	free(t->sgr);
	free(t);
}

void table_add_row_sgr(struct table *t, const char *const *cells,
		       const char *const *sgr)
{
	size_t base, nc = (size_t)t->ncols, sgr_cap = t->cap;
	int i;

	/* Rows of nc cells; the headers are row 0, so this row is rows + 1. */
	t->cells = xalloc_grow(t->cells, t->rows + 2, &t->cap, nc * sizeof(char *));
	t->sgr = xalloc_grow(t->sgr, t->rows + 2, &sgr_cap, nc * sizeof(char *));
	t->rows++;
	base = t->rows * nc;
	for (i = 0; i < t->ncols; i++) {
		t->cells[base + (size_t)i] = cell_dup(cells[i]);
		t->sgr[base + (size_t)i] = sgr ? sgr[i] : NULL;
	}
}

void table_add_row(struct table *t, const char *const *cells)
{
	table_add_row_sgr(t, cells, NULL);
}

size_t table_text_width(const char *s)
{
	size_t w = 0;

	/* One column per UTF-8 sequence: count every byte that is not a
	 * continuation byte (10xxxxxx). */
	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

/* The one place a cell's text reaches the output: colour around it, then
 * pad spaces to width (pad 0: last column, no padding). */
static void emit_cell(FILE *out, const char *s, const char *sgr, size_t pad)
{
	size_t w;

	if (sgr)
		fprintf(out, "\033[%sm%s\033[0m", sgr, s);
	else
		fputs(s, out);
	for (w = table_text_width(s); w < pad; w++)
		fputc(' ', out);
}

size_t table_rows(const struct table *t)
{
	return t->rows;
}

void table_print(const struct table *t, FILE *out, int no_headers)
{
	size_t *width = xcalloc((size_t)t->ncols, sizeof(size_t));
	size_t r, first = no_headers ? 1 : 0;
	int c;

	for (r = first; r <= t->rows; r++)
		for (c = 0; c < t->ncols; c++) {
			size_t w = table_text_width(t->cells[r * (size_t)t->ncols + (size_t)c]) + PADDING;
			if (w < MIN_WIDTH)
				w = MIN_WIDTH;
			if (w > width[c])
				width[c] = w;
		}
	for (r = first; r <= t->rows; r++) {
		for (c = 0; c < t->ncols; c++) {
			size_t k = r * (size_t)t->ncols + (size_t)c;
			emit_cell(out, t->cells[k], t->sgr[k],
				  c == t->ncols - 1 ? 0 : width[c]);
		}
		fputc('\n', out);
	}
	free(width);
}

void table_age(time_t then, time_t now, char *out, size_t n)
{
	long long s = (long long)now - (long long)then;
	long long m, h, d, y;

	if (then == 0) {
		snprintf(out, n, "<unknown>");
		return;
	}
	if (s < -1) {
		snprintf(out, n, "<invalid>");
		return;
	}
	if (s < 0)
		s = 0;
	m = s / 60, h = s / 3600, d = h / 24, y = d / 365;
	if (s < 120)
		snprintf(out, n, "%llds", s);
	else if (m < 10)
		s % 60 ? snprintf(out, n, "%lldm%llds", m, s % 60) : snprintf(out, n, "%lldm", m);
	else if (h < 3)
		snprintf(out, n, "%lldm", m);
	else if (h < 8)
		m % 60 ? snprintf(out, n, "%lldh%lldm", h, m % 60) : snprintf(out, n, "%lldh", h);
	else if (h < 48)
		snprintf(out, n, "%lldh", h);
	else if (h < 192)
		h % 24 ? snprintf(out, n, "%lldd%lldh", d, h % 24) : snprintf(out, n, "%lldd", d);
	else if (y < 2)
		snprintf(out, n, "%lldd", d);
	else if (y < 8)
		d % 365 ? snprintf(out, n, "%lldy%lldd", y, d % 365) : snprintf(out, n, "%lldy", y);
	else
		snprintf(out, n, "%lldy", y);
}
