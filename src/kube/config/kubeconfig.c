/* kubeconfig_load(): client-go's DeferredLoadingClientConfig in C.
 *
 * Steps (kubeconfig.md §13): pick the files, parse each (kubeconfig_yaml.c),
 * look entries up first-file-wins, lay the flag overrides on top with
 * client-go's special cases, validate with client-go's messages, fall back
 * to in-cluster when nothing is configured, then copy the result into a
 * struct kube_config that owns everything.
 */
#include "kubeconfig.h"
#include "kubeconfig_model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/log.h"
#include "util/xalloc.h"


#define MAX_CONFIG_ERRORS 16

/* The selected entries with overrides applied.  The structs are views:
 * their pointers are borrowed from the set or the overrides. */
struct selection {
	const char *context_name;
	const struct kc_context *context;
	const char *cluster_name;
	struct kc_cluster cluster;
	const char *user_name;
	struct kc_user user;
};

/* Bytes read while validating, handed to the config at the end. */
struct material {
	struct kc_blob ca, cert, key;
};

struct problems {
	char *msg[MAX_CONFIG_ERRORS];
	size_t n;
	int empty_cluster;  /* "cluster has no server defined" */
	int no_server;      /* the cluster has other settings but no server */
};

static const char *nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

/* ---- lookups (first file wins, the whole entry from that file) ---- */

#define FIND(type, arr, count)                                              \
	static const struct type *find_##type(const struct kc_set *s,       \
					      const char *name)             \
	{                                                                   \
		size_t i, j;                                                \
		for (i = 0; name && i < s->n; i++)                          \
			for (j = 0; j < s->files[i].count; j++)             \
				if (!strcmp(s->files[i].arr[j].name, name)) \
					return &s->files[i].arr[j];         \
		return NULL;                                                \
	}
FIND(kc_cluster, clusters, n_clusters)
FIND(kc_user, users, n_users)
FIND(kc_context, contexts, n_contexts)
#undef FIND

static const char *current_context(const struct kc_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->files[i].current_context)
			return s->files[i].current_context;
	return "";
}

/* getAuthInfo, getContext, getCluster, in that order: a name the user typed
 * must exist. */
static int select_entries(const struct kc_set *s, const struct kube_overrides *ov,
			  struct selection *sel, struct err *e)
{
	const struct kc_cluster *c;
	const struct kc_user *u;

	memset(sel, 0, sizeof(*sel));
	sel->context_name = nonempty(ov->context) ? ov->context : current_context(s);
	sel->context = *sel->context_name ? find_kc_context(s, sel->context_name) : NULL;
	sel->user_name = nonempty(ov->user) ? ov->user :
			 sel->context && sel->context->user ? sel->context->user : "";
	u = find_kc_user(s, sel->user_name);
	if (!u && nonempty(ov->user))
		return err_set(e, ERR_CONFIG, "auth info \"%s\" does not exist", ov->user);
	if (!sel->context && nonempty(ov->context))
		return err_set(e, ERR_CONFIG, "context \"%s\" does not exist", ov->context);
	sel->cluster_name = nonempty(ov->cluster) ? ov->cluster :
			    sel->context && sel->context->cluster ? sel->context->cluster : "";
	c = find_kc_cluster(s, sel->cluster_name);
	if (!c && nonempty(ov->cluster))
		return err_set(e, ERR_CONFIG, "cluster \"%s\" does not exist", ov->cluster);
	if (c)
		sel->cluster = *c;
	if (u)
		sel->user = *u;
	return 0;
}

/* client_config.go getCluster: overrides on top, then the special cases. */
static void override_cluster(struct kc_cluster *c, const struct kube_overrides *ov)
{
	const char *ca = nonempty(ov->certificate_authority);

	if (nonempty(ov->server))
		c->server = (char *)ov->server;
	if (ca || ov->insecure_skip_tls_verify == 1) {
		/* --insecure-skip-tls-verify clears the CA; --certificate-authority
		 * clears insecure and the CA data. */
		c->insecure = ov->insecure_skip_tls_verify == 1;
		c->ca_file = (char *)ca;
		c->ca_data.data = NULL;
		c->ca_data.len = 0;
	}
	/* --server drops the kubeconfig's tls-server-name: it named the old host */
	if (nonempty(ov->tls_server_name) || nonempty(ov->server))
		c->tls_server_name = (char *)nonempty(ov->tls_server_name);
}

