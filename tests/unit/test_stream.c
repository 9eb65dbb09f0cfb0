/* -o json and -o yaml written pod by pod (report/stream.c) are the bytes
 * of the whole document (report_json() printed as before), for no pod, one
 * pod and many, with text that needs escaping and invalid UTF-8; and the
 * printer's live heap does not grow with the pod count (a count of the
 * bytes cJSON holds, through cJSON_InitHooks: no timing, no RSS). */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/report.h"
#include "t.h"

#define NPODS 200

static struct pod_info pods[NPODS];
static struct run_pod rp[NPODS];
static enum verdict_status pv[NPODS];
static char names[NPODS][32];

/* Live bytes allocated through cJSON, and their peak.  The blocks are
 * plain malloc()'s (their size from malloc_usable_size), since some are
 * freed with free() by design (json.c's UTF-8 repair). */
static long long live, peak;

static void *counting_malloc(size_t n)
{
	void *p = malloc(n);

	if (p)
		live += (long long)malloc_usable_size(p);
	if (live > peak)
		peak = live;
	return p;
}

static void counting_free(void *p)
{
	live -= (long long)malloc_usable_size(p);
	free(p);
}

/* hostile: names and details that need escaping and UTF-8 repair (the
 * byte comparison); else plain ones (the memory count, where the repair's
 * own free() would be invisible to it). */
static void setup(int hostile)
{
	struct check_result c = { 0 };

	for (size_t i = 0; i < NPODS; i++) {
		snprintf(names[i], sizeof(names[i]), hostile ? "pod-\"%zu\"\n\xff" : "pod-%zu", i);
		pods[i] = (struct pod_info){ .namespace = "ns", .name = names[i],
					     .role = i % 2 ? "decode" : "prefill",
					     .graph = "g", .node = i % 3 ? "n1" : hostile ? "n\x1b[2" : "n2",
					     .node_ip = "10.0.0.1", .pod_ip = "10.1.0.1",
					     .container = "main", .image = "img:1", .phase = "Running" };
		check_results_init(&rp[i].results);
		c.name = "rdma-devices";
		c.family = FAM_RDMA;
		c.status = i % 4 ? CHECK_OK : CHECK_FAIL;
		c.detail = hostile ? "detail \"q\" \\ tab\t \xc3\x28" : "detail";
		c.remedy = i % 4 ? NULL : "set UCX_NET_DEVICES";
		check_results_add(&rp[i].results, &c);
		rp[i].pod = &pods[i];
		rp[i].probed = 1;
		pv[i] = i % 4 ? VERDICT_READY : VERDICT_NOT_READY;
	}
}

typedef int (*printer)(FILE *, const struct report *);

static char *render(printer p, const struct report *r)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	CHECK_INT(p(f, r), 0);
	fclose(f);
	return s;
}

static int whole_json(FILE *out, const struct report *r)
{
	cJSON *doc = report_json(r);
	int rc = report_emit_json(out, doc);

	cJSON_Delete(doc);
	return rc;
}

static int whole_yaml(FILE *out, const struct report *r)
{
	cJSON *doc = report_json(r);
	int rc = report_emit_yaml(out, doc);

	cJSON_Delete(doc);
	return rc;
}

static struct report report_of(size_t n, struct verdict *v)
{
	*v = (struct verdict){ .status = VERDICT_NOT_READY, .exit_code = 2, .pod = pv,
			       .npods = n, .nprobed = n };
	return (struct report){ .pods = rp, .n = n, .verdict = v };
}

static void same(printer stream, printer whole, size_t n)
{
	struct verdict v;
	struct report r = report_of(n, &v);
	char *a = render(stream, &r), *b = render(whole, &r);

	CHECK(a && b && strlen(a) > 10);
	CHECK_STR(a, b);
	free(a);
	free(b);
}

/* Peak cJSON bytes while printing n pods through p. */
static long long peak_of(printer p, size_t n)
{
	struct verdict v;
	struct report r = report_of(n, &v);

	live = peak = 0;
	free(render(p, &r));
	return peak;
}

static void release(void)
{
	for (size_t i = 0; i < NPODS; i++)
		check_results_release(&rp[i].results);
}

static void test_memory_does_not_grow(void)
{
	cJSON_Hooks h = { counting_malloc, counting_free };
	long long s10, s200, w10, w200;

	release();
	setup(0);
	cJSON_InitHooks(&h);
	s10 = peak_of(report_print_json, 10);
	s200 = peak_of(report_print_json, NPODS);
	w10 = peak_of(whole_json, 10);
	w200 = peak_of(whole_json, NPODS);
	/* The whole tree grows with the pods (so the counter sees them) ... */
	CHECK(w200 > 10 * w10);
	/* ... the streamed document holds one pod at a time, the head and the
	 * nodes array; that array names every pod once (podNames), so it
	 * grows too, but by a name per pod, not a pod's subtree: 20 times
	 * less per pod than the whole tree (measured: about 45). */
	CHECK((s200 - s10) * 20 < w200 - w10);
	s10 = peak_of(report_print_yaml, 10);
	s200 = peak_of(report_print_yaml, NPODS);
	CHECK((s200 - s10) * 20 < w200 - w10);
	cJSON_InitHooks(NULL);
}

int main(void)
{
	setup(1);
	for (size_t n = 0; n <= NPODS; n = n ? n * 10 : 1) {
		same(report_print_json, whole_json, n);
		same(report_print_yaml, whole_yaml, n);
	}
	test_memory_does_not_grow();
	release();
	return T_DONE("test_stream");
}
