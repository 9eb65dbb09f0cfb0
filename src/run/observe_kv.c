/* check --observe's KV metrics (observe.h, docs/checks.md O7-O10): each
 * probed worker's metrics read through the API server's pod proxy before
 * the probes start and again after they end, so the two reads hold every
 * pod's counter window between them, then judged beside the rails the
 * probe sampled (check/observed.h).
 *
 * Where a worker serves its metrics comes from its pod object only
 * (pod_info.metrics_env): NIXL's Prometheus exporter (NIXL_TELEMETRY_*,
 * default port 9090: ai-dynamo/nixl src/plugins/telemetry/prometheus/
 * prometheus_exporter.cpp) and Dynamo's system server, which also serves
 * the engine's vllm: series (DYN_SYSTEM_PORT, default -1 off:
 * ai-dynamo/dynamo docs/backends/vllm/prometheus.md).  A pod that names
 * neither gets no KV row; the stage says how many. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "check/observed.h"
#include "engine/engine.h"
#include "kube/api/podproxy.h"
#include "model/cancel.h"
#include "probe/promtext.h"
#include "run/observe.h"
#include "run/session.h"
#include "util/xalloc.h"

#define NIXL_PROM_DEFAULT_PORT 9090L

struct run_kv_pod {
	int want;                 /* the pod names a metrics endpoint */
	long port[2];             /* 0: none */
	char endpoints[96];       /* "NIXL telemetry :19090, Dynamo system :9090" */
	char why[200];            /* why not read ("" when read) */
	struct kv_metrics start, end;
	struct timespec t0, t1;
	int ended;                /* the stage reached it (read or unread) */
	struct run_kv_window win;     /* run_pod.kv points here once judged */
};

struct run_kv {
	size_t n;
	struct run_kv_pod *pod;
};

/* The value of NAME in "NAME=VALUE\n" lines into v (n bytes); 0 when absent. */
static int env_get(const char *env, const char *name, char *v, size_t n)
{
	size_t l = strlen(name);

	for (const char *p = env ? env : ""; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (len > l && !memcmp(p, name, l) && p[l] == '=') {
			snprintf(v, n, "%.*s", (int)(len - l - 1), p + l + 1);
			return 1;
		}
		p += len + (nl != NULL);
	}
	return 0;
}

/* NIXL's config traits (src/utils/common/configuration.h): y, yes, on,
 * true, enable, 1, any case. */
static int truthy(const char *v)
{
	static const char *const yes[] = { "y", "yes", "on", "true", "enable", "1" };

	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
		if (!strcasecmp(v, yes[i]))
			return 1;
	return 0;
}

/* A port: digits only, 1-65535; else 0. */
static long port_of(const char *v)
{
	long p = 0;

	if (!*v || strlen(v) > 5)
		return 0;
	for (const char *c = v; *c; c++) {
		if (*c < '0' || *c > '9')
			return 0;
		p = p * 10 + (*c - '0');
	}
	return p <= 65535 ? p : 0;
}

/* NIXL's exporter port (0: none), *why when it is named but unreachable. */
static long nixl_port(const char *env, char *why, size_t n)
{
	char en[72] = "", ex[72] = "", port[72] = "", local[72] = "";
	long p;

	if (!env_get(env, "NIXL_TELEMETRY_ENABLE", en, sizeof en) || !truthy(en) ||
	    !env_get(env, "NIXL_TELEMETRY_EXPORTER", ex, sizeof ex) || strcmp(ex, "prometheus"))
		return 0;
	if (env_get(env, "NIXL_TELEMETRY_PROMETHEUS_LOCAL", local, sizeof local) && truthy(local))
		snprintf(why, n, "NIXL telemetry listens on 127.0.0.1 only (NIXL_TELEMETRY_PROMETHEUS_LOCAL): "
			 "the pod proxy cannot reach it");
	if (!env_get(env, "NIXL_TELEMETRY_PROMETHEUS_PORT", port, sizeof port))
		return NIXL_PROM_DEFAULT_PORT;
	if (!(p = port_of(port)))
		snprintf(why, n, "NIXL_TELEMETRY_PROMETHEUS_PORT is not a port 1-65535");
	return p;
}