static void override_user(struct kc_user *u, const struct kube_overrides *ov)
{
	if (nonempty(ov->client_certificate)) {
		u->client_cert_file = (char *)ov->client_certificate;
		u->client_cert_data.data = NULL;
		u->client_cert_data.len = 0;
	}
	if (nonempty(ov->client_key)) {
		u->client_key_file = (char *)ov->client_key;
		u->client_key_data.data = NULL;
		u->client_key_data.len = 0;
	}
	if (nonempty(ov->token)) {
		u->token = (char *)ov->token;
		u->token_file = NULL;
	}
	if (nonempty(ov->username))
		u->username = (char *)ov->username;
	if (nonempty(ov->password))
		u->password = (char *)ov->password;
	if (nonempty(ov->as))
		u->as = (char *)ov->as;
	if (nonempty(ov->as_uid))
		u->as_uid = (char *)ov->as_uid;
	if (ov->as_groups && ov->as_groups[0])
		u->as_groups = (char **)ov->as_groups;
	if (ov->as_user_extra && ov->as_user_extra[0])
		u->as_user_extra = (char **)ov->as_user_extra;
}

/* ---- validation (validation.go ConfirmUsable) ---- */

static void problem(struct problems *p, char *msg)
{
	if (p->n < MAX_CONFIG_ERRORS)
		p->msg[p->n++] = msg;
	else
		free(msg);
}

static void problems_release(struct problems *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->msg[i]);
	p->n = 0;
}

static void read_into(struct problems *p, const char *path, const char *what,
		      const char *owner, struct kc_blob *out)
{
	char why[512];

	if (kc_read_file(path, KC_MAX_SMALL_FILE, &out->data, &out->len, why,
			 sizeof(why)) < 0)
		problem(p, xasprintf("unable to read %s %s for %s due to %s", what,
				     path, owner, why));
}

static int cluster_is_empty(const struct kc_cluster *c)
{
	return !c->server && !c->ca_file && !c->ca_data.data && !c->tls_server_name &&
	       !c->proxy_url && !c->insecure && !c->disable_compression &&
	       !c->exec_config_json;
}

static const char *proxy_scheme_error(const char *url, char *scheme, size_t n)
{
	const char *colon = strstr(url, "://");
	size_t len = colon ? (size_t)(colon - url) : 0;

	snprintf(scheme, n, "%.*s", (int)len, url);
	if (!strcmp(scheme, "http") || !strcmp(scheme, "https") ||
	    !strcmp(scheme, "socks5"))
		return NULL;
	return scheme;
}

static void validate_cluster(const struct selection *s, struct problems *p,
			     struct material *m)
{
	const struct kc_cluster *c = &s->cluster;
	char scheme[64];

	if (cluster_is_empty(c)) {
		p->empty_cluster = 1;
		problem(p, xstrdup("cluster has no server defined"));
		return;
	}
	if (!c->server) {
		p->no_server = 1;
		problem(p, *s->cluster_name ?
			   xasprintf("no server found for cluster \"%s\"", s->cluster_name) :
			   xstrdup("default cluster has no server defined"));
	}
	if (c->proxy_url && proxy_scheme_error(c->proxy_url, scheme, sizeof(scheme)))
		problem(p, xasprintf("invalid 'proxy-url' \"%s\" for cluster \"%s\": "
				     "unsupported scheme \"%s\", must be http, https, or socks5",
				     c->proxy_url, s->cluster_name, scheme));
	if (c->ca_file && c->ca_data.data)
		log_at(1, "certificate-authority-data and certificate-authority are both "
		       "specified for %s. certificate-authority-data will override.",
		       s->cluster_name);
	else if (c->ca_file)
		read_into(p, c->ca_file, "certificate-authority", s->cluster_name, &m->ca);
}

static void validate_client_cert(const char *name, const struct kc_user *u,
				 struct problems *p, struct material *m)
{
	if (!u->client_cert_file && !u->client_cert_data.data)
		return;
	if (u->client_cert_file && u->client_cert_data.data)
		log_at(1, "client-cert-data and client-cert are both specified for %s. "
		       "client-cert-data will override.", name);
	if (!u->client_key_file && !u->client_key_data.data) {
		problem(p, xasprintf("client-key-data or client-key must be specified for "
				     "%s to use the clientCert authentication method.", name));
		return;
	}
	if (!u->client_cert_data.data)
		read_into(p, u->client_cert_file, "client-cert", name, &m->cert);
	if (!u->client_key_data.data)
		read_into(p, u->client_key_file, "client-key", name, &m->key);
}

