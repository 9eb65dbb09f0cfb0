/* libFuzzer target: a metav1.Status from the server, both where it arrives
 * as an HTTP error body (http_status_error) and on the exec status channel
 * (exec_decode_status).  The first two bytes pick the HTTP status code. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kube/exec.h"
#include "kube/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct exec_result res;
	struct err e;
	long status = 400;
	char *body;

	if (size >= 2) {
		status = 100 + (data[0] << 8 | data[1]) % 500;
		data += 2;
		size -= 2;
	}
	body = malloc(size + 1);
	memcpy(body, data, size);
	body[size] = '\0';
	err_clear(&e);
	http_status_error(status, body, size, &e);
	if (!memchr(e.msg, '\0', sizeof(e.msg)))
		abort();
	memset(&res, 0, sizeof(res));
	exec_decode_status(body, size, &res);
	if (!memchr(res.message, '\0', sizeof(res.message)))
		abort();
	free(body);
	return 0;
}
