#include "table.h"

#include <stdlib.h>
#include <string.h>

#include "../util/intern.h"
#include "../util/safe.h"
#include "../util/xalloc.h"

#define MIN_WIDTH 6
#define PADDING 3
#define WRAP_MIN_ROOM 20   /* columns the wrapped last cell needs at least */

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

static size_t span_width(const char *s, size_t n)
{
	size_t w = 0;

	for (size_t i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xC0) != 0x80;
	return w;
}

void table_wrap(FILE *out, const char *text, size_t col, size_t indent, size_t width)
{
	int line_start = 1;    /* nothing but the lead/indent on this line yet */
	const char *p = text;

	if (!width) {
		fprintf(out, "%s\n", text);
		return;
	}
	while (*p) {
		const char *w = p, *e;
		size_t ww;

		while (*w == ' ')
			w++;
		if (!*w)
			break;
		for (e = w; *e && *e != ' '; e++)
			;
		ww = span_width(w, (size_t)(e - w));
		if (!line_start && col + 1 + ww > width) {
			fprintf(out, "\n%*s", (int)indent, "");
			col = indent;
			line_start = 1;
		}
		if (!line_start) {
			fputc(' ', out);
			col++;
		}
		fwrite(w, 1, (size_t)(e - w), out);
		col += ww;
		line_start = 0;
		p = e;
	}
	fputc('\n', out);
}

size_t table_rows(const struct table *t)
{
	return t->rows;
}

/* Each column's width as printed: its widest cell plus padding, at least
 * MIN_WIDTH; an array of ncols the caller frees. */
static size_t *col_widths(const struct table *t, int no_headers)
{
	size_t *width = xcalloc((size_t)t->ncols, sizeof(size_t));
	size_t r;
	int c;

	for (r = no_headers ? 1 : 0; r <= t->rows; r++)
		for (c = 0; c < t->ncols; c++) {
			size_t w = table_text_width(t->cells[r * (size_t)t->ncols + (size_t)c]) + PADDING;
			if (w < MIN_WIDTH)
				w = MIN_WIDTH;
			if (w > width[c])
				width[c] = w;
		}
	return width;
}

size_t table_lead_width(const struct table *t, int no_headers)
{
	size_t *width = col_widths(t, no_headers), sum = 0;

	for (int c = 0; c + 1 < t->ncols; c++)
		sum += width[c];
	free(width);
	return sum;
}

void table_set_last(struct table *t, size_t row, const char *s)
{
	size_t k = (row + 1) * (size_t)t->ncols + (size_t)t->ncols - 1;

	intern_unref(t->cells[k], NULL);
	t->cells[k] = cell_dup(s);
}

/* Row r's cells but the last, each padded to its column's width. */
static void print_lead(const struct table *t, FILE *out, size_t r, const size_t *width)
{
	for (int c = 0; c + 1 < t->ncols; c++) {
		size_t k = r * (size_t)t->ncols + (size_t)c;

		emit_cell(out, t->cells[k], t->sgr[k], width[c]);
	}
}

static void print_rows(const struct table *t, FILE *out, int no_headers, size_t wrap)
{
	size_t *width = col_widths(t, no_headers), lead = 0;
	size_t r;

	for (int c = 0; c + 1 < t->ncols; c++)
		lead += width[c];
	/* Too little room beside the other columns: a word a line would read
	 * worse than a long line. */
	if (lead + WRAP_MIN_ROOM > wrap)
		wrap = 0;
	for (r = no_headers ? 1 : 0; r <= t->rows; r++) {
		size_t k = r * (size_t)t->ncols + (size_t)t->ncols - 1;

		print_lead(t, out, r, width);
		if (wrap && !t->sgr[k]) {
			table_wrap(out, t->cells[k], lead, lead, wrap);
			continue;
		}
		emit_cell(out, t->cells[k], t->sgr[k], 0);
		fputc('\n', out);
	}
	free(width);
}

void table_print(const struct table *t, FILE *out, int no_headers)
{
	print_rows(t, out, no_headers, 0);
}

void table_print_wrapped(const struct table *t, FILE *out, int no_headers, size_t width)
{
	print_rows(t, out, no_headers, width);
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
