/* libFuzzer target: a PodList page (src/kube/api/pods.c, pods_parse_page):
 * JSON from the API server, turned into pod_info entries (role, container
 * choice, skip reasons, NIXL backend from the spec).  The first byte picks
 * the query: namespace vs all namespaces, a -c container or not. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kube/api/pods.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pods_query q;
	struct pod_list l;
	struct err e;
	char *next = NULL, *body;
	unsigned sel = size ? data[0] : 0;

	if (size) {
		data++;
		size--;
	}
	memset(&q, 0, sizeof(q));
	q.namespace = "dynamo";
	q.all_namespaces = sel & 1;
	q.container = sel & 2 ? "main" : NULL;
	memset(&l, 0, sizeof(l));
	body = malloc(size + 1);
	memcpy(body, data, size);
	body[size] = '\0';
	err_clear(&e);
	/* Twice into the same list, as pagination does. */
	if (pods_parse_page(body, size, &q, &l, &next, &e) == 0) {
		free(next);
		next = NULL;
		pods_parse_page(body, size, &q, &l, &next, &e);
	}
	free(next);
	pod_list_release(&l);
	free(body);
	return 0;
}
