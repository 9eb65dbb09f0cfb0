/* exec's byte-level pieces: the 101 check and the channel-3 status, with
 * the real status documents from docs/captures-k8s-1.20. */
#include "kube/exec/exec.h"
#include "kube/exec/ws.h"
#include "t.h"

#include <stdlib.h>

/* captures-k8s-1.20/b01 */
static const char B01_STATUS[] =
	"{\"metadata\":{},\"status\":\"Success\"}";

/* captures-k8s-1.20/b02 */
static const char B02_STATUS[] =
	"{\"metadata\":{},\"status\":\"Failure\",\"message\":\"command te"
	"rminated with non-zero exit code: error executing command [sh -c"
	" echo before-exit; echo oops \\u003e\\u00262; exit 3], exit code"
	" 3\",\"reason\":\"NonZeroExitCode\",\"details\":{\"causes\":[{\""
	"reason\":\"ExitCode\",\"message\":\"3\"}]}}";

/* captures-k8s-1.20/b03 */
static const char B03_STATUS[] =
	"{\"metadata\":{},\"status\":\"Failure\",\"message\":\"Internal e"
	"rror occurred: error executing command in container: failed to e"
	"xec in container: failed to start exec \\\"8466d79bccdcac3acb946"
	"a90338095b1f1f4bf9dcbd4664b55aac3507472b4f1\\\": OCI runtime exe"
	"c failed: exec failed: unable to start container process: exec: "
	"\\\"nosuchcmd\\\": executable file not found in $PATH: unknown\""
	",\"reason\":\"InternalError\",\"details\":{\"causes\":[{\"messag"
	"e\":\"error executing command in container: failed to exec in co"
	"ntainer: failed to start exec \\\"8466d79bccdcac3acb946a90338095"
	"b1f1f4bf9dcbd4664b55aac3507472b4f1\\\": OCI runtime exec failed:"
	" exec failed: unable to start container process: exec: \\\"nosuc"
	"hcmd\\\": executable file not found in $PATH: unknown\"}]},\"cod"
	"e\":500}";

/* captures-k8s-1.20/b20 */
static const char B20_STATUS[] =
	"{\"metadata\":{},\"status\":\"Failure\",\"message\":\"command te"
	"rminated with non-zero exit code: error executing command [sh -c"
	" kill -9 $$], exit code 137\",\"reason\":\"NonZeroExitCode\",\"d"
	"etails\":{\"causes\":[{\"reason\":\"ExitCode\",\"message\":\"137"
	"\"}]}}";

/* captures-k8s-1.20/b15 */
static const char B15_STATUS[] =
	"{\"metadata\":{},\"status\":\"Failure\",\"message\":\"Internal e"
	"rror occurred: error executing command in container: failed to e"
	"xec in container: failed to start exec \\\"fc19d5565091b6247a7c4"
	"2f192fe0f0d69a9a3e751930ec62fba7a70388b6e7d\\\": OCI runtime exe"
	"c failed: exec failed: args must not be empty: unknown\",\"reaso"
	"n\":\"InternalError\",\"details\":{\"causes\":[{\"message\":\"er"
	"ror executing command in container: failed to exec in container:"
	" failed to start exec \\\"fc19d5565091b6247a7c42f192fe0f0d69a9a3"
	"e751930ec62fba7a70388b6e7d\\\": OCI runtime exec failed: exec fa"
	"iled: args must not be empty: unknown\"}]},\"code\":500}";

/* captures-k8s-1.20/b21 */
static const char B21_STATUS[] =
	"{\"metadata\":{},\"status\":\"Failure\",\"message\":\"command te"
	"rminated with non-zero exit code: error executing command [sh -c"
	" exit 255], exit code 255\",\"reason\":\"NonZeroExitCode\",\"det"
	"ails\":{\"causes\":[{\"reason\":\"ExitCode\",\"message\":\"255\""
	"}]}}";

/* v5 through the translator: kubelet-side failure after the 101
 * (exec-protocol.md §4). */
static const char V5_CONTAINER_GONE[] =
	"{\"metadata\":{},\"status\":\"Failure\",\"message\":\"Internal error "
	"occurred: unable to upgrade connection: container not found "
	"(\\\"main\\\")\",\"reason\":\"InternalError\",\"code\":500}";

static void decode(const char *json, struct exec_result *res)
{
	memset(res, 0, sizeof(*res));
	exec_decode_status(json, strlen(json), res);
}

