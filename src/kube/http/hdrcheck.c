#include "hdrcheck.h"

#include <openssl/crypto.h>
#include <stdlib.h>
#include <string.h>

int hdrcheck_value_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; p && *p; p++)
		if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
			return 0;
	return 1;
}

int hdrcheck_name_ok(const char *s)
{
	static const char tchar[] = "!#$%&'*+-.^_`|~";

	if (!s || !*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr(tchar, *s)))
			return 0;
	return 1;
}

static int bad_value(const char *header, const char *source, struct err *e)
{
	return err_setp(e, ERR_CONFIG,
			"Unable to connect to the server: net/http: invalid header field "
			"value for \"%s\" (from %s: it holds a control character "
			"such as CR, LF or NUL; nothing was sent)", header, source);
}

static const char *token_source(const struct kube_config *cfg)
{
	if (cfg->token_from_flag)
		return "--token";
	if (cfg->creds_from_exec)
		return "the exec credential plugin's status.token";
	if (cfg->token_file && *cfg->token_file)
		return "the kubeconfig's users[].user.tokenFile";
	if (cfg->in_cluster)
		return "the service account token";
	return "the kubeconfig's users[].user.token";
}

/* An Authorization line whose value came from a token or from Basic
 * credentials; Basic is base64, so only a token can be bad. */
static int check_auth(const struct kube_config *cfg, const char *line, struct err *e)
{
	const char *v = line ? strchr(line, ':') : NULL;

	if (!v || hdrcheck_value_ok(v + 1))
		return 0;
	return bad_value("Authorization", token_source(cfg), e);
}

static int check_list(char *const *l, const char *header, const char *source,
		      struct err *e)
{
	for (; l && *l; l++)
		if (!hdrcheck_value_ok(*l))
			return bad_value(header, source, e);
	return 0;
}

/* Impersonate-Extra-<key>: <value>, from "key=value". */
static int check_extra(char *const *l, struct err *e)
{
	for (; l && *l; l++) {
		const char *eq = strchr(*l, '=');
		size_t n = eq ? (size_t)(eq - *l) : strlen(*l);
		char *key = strndup(*l, n);
		int ok = key && hdrcheck_value_ok(key) && hdrcheck_value_ok(eq ? eq + 1 : "");

		free(key);
		if (!ok)
			return bad_value("Impersonate-Extra", "--as-user-extra or users[].user.as-user-extra", e);
	}
	return 0;
}

/* Go's url.Parse refuses a control byte anywhere in the URL before a
 * proxy is ever dialled ("net/url: invalid control character in URL"). */
static int check_proxy(const char *url, struct err *e)
{
	if (hdrcheck_value_ok(url) && !strchr(url ? url : "", '\t'))
		return 0;
	return err_set(e, ERR_CONFIG,
		       "invalid 'proxy-url' in the kubeconfig's clusters[].cluster.proxy-url: "
		       "net/url: invalid control character in URL");
}

int hdrcheck_config(const struct kube_config *cfg, const char *auth_line,
		    struct err *e)
{
	if (check_auth(cfg, auth_line, e))
		return -1;
	if (!hdrcheck_value_ok(cfg->impersonate_user))
		return bad_value("Impersonate-User", "--as or users[].user.as", e);
	if (!hdrcheck_value_ok(cfg->impersonate_uid))
		return bad_value("Impersonate-Uid", "--as-uid or users[].user.as-uid", e);
	if (check_list(cfg->impersonate_groups, "Impersonate-Group",
		       "--as-group or users[].user.as-groups", e) ||
	    check_extra(cfg->impersonate_extra, e))
		return -1;
	return check_proxy(cfg->proxy_url, e);
}

