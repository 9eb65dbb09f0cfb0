/* Reading the DynamoGraphDeployments (issue 27): GET and LIST only, group
 * nvidia.com, v1beta1 first and v1alpha1 when the server does not serve
 * v1beta1 (the generic 404).  Parses the CR into model/dgd.h; judging is
 * check/dgd.c's. */
#ifndef KUBE_DGD_H
#define KUBE_DGD_H

#include <stddef.h>

#include "model/dgd.h"
#include "util/err.h"
#include "kube/http/http.h"

/* Reads the DGDs of ns (all namespaces with all_ns), or just the one
 * called name.  A 403 or an unreadable answer is not an error of the run:
 * out->access and out->note say it.  -1 with e set only when name was
 * asked for and the server says it does not exist.  Release out with
 * dgd_set_release() either way. */
int dgd_fetch(struct http_client *c, const char *ns, int all_ns,
	      const char *name, struct dgd_set *out, struct err *e);

/* Adds a DynamoGraphDeploymentList or one DynamoGraphDeployment (JSON body
 * of version "v1beta1" or "v1alpha1") to out, which starts zeroed.  0, or
 * -1 with a one-line reason in e (wrong types, too many items). */
int dgd_parse(const char *body, size_t len, const char *version,
	      struct dgd_set *out, struct err *e);

/* Keeps item i of s where keep[i] (keep holds s->n flags), releasing the
 * others; the kept stay in order. */
void dgd_set_keep(struct dgd_set *s, const unsigned char *keep);

void dgd_set_release(struct dgd_set *s);

#endif
