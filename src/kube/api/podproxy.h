/* A worker's metrics through the API server's pod proxy (issue 45 point
 * 1): GET /api/v1/namespaces/NS/pods/NAME:PORT/proxy/metrics, the pods/proxy
 * subresource (kubernetes pkg/registry/core/pod/rest/subresources.go
 * ProxyREST, strategy.go ResourceLocation: "NAME:PORT" names the pod and its port; RBAC verb get on
 * pods/proxy).  The API server connects to the pod's IP, so nothing needs
 * an HTTP client in the pod and the probe stays the fixed script.
 *
 * Read-only: only a GET; the path after proxy/ is fixed ("metrics"), the
 * port a number the caller took from the pod object; the body is never
 * logged (-v 8) and is bounded. */
#ifndef KUBE_PODPROXY_H
#define KUBE_PODPROXY_H

#include "kube/http/http.h"

#define PODPROXY_TIMEOUT_MS 5000L

/* The request path, every name escaped; NULL when port is not 1-65535.
 * Caller frees.  For tests. */
char *podproxy_metrics_path(const char *ns, const char *pod, long port);

/* Replaces out's contents with the metrics text (cut at max_body bytes).
 * 0, or -1 with e in kubectl's words and e->http_status set when the
 * server answered (403: no get on pods/proxy; 503: nothing listens). */
int podproxy_metrics(struct http_client *c, const char *ns, const char *pod, long port,
		     size_t max_body, struct buf *out, struct err *e);

#endif
