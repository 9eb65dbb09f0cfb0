/* Request-head values checked before anything is sent (issue 12).
 *
 * A credential pasted with a CR or LF would otherwise end our header and
 * start the attacker's (a second request, a DELETE, extra headers).  Go's
 * net/http refuses such a request in Transport.roundTrip, before dialing,
 * with "net/http: invalid header field value for %q" (the value is never
 * quoted: it may be secret), which kubectl prints after "Unable to connect
 * to the server: ".  We do the same, and name where the value came from.
 */
#ifndef KUBE_HDRCHECK_H
#define KUBE_HDRCHECK_H

#include "util/err.h"
#include "http.h"
#include "kube/config/kubeconfig.h"

/* 1 when s may be a field value: golang.org/x/net/http/httpguts
 * ValidHeaderFieldValue allows no control byte but HTAB (so no CR, LF, NUL,
 * DEL); obs-text (>= 0x80) is allowed. */
int hdrcheck_value_ok(const char *s);
/* 1 when s is a token (RFC 7230 tchar), what a field name must be. */
int hdrcheck_name_ok(const char *s);

/* Checks every value that cfg and auth_line (the current Authorization
 * value, or NULL) put into a request head (Authorization, Impersonate-*,
 * the proxy URL's user information); 0, or -1 with kubectl's message
 * naming the source.  http.c calls it with the client's credentials. */
int hdrcheck_config(const struct kube_config *cfg, const char *auth_line,
		    struct err *e);

#endif
