/* Errors as values.
 *
 * Library functions return 0 or -1 and, on -1, leave one line in a struct err
 * worded the way kubectl words the same failure.  Only cmd/ prints it (once,
 * as "error: ..." or as the line itself when it already carries kubectl's own
 * prefix) and maps it to an exit code.
 */
#ifndef UTIL_ERR_H
#define UTIL_ERR_H

enum err_kind {
	ERR_NONE = 0,
	ERR_USAGE,       /* bad flag or argument */
	ERR_CONFIG,      /* kubeconfig unreadable or inconsistent */
	ERR_CONNECT,     /* transport: DNS, TCP, TLS, timeout */
	ERR_AUTH,        /* 401, exec plugin failure */
	ERR_API,         /* the API server answered with an error Status */
	ERR_PROTOCOL,    /* the peer broke the protocol */
	ERR_TIMEOUT,
	ERR_OTHER,
};

/* What RBAC refused, from the server's Forbidden Status where it arrived
 * (kube/http/status.c), so no layer above reads the message for it.
 * verb[0] == '\0': no denial.  resource is "pods/exec" for a subresource. */
struct err_denial {
	char user[128], verb[32], resource[64], ns[128];
};

struct err {
	enum err_kind kind;
	long http_status;  /* 0 when no HTTP answer was involved */
	struct err_denial denied;   /* a 403 the server explained; else empty */
	/* Set when msg already has kubectl's own prefix ("Error from server",
	 * "Unable to connect", ...) so the printer must not add "error: ". */
	int prefixed;
	char msg[1024];
};

/* Always returns -1 so that "return err_set(e, ...)" reads naturally.
 * e may be NULL (the message is then dropped).  A new error: denied is
 * emptied (the setter of a denial sets it after). */
int err_set(struct err *e, enum err_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Like err_set, for messages that carry kubectl's own prefix. */
int err_setp(struct err *e, enum err_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void err_clear(struct err *e);
/* The line to print: "error: msg", or msg itself when prefixed. */
const char *err_prefix(const struct err *e);

#endif
