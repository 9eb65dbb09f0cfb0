/* Output choices shared by the subcommands: -o and --color. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

int cmd_output_format(const struct cmd_ctx *ctx, const char *allowed,
		      const char **format)
{
	const char *o = ctx->g.output && *ctx->g.output ? ctx->g.output : "table";
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
