/* GET a worker's /metrics through the pod proxy (podproxy.h). */
#include "podproxy.h"

#include <stdlib.h>

#include "kube/api/logs.h"
#include "util/xalloc.h"

char *podproxy_metrics_path(const char *ns, const char *pod, long port)
{
	char *n, *p, *path;

	if (port < 1 || port > 65535)
		return NULL;
	n = http_escape(ns);
	p = http_escape(pod);
	/* %3A would name a pod "NAME:PORT"; the colon is the subresource's
	 * separator and stays as it is (kubectl get --raw writes it so). */
	path = xasprintf("/api/v1/namespaces/%s/pods/%s:%ld/proxy/metrics", n, p, port);
	free(n);
	free(p);
	return path;
}

int podproxy_metrics(struct http_client *c, const char *ns, const char *pod, long port,
		     size_t max_body, struct buf *out, struct err *e)
{
	struct http_get_opts o = { .timeout_ms = PODPROXY_TIMEOUT_MS, .private_body = 1,
				   .max_body = max_body };
	char *path = podproxy_metrics_path(ns, pod, port);
	int rc;

	if (!path) {
		err_set(e, ERR_USAGE, "metrics port %ld is not 1-65535", port);
		return -1;
	}
	rc = api_get_body(c, path, &o, out, e);
	free(path);
	return rc;
}