static void validate_exec(const char *name, const struct kc_user *u, struct problems *p)
{
	const struct kube_exec_plugin *x = u->exec;
	const char *mode = x->interactive_mode;
	char **env;

	if (u->auth_provider)
		problem(p, xasprintf("authProvider cannot be provided in combination with "
				     "an exec plugin for %s", name));
	if (!x->command)
		problem(p, xasprintf("command must be specified for %s to use exec "
				     "authentication plugin", name));
	if (!x->api_version)
		problem(p, xasprintf("apiVersion must be specified for %s to use exec "
				     "authentication plugin", name));
	for (env = x->env; env && *env; env++)
		if (**env == '=')
			problem(p, xasprintf("env variable name must be specified for %s to "
					     "use exec authentication plugin", name));
	if (!mode)
		problem(p, xasprintf("interactiveMode must be specified for %s to use exec "
				     "authentication plugin", name));
	else if (strcmp(mode, "Never") && strcmp(mode, "IfAvailable") && strcmp(mode, "Always"))
		problem(p, xasprintf("invalid interactiveMode for %s: \"%s\"", name, mode));
}

static void validate_user(const struct selection *s, struct problems *p,
			  struct material *m)
{
	const struct kc_user *u = &s->user;
	const char *name = s->user_name;

	if (u->token && (u->username || u->password))
		problem(p, xasprintf("more than one authentication method found for %s; "
				     "found [token basicAuth], only one is allowed", name));
	validate_client_cert(name, u, p, m);
	if (u->exec)
		validate_exec(name, u, p);
	if ((u->as_uid || (u->as_groups && u->as_groups[0]) ||
	     (u->as_user_extra && u->as_user_extra[0])) && !u->as)
		problem(p, xasprintf("requesting uid, groups or user-extra for %s without "
				     "impersonating a user", name));
}

static void validate(const struct selection *s, struct problems *p, struct material *m)
{
	if (*s->context_name && !s->context)
		problem(p, xasprintf("context was not found for specified context: %s",
				     s->context_name));
	validate_user(s, p, m);
	validate_cluster(s, p, m);
	if (s->context && s->context->namespace && !kc_dns_label(s->context->namespace))
		problem(p, xasprintf("namespace \"%s\" for context \"%s\" does not conform "
				     "to the kubernetes DNS_LABEL rules",
				     s->context->namespace, s->context_name));
}

/* kubectl's MultilineError("Error in configuration: ", err). */
static int config_error(const struct problems *p, struct err *e)
{
	char text[sizeof(e->msg)];
	size_t i, off;

	if (p->n == 1)
		return err_setp(e, ERR_CONFIG, "Error in configuration: %s", p->msg[0]);
	off = (size_t)snprintf(text, sizeof(text), "Error in configuration:");
	for (i = 0; i < p->n && off < sizeof(text); i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "\n* %s", p->msg[i]);
	return err_setp(e, ERR_CONFIG, "%s", text);
}

/* ---- the resolved config ---- */
static void take_blob(char **dst, size_t *dst_len, struct kc_blob *src)
{
	*dst = src->data;
	*dst_len = src->len;
	src->data = NULL;
	src->len = 0;
}

static void copy_blob(char **dst, size_t *dst_len, const struct kc_blob *src)
{
	*dst = xmalloc(src->len + 1);
	memcpy(*dst, src->data, src->len);
	(*dst)[src->len] = '\0';
	*dst_len = src->len;
}

static void fill_tls(struct kube_config *cfg, const struct kc_cluster *c,
		     const struct kc_user *u, struct material *m)
{
	if (c->ca_data.data)
		copy_blob(&cfg->ca_pem, &cfg->ca_pem_len, &c->ca_data);
	else if (m->ca.data)
		take_blob(&cfg->ca_pem, &cfg->ca_pem_len, &m->ca);
	if (u->client_cert_data.data)
		copy_blob(&cfg->client_cert_pem, &cfg->client_cert_pem_len,
			  &u->client_cert_data);
	else if (m->cert.data)
		take_blob(&cfg->client_cert_pem, &cfg->client_cert_pem_len, &m->cert);
	if (u->client_key_data.data)
		copy_blob(&cfg->client_key_pem, &cfg->client_key_pem_len,
			  &u->client_key_data);
	else if (m->key.data)
		take_blob(&cfg->client_key_pem, &cfg->client_key_pem_len, &m->key);
	cfg->insecure = c->insecure;
	cfg->tls_server_name = xstrdup(c->tls_server_name);
}

