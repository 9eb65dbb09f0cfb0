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
	char **pos = xcalloc((size_t)argc + 1, sizeof(char *));
	int npos, rc;

	rc = cmd_parse(ctx, "version", NULL, help, argc, argv, pos, &npos);
	free(pos);
	if (rc)
		return rc < 0 ? 0 : rc;
	printf("kubectl-dynamo_interconnect v%s (%s)\n", PROG_VERSION, curl_version());
	return 0;
}