static void test_status_captures(void)
{
	struct exec_result r;

	decode(B01_STATUS, &r);
	CHECK_INT(r.outcome, EXEC_SUCCESS);
	CHECK_INT(r.exit_code, 0);

	decode(B02_STATUS, &r);
	CHECK_INT(r.outcome, EXEC_EXIT_CODE);
	CHECK_INT(r.exit_code, 3);
	CHECK_STR(r.message, "command terminated with exit code 3");

	decode(B20_STATUS, &r);
	CHECK_INT(r.outcome, EXEC_EXIT_CODE);
	CHECK_INT(r.exit_code, 137);

	decode(B21_STATUS, &r);
	CHECK_INT(r.outcome, EXEC_EXIT_CODE);
	CHECK_INT(r.exit_code, 255);

	decode(B03_STATUS, &r);
	CHECK_INT(r.outcome, EXEC_FAILED);
	CHECK_INT(r.exit_code, -1);
	CHECK_HAS(r.message, "Internal error occurred: error executing command");
	CHECK_HAS(r.message, "\"nosuchcmd\": executable file not found");

	decode(B15_STATUS, &r);
	CHECK_INT(r.outcome, EXEC_FAILED);
	CHECK_HAS(r.message, "args must not be empty");

	decode(V5_CONTAINER_GONE, &r);
	CHECK_INT(r.outcome, EXEC_FAILED);
	CHECK_STR(r.message, "Internal error occurred: unable to upgrade "
		  "connection: container not found (\"main\")");
}

static void test_status_garbage(void)
{
	static const char *const bad_json[] = {
		"not json", "{\"status\":\"Succ", "", "\x01\x02\x03", "[1,2]",
		"\"Success\"",
	};
	static const struct {
		const char *json;
		const char *why;
	} protocol[] = {
		{ "{}", "unknown error" },
		{ "{\"status\":\"Weird\"}", "unknown error" },
		{ "{\"status\":\"Failure\",\"reason\":\"NonZeroExitCode\"}",
		  "details must be set" },
		{ "{\"status\":\"Failure\",\"reason\":\"NonZeroExitCode\","
		  "\"details\":{\"causes\":[{\"reason\":\"Other\",\"message\":\"1\"}]}}",
		  "no ExitCode cause" },
		{ "{\"status\":\"Failure\",\"reason\":\"NonZeroExitCode\","
		  "\"details\":{\"causes\":[{\"reason\":\"ExitCode\",\"message\":\"256\"}]}}",
		  "invalid exit code value \"256\"" },
		{ "{\"status\":\"Failure\",\"reason\":\"NonZeroExitCode\","
		  "\"details\":{\"causes\":[{\"reason\":\"ExitCode\",\"message\":\"-1\"}]}}",
		  "invalid exit code" },
		{ "{\"status\":\"Failure\",\"reason\":\"NonZeroExitCode\","
		  "\"details\":{\"causes\":[{\"reason\":\"ExitCode\",\"message\":3}]}}",
		  "invalid exit code" },
	};
	struct exec_result r;
	size_t i;

	for (i = 0; i < sizeof(bad_json) / sizeof(bad_json[0]); i++) {
		decode(bad_json[i], &r);
		CHECK_INT(r.outcome, EXEC_ERROR);
		CHECK_HAS(r.message, "error stream protocol error: ");
	}
	for (i = 0; i < sizeof(protocol) / sizeof(protocol[0]); i++) {
		decode(protocol[i].json, &r);
		CHECK_INT(r.outcome, EXEC_ERROR);
		CHECK_HAS(r.message, "error stream protocol error: ");
		CHECK_HAS(r.message, protocol[i].why);
	}
	/* The server's words land on one line. */
	decode("{\"status\":\"Failure\",\"message\":\"a\\nb\\tc\"}", &r);
	CHECK_INT(r.outcome, EXEC_FAILED);
	CHECK_STR(r.message, "a b c");
	/* Not NUL-terminated: only len bytes count. */
	{
		char both[sizeof(B01_STATUS) + 8];
		snprintf(both, sizeof(both), "%sgarbage", B01_STATUS);
		memset(&r, 0, sizeof(r));
		exec_decode_status(both, sizeof(B01_STATUS) - 1, &r);
		CHECK_INT(r.outcome, EXEC_SUCCESS);
		exec_decode_status(both, strlen(both), &r);
		CHECK_INT(r.outcome, EXEC_ERROR);
	}
}

static void test_head_status(void)
{
	static const char *const h[] = {
		"HTTP/1.1 101 Switching Protocols\r\n\r\n",
		"HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n",
		"HTTP/1.0 500 Internal Server Error\r\n\r\n",
		"HTTP/1.1 404\r\n\r\n",
		"HTTP/2 200\r\n\r\n",
		"SSH-2.0-OpenSSH\r\n\r\n",
		"HTTP/1.1 10 x\r\n\r\n",
		"HTTP/1.1 1011 x\r\n\r\n",
		"HTTP/1.",
	};
	static const long want[] = { 101, 403, 500, 404, -1, -1, -1, -1, -1 };
	size_t i;

	for (i = 0; i < sizeof(h) / sizeof(h[0]); i++)
		CHECK_INT(exec_head_status(h[i], strlen(h[i])), want[i]);
}

