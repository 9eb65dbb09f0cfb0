/* Small helpers shared by the kubeconfig loader and auth: file reading with
 * a cap, Go-worded errno text, path joining, base64 and the lifecycles of
 * the model structs. */
#include "kubeconfig_model.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "util/buf.h"
#include "util/xalloc.h"

const char *kc_strerror(int errnum, char *tmp, size_t tmplen)
{
	const char *s = strerror(errnum);

	snprintf(tmp, tmplen, "%s", s);
	if (tmp[0] >= 'A' && tmp[0] <= 'Z' && !(tmp[1] >= 'A' && tmp[1] <= 'Z'))
		tmp[0] = (char)(tmp[0] - 'A' + 'a');
	return tmp;
}

static int read_fd(int fd, struct buf *b)
{
	char chunk[65536];

	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			return 0;
		if (buf_append(b, chunk, (size_t)n) < 0) {
			errno = EFBIG;
			return -1;
		}
	}
}

int kc_read_file(const char *path, size_t max, char **data, size_t *len,
		 char *why, size_t whylen)
{
	struct buf b = BUF_INIT(max);
	char tmp[128];
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whylen, "open %s: %s", path,
			 kc_strerror(errno, tmp, sizeof(tmp)));
		return -1;
	}
	if (read_fd(fd, &b) < 0) {
		int saved = errno;
		close(fd);
		buf_release(&b);
		if (saved == EFBIG)
			snprintf(why, whylen, "read %s: file is larger than %zu bytes",
				 path, max);
		else
			snprintf(why, whylen, "read %s: %s", path,
				 kc_strerror(saved, tmp, sizeof(tmp)));
		return -1;
	}
	close(fd);
	*data = buf_detach(&b, len);
	return 0;
}

char *kc_abs_path(const char *dir, const char *path)
{
	if (!path)
		return NULL;
	if (path[0] == '/' || !dir)
		return xstrdup(path);
	while (path[0] == '.' && path[1] == '/')
		path += 2;   /* filepath.Join cleans "./x" to "x" */
	return xasprintf("%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", path);
}

/* Go's StdEncoding skips only CR and LF; anything else outside the
 * alphabet is an error, and OpenSSL is more lenient, so check first. */
