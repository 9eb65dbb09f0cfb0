/* kubeconfig: which files, merge, overrides, in-cluster (kubeconfig.md).
 *
 * kubeconfig_load() does what client-go's deferred loading config does and
 * leaves a fully resolved struct kube_config: the one place the rest of the
 * program reads connection settings from.  Credentials from exec plugins are
 * not fetched here; auth_prepare() (auth.h) does that once, before any
 * parallel work.
 */
#ifndef KUBE_KUBECONFIG_H
#define KUBE_KUBECONFIG_H

#include <stddef.h>

#include "util/err.h"

/* The kubectl global flags.  NULL / -1 mean "not given". */
struct kube_overrides {
	const char *kubeconfig;      /* --kubeconfig: one file, must exist */
	const char *context;
	const char *cluster;
	const char *user;
	const char *namespace;       /* -n */
	const char *server;          /* -s */
	const char *token;
	const char *certificate_authority;
	const char *client_certificate;
	const char *client_key;
	const char *tls_server_name;
	const char *username;
	const char *password;
	int insecure_skip_tls_verify; /* -1 unset, 0, 1 */
	long request_timeout_ms;      /* 0: none given */
	/* impersonation: --as, --as-uid, --as-group (repeatable),
	 * --as-user-extra ("key=value", repeatable); lists NULL-terminated */
	const char *as;
	const char *as_uid;
	const char *const *as_groups;
	const char *const *as_user_extra;
};

#define KUBE_OVERRIDES_INIT { .insecure_skip_tls_verify = -1 }

/* An exec credential plugin as configured (users[].user.exec). */
struct kube_exec_plugin {
	char *command;          /* resolved against the kubeconfig dir if it has a '/' */
	char **args;            /* NULL-terminated */
	char **env;             /* NULL-terminated "NAME=value" entries */
	char *api_version;      /* client.authentication.k8s.io/v1 or v1beta1 */
	char *install_hint;
	char *interactive_mode; /* Never | IfAvailable | Always */
	int provide_cluster_info;
	/* The cluster's extension "client.authentication.k8s.io/exec" as
	 * JSON, passed as spec.cluster.config; NULL when absent. */
	char *cluster_config_json;
};

/* Resolved settings; every string is owned by the struct. */
struct kube_config {
	char *context_name;       /* "" when none (in-cluster, --server only) */
	char *server;             /* scheme://host[:port][/prefix], no trailing '/' */
	char *namespace;          /* after kubectl's resolution order; never NULL */
	int namespace_from_flag;

	/* TLS */
	char *ca_pem;             /* CA bundle bytes (from data or file) or NULL */
	size_t ca_pem_len;
	int insecure;             /* skip server verification */
	char *tls_server_name;
	char *client_cert_pem;    /* client certificate bytes or NULL */
	size_t client_cert_pem_len;
	char *client_key_pem;
	size_t client_key_pem_len;

	/* HTTP auth: at most one of these is used for the Authorization header */
	char *token;              /* bearer; may be filled by auth_prepare() */
	char *token_file;         /* re-read on 401 (bound tokens rotate) */
	char *username;
	char *password;
	struct kube_exec_plugin *exec;  /* NULL unless the user has one */
	int token_from_flag;      /* --token given: the plugin is not consulted */

	char *proxy_url;          /* NULL: curl honours HTTPS_PROXY/NO_PROXY */
	int disable_compression;
	long timeout_ms;          /* --request-timeout; 0 = none */
	int in_cluster;

	/* Impersonation headers (Impersonate-User, -Uid, -Group,
	 * -Extra-<key>); lists NULL-terminated, "key=value" for extras. */
	char *impersonate_user;
	char *impersonate_uid;
	char **impersonate_groups;
	char **impersonate_extra;

	/* Set by auth_prepare() when the token or client certificate came
	 * from the exec plugin (auth_refresh() then re-runs it), with the
	 * plugin's expirationTimestamp in Unix seconds (0: none given). */
	int creds_from_exec;
	long long exec_expiry;

	/* When token was last read from token_file (monotonic ms, set by
	 * auth_prepare()): client-go re-reads the file once it is older than
	 * its period (auth_token_stale()). */
	long long token_read_ms;
};

/* Loads and resolves.  On failure returns -1 with a kubectl-worded message
 * in e (e.g. 'context "x" does not exist', 'error loading config file ...').
 * cfg is then released.  cfg must be released with kubeconfig_release(). */
int kubeconfig_load(const struct kube_overrides *ov, struct kube_config *cfg,
		    struct err *e);
void kubeconfig_release(struct kube_config *cfg);

/* Parses --request-timeout as kubectl does ("0", "5", "5s", "2m", "1h30m").
 * Returns 0 and the value in ms, or -1 with kubectl's error text in e. */
int kubeconfig_parse_timeout(const char *s, long *ms, struct err *e);

/* For tests and fuzzing. */

/* kubeconfig_load() with data as the one and only kubeconfig file, named
 * path (for messages and relative paths); ov->kubeconfig is ignored. */
int kubeconfig_load_buffer(const char *data, size_t len, const char *path,
			   const struct kube_overrides *ov,
			   struct kube_config *cfg, struct err *e);

/* Test-only: the environment variable DI_SERVICEACCOUNT_DIR replaces
 * /var/run/secrets/kubernetes.io/serviceaccount (token, ca.crt, namespace)
 * so that in-cluster loading can be tested outside a pod. */
#define KUBECONFIG_SA_DIR_ENV "DI_SERVICEACCOUNT_DIR"

#endif
