/* The -o formats of a report and what each one is (report.h struct
 * report_format): the one place that says which formats are documents,
 * which hold the DGD part and which are text for a terminal. */
#include <string.h>

#include "report/report.h"

static const struct report_format formats[] = {
	/* name, document, holds_dgd, text, wide */
	{ "table", NULL, 0, 1, 0 },
	{ "wide", NULL, 0, 1, 1 },
	{ "json", report_print_json, 1, 0, 0 },
	{ "yaml", report_print_yaml, 1, 0, 0 },
	/* junit and html have no place for the DGD part: it goes to stderr. */
	{ "junit", report_print_junit, 0, 0, 0 },
	{ "html", report_print_html, 0, 0, 0 },
	{ "prometheus", report_print_prometheus, 1, 0, 0 },
};

const struct report_format *report_format(const char *name)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(name, formats[i].name))
			return &formats[i];
	return NULL;
}
