/* Hostile kubeconfigs and servers (issue 12), the pieces that work on
 * values alone: header values, quantities, list bounds, proxy choice. */
#include <stdlib.h>
#include <string.h>

#include "kube/hdrcheck.h"
#include "t.h"

static void test_header_values(void)
{
	struct kube_config cfg;
	struct err e;
	char *groups[] = { "ok", "evil\r\nX-Injected: 1", NULL };

	CHECK(hdrcheck_value_ok("Bearer abc.def-ghi_~+/="));
	CHECK(hdrcheck_value_ok("tab\tis allowed"));
	CHECK(hdrcheck_value_ok("obs-text \xc3\xa9"));
	CHECK(!hdrcheck_value_ok("abc\r\nDELETE /api/v1/namespaces/x/pods/y HTTP/1.1"));
	CHECK(!hdrcheck_value_ok("abc\n"));
	CHECK(!hdrcheck_value_ok("a\x7f"));
	CHECK(!hdrcheck_value_ok("a\x01"));
	CHECK(hdrcheck_name_ok("Impersonate-Extra-scopes"));
	CHECK(!hdrcheck_name_ok("bad name"));
	CHECK(!hdrcheck_name_ok(""));

	memset(&cfg, 0, sizeof(cfg));
	err_clear(&e);
	CHECK_INT(hdrcheck_config(&cfg, "Authorization: Bearer good", &e), 0);
	CHECK_INT(hdrcheck_config(&cfg, "Authorization: Bearer t\r\nX: y", &e), -1);
	CHECK_STR(e.msg, "Unable to connect to the server: net/http: invalid header field value "
		  "for \"Authorization\" (from the kubeconfig's users[].user.token: it holds a "
		  "control character such as CR, LF or NUL; nothing was sent)");
	CHECK(!strstr(e.msg, "X: y"));     /* the value is never quoted */
	cfg.token_from_flag = 1;
	hdrcheck_config(&cfg, "Authorization: Bearer t\nx", &e);
	CHECK_HAS(e.msg, "(from --token:");
	cfg.token_from_flag = 0;
	cfg.creds_from_exec = 1;
	hdrcheck_config(&cfg, "Authorization: Bearer t\nx", &e);
	CHECK_HAS(e.msg, "exec credential plugin");
	cfg.creds_from_exec = 0;

	cfg.impersonate_user = "alice\r\nImpersonate-Group: system:masters";
	CHECK_INT(hdrcheck_config(&cfg, NULL, &e), -1);
	CHECK_HAS(e.msg, "\"Impersonate-User\"");
	cfg.impersonate_user = "alice";
	cfg.impersonate_groups = groups;
	CHECK_INT(hdrcheck_config(&cfg, NULL, &e), -1);
	CHECK_HAS(e.msg, "\"Impersonate-Group\"");
	cfg.impersonate_groups = NULL;
	cfg.proxy_url = "http://user:pa\r\nss@proxy:3128";
	CHECK_INT(hdrcheck_config(&cfg, NULL, &e), -1);
	CHECK_HAS(e.msg, "proxy-url");
	CHECK_HAS(e.msg, "net/url: invalid control character in URL");
	cfg.proxy_url = "http://user:pass@proxy:3128";
	CHECK_INT(hdrcheck_config(&cfg, NULL, &e), 0);
}

int main(void)
{
	test_header_values();
	return T_DONE("test_hostile");
}
