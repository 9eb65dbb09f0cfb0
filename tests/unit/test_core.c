/* Unit tests of the small core pieces: buf, opts, table, http helpers,
 * pod roles.  Each case states what kubectl (or the spec) does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/http/http.h"
#include "kube/api/pods.h"
#include "model/vocab.h"
#include "report/table.h"
#include "util/buf.h"
#include "util/opts.h"
#include "util/xalloc.h"
#include "t.h"

static void test_buf(void)
{
	struct buf b = BUF_INIT(8);
	char *p;
	size_t n;

	CHECK_INT(buf_append(&b, "abcd", 4), 0);
	CHECK_INT(buf_appendf(&b, "%d", 1234), 0);
	CHECK_STR(buf_str(&b), "abcd1234");
	CHECK_INT(buf_append(&b, "x", 1), -1);   /* cap passed: released */
	CHECK(b.overflowed);
	CHECK(b.data == NULL);
	buf_init(&b, 100);
	buf_appends(&b, "hello world");
	buf_consume(&b, 6);
	CHECK_STR(buf_str(&b), "world");
	p = buf_detach(&b, &n);
	CHECK_INT(n, 5);
	CHECK_STR(p, "world");
	free(p);
	CHECK_STR(buf_str(&b), "");
}

/* buf_reserve: one allocation for what will come (the exec's stdout and
 * its frames; issue 46), the appends that fit it do not move the bytes,
 * and the room asked for is cut at the cap: never an overflow itself. */
static void test_buf_reserve(void)
{
	struct buf b = BUF_INIT(1000);
	const char *at;

	buf_appends(&b, "ab");
	buf_reserve(&b, 600);
	CHECK(b.cap >= 603);
	at = b.data;
	for (int i = 0; i < 60; i++)
		CHECK_INT(buf_append(&b, "0123456789", 10), 0);
	CHECK(b.data == at);
	CHECK_INT(b.len, 602);
	CHECK_STR(buf_str(&b) + 598, "6789");
	buf_reserve(&b, 5000);          /* cut at the cap */
	CHECK(b.cap <= 1001);
	CHECK(!b.overflowed);
	CHECK_INT(b.len, 602);
	buf_release(&b);
	buf_reserve(&b, 0);             /* empty and nothing asked: no bytes */
	CHECK(b.data == NULL || b.data[0] == '\0');
	CHECK_STR(buf_str(&b), "");
	buf_release(&b);
}

struct parsed {
	const char *ns, *out;
	int all, v, ins;
};

static int parse(struct parsed *r, int argc, char **argv, char **pos, int *npos,
		 struct err *e)
{
	const struct opt t[] = {
		{ "namespace", 'n', OPT_STRING, &r->ns, "NS", "ns", 0, 0 },
		{ "output", 'o', OPT_STRING, &r->out, "F", "out", 0, 0 },
		{ "all-namespaces", 'A', OPT_BOOL, &r->all, NULL, "all", 0, 0 },
		{ "insecure-skip-tls-verify", 0, OPT_BOOL, &r->ins, NULL, "ins", 0, 0 },
		{ "v", 'v', OPT_INT, &r->v, "N", "v", 0, 0 },
		OPT_TABLE_END
	};
	const struct opt *tables[] = { t, NULL };

	memset(r, 0, sizeof(*r));
	r->ins = -1;
	err_clear(e);
	return opts_parse(argc, argv, tables, pos, npos, e);
}

#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })
#define ARGC(a) ((int)(sizeof(a) / sizeof(char *)) - 1)

/* ALLOC_GROW: a million appends one at a time reallocate O(log n) times,
 * never shrink, and keep what was stored. */
static void test_alloc_grow(void)
{
	size_t *v = NULL, n = 0, alloc = 0, grows = 0, last = 0;

	for (n = 0; n < 1000000; n++) {
		ALLOC_GROW(v, n + 1, alloc);
		v[n] = n;
		if (alloc != last)
			grows++, last = alloc;
	}
	CHECK(alloc >= n);
	CHECK(grows <= 40);
	CHECK(v[0] == 0 && v[999999] == 999999);
	ALLOC_GROW(v, 10, alloc);      /* already big enough: unchanged */
	CHECK(alloc == last);
	free(v);
}