/* Dynamo's system port (0: off or none), *why when it is not a port. */
static long dyn_port(const char *env, char *why, size_t n)
{
	char en[72] = "", port[72] = "";
	long p;

	if (!env_get(env, "DYN_SYSTEM_PORT", port, sizeof port) || !strcmp(port, "-1"))
		return 0;
	if (env_get(env, "DYN_SYSTEM_ENABLED", en, sizeof en) &&
	    (!strcasecmp(en, "false") || !strcmp(en, "0")))
		return 0;
	if (!(p = port_of(port)))
		snprintf(why, n, "DYN_SYSTEM_PORT is not a port 1-65535");
	return p;
}

int run_kv_ports(const char *metrics_env, long port[2], char *ends, size_t en, char *why, size_t wn)
{
	long nx, dy;
	int w = 0;

	why[0] = ends[0] = '\0';
	nx = nixl_port(metrics_env, why, wn);
	dy = dyn_port(metrics_env, why, wn);
	port[0] = nx;
	port[1] = dy != nx ? dy : 0;      /* one server for both: read once */
	if (nx)
		w = snprintf(ends, en, "NIXL telemetry :%ld", nx);
	if (dy && w >= 0 && (size_t)w < en)
		snprintf(ends + w, en - (size_t)w, "%sDynamo system :%ld", w ? ", " : "", dy);
	if (!ends[0])
		snprintf(ends, en, "the worker's metrics");
	return nx || dy || why[0];
}

static void endpoints(const struct pod_info *p, struct run_kv_pod *k)
{
	k->want = run_kv_ports(p->metrics_env, k->port, k->endpoints, sizeof k->endpoints,
			       k->why, sizeof k->why);
}