/* The gcp and azure stubs of client-go, and its oidc subset (kubeconfig.md §10). */
static int auth_provider_error(const char *provider, const char *user, struct err *e)
{
	if (!strcmp(provider, "gcp"))
		return err_set(e, ERR_AUTH, "The gcp auth plugin has been removed.\nPlease use "
			       "the \"gke-gcloud-auth-plugin\" kubectl/client-go credential "
			       "plugin instead.\nSee https://cloud.google.com/blog/products/"
			       "containers-kubernetes/kubectl-auth-changes-in-gke for further details");
	if (!strcmp(provider, "azure"))
		return err_set(e, ERR_AUTH, "The azure auth plugin has been removed.\nPlease use "
			       "the https://github.com/Azure/kubelogin kubectl/client-go credential "
			       "plugin instead.\nSee https://kubernetes.io/docs/reference/"
			       "access-authn-authz/authentication/#client-go-credential-plugins "
			       "for further details");
	if (!strcmp(provider, "oidc"))
		return err_set(e, ERR_AUTH, "the oidc auth provider of user \"%s\" has no "
			       "id-token, and refreshing one is not supported: use kubelogin "
			       "(kubectl oidc-login) as an exec credential plugin instead", user);
	return err_set(e, ERR_AUTH, "no Auth Provider found for name \"%s\"", provider);
}

static int fill_auth(struct kube_config *cfg, const struct selection *s,
		     const struct kube_overrides *ov, struct err *e)
{
	const struct kc_user *u = &s->user;
	char why[512];

	cfg->token_from_flag = nonempty(ov->token) != NULL;
	cfg->username = xstrdup(u->username);
	cfg->password = xstrdup(u->password);
	cfg->token_file = xstrdup(u->token_file);
	if (u->token)
		cfg->token = xstrdup(u->token);
	else if (u->token_file && kc_read_trimmed(u->token_file, &cfg->token, why, sizeof(why)) < 0)
		return err_set(e, ERR_CONFIG, "%s", why);
	if (u->exec) {
		cfg->exec = kc_exec_dup(u->exec);
		cfg->exec->cluster_config_json = xstrdup(s->cluster.exec_config_json);
	}
	if (u->auth_provider && !cfg->token) {
		if (strcmp(u->auth_provider, "oidc") || !u->oidc_id_token)
			return auth_provider_error(u->auth_provider, s->user_name, e);
		cfg->token = xstrdup(u->oidc_id_token);
	}
	cfg->impersonate_user = xstrdup(u->as);
	cfg->impersonate_uid = xstrdup(u->as_uid);
	cfg->impersonate_groups = kc_strv_dup(u->as_groups);
	cfg->impersonate_extra = kc_strv_dup(u->as_user_extra);
	return 0;
}

static int fill_config(const struct selection *s, const struct kube_overrides *ov,
		       struct material *m, struct kube_config *cfg, struct err *e)
{
	const struct kc_cluster *c = &s->cluster;
	int tls = c->ca_file || c->ca_data.data || c->insecure ||
		  s->user.client_cert_file || s->user.client_cert_data.data;

	cfg->context_name = xstrdup(s->context ? s->context_name : "");
	if (kc_normalize_server(c->server, tls, &cfg->server, e) < 0)
		return -1;
	fill_tls(cfg, c, &s->user, m);
	cfg->proxy_url = xstrdup(c->proxy_url);
	cfg->disable_compression = c->disable_compression;
	cfg->timeout_ms = ov->request_timeout_ms;
	if (fill_auth(cfg, s, ov, e) < 0)
		return -1;
	/* transport.go refuses this combination; the flags may have cleared it */
	if (cfg->insecure && cfg->ca_pem)
		return err_set(e, ERR_CONFIG, "specifying a root certificates file with the "
			       "insecure flag is not allowed");
	return kc_resolve_namespace(cfg, ov, s->context ? s->context->namespace : NULL, e);
}