static void test_opts_forms(void)
{
	/* Every spelling pflag accepts for a value flag. */
	static char *forms[][3] = {
		{ "-n", "demo", NULL }, { "-ndemo", NULL, NULL },
		{ "-n=demo", NULL, NULL }, { "--namespace", "demo", NULL },
		{ "--namespace=demo", NULL, NULL },
	};
	struct parsed r;
	struct err e;
	char *pos[4];
	int npos;
	size_t i;

	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		int argc = forms[i][1] ? 2 : 1;
		CHECK_INT(parse(&r, argc, forms[i], pos, &npos, &e), 0);
		CHECK_STR(r.ns, "demo");
		CHECK_INT(npos, 0);
	}
}

static void test_opts_bools_and_positionals(void)
{
	struct parsed r;
	struct err e;
	char *pos[8];
	int npos;
	char **a = ARGV("check", "-A", "--insecure-skip-tls-verify=false", "-v", "6",
			"x", "--", "-n", "y");

	CHECK_INT(parse(&r, 9, a, pos, &npos, &e), 0);
	CHECK_INT(r.all, 1);
	CHECK_INT(r.ins, 0);
	CHECK_INT(r.v, 6);
	CHECK(r.ns == NULL);          /* after "--" it is an argument */
	CHECK_INT(npos, 4);
	CHECK_STR(pos[0], "check");
	CHECK_STR(pos[1], "x");
	CHECK_STR(pos[2], "-n");
	a = ARGV("-Av8");             /* grouped shorthands, value glued on */
	CHECK_INT(parse(&r, 1, a, pos, &npos, &e), 0);
	CHECK_INT(r.all, 1);
	CHECK_INT(r.v, 8);
	a = ARGV("--v=7", "--all-namespaces=true");
	CHECK_INT(parse(&r, 2, a, pos, &npos, &e), 0);
	CHECK_INT(r.v, 7);
	CHECK_INT(r.all, 1);
}

static void test_opts_errors(void)
{
	struct parsed r;
	struct err e;
	char *pos[4];
	int npos;

	CHECK_INT(parse(&r, 1, ARGV("--foo"), pos, &npos, &e), -1);
	CHECK_STR(e.msg, "unknown flag: --foo");
	CHECK_INT(parse(&r, 1, ARGV("--foo=bar"), pos, &npos, &e), -1);
	CHECK_STR(e.msg, "unknown flag: --foo");
	CHECK_INT(parse(&r, 1, ARGV("-x"), pos, &npos, &e), -1);
	CHECK_STR(e.msg, "unknown shorthand flag: 'x' in -x");
	CHECK_INT(parse(&r, 1, ARGV("--namespace"), pos, &npos, &e), -1);
	CHECK_STR(e.msg, "flag needs an argument: --namespace");
	CHECK_INT(parse(&r, 1, ARGV("-n"), pos, &npos, &e), -1);
	CHECK_STR(e.msg, "flag needs an argument: 'n' in -n");
	CHECK_INT(parse(&r, 1, ARGV("--all-namespaces=maybe"), pos, &npos, &e), -1);
	CHECK_HAS(e.msg, "invalid argument \"maybe\" for \"--all-namespaces\" flag");
	CHECK_INT(parse(&r, 2, ARGV("-v", "six"), pos, &npos, &e), -1);
	CHECK_HAS(e.msg, "invalid argument \"six\" for \"--v\" flag");
}

/* Ranges in the table: 0 is "default" and passes; the first bad flag in
 * table order is named in the words the commands always used. */
