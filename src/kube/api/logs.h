/* The tail of one container's log (GET .../pods/NAME/log), bounded.
 *
 * Read-only and private: only a GET, the body is never logged (-v 8), and
 * the caller gets the bytes to scan, not to print.  Without previous=true
 * the API server returns the current container's log, i.e. since its start.
 */
#ifndef KUBE_LOGS_H
#define KUBE_LOGS_H

#include "kube/http/http.h"

#define LOGS_DEFAULT_TAIL_LINES 5000L
#define LOGS_DEFAULT_LIMIT_BYTES (1L << 20)
#define LOGS_DEFAULT_TIMEOUT_MS 20000L

struct logs_query {
	const char *namespace;
	const char *pod;
	const char *container;    /* NULL or "": the server's default */
	long tail_lines;          /* > 0 */
	long limit_bytes;         /* > 0 */
	long timeout_ms;          /* whole request; 0: the client's */
};

/* The request path, every name escaped.  Caller frees.  For tests. */
char *logs_path(const struct logs_query *q);

/* Replaces out's contents with the tail (the caller releases out; the
 * body is cut at limit_bytes should the server send more).
 * 0, or -1 with e in kubectl's words ("Error from server (Forbidden):
 * pods \"x\" is forbidden: ... \"pods/log\" ...", "... is waiting to
 * start: ContainerCreating") and e->http_status set when the server
 * answered. */
int logs_tail(struct http_client *c, const struct logs_query *q,
	      struct buf *out, struct err *e);

/* GET path with o, the body moved into out (replacing its contents):
 * what logs_tail and the pod proxy's metrics read (podproxy.h) share.
 * 0, or -1 with e as http_get_with sets it. */
int api_get_body(struct http_client *c, const char *path, const struct http_get_opts *o,
		 struct buf *out, struct err *e);

#endif
