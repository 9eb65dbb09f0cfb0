/* `version`: what this binary is. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "util/xalloc.h"

static const char *const help[] = {
	"Print the version of the plugin and of the libraries it runs on.",
	NULL,
};

int cmd_version(struct cmd_ctx *ctx, int argc, char **argv)
{
	int rc;

	rc = cmd_parse_flags(ctx, "version", NULL, help, argc, argv);
	if (rc)
		return rc < 0 ? 0 : rc;
	printf("kubectl-dynamo_interconnect v%s (%s)\n", PROG_VERSION, curl_version());
	return 0;
}