/* Both endpoints of pod p read and parsed into *m; 0, or -1 with k->why. */
static int read_pod(struct http_client *c, const struct pod_info *p, struct run_kv_pod *k,
		    struct kv_metrics *m)
{
	memset(m, 0, sizeof *m);
	for (int i = 0; i < 2; i++) {
		struct buf body = BUF_INIT(0);
		struct err e;
		int rc;

		if (!k->port[i])
			continue;
		err_clear(&e);
		/* one byte past the cap: a text cut there is rejected, not judged */
		rc = podproxy_metrics(c, p->namespace, p->name, k->port[i], PROMTEXT_MAX_BYTES + 1u,
				      &body, &e);
		if (rc < 0 && e.http_status == 403)
			snprintf(k->why, sizeof k->why, "no get on pods/proxy: the metrics on port %ld "
				 "were not read", k->port[i]);
		else if (rc < 0 && e.http_status)
			/* the upstream's body is the pod's text: only its status is said */
			snprintf(k->why, sizeof k->why, "the pod proxy answered HTTP %ld for the metrics on "
				 "port %ld%s", e.http_status, k->port[i],
				 e.http_status == 503 ? " (nothing listens there?)" : "");
		else if (rc < 0)
			snprintf(k->why, sizeof k->why, "the metrics on port %ld could not be read through the "
				 "pod proxy", k->port[i]);
		else if (promtext_parse(buf_str(&body), body.len, m, k->why, sizeof k->why) < 0)
			rc = -1;
		buf_release(&body);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* The first read of pod i (engine_each: the pods' reads go out together,
 * at most --parallel at once, so N pods whose proxy hangs cost one timeout
 * a batch, not N; each writes only its own run_kv_pod). */
static void start_one(size_t i, void *arg)
{
	struct run_session *s = arg;
	struct run_kv_pod *k = &s->kv->pod[i];

	if (!k->want || k->why[0])
		return;
	if (cancel_why()) {
		snprintf(k->why, sizeof k->why, "the metrics were not read: %s", cancel_why());
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &k->t0);     /* its window starts at its own read */
	read_pod(s->client, &s->run.pods->items[i], k, &k->start);
}

void run_observe_kv_start(struct run_session *s)
{
	const struct pod_list *l = s->run.pods;
	size_t none = 0;

	s->kv = xcalloc(1, sizeof *s->kv);
	s->kv->n = l->n;
	s->kv->pod = xcalloc(l->n ? l->n : 1, sizeof *s->kv->pod);
	for (size_t i = 0; i < l->n && !cancel_why(); i++) {
		struct run_kv_pod *k = &s->kv->pod[i];

		if (!l->items[i].probe)
			continue;
		endpoints(&l->items[i], k);
		none += !k->want;
		clock_gettime(CLOCK_MONOTONIC, &k->t0);
	}
	engine_each(l->n, s->plan->probe.parallel, start_one, s);
	if (none)
		run_say(s->plan->probe.sink, "observe: %zu pods name no metrics port (NIXL_TELEMETRY_EXPORTER="
			"prometheus, DYN_SYSTEM_PORT): their KV metrics are not read", none);
}

/* The rails' bytes the probe sampled (observed.h rails_sampled, rail_bytes). */
static void rails_of(const struct run_rails *r, struct observed_kv *o)
{
	o->rails_sampled = r ? 0 : -1;
	o->rail_bytes = 0;
	for (size_t i = 0; r && i < r->n; i++) {
		if (r->v[i].bytes < 0)
			continue;
		o->rails_sampled++;
		o->rail_bytes = r->v[i].bytes > INT64_MAX - o->rail_bytes ? INT64_MAX
			: o->rail_bytes + r->v[i].bytes;
	}
}

/* o's increases into w (run_kv_window); w. */
static const struct run_kv_window *window_of(const struct observed_kv *o, struct run_kv_window *w)
{
	for (int k = 0; k < KVM__COUNT; k++) {
		unsigned bit = 1u << k;

		w->inc[k] = (o->start.seen & bit) && (o->end.seen & bit) && o->end.v[k] >= o->start.v[k]
			? o->end.v[k] - o->start.v[k] : -1;
	}
	return w;
}

/* The second read of pod i, as start_one; a pod the run was cancelled
 * before is left unjudged, as before the probes. */
static void end_one(size_t i, void *arg)
{
	struct run_session *s = arg;
	struct run_kv_pod *k = &s->kv->pod[i];

	if (!k->want || !s->run.pod[i].probed || cancel_why())
		return;
	if (!k->why[0])
		read_pod(s->client, s->run.pod[i].pod, k, &k->end);
	clock_gettime(CLOCK_MONOTONIC, &k->t1);
	k->ended = 1;
}

int run_observe_kv_stage(struct run_session *s, struct err *e)
{
	(void)e;
	if (!s->kv)
		return 0;
	engine_each(s->kv->n, s->plan->probe.parallel, end_one, s);
	/* judged in pod order, one thread: the results as the reads left them */
	for (size_t i = 0; i < s->kv->n; i++) {
		struct run_kv_pod *k = &s->kv->pod[i];
		struct run_pod *rp = &s->run.pod[i];
		struct observed_kv o = { 0 };

		if (!k->ended)
			continue;
		o.endpoints = k->endpoints;
		o.start = k->start;
		o.end = k->end;
		o.window_s = (long)(k->t1.tv_sec - k->t0.tv_sec);
		o.unread = k->why[0] ? k->why : NULL;
		rails_of(rp->rails, &o);
		check_observed_kv(&o, &rp->ctx, &rp->results);
		if (!o.unread)
			rp->kv = window_of(&o, &k->win);
	}
	return 0;
}

void run_kv_free(struct run_kv *kv)
{
	if (!kv)
		return;
	free(kv->pod);
	free(kv);
}
