/* One kubeconfig file (YAML or JSON, which is YAML) into struct kc_file,
 * with the libyaml document API.
 *
 * Decoding follows sigs.k8s.io/yaml + encoding/json as client-go uses them:
 * unknown keys are ignored, scalars in string fields stay text (token: 123
 * is "123"), booleans are YAML 1.1 words, null and "" mean absent, the
 * first document is the config, and two list entries with the same name
 * make the whole file fail.
 */
#include "kubeconfig_model.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "util/xalloc.h"

#define EXEC_EXTENSION "client.authentication.k8s.io/exec"

struct yp {
	yaml_document_t *doc;
	const char *path;
	char *dir;          /* absolute directory of path, owned */
	struct err *e;
};

static int load_error(struct yp *y, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int load_error(struct yp *y, const char *fmt, ...)
{
	char detail[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	return err_set(y->e, ERR_CONFIG, "error loading config file \"%s\": %s",
		       y->path, detail);
}

static const char *kind_word(const yaml_node_t *n)
{
	if (n->type == YAML_MAPPING_NODE)
		return "object";
	if (n->type == YAML_SEQUENCE_NODE)
		return "array";
	return "string";
}

/* encoding/json's wording for a value of the wrong shape. */
static int type_error(struct yp *y, const yaml_node_t *n, const char *field,
		      const char *gotype)
{
	return load_error(y, "json: cannot unmarshal %s into Go struct field %s "
			  "of type %s", kind_word(n), field, gotype);
}

static yaml_node_t *node(struct yp *y, int index)
{
	return yaml_document_get_node(y->doc, index);
}

static int is_null(const yaml_node_t *n)
{
	const char *v;

	if (!n)
		return 1;
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	v = (const char *)n->data.scalar.value;
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") ||
	       !strcmp(v, "Null") || !strcmp(v, "NULL");
}

static int is_merge_key(const yaml_node_t *k)
{
	return k && k->type == YAML_SCALAR_NODE &&
	       k->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       !strcmp((const char *)k->data.scalar.value, "<<");
}

/* The value of key in a mapping; the last one wins as in a JSON object.
 * YAML merge keys ("<<: *base" or "<<: [*a, *b]") count as sigs.k8s.io/
 * yaml (go-yaml v2) counts them: keys of the mapping itself win, then the
 * merged mappings in order.  depth bounds merges of merges (and a merge
 * that refers to itself). */
static yaml_node_t *map_lookup(struct yp *y, const yaml_node_t *map, const char *key,
			       int depth)
{
	yaml_node_pair_t *p;
	yaml_node_t *found = NULL;

	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(y, p->key);
		if (k && k->type == YAML_SCALAR_NODE && !is_merge_key(k) &&
		    !strcmp((const char *)k->data.scalar.value, key))
			found = node(y, p->value);
	}
	for (p = map->data.mapping.pairs.start; !found && depth < 8 &&
	     p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *v = node(y, p->value);
		yaml_node_item_t *it;

		if (!is_merge_key(node(y, p->key)) || !v)
			continue;
		if (v->type == YAML_MAPPING_NODE)
			found = map_lookup(y, v, key, depth + 1);
		else if (v->type == YAML_SEQUENCE_NODE)
			for (it = v->data.sequence.items.start;
			     !found && it < v->data.sequence.items.top; it++)
				found = map_lookup(y, node(y, *it), key, depth + 1);
	}
	return found;
}

static yaml_node_t *map_get(struct yp *y, const yaml_node_t *map, const char *key)
{
	yaml_node_t *found = map_lookup(y, map, key, 0);

	return is_null(found) ? NULL : found;
}

/* *out: a copy of the string field, NULL when absent, null or empty. */
static int get_str(struct yp *y, const yaml_node_t *map, const char *key,
		   const char *field, char **out)
{
	yaml_node_t *n = map_get(y, map, key);

	*out = NULL;
	if (!n)
		return 0;
	if (n->type != YAML_SCALAR_NODE)
		return type_error(y, n, field, "string");
	if (n->data.scalar.length)
		*out = xstrndup((const char *)n->data.scalar.value,
				n->data.scalar.length);
	return 0;
}

/* Like get_str, for a path: made absolute against the file's directory. */
static int get_path(struct yp *y, const yaml_node_t *map, const char *key,
		    const char *field, char **out)
{
	char *rel;

	if (get_str(y, map, key, field, &rel) < 0)
		return -1;
	*out = kc_abs_path(y->dir, rel);
	free(rel);
	return 0;
}

static int word_in(const char *s, const char *const *words)
{
	for (; *words; words++)
		if (!strcmp(s, *words))
			return 1;
	return 0;
}

static int get_bool(struct yp *y, const yaml_node_t *map, const char *key,
		    const char *field, int *out)
{
	static const char *const yes[] = { "true", "True", "TRUE", "yes", "Yes",
		"YES", "y", "Y", "on", "On", "ON", NULL };
	static const char *const no[] = { "false", "False", "FALSE", "no", "No",
		"NO", "n", "N", "off", "Off", "OFF", NULL };
	yaml_node_t *n = map_get(y, map, key);
	const char *v;

	*out = 0;
	if (!n)
		return 0;
	if (n->type != YAML_SCALAR_NODE)
		return type_error(y, n, field, "bool");
	v = (const char *)n->data.scalar.value;
	if (word_in(v, yes))
		*out = 1;
	else if (!word_in(v, no))
		return type_error(y, n, field, "bool");
	return 0;
}

/* A *-data field: base64 text in the file, bytes in memory. */
static int get_data(struct yp *y, const yaml_node_t *map, const char *key,
		    const char *field, struct kc_blob *out)
{
	char *text;
	size_t bad = 0;
	int rc = 0;

	out->data = NULL;
	out->len = 0;
	if (get_str(y, map, key, field, &text) < 0)
		return -1;
	if (text && kc_base64_decode(text, out, &bad) < 0) {
		rc = load_error(y, "illegal base64 data at input byte %zu (%s)",
				bad, key);
	}
	kc_free_secret(text, text ? strlen(text) : 0);
	return rc;
}

/* A list of strings; NULL when absent. */
static int get_strv(struct yp *y, const yaml_node_t *map, const char *key,
		    const char *field, char ***out)
{
	yaml_node_t *n = map_get(y, map, key);
	yaml_node_item_t *it;
	size_t i = 0;

	*out = NULL;
	if (!n)
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return type_error(y, n, field, "[]string");
	*out = xcalloc((size_t)(n->data.sequence.items.top -
				n->data.sequence.items.start) + 1, sizeof(char *));
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		yaml_node_t *v = node(y, *it);
		if (is_null(v))
			(*out)[i++] = xstrdup("");
		else if (v->type != YAML_SCALAR_NODE)
			return type_error(y, v, field, "string");
		else
			(*out)[i++] = xstrdup((const char *)v->data.scalar.value);
	}
	return 0;
}