/* captures-k8s-1.20/b01, answering key 6kIwOIjh0UR6Sguiyp5Aig== */
static const char B01_HEAD[] =
	"HTTP/1.1 101 Switching Protocols\r\n"
	"Upgrade: websocket\r\n"
	"Connection: Upgrade\r\n"
	"Sec-WebSocket-Accept: l5M0b71o/NP+U1aOdsrKRE9tBdU=\r\n"
	"Sec-WebSocket-Protocol: v4.channel.k8s.io\r\n"
	"\r\n";
#define B01_KEY "6kIwOIjh0UR6Sguiyp5Aig=="

static int check(const char *head, const char *key, int *proto, char *msg)
{
	return exec_check_upgrade(head, strlen(head), key, proto, msg, 256);
}

/* A head with the right accept for key and the given extra lines. */
static char *head_with(const char *key, const char *status,
		       const char *lines)
{
	char accept[29];
	struct buf b = BUF_INIT(4096);

	ws_accept_for(key, accept);
	buf_appendf(&b, "%s\r\nSec-WebSocket-Accept: %s\r\n%s\r\n", status,
		    accept, lines);
	return buf_detach(&b, NULL);
}

static void test_upgrade_ok(void)
{
	static const char *const good[] = {
		"Upgrade: websocket\r\nConnection: Upgrade\r\n"
		"Sec-WebSocket-Protocol: v5.channel.k8s.io\r\n",
		/* Names and tokens are case-insensitive; lists and OWS. */
		"upgrade: WebSocket\r\nCONNECTION: keep-alive, upgrade\r\n"
		"sec-websocket-protocol:   v5.channel.k8s.io  \r\n",
		"Upgrade: websocket\r\nConnection: keep-alive\r\n"
		"Connection: Upgrade\r\nSec-WebSocket-Protocol: v5.channel.k8s.io\r\n"
		"Sec-WebSocket-Extensions: \r\n",
	};
	char msg[256];
	int proto = -1;
	size_t i;

	CHECK_INT(check(B01_HEAD, B01_KEY, &proto, msg), 0);
	CHECK_INT(proto, 4);
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		char *h = head_with("dGhlIHNhbXBsZSBub25jZQ==",
				    "HTTP/1.1 101 Switching Protocols", good[i]);
		proto = -1;
		msg[0] = 0;
		CHECK_INT(check(h, "dGhlIHNhbXBsZSBub25jZQ==", &proto, msg), 0);
		CHECK_INT(proto, 5);
		if (*msg)
			fprintf(stderr, "  case %zu: %s\n", i, msg);
		free(h);
	}
}