static void test_opts_ranges(void)
{
	int par = 0;
	struct opt_duration d = { NULL, 60000 }, x = { NULL, 60000 };
	const struct opt t[] = {
		{ "parallel", 0, OPT_INT, &par, "N", "p", 1, 512 },
		{ "timeout", 0, OPT_DURATION, &d, "DURATION", "t", 1, 0 },
		{ "transfer-timeout", 0, OPT_DURATION, &x, "DURATION", "x", 1000, 3600000 },
		OPT_TABLE_END
	};
	const struct opt *tables[] = { t, NULL };
	char *pos[4];
	int npos;
	struct err e;

	err_clear(&e);
	CHECK_INT(opts_check(t, &e), 0);
	CHECK_INT((int)d.ms, 60000);                 /* absent: the default stays */
	CHECK_INT(opts_parse(2, ARGV("--parallel=512", "--timeout=1m30s"), tables, pos, &npos, &e), 0);
	CHECK_INT(opts_check(t, &e), 0);
	CHECK_INT((int)d.ms, 90000);
	par = 513;
	CHECK_INT(opts_check(t, &e), -1);
	CHECK_STR(e.msg, "--parallel must be between 1 and 512");
	par = -1;
	CHECK_INT(opts_check(t, &e), -1);
	par = 0;
	d.text = "soon";
	CHECK_INT(opts_check(t, &e), -1);
	CHECK_STR(e.msg, "invalid --timeout \"soon\"");
	d.text = "0";                                 /* below min 1 ms */
	CHECK_INT(opts_check(t, &e), -1);
	d.text = NULL;
	x.text = "2h";
	CHECK_INT(opts_check(t, &e), -1);
	CHECK_STR(e.msg, "invalid --transfer-timeout \"2h\" (1s to 1h)");
	x.text = "1h";
	CHECK_INT(opts_check(t, &e), 0);
	CHECK_INT((int)x.ms, 3600000);
}

static char *print_to_string(const struct table *t, int no_headers)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	table_print(t, f, no_headers);
	fclose(f);
	return s;
}

static void test_table_geometry(void)
{
	const char *h[] = { "POD", "ROLE", "AGE" };
	const char *r1[] = { "qwen-decode-0", "decode", "5m" };
	const char *r2[] = { "a", "", "95s" };
	struct table *t = table_new(3, h);
	char *s;

	table_add_row(t, r1);
	table_add_row(t, r2);
	s = print_to_string(t, 0);
	/* widest cell + 3, min 6; last column unpadded; "" shows <none>. */
	CHECK_STR(s, "POD             ROLE     AGE\n"
		     "qwen-decode-0   decode   5m\n"
		     "a               <none>   95s\n");
	free(s);
	s = print_to_string(t, 1);
	CHECK_STR(s, "qwen-decode-0   decode   5m\n"
		     "a               <none>   95s\n");
	free(s);
	table_free(t);
}

static void test_table_age(void)
{
	static const struct { long secs; const char *want; } c[] = {
		{ 0, "0s" }, { 95, "95s" }, { 119, "119s" }, { 120, "2m" },
		{ 185, "3m5s" }, { 600, "10m" }, { 95 * 60, "95m" },
		{ 3 * 3600, "3h" }, { 5 * 3600 + 7 * 60, "5h7m" }, { 47 * 3600, "47h" },
		{ 3 * 86400 + 4 * 3600, "3d4h" }, { 8 * 86400, "8d" },
		{ 729 * 86400L, "729d" }, { 730 * 86400L + 86400, "2y1d" },
		{ 9 * 365 * 86400L, "9y" }, { -5, "<invalid>" }, { -1, "0s" },
	};
	char out[32];
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		table_age(1000000000L, 1000000000L + c[i].secs, out, sizeof(out));
		CHECK_STR(out, c[i].want);
	}
}