static int parse_exec_extension(struct yp *y, const yaml_node_t *cluster,
				struct kc_cluster *c)
{
	yaml_node_t *list = map_get(y, cluster, "extensions");
	yaml_node_item_t *it;

	if (!list)
		return 0;
	if (list->type != YAML_SEQUENCE_NODE)
		return type_error(y, list, "Cluster.extensions", "[]v1.NamedExtension");
	for (it = list->data.sequence.items.start; it < list->data.sequence.items.top; it++) {
		yaml_node_t *item = node(y, *it), *name, *ext;
		char *json;

		name = map_get(y, item, "name");
		if (!name || name->type != YAML_SCALAR_NODE ||
		    strcmp((const char *)name->data.scalar.value, EXEC_EXTENSION))
			continue;
		ext = map_get(y, item, "extension");
		if (!ext || !(json = kc_yaml_to_json(y->doc, ext)))
			continue;
		free(c->exec_config_json);
		c->exec_config_json = json;
	}
	return 0;
}

/* ---- the three named lists ---- */

static int parse_cluster(struct yp *y, const yaml_node_t *m, struct kc_cluster *c)
{
	if (m && m->type != YAML_MAPPING_NODE)
		return type_error(y, m, "NamedCluster.clusters.cluster", "v1.Cluster");
	return get_str(y, m, "server", "Cluster.clusters.cluster.server", &c->server) ||
	       get_path(y, m, "certificate-authority",
			"Cluster.clusters.cluster.certificate-authority", &c->ca_file) ||
	       get_data(y, m, "certificate-authority-data",
			"Cluster.clusters.cluster.certificate-authority-data", &c->ca_data) ||
	       get_str(y, m, "tls-server-name",
		       "Cluster.clusters.cluster.tls-server-name", &c->tls_server_name) ||
	       get_str(y, m, "proxy-url", "Cluster.clusters.cluster.proxy-url",
		       &c->proxy_url) ||
	       get_bool(y, m, "insecure-skip-tls-verify",
			"Cluster.clusters.cluster.insecure-skip-tls-verify", &c->insecure) ||
	       get_bool(y, m, "disable-compression",
			"Cluster.clusters.cluster.disable-compression",
			&c->disable_compression) ||
	       parse_exec_extension(y, m, c) ? -1 : 0;
}

