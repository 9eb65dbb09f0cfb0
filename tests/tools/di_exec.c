/* di_exec: TEST-ONLY driver for exec_run (src/kube/exec/exec.h).
 *
 *   di_exec --kubeconfig K [--context C] -n NS [-c CONTAINER]
 *           [--timeout-ms N] [--max-output N] [--stdin-file F] [-v N] POD -- ARGV...
 *
 * --stdin-file: F's bytes go to the command's stdin, as the plugin sends
 * its probe (`sh -s` reading `probe-script`), so a long script never rides
 * the request line.
 * Prints one JSON object on stdout and exits 0 when it did:
 *   {"outcome":"success|exit-code|failed|no-status|error|timeout",
 *    "exitCode":N,"protocol":5,"httpStatus":101,"truncated":false,
 *    "stdout":"...","stderr":"...","stdoutBytes":N,"stderrBytes":N,
 *    "message":"..."}
 * stdout/stderr are shown as UTF-8 (bad bytes and NULs become U+FFFD);
 * the *Bytes fields count the bytes received.  Exit 1: could not load the
 * config; 2: usage.  Never part of the product, which runs only its probe.
 */
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/config/auth.h"
#include "kube/exec/exec.h"
#include "kube/http/http.h"
#include "kube/config/kubeconfig.h"
#include "util/buf.h"
#include "util/log.h"
#include "util/xalloc.h"

static const char usage[] =
	"usage: di_exec --kubeconfig K [--context C] -n NS [-c CONTAINER]\n"
	"               [--timeout-ms N] [--max-output N] [--stdin-file F] [-v N] POD -- ARGV...\n";

struct opts {
	struct kube_overrides ov;
	const char *container;
	const char *pod;
	long timeout_ms;
	long max_output;
	char **argv;          /* borrowed from main's argv, NULL-terminated */
	const char *stdin_file;
};

static int bad_usage(const char *why)
{
	fprintf(stderr, "di_exec: %s\n%s", why, usage);
	return 2;
}

static int parse_long(const char *s, long *out)
{
	char *end;

	*out = strtol(s, &end, 10);
	return *s && !*end && *out >= 0 ? 0 : -1;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		long level;

		if (!strcmp(a, "--")) {
			o->argv = argv + i + 1;
			break;
		}
		if (a[0] != '-') {
			if (o->pod)
				return bad_usage("more than one pod given");
			o->pod = a;
			continue;
		}
		if (!v)
			return bad_usage("option needs a value");
		i++;
		if (!strcmp(a, "--kubeconfig"))
			o->ov.kubeconfig = v;
		else if (!strcmp(a, "--context"))
			o->ov.context = v;
		else if (!strcmp(a, "-n") || !strcmp(a, "--namespace"))
			o->ov.namespace = v;
		else if (!strcmp(a, "-c") || !strcmp(a, "--container"))
			o->container = v;
		else if (!strcmp(a, "--timeout-ms") && !parse_long(v, &o->timeout_ms))
			;
		else if (!strcmp(a, "--max-output") && !parse_long(v, &o->max_output))
			;
		else if (!strcmp(a, "--stdin-file"))
			o->stdin_file = v;
		else if (!strcmp(a, "-v") && !parse_long(v, &level))
			log_set_level((int)level);
		else
			return bad_usage("unknown option or bad value");
	}
	if (!o->pod)
		return bad_usage("no pod given");
	if (!o->argv || !o->argv[0])
		return bad_usage("no command given after --");
	return 0;
}