static void test_http_helpers(void)
{
	char *s = http_escape("sh -c 'a&b=c+d/é'");
	struct err e;
	const char *st404 = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
			    "\"status\":\"Failure\",\"message\":\"pods \\\"x\\\" not found\","
			    "\"reason\":\"NotFound\",\"details\":{\"name\":\"x\",\"kind\":\"pods\"},\"code\":404}";

	CHECK_STR(s, "sh%20-c%20%27a%26b%3Dc%2Bd%2F%C3%A9%27");
	free(s);
	err_clear(&e);
	http_status_error(404, st404, strlen(st404), &e);
	CHECK_STR(e.msg, "Error from server (NotFound): pods \"x\" not found");
	CHECK(e.prefixed);
	http_status_error(401, "", 0, &e);
	CHECK_STR(e.msg, "You must be logged in to the server (Unauthorized)");
	CHECK(!e.prefixed);
	http_status_error(403, "", 0, &e);
	CHECK_STR(e.msg, "Error from server (Forbidden): the server does not allow access to the requested resource");
	http_status_error(500, "boom\n", 5, &e);
	CHECK_STR(e.msg, "Error from server (InternalError): an error on the server (\"boom \") has prevented the request from succeeding");
}

static void test_roles(void)
{
	CHECK_STR(pods_role("prefill", NULL), "prefill");
	CHECK_STR(pods_role("decode", "prefill"), "decode");
	CHECK_STR(pods_role("worker", "prefill"), "prefill");
	CHECK_STR(pods_role("worker", "decode"), "decode");
	CHECK_STR(pods_role("worker", NULL), "worker");
	CHECK(pods_role("frontend", NULL) == NULL);
	CHECK(pods_role("planner", NULL) == NULL);
	CHECK(pods_role("epp", NULL) == NULL);
	CHECK_STR(pods_role(NULL, NULL), "");
}

/* GKE's RDMA NICs are extended resources of their own name: a pod asking
 * for them does request RDMA (no false "no RDMA resource" fail). */
static void test_rdma_resource_names(void)
{
	static const char page[] =
		"{\"kind\":\"PodList\",\"metadata\":{},\"items\":[{\"metadata\":{\"name\":\"p\","
		"\"namespace\":\"n\",\"labels\":{\"nvidia.com/dynamo-component-type\":\"prefill\"}},"
		"\"spec\":{\"nodeName\":\"gke-a\",\"containers\":[{\"name\":\"main\",\"resources\":{"
		"\"limits\":{\"nvidia.com/gpu\":\"8\",\"networking.gke.io.networks/rdma-0\":\"1\","
		"\"networking.gke.io.networks/rdma-0.IP\":\"1\",\"networking.gke.io.networks/rdma-1\":\"1\"}}}]},"
		"\"status\":{\"phase\":\"Running\"}}]}";
	struct pods_query q = { 0 };
	struct pod_list l = { 0 };
	char *next = NULL;
	struct err e;

	CHECK(model_rdma_resource_name("rdma/ib"));
	CHECK(model_rdma_resource_name("rdma/hca_shared_devices_a"));
	CHECK(model_rdma_resource_name("networking.gke.io.networks/rdma-3"));
	CHECK(!model_rdma_resource_name("networking.gke.io.networks/rdma-3.IP"));
	CHECK(!model_rdma_resource_name("networking.gke.io.networks/vpc-1"));
	CHECK(!model_rdma_resource_name("nvidia.com/gpu"));
	err_clear(&e);
	q.namespace = "n";
	CHECK_INT(pods_parse_page(page, sizeof(page) - 1, &q, &l, &next, &e), 0);
	CHECK_INT(l.n, 1);
	if (l.n == 1) {
		CHECK_INT(l.items[0].spec->rdma_devices, 2);
		CHECK_STR(l.items[0].spec->rdma_resource, "networking.gke.io.networks/rdma-0");
	}
	free(next);
	pod_list_release(&l);
}

/* The pod list reserves each page's pods exactly (pods.c, issue 16 RSS):
 * after pages of 3 and 2 pods (one of them a frontend, left out) the array
 * holds no spare slot beyond the skipped one, and the pods are all there. */