static void material_release(struct material *m)
{
	kc_free_secret(m->ca.data, m->ca.len);
	kc_free_secret(m->cert.data, m->cert.len);
	kc_free_secret(m->key.data, m->key.len);
}

/* No usable cluster: in-cluster if possible, else $KUBERNETES_MASTER (the
 * ClusterDefaults of kubectl), else ErrEmptyConfig. */
static int empty_config(struct selection *s, const struct kube_overrides *ov,
			struct kube_config *cfg, struct err *e)
{
	if (kc_in_cluster_possible())
		return kc_load_in_cluster(ov, cfg, e);
	if (!kc_env("KUBERNETES_MASTER"))
		return err_set(e, ERR_CONFIG, "invalid configuration: no configuration has "
			       "been provided, try setting KUBERNETES_MASTER environment variable");
	s->cluster.server = (char *)kc_env("KUBERNETES_MASTER");
	return 1;
}

static int resolve(const struct kc_set *set, const struct kube_overrides *ov,
		   struct kube_config *cfg, struct err *e)
{
	struct selection sel;
	struct problems p = { { NULL }, 0, 0, 0 };
	struct material m;
	int rc, files_empty;

	memset(cfg, 0, sizeof(*cfg));
	memset(&m, 0, sizeof(m));
	if (select_entries(set, ov, &sel, e) < 0)
		return -1;
	files_empty = cluster_is_empty(&sel.cluster);
	override_cluster(&sel.cluster, ov);
	override_user(&sel.user, ov);
	validate(&sel, &p, &m);
	/* Nothing configured but perhaps a CA or TLS flag: the in-cluster
	 * case.  --server is a configuration of its own: client-go then does
	 * not send the pod's token. */
	if (p.n == 1 && (p.empty_cluster || (p.no_server && files_empty && !nonempty(ov->server)))) {
		problems_release(&p);
		material_release(&m);
		memset(&m, 0, sizeof(m));
		rc = empty_config(&sel, ov, cfg, e);
		if (rc <= 0)
			return rc;
		p.empty_cluster = p.no_server = 0;
		validate(&sel, &p, &m);
	}
	rc = p.n ? config_error(&p, e) : fill_config(&sel, ov, &m, cfg, e);
	problems_release(&p);
	material_release(&m);
	return rc;
}

int kubeconfig_load(const struct kube_overrides *ov, struct kube_config *cfg,
		    struct err *e)
{
	struct kc_set set = { NULL, 0, 0 };
	int rc;

	memset(cfg, 0, sizeof(*cfg));
	rc = kc_set_load(ov, &set, e);
	if (!rc)
		rc = resolve(&set, ov, cfg, e);
	kc_set_release(&set);
	if (rc < 0)
		kubeconfig_release(cfg);
	return rc < 0 ? -1 : 0;
}

int kubeconfig_load_buffer(const char *data, size_t len, const char *path,
			   const struct kube_overrides *ov,
			   struct kube_config *cfg, struct err *e)
{
	struct kc_set set = { NULL, 0, 0 };
	int rc;

	memset(cfg, 0, sizeof(*cfg));
	rc = kc_set_add_buffer(&set, data, len, path, e);
	if (!rc)
		rc = resolve(&set, ov, cfg, e);
	kc_set_release(&set);
	if (rc < 0)
		kubeconfig_release(cfg);
	return rc < 0 ? -1 : 0;
}

static void free_secret_str(char *s)
{
	if (s)
		kc_free_secret(s, strlen(s));
}

void kubeconfig_release(struct kube_config *cfg)
{
	free(cfg->context_name);
	free(cfg->server);
	free(cfg->namespace);
	free(cfg->ca_pem);
	free(cfg->tls_server_name);
	free(cfg->client_cert_pem);
	kc_free_secret(cfg->client_key_pem, cfg->client_key_pem_len);
	free_secret_str(cfg->token);
	free(cfg->token_file);
	free(cfg->username);
	free_secret_str(cfg->password);
	kc_exec_free(cfg->exec);
	free(cfg->proxy_url);
	free(cfg->impersonate_user);
	free(cfg->impersonate_uid);
	kc_strv_free(cfg->impersonate_groups);
	kc_strv_free(cfg->impersonate_extra);
	memset(cfg, 0, sizeof(*cfg));
}
