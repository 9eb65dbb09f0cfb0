/* Running a command in a pod: GET .../exec upgraded to WebSocket (v5 or v4
 * channel protocol), stdout/stderr/status demultiplexed (exec-protocol.md).
 *
 * Knows nothing of what the command is; the argv is passed one `command=`
 * parameter per element, never through a shell added by us.  A script for
 * the command travels on stdin, keeping the request line short.
 */
#ifndef KUBE_EXEC_H
#define KUBE_EXEC_H

#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"
#include "kube/http/http.h"

struct exec_request {
	const char *namespace;
	const char *pod;
	const char *container;      /* NULL: let the server choose */
	const char *const *argv;    /* NULL-terminated */
	/* Bytes for the command's stdin (stdin=true), sent right after the
	 * upgrade; on v5 followed by the CLOSE signal for stdin.  v4 cannot
	 * close stdin, so the command must end by itself after reading them
	 * (a script ending in `exit`).  NULL: no stdin. */
	const char *stdin_data;
	size_t stdin_len;
	long timeout_ms;            /* whole exec, from connect to close; 0 = 60 s */
	size_t max_output;          /* cap per stream; 0 = 16 MiB */
};

enum exec_outcome {
	EXEC_SUCCESS,      /* status Success */
	EXEC_EXIT_CODE,    /* ran, exited non-zero: exit_code */
	EXEC_FAILED,       /* the server could not run it: message */
	EXEC_NO_STATUS,    /* stream ended without a status */
	EXEC_ERROR,        /* no upgrade or broken stream: message */
	EXEC_TIMEOUT,      /* deadline passed */
};

struct exec_result {
	enum exec_outcome outcome;
	int exit_code;
	int protocol;          /* 5, 4, or 0 when no upgrade */
	long http_status;      /* of the upgrade answer */
	int truncated;         /* output passed max_output; the rest was dropped */
	struct buf out;        /* stdout, owned */
	struct buf err;        /* stderr, owned */
	char message[512];     /* one line, kubectl's wording, for FAILED/ERROR/TIMEOUT */
	struct err_denial denied;   /* what RBAC refused (a 403 upgrade); else empty */
};

/* Runs the exec; always fills res (release with exec_result_release()).
 * Returns 0 when the command ran (SUCCESS or EXIT_CODE), -1 otherwise. */
int exec_run(struct http_client *c, const struct exec_request *rq,
	     struct exec_result *res);
void exec_result_release(struct exec_result *res);
const char *exec_outcome_name(enum exec_outcome o);

/* For tests: the parts of exec_run that work on bytes alone. */

/* The status code of a response head ("HTTP/1.1 101 ..."), -1 if it is not
 * an HTTP/1.x status line. */
long exec_head_status(const char *head, size_t len);
/* Checks a 101 head against the key we sent: Upgrade/Connection tokens,
 * the exact Sec-WebSocket-Accept, a subprotocol we offered (v5 or v4; sets
 * *protocol), no extensions.  -1 with a one-line reason in msg. */
int exec_check_upgrade(const char *head, size_t len, const char *key,
		       int *protocol, char *msg, size_t msgsz);
/* Decodes the channel-3 bytes (a metav1.Status) into res->outcome,
 * exit_code and message, the way client-go's errorDecoderV4 does. */
void exec_decode_status(const char *json, size_t len,
			struct exec_result *res);

#endif
