/* The compact check table, the default (-o wide has a column per family):
 * one NOT OK cell names the families that are not ok, and it is fitted to
 * the terminal's width (80 off a terminal) by naming fewer of them, never
 * by cutting a name: kubectl never truncates a pod or node name. */
#include <stdint.h>
#include <string.h>

#include "report_int.h"
#include "table.h"

/* Worst first: a fail is what to read, skipped is what could not be seen. */
static const int order[] = { CHECK_FAIL, CHECK_WARN, CHECK_SKIPPED };

static void add(char *out, size_t n, const char *s)
{
	size_t len = strlen(out);

	if (len < n)
		snprintf(out + len, n - len, "%s", s);
}

/* keep 0: no name fits, so how many of each status ("1 fail, 2 warn"). */
static void counts(const int *fam, size_t nfam, char *out, size_t n)
{
	char one[48];

	out[0] = '\0';
	for (size_t o = 0; o < sizeof(order) / sizeof(order[0]); o++) {
		size_t k = 0;

		for (size_t f = 0; f < nfam; f++)
			k += fam[f] == order[o];
		if (!k)
			continue;
		snprintf(one, sizeof(one), "%s%zu %s", *out ? ", " : "", k,
			 check_status_name((enum check_status)order[o]));
		add(out, n, one);
	}
}

size_t report_brief_cell(const int *fam, size_t nfam, size_t keep, char *out, size_t n)
{
	size_t shown = 0, total = 0, f, o;
	int seen = 0;
	char more[48];

	out[0] = '\0';
	for (o = 0; o < sizeof(order) / sizeof(order[0]); o++) {
		int group = 0;

		for (f = 0; f < nfam; f++) {
			seen |= fam[f] >= 0;
			if (fam[f] != order[o])
				continue;
			if (total++ >= keep)
				continue;
			add(out, n, group ? "," : shown ? "; " : "");
			add(out, n, report_column_name(report_columns[f]));
			group = 1;
			shown++;
		}
		if (group) {
			add(out, n, " ");
			add(out, n, check_status_name((enum check_status)order[o]));
		}
	}
	if (!keep && total) {
		counts(fam, nfam, out, n);
		return total;
	}
	if (total > shown) {
		snprintf(more, sizeof(more), "%s+%zu more", shown ? "; " : "", total - shown);
		add(out, n, more);
	}
	/* No result at all (a pod not probed): "-" as in its family cells. */
	if (!seen)
		add(out, n, "-");
	return total;
}

int report_brief_fit(struct table *t, const int (*fam)[REPORT_MAX_FAMS], size_t width,
		     int no_headers)
{
	size_t lead = table_lead_width(t, no_headers), n = table_rows(t);
	int fits = 1;

	for (size_t i = 0; i < n; i++) {
		char cell[REPORT_BRIEF_MAX];
		size_t keep = report_brief_cell(fam[i], report_ncolumns, SIZE_MAX, cell, sizeof(cell));

		while (keep > 0 && lead + table_text_width(cell) > width)
			report_brief_cell(fam[i], report_ncolumns, --keep, cell, sizeof(cell));
		fits &= lead + table_text_width(cell) <= width;
		table_set_last(t, i, cell);
	}
	return fits;
}

int report_brief_worst(const int *fam, size_t nfam)
{
	for (size_t o = 0; o < sizeof(order) / sizeof(order[0]); o++)
		for (size_t f = 0; f < nfam; f++)
			if (fam[f] == order[o])
				return order[o];
	return CHECK_OK;
}