static size_t utf8_seq(const unsigned char *p, size_t n)
{
	size_t len, i;

	if (p[0] >= 0x01 && p[0] < 0x80)
		return 1;
	len = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ?
	      3 : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
	if (!len || len > n)
		return 0;
	for (i = 1; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

/* Valid UTF-8 passes through; anything else (NUL too) becomes U+FFFD. */
static char *to_utf8(const struct buf *b)
{
	const unsigned char *p = (const unsigned char *)buf_str(b);
	char *out = xmalloc(3 * b->len + 1);
	size_t i = 0, o = 0;

	while (i < b->len) {
		size_t n = utf8_seq(p + i, b->len - i);
		if (n) {
			memcpy(out + o, p + i, n);
			o += n;
			i += n;
		} else {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	out[o] = '\0';
	return out;
}

static void add_stream(cJSON *j, const char *name, const char *count,
		       const struct buf *b)
{
	char *s = to_utf8(b);

	cJSON_AddStringToObject(j, name, s);
	cJSON_AddNumberToObject(j, count, (double)b->len);
	free(s);
}

static int print_result(const struct exec_result *r)
{
	cJSON *j = cJSON_CreateObject();
	char *text;
	int rc;

	cJSON_AddStringToObject(j, "outcome", exec_outcome_name(r->outcome));
	cJSON_AddNumberToObject(j, "exitCode", r->exit_code);
	cJSON_AddNumberToObject(j, "protocol", r->protocol);
	cJSON_AddNumberToObject(j, "httpStatus", (double)r->http_status);
	cJSON_AddBoolToObject(j, "truncated", r->truncated);
	add_stream(j, "stdout", "stdoutBytes", &r->out);
	add_stream(j, "stderr", "stderrBytes", &r->err);
	cJSON_AddStringToObject(j, "message", r->message);
	text = cJSON_PrintUnformatted(j);
	rc = text && printf("%s\n", text) > 0 && fflush(stdout) == 0 ? 0 : 1;
	free(text);
	cJSON_Delete(j);
	return rc;
}

/* The whole of file path, NUL-terminated, into *out (owned by the caller);
 * its length, or -1 when it cannot be read. */
static long read_whole(const char *path, char **out)
{
	FILE *f = fopen(path, "rb");
	struct buf b;
	char chunk[8192];
	size_t n;

	if (!f)
		return -1;
	buf_init(&b, (size_t)1 << 24);   /* a test script, well under 16 MiB */
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		if (buf_append(&b, chunk, n) < 0)
			break;
	if (ferror(f) || b.overflowed) {
		fclose(f);
		buf_release(&b);
		return -1;
	}
	fclose(f);
	*out = buf_detach(&b, &n);
	return (long)n;
}

static int run(const struct opts *o)
{
	struct kube_config cfg;
	struct http_client *client;
	struct exec_result res;
	struct exec_request rq;
	struct err e;
	char *in = NULL;
	long in_len = 0;
	int rc;

	if (o->stdin_file && (in_len = read_whole(o->stdin_file, &in)) < 0) {
		fprintf(stderr, "di_exec: cannot read %s\n", o->stdin_file);
		return 1;
	}
	err_clear(&e);
	memset(&cfg, 0, sizeof(cfg));
	if (kubeconfig_load(&o->ov, &cfg, &e) < 0) {
		fprintf(stderr, "%s%s\n", err_prefix(&e), e.msg);
		return 1;
	}
	if (auth_prepare(&cfg, &e) < 0) {
		fprintf(stderr, "%s%s\n", err_prefix(&e), e.msg);
		kubeconfig_release(&cfg);
		return 1;
	}
	client = http_client_new(&cfg);
	memset(&rq, 0, sizeof(rq));
	rq.namespace = cfg.namespace;
	rq.pod = o->pod;
	rq.container = o->container;
	rq.argv = (const char *const *)o->argv;
	rq.timeout_ms = o->timeout_ms;
	rq.max_output = (size_t)o->max_output;
	rq.stdin_data = in;
	rq.stdin_len = (size_t)in_len;
	exec_run(client, &rq, &res);
	rc = print_result(&res);
	exec_result_release(&res);
	http_client_free(client);
	kubeconfig_release(&cfg);
	free(in);
	return rc;
}

int main(int argc, char **argv)
{
	struct opts o;
	int rc;

	memset(&o, 0, sizeof(o));
	o.ov.insecure_skip_tls_verify = -1;
	signal(SIGPIPE, SIG_IGN);
	rc = parse_args(argc, argv, &o);
	if (rc)
		return rc;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		fputs("di_exec: cannot initialise libcurl\n", stderr);
		return 1;
	}
	rc = run(&o);
	curl_global_cleanup();
	return rc;
}
