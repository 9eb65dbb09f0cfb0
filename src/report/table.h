/* kubectl's table geometry (cli-runtime tabwriter: minwidth 6, padding 3,
 * last column unpadded, no trailing spaces) and its AGE format.
 *
 * A table copies every cell it is given; it only formats, it knows nothing
 * of pods or checks.
 */
#ifndef REPORT_TABLE_H
#define REPORT_TABLE_H

#include <stdio.h>
#include <time.h>

struct table;

/* A table with ncols columns and these (uppercase) headers.  Free with
 * table_free(). */
struct table *table_new(int ncols, const char *const *headers);
void table_free(struct table *t);
/* Copies ncols cells; NULL or "" cells print as "<none>". */
void table_add_row(struct table *t, const char *const *cells);
/* The same, each cell wrapped in the SGR colour sgr[i] ("31", "2", ...;
 * static strings, NULL for none; sgr itself may be NULL).  Colour codes
 * never live in the cell text, so widths count only what is visible. */
void table_add_row_sgr(struct table *t, const char *const *cells,
		       const char *const *sgr);
size_t table_rows(const struct table *t);
/* Columns s takes on a terminal: one per UTF-8 character. */
size_t table_text_width(const char *s);
void table_print(const struct table *t, FILE *out, int no_headers);
/* The same, the last column's text wrapped between words so that no line
 * passes width columns (0: no wrap), continuation lines starting under
 * that column; not when it would have under 20 columns. */
void table_print_wrapped(const struct table *t, FILE *out, int no_headers, size_t width);
/* text from column col on, wrapped between words so that no line passes
 * width (0: as it is), continuation lines indented by indent; a word
 * longer than a line stands alone, never cut; then a newline.  text is
 * shown as it is: the caller makes it safe for a terminal. */
void table_wrap(FILE *out, const char *text, size_t col, size_t indent, size_t width);
/* Columns table_print() gives all but the last column (padding included):
 * where the last column starts on every line. */
size_t table_lead_width(const struct table *t, int no_headers);
/* Replaces data row row's last cell (row 0: the first row under the
 * headers) with a copy of s, for a caller that fits it to a width. */
void table_set_last(struct table *t, size_t row, const char *s);

/* apimachinery's duration.HumanDuration of now - then ("95s", "3m5s",
 * "5h7m", "3d4h", "<invalid>"), into out (at least 16 bytes). */
void table_age(time_t then, time_t now, char *out, size_t n);

#endif
