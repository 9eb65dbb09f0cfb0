/* What a pod's container says of its environment (kube/api/pods.h
 * pod_info.secret_env, spec_env, plain_env), from the container object of
 * the pod list: which variables are or may be from a Secret, the transport
 * variables as the spec sets them, and the plain values argv may expand.
 * Its own file: the env is one concept of the pod, apart from listing. */
#define _GNU_SOURCE
#include "podenv.h"

#include <string.h>

#include "model/vocab.h"
#include "util/buf.h"
#include "util/xalloc.h"

static const char *jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* pod_info.secret_env of the probed container (format in pods.h).
 * envFrom: [{secretRef: {name: S}, prefix: P}] makes every key of Secret S
 * a variable P+key; the keys are in the Secret, which we never read, so any
 * variable with that prefix that env does not set itself may hold one
 * (kubelet: env entries override envFrom, kubelet_pods.go makeEnvironment
 * Variables).  A bad line would only widen what is hidden. */
char *podenv_secrets(const cJSON *ct)
{
	const cJSON *it;
	struct buf b = BUF_INIT(64u << 10);

	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(ct, "env")) {
		const char *name = jstr(it, "name");
		const cJSON *ref = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(it, "valueFrom"), "secretKeyRef");
		const char *secret = jstr(ref, "name");

		if (!name || strchr(name, '\n') || strchr(name, '='))
			continue;
		if (ref)
			buf_appendf(&b, "%s=%s\n", name,
				    secret && !strchr(secret, '\n') ? secret : "?");
		else
			buf_appendf(&b, "!%s\n", name);
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(ct, "envFrom")) {
		const cJSON *ref = cJSON_GetObjectItemCaseSensitive(it, "secretRef");
		const char *secret = jstr(ref, "name");
		const char *prefix = jstr(it, "prefix");

		if (!ref)
			continue;
		if (!prefix || strchr(prefix, '\n') || strchr(prefix, '='))
			prefix = "";
		buf_appendf(&b, "*%s=%s\n", prefix,
			    secret && !strchr(secret, '\n') ? secret : "?");
	}
	/* Past the cap the buffer is gone (buf.h): then any variable may be
	 * from a Secret ("*=?", envFrom's shape with no prefix), so a list too
	 * long to hold hides more, never less (issue 37). */
	if (b.overflowed) {
		buf_release(&b);
		return xstrdup("*=?\n");
	}
	return buf_detach(&b, NULL);
}

/* pod_info.spec_env of the probed container; past its cap "" with *why
 * set (pod_info.spec_env_unread), never a part read as the whole. */
char *podenv_spec(const cJSON *ct, char **why)
{
	const cJSON *it;
	struct buf b = BUF_INIT(64u << 10);

	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(ct, "env")) {
		const char *name = jstr(it, "name"), *v = jstr(it, "value");
		const cJSON *vf = cJSON_GetObjectItemCaseSensitive(it, "valueFrom");
		const cJSON *r;

		if (!name || !model_env_allowed(name, strlen(name)) || strchr(name, '\n'))
			continue;
		if ((r = cJSON_GetObjectItemCaseSensitive(vf, "secretKeyRef")))
			buf_appendf(&b, "%s=<from secret %s>\n", name, jstr(r, "name") ? jstr(r, "name") : "?");
		else if ((r = cJSON_GetObjectItemCaseSensitive(vf, "configMapKeyRef")))
			buf_appendf(&b, "%s=<from configmap %s>\n", name, jstr(r, "name") ? jstr(r, "name") : "?");
		else if ((r = cJSON_GetObjectItemCaseSensitive(vf, "fieldRef")))
			buf_appendf(&b, "%s=<field %s>\n", name, jstr(r, "fieldPath") ? jstr(r, "fieldPath") : "?");
		else if (v && !strchr(v, '\n'))
			buf_appendf(&b, "%s=%s\n", name, v);
	}
	*why = b.overflowed ? xstrdup("the container's env list is over 64 KiB of transport "
				      "variables, not read") : xstrdup("");
	return buf_detach(&b, NULL);
}

/* pod_info.plain_env of the probed container, given its args. */
char *podenv_plain(const cJSON *ct, const char *args)
{
	const cJSON *it;
	struct buf b = BUF_INIT(64u << 10);

	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(ct, "env")) {
		const char *name = jstr(it, "name"), *v = jstr(it, "value");

		if (name && v && *name && !cJSON_GetObjectItemCaseSensitive(it, "valueFrom") &&
		    !strpbrk(name, "=\n") && !strchr(v, '\n') && strstr(args, name))
			buf_appendf(&b, "%s=%s\n", name, v);
	}
	return buf_detach(&b, NULL);
}

/* pod_info.metrics_env of the probed container: where its worker serves
 * metrics.  NIXL's Prometheus exporter (ai-dynamo/nixl src/plugins/
 * telemetry/prometheus: NIXL_TELEMETRY_ENABLE, _EXPORTER, _PROMETHEUS_PORT,
 * _PROMETHEUS_LOCAL) and Dynamo's system server, which also serves the
 * engine's vllm: metrics (ai-dynamo/dynamo docs/backends/vllm/
 * prometheus.md: DYN_SYSTEM_PORT, DYN_SYSTEM_ENABLED).  Plain values only:
 * a valueFrom is not resolved (a Secret is never read). */
char *podenv_metrics(const cJSON *ct)
{
	static const char *const names[] = {
		"NIXL_TELEMETRY_ENABLE", "NIXL_TELEMETRY_EXPORTER", "NIXL_TELEMETRY_PROMETHEUS_PORT",
		"NIXL_TELEMETRY_PROMETHEUS_LOCAL", "DYN_SYSTEM_ENABLED", "DYN_SYSTEM_PORT",
	};
	const cJSON *it;
	struct buf b = BUF_INIT(512);

	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(ct, "env")) {
		const char *name = jstr(it, "name"), *v = jstr(it, "value");

		if (!name || !v || cJSON_GetObjectItemCaseSensitive(it, "valueFrom") ||
		    strchr(v, '\n') || strlen(v) > 64)
			continue;
		for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
			if (!strcmp(name, names[i]))
				buf_appendf(&b, "%s=%s\n", name, v);
	}
	return buf_detach(&b, NULL);
}
