/* `probe-script`: the exact bytes every probe exec sends, so a reviewer
 * asked to grant pods/exec can read what will run (issue 44 point 9). */
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "run/run.h"

static const char *const help[] = {
	"Print the probe exactly as `check`, `node` and `nixl` send it, byte for byte.",
	"",
	"Each probed pod gets one exec of `sh -s` (pods/exec, in its worker container)",
	"whose stdin is this text: the embedded read-only probe (src/probe/probe.sh,",
	"its comment and blank lines dropped) in braces reading /dev/null, then `exit`.",
	"`version` shows its sha256; compare with `... probe-script | sha256sum`.",
	"Nothing is sent anywhere.",
	"",
	"Examples:",
	"  # Read the probe before granting pods/exec",
	"  kubectl dynamo-interconnect probe-script | less",
	NULL,
};

static int cmd_probe_script(struct cmd_ctx *ctx, int argc, char **argv)
{
	size_t len;
	char *text;
	int rc = cmd_start(ctx, &cmd_probe_script_entry, argc, argv, NULL);

	if (rc)
		return rc < 0 ? 0 : rc;
	text = run_probe_stdin(&len);
	rc = fwrite(text, 1, len, stdout) == len ? 0 : EXIT_ERROR;
	free(text);
	return rc;
}

const struct cmd_entry cmd_probe_script_entry = {
	.name = "probe-script", .summary = "Print the probe script exactly as it is sent to each pod",
	.help = help, .opts = NULL, .run = cmd_probe_script, .globals = cmd_globals_local,
};