static int parse_exec_env(struct yp *y, const yaml_node_t *m, struct kube_exec_plugin *x)
{
	yaml_node_t *list = map_get(y, m, "env");
	yaml_node_item_t *it;
	size_t i = 0;

	if (!list)
		return 0;
	if (list->type != YAML_SEQUENCE_NODE)
		return type_error(y, list, "ExecConfig.users.user.exec.env", "[]v1.ExecEnvVar");
	x->env = xcalloc((size_t)(list->data.sequence.items.top -
				  list->data.sequence.items.start) + 1, sizeof(char *));
	for (it = list->data.sequence.items.start; it < list->data.sequence.items.top; it++) {
		yaml_node_t *item = node(y, *it);
		char *name, *value;
		if (item && item->type != YAML_MAPPING_NODE && !is_null(item))
			return type_error(y, item, "ExecConfig.users.user.exec.env",
					  "v1.ExecEnvVar");
		if (get_str(y, item, "name", "ExecEnvVar.users.user.exec.env.name", &name) < 0)
			return -1;
		if (get_str(y, item, "value", "ExecEnvVar.users.user.exec.env.value", &value) < 0) {
			free(name);
			return -1;
		}
		/* An empty name stays visible ("=v") for validation. */
		x->env[i++] = xasprintf("%s=%s", name ? name : "", value ? value : "");
		free(name);
		kc_free_secret(value, value ? strlen(value) : 0);
	}
	return 0;
}

static int parse_exec(struct yp *y, const yaml_node_t *u, struct kc_user *user)
{
	yaml_node_t *m = map_get(y, u, "exec");
	struct kube_exec_plugin *x;
	char *cmd;

	if (!m)
		return 0;
	if (m->type != YAML_MAPPING_NODE)
		return type_error(y, m, "AuthInfo.users.user.exec", "v1.ExecConfig");
	x = user->exec = xcalloc(1, sizeof(*x));
	if (get_str(y, m, "command", "ExecConfig.users.user.exec.command", &cmd) < 0)
		return -1;
	/* client-go: "Only resolve exec command if it isn't PATH based" */
	x->command = cmd && strchr(cmd, '/') ? kc_abs_path(y->dir, cmd) : xstrdup(cmd);
	free(cmd);
	if (get_strv(y, m, "args", "ExecConfig.users.user.exec.args", &x->args) ||
	    parse_exec_env(y, m, x) ||
	    get_str(y, m, "apiVersion", "ExecConfig.users.user.exec.apiVersion",
		    &x->api_version) ||
	    get_str(y, m, "installHint", "ExecConfig.users.user.exec.installHint",
		    &x->install_hint) ||
	    get_str(y, m, "interactiveMode", "ExecConfig.users.user.exec.interactiveMode",
		    &x->interactive_mode) ||
	    get_bool(y, m, "provideClusterInfo",
		     "ExecConfig.users.user.exec.provideClusterInfo",
		     &x->provide_cluster_info))
		return -1;
	/* SetDefaults_ExecConfig: only the older versions get a default. */
	if (!x->interactive_mode && x->api_version &&
	    (!strcmp(x->api_version, "client.authentication.k8s.io/v1beta1") ||
	     !strcmp(x->api_version, "client.authentication.k8s.io/v1alpha1")))
		x->interactive_mode = xstrdup("IfAvailable");
	return 0;
}

