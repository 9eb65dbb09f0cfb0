/* Cancelling the whole run (Ctrl-C, SIGTERM, check's --timeout): one
 * flag that every layer reads and only cmd/ sets.  A leaf, so the
 * transports (kube/http/http.c, kube/config/auth.c, kube/exec*.c) and the pod engine
 * share it without calling each other.
 *
 * cancel_run(why): why (a static string, e.g. "interrupted") becomes the
 * reason every waiting transfer gives.  Async-signal-safe: a signal
 * handler may call it.  cancel_why() is NULL until then. */
#ifndef MODEL_CANCEL_H
#define MODEL_CANCEL_H

void cancel_run(const char *why);
const char *cancel_why(void);
/* Clears a cancel, so that cleanup which must run after one (check
 * --transfer stopping what it started in pods) can still reach the server. */
void cancel_reset(void);

#endif