static void test_pod_list_reserve(void)
{
#define POD(n, role) "{\"metadata\":{\"name\":\"" n "\",\"namespace\":\"n\",\"labels\":" \
	"{\"nvidia.com/dynamo-component-type\":\"" role "\"}},\"spec\":{\"containers\":" \
	"[{\"name\":\"main\"}]},\"status\":{\"phase\":\"Running\"}}"
	static const char p1[] = "{\"kind\":\"PodList\",\"metadata\":{},\"items\":["
		POD("a", "prefill") "," POD("b", "decode") "," POD("c", "worker") "]}";
	static const char p2[] = "{\"kind\":\"PodList\",\"metadata\":{},\"items\":["
		POD("d", "decode") "," POD("f", "frontend") "]}";
#undef POD
	struct pods_query q = { 0 };
	struct pod_list l = { 0 };
	char *next = NULL;
	struct err e;

	err_clear(&e);
	q.namespace = "n";
	CHECK_INT(pods_parse_page(p1, sizeof(p1) - 1, &q, &l, &next, &e), 0);
	CHECK_INT(l.n, 3);
	CHECK_INT(l.cap, 3);
	CHECK_INT(pods_parse_page(p2, sizeof(p2) - 1, &q, &l, &next, &e), 0);
	CHECK_INT(l.n, 4);
	CHECK_INT(l.cap, 5);
	CHECK_INT(l.skipped_components, 1);
	if (l.n == 4)
		CHECK_STR(l.items[3].name, "d");
	free(next);
	pod_list_release(&l);
}

/* pod_info.nodes: a LeaderWorkerSet group's size from its annotation,
 * its label, or the LWS_GROUP_SIZE the controller injects; 0 for none
 * or a value that is no count (checks.md J7). */
static void test_pod_group_nodes(void)
{
#define POD(n, meta, env) "{\"metadata\":{\"name\":\"" n "\",\"namespace\":\"n\"," meta "},\"spec\":{\"containers\":" \
	"[{\"name\":\"main\",\"env\":[" env "]}]},\"status\":{\"phase\":\"Running\"}}"
#define WL "\"labels\":{\"nvidia.com/dynamo-component-type\":\"prefill\""
	static const char page[] = "{\"kind\":\"PodList\",\"metadata\":{},\"items\":["
		POD("a", WL "},\"annotations\":{\"leaderworkerset.sigs.k8s.io/size\":\"2\"}", "") ","
		POD("b", WL ",\"leaderworkerset.sigs.k8s.io/size\":\"4\"}", "") ","
		POD("c", WL "}", "{\"name\":\"LWS_GROUP_SIZE\",\"value\":\"3\"}") ","
		POD("d", WL "}", "") ","
		POD("e", WL "},\"annotations\":{\"leaderworkerset.sigs.k8s.io/size\":\"2x\"}", "") ","
		POD("f", WL ",\"grove.io/podcliquescalinggroup\":\"g-0-prefill\","
			 "\"grove.io/podcliquescalinggroup-replica-index\":\"1\"}", "") "]}";
#undef WL
#undef POD
	static const int want[] = { 2, 4, 3, 0, 0, 0 };
	struct pods_query q = { .namespace = "n" };
	struct pod_list l = { 0 };
	char *next = NULL;
	struct err e = { 0 };

	CHECK_INT(pods_parse_page(page, sizeof(page) - 1, &q, &l, &next, &e) || l.n != 6, 0);
	for (size_t i = 0; i < l.n && i < 6; i++)
		CHECK_INT(l.items[i].nodes, want[i]);
	if (l.n == 6) {        /* the Grove scaling-group replica, for run.c to count */
		CHECK_STR(l.items[5].group, "g-0-prefill/1");
		CHECK_STR(l.items[0].group, "");
	}
	free(next);
	pod_list_release(&l);
}

int main(void)
{
	test_buf();
	test_buf_reserve();
	test_alloc_grow();
	test_rdma_resource_names();
	test_pod_list_reserve();
	test_pod_group_nodes();
	test_opts_forms();
	test_opts_bools_and_positionals();
	test_opts_errors();
	test_opts_ranges();
	test_table_geometry();
	test_table_age();
	test_http_helpers();
	test_roles();
	return T_DONE("test_core");
}