static int base64_check(const char *s, size_t *bad)
{
	size_t i, pad = 0;

	for (i = 0; s[i]; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\r' || c == '\n')
			continue;
		if (c == '=') {
			pad++;
			continue;
		}
		if (pad || !((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			     (c >= '0' && c <= '9') || c == '+' || c == '/')) {
			*bad = i;
			return -1;
		}
	}
	if (pad > 2) {
		*bad = i;
		return -1;
	}
	return 0;
}

int kc_base64_decode(const char *s, struct kc_blob *out, size_t *bad)
{
	size_t n = strlen(s);
	EVP_ENCODE_CTX *ctx;
	unsigned char *dst;
	int outl = 0, finl = 0, ok;

	out->data = NULL;
	out->len = 0;
	if (base64_check(s, bad) < 0)
		return -1;
	if (n > (size_t)1 << 30) {
		*bad = 0;
		return -1;
	}
	ctx = EVP_ENCODE_CTX_new();
	if (!ctx)
		xalloc_die();
	dst = xmalloc(n / 4 * 3 + 4);
	EVP_DecodeInit(ctx);
	ok = EVP_DecodeUpdate(ctx, dst, &outl, (const unsigned char *)s,
			      (int)n) >= 0 &&
	     EVP_DecodeFinal(ctx, dst + outl, &finl) == 1;
	EVP_ENCODE_CTX_free(ctx);
	if (!ok) {
		kc_free_secret((char *)dst, n / 4 * 3 + 4);
		*bad = n;
		return -1;
	}
	out->len = (size_t)(outl + finl);
	dst[out->len] = '\0';
	out->data = (char *)dst;
	return 0;
}

void kc_free_secret(char *p, size_t len)
{
	if (!p)
		return;
	OPENSSL_cleanse(p, len);
	free(p);
}

static void free_str_secret(char *p)
{
	if (p)
		kc_free_secret(p, strlen(p));
}

void kc_strv_free(char **v)
{
	char **p;

	if (!v)
		return;
	for (p = v; *p; p++)
		free(*p);
	free(v);
}

char **kc_strv_dup(char *const *v)
{
	size_t n = 0, i;
	char **copy;

	if (!v)
		return NULL;
	while (v[n])
		n++;
	copy = xcalloc(n + 1, sizeof(*copy));
	for (i = 0; i < n; i++)
		copy[i] = xstrdup(v[i]);
	return copy;
}

void kc_exec_free(struct kube_exec_plugin *x)
{
	if (!x)
		return;
	free(x->command);
	kc_strv_free(x->args);
	/* env entries often carry secrets (API keys for the plugin) */
	if (x->env) {
		char **p;
		for (p = x->env; *p; p++)
			free_str_secret(*p);
		free(x->env);
	}
	free(x->api_version);
	free(x->install_hint);
	free(x->interactive_mode);
	free(x->cluster_config_json);
	free(x);
}

struct kube_exec_plugin *kc_exec_dup(const struct kube_exec_plugin *x)
{
	struct kube_exec_plugin *c;

	if (!x)
		return NULL;
	c = xcalloc(1, sizeof(*c));
	c->command = xstrdup(x->command);
	c->args = kc_strv_dup(x->args);
	c->env = kc_strv_dup(x->env);
	c->api_version = xstrdup(x->api_version);
	c->install_hint = xstrdup(x->install_hint);
	c->interactive_mode = xstrdup(x->interactive_mode);
	c->provide_cluster_info = x->provide_cluster_info;
	c->cluster_config_json = xstrdup(x->cluster_config_json);
	return c;
}

static void blob_release(struct kc_blob *b)
{
	kc_free_secret(b->data, b->len);
	b->data = NULL;
	b->len = 0;
}

static void cluster_release(struct kc_cluster *c)
{
	free(c->name);
	free(c->server);
	free(c->ca_file);
	blob_release(&c->ca_data);
	free(c->tls_server_name);
	free(c->proxy_url);
	free(c->exec_config_json);
}

static void user_release(struct kc_user *u)
{
	free(u->name);
	free(u->client_cert_file);
	blob_release(&u->client_cert_data);
	free(u->client_key_file);
	blob_release(&u->client_key_data);
	free_str_secret(u->token);
	free(u->token_file);
	free(u->username);
	free_str_secret(u->password);
	free(u->as);
	free(u->as_uid);
	kc_strv_free(u->as_groups);
	kc_strv_free(u->as_user_extra);
	kc_exec_free(u->exec);
	free(u->auth_provider);
	free_str_secret(u->oidc_id_token);
}

void kc_file_release(struct kc_file *f)
{
	size_t i;

	for (i = 0; i < f->n_clusters; i++)
		cluster_release(&f->clusters[i]);
	for (i = 0; i < f->n_users; i++)
		user_release(&f->users[i]);
	for (i = 0; i < f->n_contexts; i++) {
		free(f->contexts[i].name);
		free(f->contexts[i].cluster);
		free(f->contexts[i].user);
		free(f->contexts[i].namespace);
	}
	free(f->clusters);
	free(f->users);
	free(f->contexts);
	free(f->path);
	free(f->current_context);
	memset(f, 0, sizeof(*f));
}

/* ---- cluster extensions: YAML to JSON text for the exec plugin ---- */

/* Aliases can make a small document expand enormously or even loop; the
 * only free-form part we convert is kept within these. */
#define MAX_JSON_DEPTH 64
#define MAX_JSON_NODES 10000

static int yaml_null(const yaml_node_t *n)
{
	const char *v = (const char *)n->data.scalar.value;

	return n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
		!strcmp(v, "NULL"));
}

static cJSON *scalar_json(const yaml_node_t *n)
{
	const char *v = (const char *)n->data.scalar.value;
	char *end;
	double d;

	if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return cJSON_CreateString(v);
	if (yaml_null(n))
		return cJSON_CreateNull();
	if (!strcmp(v, "true") || !strcmp(v, "false"))
		return cJSON_CreateBool(v[0] == 't');
	d = strtod(v, &end);
	if (*v && !*end && strspn(v, "+-0123456789.eE") == strlen(v))
		return cJSON_CreateNumber(d);
	return cJSON_CreateString(v);
}

static cJSON *to_json(yaml_document_t *doc, const yaml_node_t *n, int depth, int *budget)
{
	cJSON *j;

	if (!n || depth > MAX_JSON_DEPTH || --*budget < 0)
		return NULL;
	if (n->type == YAML_SCALAR_NODE)
		return scalar_json(n);
	if (n->type == YAML_SEQUENCE_NODE) {
		yaml_node_item_t *it;
		j = cJSON_CreateArray();
		for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
			cJSON *c = to_json(doc, yaml_document_get_node(doc, *it), depth + 1, budget);
			if (!c)
				goto fail;
			cJSON_AddItemToArray(j, c);
		}
		return j;
	}
	if (n->type == YAML_MAPPING_NODE) {
		yaml_node_pair_t *p;
		j = cJSON_CreateObject();
		for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(doc, p->key);
			cJSON *c;
			if (!k || k->type != YAML_SCALAR_NODE)
				goto fail;
			c = to_json(doc, yaml_document_get_node(doc, p->value), depth + 1, budget);
			if (!c)
				goto fail;
			cJSON_AddItemToObject(j, (const char *)k->data.scalar.value, c);
		}
		return j;
	}
	return NULL;
fail:
	cJSON_Delete(j);
	return NULL;
}

char *kc_yaml_to_json(yaml_document_t *doc, yaml_node_t *n)
{
	int budget = MAX_JSON_NODES;
	cJSON *j = to_json(doc, n, 0, &budget);
	char *text;

	if (!j)
		return NULL;
	text = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	if (!text)
		xalloc_die();
	return text;
}
