#include "logs.h"

#include <stdlib.h>

#include "util/xalloc.h"

char *logs_path(const struct logs_query *q)
{
	char *ns = http_escape(q->namespace);
	char *pod = http_escape(q->pod);
	char *ct = q->container && *q->container ? http_escape(q->container) : NULL;
	char *path;

	path = xasprintf("/api/v1/namespaces/%s/pods/%s/log?%s%s%stailLines=%ld&limitBytes=%ld",
			 ns, pod, ct ? "container=" : "", ct ? ct : "", ct ? "&" : "",
			 q->tail_lines, q->limit_bytes);
	free(ns);
	free(pod);
	free(ct);
	return path;
}

int logs_tail(struct http_client *c, const struct logs_query *q,
	      struct buf *out, struct err *e)
{
	/* limitBytes is the server's to honour; one that ignores it must not
	 * make us hold 64 MiB per pod (x512 pods in parallel): cut it here. */
	struct http_get_opts o = { .timeout_ms = q->timeout_ms, .private_body = 1,
				   .max_body = q->limit_bytes > 0 ? (size_t)q->limit_bytes : 0 };
	char *path = logs_path(q);
	int rc = api_get_body(c, path, &o, out, e);

	free(path);
	return rc;
}

int api_get_body(struct http_client *c, const char *path, const struct http_get_opts *o,
		 struct buf *out, struct err *e)
{
	struct http_response resp;
	int rc = http_get_with(c, path, o, &resp, e);

	if (rc == 0) {
		buf_release(out);
		*out = resp.body;          /* moved: the caller owns it now */
		buf_init(&resp.body, 0);
	}
	http_response_release(&resp);
	return rc;
}