static int parse_auth_provider(struct yp *y, const yaml_node_t *u, struct kc_user *user)
{
	yaml_node_t *m = map_get(y, u, "auth-provider");
	yaml_node_t *conf;

	if (!m)
		return 0;
	if (m->type != YAML_MAPPING_NODE)
		return type_error(y, m, "AuthInfo.users.user.auth-provider",
				  "v1.AuthProviderConfig");
	if (get_str(y, m, "name", "AuthProviderConfig.users.user.auth-provider.name",
		    &user->auth_provider) < 0)
		return -1;
	if (!user->auth_provider)
		user->auth_provider = xstrdup("");
	conf = map_get(y, m, "config");
	if (conf && conf->type != YAML_MAPPING_NODE)
		return type_error(y, conf, "AuthProviderConfig.users.user.auth-provider.config",
				  "map[string]string");
	return get_str(y, conf, "id-token",
		       "AuthProviderConfig.users.user.auth-provider.config", &user->oidc_id_token);
}

static int parse_user_extra(struct yp *y, const yaml_node_t *m, struct kc_user *u)
{
	yaml_node_t *extra = map_get(y, m, "as-user-extra");
	yaml_node_pair_t *p;
	size_t n = 0, total = 0;

	if (!extra)
		return 0;
	if (extra->type != YAML_MAPPING_NODE)
		return type_error(y, extra, "AuthInfo.users.user.as-user-extra",
				  "map[string][]string");
	for (p = extra->data.mapping.pairs.start; p < extra->data.mapping.pairs.top; p++) {
		yaml_node_t *v = node(y, p->value);
		if (v && v->type == YAML_SEQUENCE_NODE)
			total += (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
	}
	u->as_user_extra = xcalloc(total + 1, sizeof(char *));
	for (p = extra->data.mapping.pairs.start; p < extra->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(y, p->key), *v = node(y, p->value);
		yaml_node_item_t *it;
		if (is_null(v))
			continue;
		if (!k || k->type != YAML_SCALAR_NODE || v->type != YAML_SEQUENCE_NODE)
			return type_error(y, v, "AuthInfo.users.user.as-user-extra",
					  "map[string][]string");
		for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
			yaml_node_t *s = node(y, *it);
			if (!s || s->type != YAML_SCALAR_NODE)
				return type_error(y, v, "AuthInfo.users.user.as-user-extra",
						  "string");
			u->as_user_extra[n++] = xasprintf("%s=%s", k->data.scalar.value,
							  s->data.scalar.value);
		}
	}
	return 0;
}

static int parse_user(struct yp *y, const yaml_node_t *m, struct kc_user *u)
{
	if (m && m->type != YAML_MAPPING_NODE)
		return type_error(y, m, "NamedAuthInfo.users.user", "v1.AuthInfo");
	return get_path(y, m, "client-certificate", "AuthInfo.users.user.client-certificate",
			&u->client_cert_file) ||
	       get_data(y, m, "client-certificate-data",
			"AuthInfo.users.user.client-certificate-data", &u->client_cert_data) ||
	       get_path(y, m, "client-key", "AuthInfo.users.user.client-key",
			&u->client_key_file) ||
	       get_data(y, m, "client-key-data", "AuthInfo.users.user.client-key-data",
			&u->client_key_data) ||
	       get_str(y, m, "token", "AuthInfo.users.user.token", &u->token) ||
	       get_path(y, m, "tokenFile", "AuthInfo.users.user.tokenFile", &u->token_file) ||
	       get_str(y, m, "username", "AuthInfo.users.user.username", &u->username) ||
	       get_str(y, m, "password", "AuthInfo.users.user.password", &u->password) ||
	       get_str(y, m, "as", "AuthInfo.users.user.as", &u->as) ||
	       get_str(y, m, "as-uid", "AuthInfo.users.user.as-uid", &u->as_uid) ||
	       get_strv(y, m, "as-groups", "AuthInfo.users.user.as-groups", &u->as_groups) ||
	       parse_user_extra(y, m, u) ||
	       parse_exec(y, m, u) ||
	       parse_auth_provider(y, m, u) ? -1 : 0;
}

