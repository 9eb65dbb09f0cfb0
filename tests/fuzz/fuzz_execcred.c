/* libFuzzer target: an ExecCredential as a credential plugin prints it
 * (src/kube/config/auth.c, auth_parse_credential); the first byte picks the
 * apiVersion the kubeconfig asked for. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kube/config/auth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *want = size && (data[0] & 1)
		? "client.authentication.k8s.io/v1beta1"
		: "client.authentication.k8s.io/v1";
	struct err e;

	if (size) {
		data++;
		size--;
	}
	err_clear(&e);
	auth_parse_credential(want, (const char *)data, size, &e);
	return 0;
}
