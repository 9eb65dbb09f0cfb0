/* Internal to kubeconfig.c, kubeconfig_yaml.c and auth.c: one kubeconfig
 * file as parsed, before merging and overrides.
 *
 * Every string and blob is owned by the struct that holds it.  Relative
 * paths are already absolute (resolved against the file's directory, as
 * client-go's ResolveLocalPaths does), and empty strings are stored as NULL
 * because client-go treats "" and absent alike.
 */
#ifndef KUBE_KUBECONFIG_MODEL_H
#define KUBE_KUBECONFIG_MODEL_H

#include <stddef.h>

#include "util/err.h"
#include "kubeconfig.h"

/* Caps for what we read into memory. */
#define KC_MAX_CONFIG_FILE ((size_t)16 << 20)
#define KC_MAX_SMALL_FILE ((size_t)1 << 20)  /* certs, keys, tokens */

/* Decoded bytes of a *-data field; data is NULL when the field is absent. */
struct kc_blob {
	char *data;
	size_t len;
};

struct kc_cluster {
	char *name;
	char *server;
	char *ca_file;
	struct kc_blob ca_data;
	char *tls_server_name;
	char *proxy_url;
	int insecure;
	int disable_compression;
	char *exec_config_json;  /* extension client.authentication.k8s.io/exec */
};

struct kc_user {
	char *name;
	char *client_cert_file;
	struct kc_blob client_cert_data;
	char *client_key_file;
	struct kc_blob client_key_data;
	char *token;
	char *token_file;
	char *username;
	char *password;
	char *as;
	char *as_uid;
	char **as_groups;       /* NULL-terminated or NULL */
	char **as_user_extra;   /* "key=value", NULL-terminated or NULL */
	struct kube_exec_plugin *exec;
	char *auth_provider;    /* its name; NULL when none */
	char *oidc_id_token;
};

struct kc_context {
	char *name;
	char *cluster;
	char *user;
	char *namespace;
};

struct kc_file {
	char *path;
	char *current_context;
	struct kc_cluster *clusters;
	size_t n_clusters;
	struct kc_user *users;
	size_t n_users;
	struct kc_context *contexts;
	size_t n_contexts;
};

/* All files in precedence order; lookups take the first match. */
struct kc_set {
	struct kc_file *files;
	size_t n, alloc;
};

/* kubeconfig_files.c: fills set from the flag or the environment; an
 * empty set (nothing found) is not an error. */
int kc_set_load(const struct kube_overrides *ov, struct kc_set *set, struct err *e);
/* Adds data as the file named path. */
int kc_set_add_buffer(struct kc_set *set, const char *data, size_t len,
		      const char *path, struct err *e);
void kc_set_release(struct kc_set *set);

/* Parses the bytes of the kubeconfig file at path (used for messages and
 * for resolving relative paths).  An empty document is an empty config.
 * On failure f is released and e says 'error loading config file ...'. */
int kc_file_parse(const char *data, size_t len, const char *path,
		  struct kc_file *f, struct err *e);
void kc_file_release(struct kc_file *f);

void kc_exec_free(struct kube_exec_plugin *x);
struct kube_exec_plugin *kc_exec_dup(const struct kube_exec_plugin *x);
void kc_strv_free(char **v);
char **kc_strv_dup(char *const *v);

/* Reads a whole file into *data (NUL-terminated, caller frees).  On failure
 * returns -1 and writes Go's wording ("open P: no such file or directory")
 * into why. */
int kc_read_file(const char *path, size_t max, char **data, size_t *len,
		 char *why, size_t whylen);
/* strerror() with a lower-case first letter, as Go words errno values. */
const char *kc_strerror(int errnum, char *tmp, size_t tmplen);
/* Makes path absolute against dir; NULL in, NULL out.  Caller frees. */
char *kc_abs_path(const char *dir, const char *path);
/* Standard base64 (newlines tolerated) to bytes, with OpenSSL.  Returns -1
 * and the offset of the first bad byte in *bad on malformed input. */
int kc_base64_decode(const char *s, struct kc_blob *out, size_t *bad);
/* A YAML node as compact JSON text (for cluster extensions), or NULL when
 * it is too deep or too big.  The caller frees the text. */
struct yaml_document_s;
struct yaml_node_s;
char *kc_yaml_to_json(struct yaml_document_s *doc, struct yaml_node_s *n);
/* Frees and wipes, for secrets. */
void kc_free_secret(char *p, size_t len);

/* kubeconfig_env.c */

/* getenv that treats "" as unset (and ignores the environment in setuid
 * programs). */
const char *kc_env(const char *name);
/* IsDNS1123Label */
int kc_dns_label(const char *s);
/* rest.DefaultServerURL's rules; *out is owned by the caller. */
int kc_normalize_server(const char *in, int default_tls, char **out,
			struct err *e);
/* A token or namespace file, whitespace-trimmed; *out NULL on failure. */
int kc_read_trimmed(const char *path, char **out, char *why, size_t whylen);
int kc_in_cluster_possible(void);
/* Fills cfg from the service account (rest.InClusterConfig) with the only
 * overrides client-go applies there: --server, --token and
 * --certificate-authority; plus the namespace. */
int kc_load_in_cluster(const struct kube_overrides *ov, struct kube_config *cfg,
		       struct err *e);
/* -n, the context's namespace, in-cluster sources, "default". */
int kc_resolve_namespace(struct kube_config *cfg, const struct kube_overrides *ov,
			 const char *context_ns, struct err *e);

#endif
