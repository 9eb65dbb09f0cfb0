/* The two pieces of the Prometheus text format (exposition_formats.md)
 * every metrics printer shares (report_int.h): a label value escaped as
 * the format says, and a metric's HELP and TYPE lines.  Calls no printer,
 * so prom.c and dgd.c both call down into it. */
#include <stdio.h>
#include <stdlib.h>

#include "report_int.h"
#include "util/safe.h"

#define P "dynamo_interconnect_"

/* A label value as the format escapes it; other control bytes, which the
 * format would carry as they are, become '?' (safe.h: never raw text). */
void report_prom_value(FILE *out, const char *s)
{
	char *u = safe_utf8(s ? s : "");

	for (const unsigned char *p = (const unsigned char *)u; *p; p++) {
		if (*p == '\\')
			fputs("\\\\", out);
		else if (*p == '"')
			fputs("\\\"", out);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p < 0x20 || *p == 0x7f)
			fputc('?', out);
		else
			fputc(*p, out);
	}
	free(u);
}

void report_prom_head(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP " P "%s %s\n# TYPE " P "%s %s\n", name, help, name, type);
}
