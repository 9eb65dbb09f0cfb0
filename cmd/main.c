/* kubectl-dynamo_interconnect: the entry point and the subcommand table. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

/* The subcommands, in the order -h lists them; each is declared once, in
 * its own file (cmd.h struct cmd_entry). */
static const struct cmd_entry *const commands[] = {
	&cmd_check_entry, &cmd_env_entry, &cmd_completion_entry, &cmd_nixl_entry,
	&cmd_node_entry, &cmd_pods_entry, &cmd_probe_script_entry, &cmd_rbac_entry,
	&cmd_version_entry, &cmd_known_issues_entry,
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/* curl's habit: make sure fds 0-2 exist, so that a socket or file we open
 * can never be mistaken for stdout. */
static void check_fds(void)
{
	int fd;

	do {
		fd = open("/dev/null", O_RDWR);
	} while (fd >= 0 && fd <= 2);
	if (fd > 2)
		close(fd);
}

/* Run by kubectl, usage reads as the user typed it; run directly, it names
 * the binary.  kubectl execs a plugin by the absolute path it found on PATH
 * (and newer versions set KUBECTL_PATH); a shell passes argv[0] as typed. */
static const char *usage_name(const char *argv0)
{
	const char *base = strrchr(argv0, '/');

	base = base ? base + 1 : argv0;
	if (strncmp(base, "kubectl-", 8))
		return base;
	if (getenv("KUBECTL_PATH") || argv0[0] == '/')
		return "kubectl dynamo-interconnect";
	return base;
}

static void print_usage(const char *name, FILE *out)
{
	size_t i, w = 0;

	/* Names padded to the longest plus two, so each stays one token. */
	for (i = 0; i < NCOMMANDS; i++)
		if (strlen(commands[i]->name) > w)
			w = strlen(commands[i]->name);
	fprintf(out, "Check that the fast transport of an NVIDIA Dynamo deployment "
		"(NIXL over UCX/libfabric: RDMA, NVLink) can be trusted.\n"
		"Read-only: it lists pods and execs a fixed probe; nothing is changed.\n\n"
		"Available Commands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-*s %s\n", (int)w + 1, commands[i]->name, commands[i]->summary);
	fprintf(out, "\nUsage:\n  %s COMMAND [options]\n\n"
		"Use \"%s COMMAND -h\" for more information about a command.\n",
		name, name);
}

static int dispatch(struct cmd_ctx *ctx, int argc, char **argv)
{
	size_t i;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		print_usage(ctx->usage_name, argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_ERROR : 0;
	}
	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(argv[1], commands[i]->name))
			return commands[i]->run(ctx, argc - 2, argv + 2);
	fprintf(stderr, "error: unknown command \"%s\" for \"%s\"\n"
		"Run '%s --help' for usage.\n", argv[1], ctx->usage_name,
		ctx->usage_name);
	return EXIT_ERROR;
}

/* Untouched (and unbacked) unless stdout is a file or pipe. */
static char stdout_buf[4u << 20];

int main(int argc, char **argv)
{
	struct cmd_ctx ctx;
	int rc;

	check_fds();
	/* A closed socket or `| head` must not kill us mid-run. */
	signal(SIGPIPE, SIG_IGN);
	/* Into a file or pipe, the report leaves in one write at exit, where
	 * cmd_flush_stdout() sees the write's own errno (ENOSPC, EIO, ...). */
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, stdout_buf, _IOFBF, sizeof(stdout_buf));
	memset(&ctx, 0, sizeof(ctx));
	ctx.usage_name = usage_name(argc > 0 ? argv[0] : "kubectl-dynamo_interconnect");
	if (cmd_complete_requested(argc, argv))
		rc = cmd_complete(&ctx, commands, NCOMMANDS, argc, argv);
	else
		rc = dispatch(&ctx, argc, argv);
	return cmd_flush_stdout() < 0 ? EXIT_ERROR : rc;
}
