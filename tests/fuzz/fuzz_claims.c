/* libFuzzer target: DRA ResourceClaims (src/kube/api/claims.c): JSON from the
 * API server.  The first byte picks the parser: 0 mod 3, claims_parse() of
 * a ResourceClaim; 1, claims_refs() of a Pod (which claims its container
 * "main" uses, names that reach a request path); 2, claims_parse_list() of
 * a ResourceClaimList page. */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kube/api/claims.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void item(const char *name, const struct claim_facts *f, void *arg)
{
	(void)arg;
	if (!*name || strchr(name, '/') || strlen(f->drivers) >= sizeof f->drivers)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned sel = size ? data[0] : 0;
	struct claim_facts f;
	char *body;

	if (size) {
		data++;
		size--;
	}
	body = malloc(size + 1);
	memcpy(body, data, size);
	body[size] = '\0';
	if (sel % 3 == 2) {
		char *next = NULL;

		claims_parse_list(body, size, item, NULL, &next);
		free(next);
	} else if (sel % 3 == 0) {
		if (claims_parse(body, size, &f) == 0 &&
		    (strlen(f.drivers) >= sizeof f.drivers || strlen(f.devices) >= sizeof f.devices ||
		     strchr(f.devices, '\n') || strchr(f.drivers, '/')))
			abort();
	} else {
		cJSON *pod = cJSON_ParseWithLength(body, size);
		char *refs = claims_refs(pod, "main");

		/* Every ref is one DNS-subdomain name per line: nothing that
		 * could leave .../resourceclaims/NAME or be "." / "..". */
		if (strstr(refs, "/") || strstr(refs, "..") || strstr(refs, "\n.") ||
		    strstr(refs, ".\n") || refs[0] == '.' || strpbrk(refs, "%?#\\ "))
			abort();
		free(refs);
		cJSON_Delete(pod);
	}
	free(body);
	return 0;
}