static int parse_context(struct yp *y, const yaml_node_t *m, struct kc_context *c)
{
	if (m && m->type != YAML_MAPPING_NODE)
		return type_error(y, m, "NamedContext.contexts.context", "v1.Context");
	return get_str(y, m, "cluster", "Context.contexts.context.cluster", &c->cluster) ||
	       get_str(y, m, "user", "Context.contexts.context.user", &c->user) ||
	       get_str(y, m, "namespace", "Context.contexts.context.namespace",
		       &c->namespace) ? -1 : 0;
}

/* What differs between clusters, users and contexts. */
struct list_kind {
	const char *key;        /* "clusters" */
	const char *body;       /* "cluster" */
	const char *gotype;     /* for type errors */
	const char *conv;       /* conversion error prefix */
};

static const struct list_kind k_clusters = { "clusters", "cluster",
	"[]v1.NamedCluster", "*[]NamedCluster into *map[string]*api.Cluster" };
static const struct list_kind k_users = { "users", "user",
	"[]v1.NamedAuthInfo", "*[]NamedAuthInfo into *map[string]*api.AuthInfo" };
static const struct list_kind k_contexts = { "contexts", "context",
	"[]v1.NamedContext", "*[]NamedContext into *map[string]*api.Context" };

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* api/v1/conversion.go refuses two entries with one name.  The list itself
 * is left out of the message: it would print every token in the file. */
static int check_duplicates(struct yp *y, const struct list_kind *k,
			    char **names, size_t n)
{
	size_t i;

	qsort(names, n, sizeof(*names), cmp_str);
	for (i = 1; i < n; i++)
		if (!strcmp(names[i - 1], names[i]))
			return load_error(y, "error converting %s: duplicate name "
					  "\"%s\" in list", k->conv, names[i]);
	return 0;
}

/* Walks list k: for each item, fills names[i] (borrowed) and returns the
 * body node through bodies[i]. */
static int walk_list(struct yp *y, const yaml_node_t *root, const struct list_kind *k,
		     yaml_node_t ***bodies, char ***names, size_t *n)
{
	yaml_node_t *list = map_get(y, root, k->key);
	yaml_node_item_t *it;
	char field[64];

	*bodies = NULL;
	*names = NULL;
	*n = 0;
	if (!list)
		return 0;
	snprintf(field, sizeof(field), "Config.%s", k->key);
	if (list->type != YAML_SEQUENCE_NODE)
		return type_error(y, list, field, k->gotype);
	*bodies = xcalloc((size_t)(list->data.sequence.items.top -
				   list->data.sequence.items.start) + 1, sizeof(**bodies));
	*names = xcalloc((size_t)(list->data.sequence.items.top -
				  list->data.sequence.items.start) + 1, sizeof(**names));
	for (it = list->data.sequence.items.start; it < list->data.sequence.items.top; it++) {
		yaml_node_t *item = node(y, *it), *name;
		if (is_null(item))
			item = NULL;
		else if (item->type != YAML_MAPPING_NODE)
			return type_error(y, item, field, k->gotype);
		name = map_get(y, item, "name");
		if (name && name->type != YAML_SCALAR_NODE)
			return type_error(y, name, field, "string");
		(*names)[*n] = name ? (char *)name->data.scalar.value : "";
		(*bodies)[*n] = map_get(y, item, k->body);
		(*n)++;
	}
	return 0;
}

static int parse_lists(struct yp *y, const yaml_node_t *root, struct kc_file *f)
{
	yaml_node_t **bodies = NULL;
	char **names = NULL;
	size_t n, i;
	int rc;

#define PARSE_LIST(kind, arr, count, fn)                                        \
	rc = walk_list(y, root, &kind, &bodies, &names, &n);                    \
	if (!rc && n) {                                                         \
		f->arr = xcalloc(n, sizeof(*f->arr));                           \
		for (i = 0; i < n && !rc; i++, f->count++) {                    \
			f->arr[i].name = xstrdup(names[i]);                     \
			rc = fn(y, bodies[i], &f->arr[i]);                      \
		}                                                               \
		if (!rc)                                                        \
			rc = check_duplicates(y, &kind, names, n);              \
	}                                                                       \
	free(bodies);                                                           \
	free(names);                                                            \
	if (rc)                                                                 \
		return -1;

	PARSE_LIST(k_clusters, clusters, n_clusters, parse_cluster)
	PARSE_LIST(k_users, users, n_users, parse_user)
	PARSE_LIST(k_contexts, contexts, n_contexts, parse_context)
#undef PARSE_LIST
	return 0;
}

