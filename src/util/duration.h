/* Durations on the command line, the way kubectl reads them. */
#ifndef UTIL_DURATION_H
#define UTIL_DURATION_H

#include <stddef.h>

#include "err.h"

/* "0", "5" (seconds), "5s", "2m", "1h30m", "250ms": 0 and the value in ms
 * (a positive value under 1 ms is 1, since 0 means "none"), or -1 with
 * kubectl's error text in e (ERR_USAGE). */
int duration_parse_ms(const char *s, long *ms, struct err *e);
/* ms as the shortest exact duration ("1h", "90s", "250ms") into out. */
void duration_format_ms(long ms, char *out, size_t n);

#endif
