/* Verbose logging on stderr, klog-style levels (-v N).
 *
 * 6: request URLs and status, 7: request headers, 8: response bodies
 * (truncated).  This is the one place below cmd/ that writes to the
 * terminal, and only when the user asked for it.  Secrets never pass
 * through: callers log headers through log_header(), which masks them.
 */
#ifndef UTIL_LOG_H
#define UTIL_LOG_H

#include <stddef.h>

void log_set_level(int level);
int log_level(void);
int log_enabled(int level);
void log_at(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Logs "Name: value" at level 7, masking Authorization and similar. */
void log_header(const char *name, const char *value);
/* Logs at most a few KiB of a body at level 8. */
void log_body(const char *what, const char *data, size_t len);

#endif