/* Loader.Load decodes with apiVersion v1 and kind Config as defaults. */
static int check_kind(struct yp *y, const yaml_node_t *root)
{
	char *kind = NULL, *version = NULL;
	int rc = 0;

	if (get_str(y, root, "kind", "Config.kind", &kind) < 0 ||
	    get_str(y, root, "apiVersion", "Config.apiVersion", &version) < 0) {
		free(kind);
		return -1;
	}
	if ((kind && strcmp(kind, "Config")) || (version && strcmp(version, "v1")))
		rc = load_error(y, "no kind \"%s\" is registered for version \"%s\"",
				kind ? kind : "Config", version ? version : "v1");
	free(kind);
	free(version);
	return rc;
}

static int parse_root(struct yp *y, struct kc_file *f)
{
	yaml_node_t *root = yaml_document_get_root_node(y->doc);

	if (is_null(root))
		return 0;   /* empty file or only comments: an empty config */
	if (root->type != YAML_MAPPING_NODE)
		return load_error(y, "couldn't get version/kind; json parse error: "
				  "json: cannot unmarshal %s into Go value of type struct",
				  kind_word(root));
	return check_kind(y, root) ||
	       get_str(y, root, "current-context", "Config.current-context",
		       &f->current_context) ||
	       parse_lists(y, root, f) ? -1 : 0;
}

static char *abs_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char cwd[4096];
	char *dir;

	dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path))
		    : xstrdup(".");
	if (dir[0] == '/')
		return dir;
	if (!getcwd(cwd, sizeof(cwd))) {
		/* Relative paths then stay relative: the best we can do. */
		return dir;
	}
	{
		char *full = !strcmp(dir, ".") ? xstrdup(cwd) : xasprintf("%s/%s", cwd, dir);
		free(dir);
		return full;
	}
}

/* libyaml's loader has no depth limit and takes quadratic time on deep
 * nesting (a 200 KB file of depth 100,000: 42 s).  Events first, stopping
 * at the recipe parser's limit (ytree.h: 128 levels) or at the first
 * error, which the loader then reports in its own words. */
#define KC_MAX_DEPTH 128

static int too_deep(const char *data, size_t len)
{
	yaml_parser_t p;
	yaml_event_t ev;
	int depth = 0, deep = 0, done = 0;

	if (!yaml_parser_initialize(&p))
		xalloc_die();
	yaml_parser_set_input_string(&p, (const unsigned char *)data, len);
	while (!done && !deep && yaml_parser_parse(&p, &ev)) {
		if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT)
			deep = ++depth > KC_MAX_DEPTH;
		else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT)
			depth--;
		/* only the first document is the config */
		done = ev.type == YAML_STREAM_END_EVENT || ev.type == YAML_DOCUMENT_END_EVENT;
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	return deep;
}

int kc_file_parse(const char *data, size_t len, const char *path,
		  struct kc_file *f, struct err *e)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	struct yp y = { &doc, path, NULL, e };
	int rc;

	memset(f, 0, sizeof(*f));
	f->path = xstrdup(path);
	if (too_deep(data, len)) {
		err_set(e, ERR_CONFIG, "error loading config file \"%s\": nesting deeper "
			"than the limit of %d levels", path, KC_MAX_DEPTH);
		kc_file_release(f);
		return -1;
	}
	if (!yaml_parser_initialize(&parser))
		xalloc_die();
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
	if (!yaml_parser_load(&parser, &doc)) {
		err_set(e, ERR_CONFIG,
			"error loading config file \"%s\": %s at line %zu column %zu",
			path, parser.problem ? parser.problem : "invalid YAML",
			parser.problem_mark.line + 1, parser.problem_mark.column + 1);
		yaml_parser_delete(&parser);
		kc_file_release(f);
		return -1;
	}
	y.dir = abs_dir(path);
	rc = parse_root(&y, f);
	free(y.dir);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (rc < 0)
		kc_file_release(f);
	return rc;
}
