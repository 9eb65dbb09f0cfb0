/* Output choices shared by the subcommands: -o and --color. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cmd.h"
#include "report/report.h"

int cmd_print_document(const char *format, const struct report *r, int *rc)
{
	const struct report_format *f = report_format(format);

	if (!f || !f->document)
		return 0;
	*rc = f->document(stdout, r);
	return 1;
}

int cmd_output_format(const struct cmd_ctx *ctx, const struct cmd_entry *cmd,
		      const char **format)
{
	const char *o = ctx->g.output && *ctx->g.output ? ctx->g.output
			: cmd->default_output ? cmd->default_output : "table";
	const char *allowed = cmd->outputs ? cmd->outputs : "table";
	const char *p = allowed;
	size_t n = strlen(o);

	while ((p = strstr(p, o))) {
		if ((p == allowed || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) {
			*format = o;
			return 0;
		}
		p += n;
	}
	fprintf(stderr, "error: unable to match a printer suitable for the output "
		"format \"%s\", allowed formats are: %s\n", o, allowed);
	return -1;
}

int cmd_use_color(const struct cmd_ctx *ctx, FILE *out)
{
	const char *c = ctx->g.color ? ctx->g.color : "auto";
	const char *no = getenv("NO_COLOR");

	if (!strcmp(c, "always"))
		return 1;
	if (!strcmp(c, "never"))
		return 0;
	/* no-color.org: present and non-empty disables colour by default. */
	return (!no || !*no) && isatty(fileno(out));
}

size_t cmd_term_width(FILE *out)
{
	struct winsize ws;
	const char *cols = getenv("COLUMNS");
	long n;

	if (!isatty(fileno(out)))
		return 0;
	if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	/* A terminal that does not say its size (some serial consoles). */
	n = cols ? strtol(cols, NULL, 10) : 0;
	return n > 0 && n < 10000 ? (size_t)n : 80;
}
