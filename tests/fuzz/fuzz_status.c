/* libFuzzer target: a metav1.Status from the server, both where it arrives
 * as an HTTP error body (http_status_error) and on the exec status channel
 * (exec_decode_status), and a 403's denial (http_status_denial).  The first two bytes pick the HTTP status code. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kube/exec/exec.h"
#include "kube/http/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every field of a denial is a string inside its array. */
static int fits(const struct err_denial *d)
{
	return memchr(d->user, '\0', sizeof(d->user)) && memchr(d->verb, '\0', sizeof(d->verb)) &&
	       memchr(d->resource, '\0', sizeof(d->resource)) && memchr(d->ns, '\0', sizeof(d->ns));
}

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
	if (!memchr(e.msg, '\0', sizeof(e.msg)) || !fits(&e.denied))
		abort();
	/* The denial reader on the raw text too (a message in any words). */
	http_status_denial(body, &e.denied);
	if (!fits(&e.denied))
		abort();
	memset(&res, 0, sizeof(res));
	exec_decode_status(body, size, &res);
	if (!memchr(res.message, '\0', sizeof(res.message)))
		abort();
	free(body);
	return 0;
}
