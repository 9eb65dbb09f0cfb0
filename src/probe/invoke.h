/* How the plugin's fixed scripts (the probe, the transfer scripts) are run
 * in a pod: always the same short command, the script on its stdin.
 *
 * The command is `sh -s` (plus `--` and positional arguments for the
 * transfer scripts), a constant, so the exec request line stays short
 * whatever the script's size (proxies answer 414 past 8 KiB) and the
 * request log shows the same command= for every pod.  The script travels
 * on stdin (exec stdin=true) wrapped so that:
 *   - the shell parses the whole script before running any of it, and the
 *     script's commands read /dev/null, never the rest of the script:
 *     "{\n" SCRIPT "\n} </dev/null\n";
 *   - the shell ends by itself after it, since v4 cannot close stdin
 *     (exec-protocol.md §3): "exit\n" (the script's own status).
 */
#ifndef PROBE_INVOKE_H
#define PROBE_INVOKE_H

#include <stddef.h>

/* { "sh", "-s", NULL }: the probe's whole command line. */
extern const char *const invoke_probe_argv[];

/* The stdin bytes for script (NUL-terminated): owned by the caller, length
 * in *len. */
char *invoke_stdin(const char *script, size_t *len);

#endif
