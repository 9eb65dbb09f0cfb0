/* What a pod's spec says its worker gets (podspec.h): struct
 * pod_spec_facts from the probed container and the pod (GPUs, RDMA and EFA
 * resources, privileges, /dev/shm, the NIXL backend named), and the facts
 * held once per distinct content (pods.h pod_info_set_spec; util/intern.h:
 * 10,000 pods of one spec hold one copy), which claims.c calls too. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "pods.h"
#include "podjson.h"
#include "podspec.h"
#include "model/vocab.h"
#include "util/intern.h"

/* A resource quantity ("4", 4, "40Gi", "8G", "512Mi") in units; -1 when
 * it does not parse.  Only the suffixes pod specs use for counts and
 * memory sizes. */
static long long quantity(const cJSON *v)
{
	static const struct { const char *sfx; long long mul; } u[] = {
		{ "Ki", 1LL << 10 }, { "Mi", 1LL << 20 }, { "Gi", 1LL << 30 },
		{ "Ti", 1LL << 40 }, { "k", 1000LL }, { "M", 1000000LL },
		{ "G", 1000000000LL }, { "T", 1000000000000LL }, { "", 1 },
	};
	char *end;
	long long n;
	size_t i;

	/* A double outside long long (or NaN) converts with undefined
	 * behaviour, and strtoll clamps an overflow to LLONG_MAX: neither is
	 * a quantity (issue 12). */
	if (cJSON_IsNumber(v))
		return v->valuedouble >= 0 && v->valuedouble < 9.2e18
			       ? (long long)v->valuedouble : -1;
	if (!cJSON_IsString(v))
		return -1;
	errno = 0;
	n = strtoll(v->valuestring, &end, 10);
	if (end == v->valuestring || n < 0 || errno == ERANGE)
		return -1;
	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		if (!strcmp(end, u[i].sfx))
			return n > LLONG_MAX / u[i].mul ? -1 : n * u[i].mul;
	return -1;
}

/* limits win over requests, as the scheduler counts extended resources. */
static const cJSON *resource(const cJSON *ct, const char *name)
{
	static const char *const lk[] = { "resources", "limits", NULL };
	static const char *const rk[] = { "resources", "requests", NULL };
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(jpath(ct, lk), name);

	return v ? v : cJSON_GetObjectItemCaseSensitive(jpath(ct, rk), name);
}

static void rdma_resources(const cJSON *ct, struct pod_spec_facts *f)
{
	static const char *const lk[] = { "resources", "limits", NULL };
	static const char *const rk[] = { "resources", "requests", NULL };
	const cJSON *maps[2] = { jpath(ct, lk), jpath(ct, rk) };
	const cJSON *it;
	int m;

	for (m = 0; m < 2 && f->rdma_devices < 0; m++)
		cJSON_ArrayForEach(it, maps[m]) {
			long long q = quantity(it);
			if (!model_rdma_resource_name(it->string) || q < 0)
				continue;
			if (!f->rdma_resource[0])
				snprintf(f->rdma_resource, sizeof(f->rdma_resource), "%s", it->string);
			/* Saturating: two absurd requests must not wrap to "none". */
			if (f->rdma_devices < 0)
				f->rdma_devices = 0;
			f->rdma_devices = q > LONG_MAX - f->rdma_devices ? LONG_MAX
									 : f->rdma_devices + (long)q;
		}
}

static int has_cap(const cJSON *ct, const char *cap)
{
	static const char *const ak[] = { "securityContext", "capabilities", "add", NULL };
	const cJSON *it;

	cJSON_ArrayForEach(it, jpath(ct, ak)) {
		const char *c = cJSON_IsString(it) ? it->valuestring : "";
		/* Both spellings occur in manifests. */
		if (!strcmp(c, cap) || (!strncmp(c, "CAP_", 4) && !strcmp(c + 4, cap)))
			return 1;
	}
	return 0;
}

