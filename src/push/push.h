/* check --pushgateway: metrics pushed to a Prometheus Pushgateway
 * (github.com/prometheus/pushgateway README "API"): PUT
 * <base>/metrics/job/<job>{/<label>/<value>} with the text format, which
 * replaces the whole group.  It is not the Kubernetes API and shares
 * nothing with kube/: no kubeconfig credentials ever go to it.
 */
#ifndef PUSH_PUSH_H
#define PUSH_PUSH_H

#include <stddef.h>

#include "util/err.h"

#define PUSH_JOB "dynamo_interconnect"
#define PUSH_TIMEOUT_MS 10000

/* One grouping-key element "/<label>/<value>" appended to buf (n bytes);
 * a value that holds '/' or is empty takes the README's base64 form
 * "/<label>@base64/<base64url>" (empty: "="); 0, or -1 when it does not
 * fit. */
int push_key_append(char *buf, size_t n, const char *label, const char *value);

/* Whether base is a URL push_put can use (http:// or https://, a host, no
 * query or fragment); checked before the run, so a bad flag costs no
 * probe.  0, or -1 with one line in e. */
int push_check_url(const char *base, struct err *e);

/* PUTs body (len bytes, text format 0.0.4) to base (http:// or https://,
 * no trailing path needed) + path, within timeout_ms for the whole
 * request; TLS verified against the system's CAs.  0 on a 2xx answer;
 * -1 with one line in e (refused, timeout, bad URL, an HTTP error). */
int push_put(const char *base, const char *path, const char *body, size_t len,
	     long timeout_ms, struct err *e);

#endif
