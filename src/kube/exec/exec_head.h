/* The head of the exec upgrade answer (exec_head.c): header fields walked
 * and looked up as bytes, for exec.c's reading of 101 and error answers.
 * exec_head_status() and exec_check_upgrade() are declared in exec.h. */
#ifndef KUBE_EXEC_HEAD_H
#define KUBE_EXEC_HEAD_H

#include <stddef.h>

/* What we offer, newest first; the 101 must pick one of them. */
#define EXEC_PROTOCOLS "v5.channel.k8s.io, v4.channel.k8s.io"

/* Walks "Name: value" lines after the status line. */
struct exec_hdr_iter {
	const char *p, *end;
};

void exec_hdr_start(struct exec_hdr_iter *it, const char *head, size_t len);
/* The next field, its value without surrounding whitespace; 0 at the end.
 * Pointers are into head. */
int exec_hdr_next(struct exec_hdr_iter *it, const char **name, size_t *nlen,
		  const char **value, size_t *vlen);
/* The first field named want (case-insensitive); 0 when absent. */
int exec_hdr_get(const char *head, size_t len, const char *want,
		 const char **value, size_t *vlen);
/* Whether a comma-separated value lists token (case-insensitive). */
int exec_has_token(const char *v, size_t len, const char *token);

#endif