/* /dev/shm from a memory-backed emptyDir mounted there. */
static long long shm_bytes(const cJSON *pod, const cJSON *ct)
{
	static const char *const vk[] = { "spec", "volumes", NULL };
	static const char *const mk[] = { "volumeMounts", NULL };
	const cJSON *m, *vol;

	cJSON_ArrayForEach(m, jpath(ct, mk)) {
		const char *path = jstr(m, "mountPath");
		const cJSON *ed;
		if (!path || strcmp(path, "/dev/shm"))
			continue;
		vol = find_named(jpath(pod, vk), jstr(m, "name"));
		ed = cJSON_GetObjectItemCaseSensitive(vol, "emptyDir");
		if (!ed)
			continue;
		if (!cJSON_GetObjectItemCaseSensitive(ed, "sizeLimit"))
			return -1;
		return quantity(cJSON_GetObjectItemCaseSensitive(ed, "sizeLimit"));
	}
	return 0;
}

/* vLLM: --kv-transfer-config '{..."kv_connector_extra_config":{"backends":["LIBFABRIC"]}}'
 * anywhere in a command or args string. */
static int backend_in_text(const char *t, char *out, size_t n)
{
	const char *p = strstr(t, "\"backends\"");
	const char *q, *end;

	if (!p || !(q = strchr(p + 10, '[')) || !(q = strchr(q, '"')) || !(end = strchr(q + 1, '"')))
		return 0;
	snprintf(out, n, "%.*s", (int)(end - q - 1), q + 1);
	return 1;
}

static void nixl_backend(const cJSON *ct, char *out, size_t n)
{
	static const char *const lists[] = { "command", "args" };
	static const char *const envs[] = { "SGLANG_DISAGGREGATION_NIXL_BACKEND", NULL };
	const cJSON *it;
	size_t i;

	for (i = 0; i < 2; i++)
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(ct, lists[i]))
			if (cJSON_IsString(it) && backend_in_text(it->valuestring, out, n))
				return;
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(ct, "env")) {
		const char *name = jstr(it, "name"), *value = jstr(it, "value");
		for (i = 0; name && value && envs[i]; i++)
			if (!strcmp(name, envs[i])) {
				snprintf(out, n, "%s", value);
				return;
			}
		if (name && value && !strcmp(value, "1") &&
		    !strncmp(name, "DYN_KVBM_NIXL_BACKEND_", 22)) {
			snprintf(out, n, "%s", name + 22);
			return;
		}
	}
}

void podspec_facts(const cJSON *pod, const char *container, struct pod_spec_facts *f)
{
	static const char *const ck[] = { "spec", "containers", NULL };
	static const char *const pk[] = { "securityContext", "privileged", NULL };
	static const char *const sk[] = { "spec", NULL };
	const cJSON *ct = find_named(jpath(pod, ck), container);
	const cJSON *spec = jpath(pod, sk);
	long long q;

	memset(f, 0, sizeof(*f));
	q = quantity(resource(ct, "nvidia.com/gpu"));
	f->gpus = q < 0 ? -1 : (long)q;
	f->rdma_devices = -1;
	rdma_resources(ct, f);
	q = quantity(resource(ct, "vpc.amazonaws.com/efa"));
	f->efa_devices = q < 0 ? -1 : (long)q;
	f->privileged = cJSON_IsTrue(jpath(ct, pk));
	f->ipc_lock = f->privileged || has_cap(ct, "IPC_LOCK");
	f->sys_resource = f->privileged || has_cap(ct, "SYS_RESOURCE");
	f->host_ipc = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(spec, "hostIPC"));
	f->host_network = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(spec, "hostNetwork"));
	f->shm_bytes = shm_bytes(pod, ct);
	f->has_resource_claims =
		cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(spec, "resourceClaims")) > 0;
	nixl_backend(ct, f->nixl_backend, sizeof(f->nixl_backend));
}

/* pods.h */
void pod_info_set_spec(struct pod_info *p, const struct pod_spec_facts *s)
{
	const struct pod_spec_facts *old = p->spec;

	p->spec = intern_bytes(s, sizeof(*s), NULL);
	intern_unref(old, NULL);
}
