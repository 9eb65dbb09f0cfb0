/* Credentials that need work before the first request: exec credential
 * plugins (client.authentication.k8s.io v1 and v1beta1) and token files.
 *
 * auth_prepare() runs the plugin once, with a real argv and no shell, and
 * stores the token or client certificate in cfg; it is called once before
 * parallel work starts.  auth_refresh() is called at most once after a 401,
 * and before a request once auth_expired(): it re-runs the plugin or
 * re-reads the token file.  An interactive plugin has no time limit.  Neither is thread-safe;
 * callers serialise them.
 */
#ifndef KUBE_AUTH_H
#define KUBE_AUTH_H

#include <stddef.h>

#include "kubeconfig.h"

int auth_prepare(struct kube_config *cfg, struct err *e);
/* Returns 0 when fresh credentials were obtained, -1 when there is nothing
 * to refresh or the refresh failed (message in e). */
int auth_refresh(struct kube_config *cfg, struct err *e);

/* Whether the plugin's credential has passed its expirationTimestamp: the
 * caller then refreshes before the next request, as client-go does. */
int auth_expired(const struct kube_config *cfg);

/* Whether the token read from cfg->token_file is older than client-go's
 * period (transport/token_source.go NewCachedFileTokenSource: period 1 min,
 * leeway 10 s, so re-read after 50 s): the caller then calls
 * auth_reread_token() before the next request.  Bound service-account
 * tokens are rotated by the kubelet in place, without a 401 first. */
int auth_token_stale(const struct kube_config *cfg);
/* Re-reads the token file; 1 when the token changed, 0 when it did not, -1
 * (message in e) when the file cannot be read: the token held is kept, as
 * client-go's cachingTokenSource keeps its cached token, and the file is
 * tried again before the next request.  Not thread-safe. */
int auth_reread_token(struct kube_config *cfg, struct err *e);

/* For tests: the age after which a token file is re-read (default 50 s;
 * ms <= 0 restores the default).  The environment variable
 * DI_TOKEN_FILE_PERIOD_MS sets it too, for the e2e tests. */
void auth_set_token_period_ms(long ms);
#define AUTH_TOKEN_PERIOD_ENV "DI_TOKEN_FILE_PERIOD_MS"

/* For tests: how long a non-interactive exec plugin may run before it is killed
 * (default 60 s; ms <= 0 restores the default). */
void auth_set_plugin_timeout_ms(long ms);

/* For tests and fuzzing: parses an ExecCredential (apiVersion want) as the
 * plugin would print it; 0 or -1 with kubectl's wording in e. */
int auth_parse_credential(const char *want, const char *json, size_t len, struct err *e);

#endif
