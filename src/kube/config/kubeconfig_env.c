/* kubeconfig_env.c: what comes from the process and the pod rather than
 * from kubeconfig files: the server URL rules, namespace order, in-cluster
 * config and --request-timeout. */
#define _GNU_SOURCE  /* secure_getenv */
#include "kubeconfig.h"
#include "kubeconfig_model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/duration.h"
#include "util/log.h"
#include "util/xalloc.h"

#define SA_DIR_DEFAULT "/var/run/secrets/kubernetes.io/serviceaccount"

const char *kc_env(const char *name)
{
	const char *v = secure_getenv(name);
	return v && *v ? v : NULL;
}

static const char *nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

/* IsDNS1123Label */
int kc_dns_label(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > 63)
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];
		int alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
		if (!alnum && (c != '-' || i == 0 || i == n - 1))
			return 0;
	}
	return 1;
}


static int bad_url_char(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

static int has_scheme(const char *s, const char **host)
{
	const char *sep = strstr(s, "://");
	const char *p;

	if (!sep || sep == s)
		return 0;
	for (p = s; p < sep; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '+' || *p == '-' || *p == '.'))
			return 0;
	*host = sep + 3;
	return **host && **host != '/';
}

/* rest.DefaultServerURL: a missing scheme is https when any TLS setting is
 * present, a path is a prefix for every API path (proxies), a trailing '/'
 * goes, and so do query and fragment. */
int kc_normalize_server(const char *in, int default_tls, char **out, struct err *e)
{
	size_t n = strcspn(in, "?#"), keep;
	const char *host;
	char *s;

	*out = NULL;
	if (bad_url_char(in))
		return err_set(e, ERR_CONFIG, "parse \"%s\": net/url: invalid control "
			       "character in URL", in);
	if (has_scheme(in, &host)) {
		s = xstrndup(in, n);
		keep = (size_t)(host - in) + 1;
	} else {
		const char *slash = memchr(in, '/', n);
		if (!n || (slash && slash + 1 != in + n) || strstr(in, "://"))
			return err_set(e, ERR_CONFIG, "host must be a URL or a host:port pair");
		s = xasprintf("%s%.*s", default_tls ? "https://" : "http://", (int)n, in);
		keep = strlen(default_tls ? "https://" : "http://") + 1;
	}
	n = strlen(s);
	while (n > keep && s[n - 1] == '/')
		s[--n] = '\0';
	*out = s;
	return 0;
}

static char *trim_dup(const char *s, size_t len)
{
	while (len && strchr(" \t\r\n\v\f", *s)) {
		s++;
		len--;
	}
	while (len && strchr(" \t\r\n\v\f", s[len - 1]))
		len--;
	return xstrndup(s, len);
}

/* Reads a token (or namespace) file, trimmed.  *out is NULL on failure. */
int kc_read_trimmed(const char *path, char **out, char *why, size_t whylen)
{
	char *data;
	size_t len;

	*out = NULL;
	if (kc_read_file(path, KC_MAX_SMALL_FILE, &data, &len, why, whylen) < 0)
		return -1;
	*out = trim_dup(data, len);
	kc_free_secret(data, len);
	return 0;
}

static const char *sa_dir(void)
{
	const char *d = kc_env(KUBECONFIG_SA_DIR_ENV);
	return d ? d : SA_DIR_DEFAULT;
}

/* inClusterClientConfig.Possible */
int kc_in_cluster_possible(void)
{
	struct stat st;
	char *token;
	int ok;

	if (!kc_env("KUBERNETES_SERVICE_HOST") || !kc_env("KUBERNETES_SERVICE_PORT"))
		return 0;
	token = xasprintf("%s/token", sa_dir());
	ok = stat(token, &st) == 0 && !S_ISDIR(st.st_mode);
	free(token);
	return ok;
}

static int set_namespace(struct kube_config *cfg, const char *ns, struct err *e)
{
	if (!kc_dns_label(ns))
		return err_set(e, ERR_CONFIG, "namespace \"%s\" does not conform to the "
			       "kubernetes DNS_LABEL rules", ns);
	cfg->namespace = xstrdup(ns);
	return 0;
}

/* Flag, context, then (when in-cluster is possible) $POD_NAMESPACE and the
 * service account's namespace file, then "default". */
int kc_resolve_namespace(struct kube_config *cfg, const struct kube_overrides *ov,
			     const char *context_ns, struct err *e)
{
	char *path, *file_ns = NULL, why[512];
	int rc;

	if (nonempty(ov->namespace)) {
		cfg->namespace_from_flag = 1;
		return set_namespace(cfg, ov->namespace, e);
	}
	if (context_ns)
		return set_namespace(cfg, context_ns, e);
	if (!kc_in_cluster_possible())
		return set_namespace(cfg, "default", e);
	if (kc_env("POD_NAMESPACE"))
		return set_namespace(cfg, kc_env("POD_NAMESPACE"), e);
	path = xasprintf("%s/namespace", sa_dir());
	kc_read_trimmed(path, &file_ns, why, sizeof(why));
	free(path);
	rc = set_namespace(cfg, file_ns && *file_ns ? file_ns : "default", e);
	free(file_ns);
	return rc;
}

static int read_ca_flag(struct kube_config *cfg, const char *path, struct err *e)
{
	char why[512];

	if (kc_read_file(path, KC_MAX_SMALL_FILE, &cfg->ca_pem, &cfg->ca_pem_len, why,
			 sizeof(why)) < 0)
		return err_set(e, ERR_CONFIG, "%s", why);
	return 0;
}

/* rest.InClusterConfig plus the three overrides it honours. */
int kc_load_in_cluster(const struct kube_overrides *ov, struct kube_config *cfg,
			   struct err *e)
{
	const char *host = kc_env("KUBERNETES_SERVICE_HOST");
	const char *port = kc_env("KUBERNETES_SERVICE_PORT");
	char *ca = xasprintf("%s/ca.crt", sa_dir()), why[512];
	int rc = 0;

	cfg->in_cluster = 1;
	cfg->context_name = xstrdup("");
	if (nonempty(ov->server))
		rc = kc_normalize_server(ov->server, 1, &cfg->server, e);
	else
		cfg->server = xasprintf(strchr(host, ':') ? "https://[%s]:%s" : "https://%s:%s",
					host, port);
	if (!rc && nonempty(ov->token)) {
		cfg->token = xstrdup(ov->token);
		cfg->token_from_flag = 1;
	} else if (!rc) {
		cfg->token_file = xasprintf("%s/token", sa_dir());
		if (kc_read_trimmed(cfg->token_file, &cfg->token, why, sizeof(why)) < 0)
			rc = err_set(e, ERR_CONFIG, "%s", why);
	}
	if (!rc && nonempty(ov->certificate_authority))
		rc = read_ca_flag(cfg, ov->certificate_authority, e);
	else if (!rc && kc_read_file(ca, KC_MAX_SMALL_FILE, &cfg->ca_pem, &cfg->ca_pem_len,
				     why, sizeof(why)) < 0)
		log_at(2, "Expected to load root CA config from %s, but got err: %s", ca, why);
	free(ca);
	cfg->timeout_ms = ov->request_timeout_ms;
	return rc ? rc : kc_resolve_namespace(cfg, ov, NULL, e);
}


/* --request-timeout: kubectl's ParseTimeout, in util/duration.c. */
int kubeconfig_parse_timeout(const char *s, long *ms, struct err *e)
{
	return duration_parse_ms(s, ms, e);
}
