#include "cancel.h"

#include <stdatomic.h>
#include <stddef.h>

/* Set once; cleared only by cancel_reset() (cleanup after a cancel).  A
 * lock-free atomic pointer, so a signal handler may store it. */
static _Atomic(const char *) why_cancelled;

void cancel_run(const char *why)
{
	atomic_store(&why_cancelled, why ? why : "cancelled");
}

void cancel_reset(void)
{
	atomic_store(&why_cancelled, (const char *)NULL);
}

const char *cancel_why(void)
{
	return atomic_load(&why_cancelled);
}
