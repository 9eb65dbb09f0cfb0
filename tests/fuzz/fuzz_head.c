/* libFuzzer target: the HTTP response head of the exec upgrade
 * (exec_head_status, exec_check_upgrade in src/kube/exec/exec_head.c), the bytes a
 * server or a proxy answers before any WebSocket frame. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kube/exec/exec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The key of the capture b01: the accept below is its answer. */
	static const char key[] = "dGhlIHNhbXBsZSBub25jZQ==";
	char *head = malloc(size ? size : 1);   /* no NUL: the parsers get a length */
	char msg[256];
	int proto = -1;
	long st;

	memcpy(head, data, size);
	st = exec_head_status(head, size);
	if (st < -1 || st > 999)
		abort();
	msg[0] = '\0';
	if (exec_check_upgrade(head, size, key, &proto, msg, sizeof(msg)) == 0) {
		if (proto != 4 && proto != 5)
			abort();
	} else if (!memchr(msg, '\0', sizeof(msg))) {
		abort();
	}
	free(head);
	return 0;
}
