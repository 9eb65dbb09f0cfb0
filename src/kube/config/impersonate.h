/* Impersonation headers, as client-go's impersonatingRoundTripper sends
 * them (transport/round_trippers.go): Impersonate-User, then Impersonate-Uid,
 * then one Impersonate-Group per group, then one Impersonate-Extra-<key>
 * per value, the key escaped by headerKeyEscape (bytes outside the HTTP
 * token set, and '%', as %XX).  Sent on every request, exec and log reads
 * included, when a user to impersonate is set (kubeconfig `as`, `--as`).
 */
#ifndef KUBE_IMPERSONATE_H
#define KUBE_IMPERSONATE_H

#include "util/err.h"
#include "kubeconfig.h"

/* Calls fn for each header in client-go's order; nothing when cfg asks
 * for no impersonation.  name is valid only during the call. */
void impersonate_each(const struct kube_config *cfg,
		      void (*fn)(const char *name, const char *value, void *arg),
		      void *arg);

/* Values are checked before anything is sent by hdrcheck.h, which names
 * where a bad one came from. */

#endif