static void test_upgrade_bad(void)
{
	static const struct {
		const char *status;
		const char *lines;
		const char *why;
	} v[] = {
		{ "HTTP/1.1 200 OK", "Upgrade: websocket\r\nConnection: Upgrade\r\n"
		  "Sec-WebSocket-Protocol: v5.channel.k8s.io\r\n", "101" },
		{ "HTTP/1.1 101 Switching Protocols", "Connection: Upgrade\r\n"
		  "Sec-WebSocket-Protocol: v5.channel.k8s.io\r\n", "Upgrade: websocket" },
		{ "HTTP/1.1 101 Switching Protocols", "Upgrade: h2c\r\n"
		  "Connection: Upgrade\r\nSec-WebSocket-Protocol: v5.channel.k8s.io\r\n",
		  "Upgrade: websocket" },
		{ "HTTP/1.1 101 Switching Protocols", "Upgrade: websocket\r\n"
		  "Connection: keep-alive\r\nSec-WebSocket-Protocol: v5.channel.k8s.io\r\n",
		  "Connection: Upgrade" },
		{ "HTTP/1.1 101 Switching Protocols", "Upgrade: websocket\r\n"
		  "Connection: Upgrade\r\n", "no subprotocol" },
		{ "HTTP/1.1 101 Switching Protocols", "Upgrade: websocket\r\n"
		  "Connection: Upgrade\r\nSec-WebSocket-Protocol: \r\n", "no subprotocol" },
		{ "HTTP/1.1 101 Switching Protocols", "Upgrade: websocket\r\n"
		  "Connection: Upgrade\r\nSec-WebSocket-Protocol: v3.channel.k8s.io\r\n",
		  "got \"v3.channel.k8s.io\"" },
		{ "HTTP/1.1 101 Switching Protocols", "Upgrade: websocket\r\n"
		  "Connection: Upgrade\r\nSec-WebSocket-Protocol: base64.channel.k8s.io\r\n",
		  "invalid protocol" },
		{ "HTTP/1.1 101 Switching Protocols", "Upgrade: websocket\r\n"
		  "Connection: Upgrade\r\nSec-WebSocket-Protocol: V5.CHANNEL.K8S.IO\r\n",
		  "invalid protocol" },
		{ "HTTP/1.1 101 Switching Protocols", "Upgrade: websocket\r\n"
		  "Connection: Upgrade\r\nSec-WebSocket-Protocol: v5.channel.k8s.io\r\n"
		  "Sec-WebSocket-Extensions: permessage-deflate\r\n", "extensions" },
	};
	char msg[256];
	size_t i;
	int proto;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char *h = head_with(B01_KEY, v[i].status, v[i].lines);
		proto = -1;
		msg[0] = 0;
		CHECK_INT(check(h, B01_KEY, &proto, msg), -1);
		CHECK_HAS(msg, v[i].why);
		CHECK_INT(proto, 0);
		free(h);
	}
	/* The b01 answer does not fit another key. */
	CHECK_INT(check(B01_HEAD, "qMl85Lh0Yu0hdteoiUIfeA==", &proto, msg), -1);
	CHECK_HAS(msg, "Sec-WebSocket-Accept");
	/* Nor a near miss of its own. */
	{
		char *h = head_with(B01_KEY, "HTTP/1.1 101 Switching Protocols",
				    "Upgrade: websocket\r\nConnection: Upgrade\r\n"
				    "Sec-WebSocket-Protocol: v4.channel.k8s.io\r\n");
		char *a = strstr(h, "Accept: ") + 8;
		a[27] = 'X';   /* the '=' padding */
		CHECK_INT(check(h, B01_KEY, &proto, msg), -1);
		CHECK_HAS(msg, "Sec-WebSocket-Accept");
		free(h);
	}
}

/* A 403's Status is read once, where it arrives (kube/http/status.c):
 * verb, resource, user and namespace as values; any other answer, or a 403
 * in other words, gives no denial. */
static void test_denial(void)
{
	static const char body[] = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":"
		"\"Failure\",\"message\":\"pods \\\"p\\\" is forbidden: User \\\"nolog\\\" cannot get "
		"resource \\\"pods/log\\\" in API group \\\"\\\" in the namespace \\\"demo\\\"\","
		"\"reason\":\"Forbidden\",\"code\":403}";
	static const char other[] = "{\"kind\":\"Status\",\"message\":\"pods \\\"p\\\" is forbidden: "
		"a webhook said no\",\"reason\":\"Forbidden\",\"code\":403}";
	/* NotFound in forbiddenMessage's words still is no denial. */
	static const char notfound[] = "{\"kind\":\"Status\",\"message\":\"pods is forbidden: "
		"User \\\"u\\\" cannot get resource \\\"pods\\\"\",\"reason\":\"NotFound\",\"code\":404}";
	struct err e;
	struct err_denial d;

	err_clear(&e);
	CHECK_INT(http_status_error(403, body, sizeof(body) - 1, &e), -1);
	CHECK_STR(e.denied.verb, "get");
	CHECK_STR(e.denied.resource, "pods/log");
	CHECK_STR(e.denied.user, "nolog");
	CHECK_STR(e.denied.ns, "demo");
	CHECK_HAS(e.msg, "Error from server (Forbidden): pods \"p\" is forbidden");
	/* A new error is a new error: the denial goes with the old one. */
	err_set(&e, ERR_OTHER, "something else");
	CHECK_STR(e.denied.verb, "");
	CHECK_INT(http_status_error(403, other, sizeof(other) - 1, &e), -1);
	CHECK_STR(e.denied.verb, "");
	CHECK_INT(http_status_error(404, notfound, sizeof(notfound) - 1, &e), -1);
	CHECK_STR(e.denied.verb, "");
	/* Cluster-wide: no namespace; a verb too long to be one: none. */
	http_status_denial("nodes is forbidden: User \"u\" cannot list resource \"nodes\" "
			   "in API group \"\" at the cluster scope", &d);
	CHECK_STR(d.verb, "list");
	CHECK_STR(d.resource, "nodes");
	CHECK_STR(d.ns, "");
	http_status_denial("x is forbidden: User \"u\" cannot aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa "
			   "resource \"pods\"", &d);
	CHECK_STR(d.verb, "");
	CHECK_STR(d.resource, "");
}

int main(void)
{
	test_denial();
	test_status_captures();
	test_status_garbage();
	test_head_status();
	test_upgrade_ok();
	test_upgrade_bad();
	return T_DONE("test_exec_status");
}
