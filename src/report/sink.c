/* The run's voice on the terminal (report.h report_sink): the progress
 * line and the notices of src/run/, on the FILE the caller names. */
#include <stdio.h>

#include "report.h"
#include "../run/run.h"
#include "../util/safe.h"

/* "probing 7/8 pods, 1 failed; waiting for NS/POD (12s of its 60s
 * deadline)": what it waits for, so a hung pod is named while it hangs.
 * \033[K clears what a longer line left. */
static void progress(const struct run_progress *at, void *arg)
{
	fprintf(arg, "\rprobing %zu/%zu pods", at->done, at->total);
	if (at->failed)
		fprintf(arg, ", %zu failed", at->failed);
	if (at->waiting) {
		fprintf(arg, "; waiting for %s/%s (%lds", safe_show(at->waiting->namespace),
			safe_show(at->waiting->name), at->waited_ms / 1000);
		if (at->deadline_ms > 0)
			fprintf(arg, " of its %lds deadline", at->deadline_ms / 1000);
		fputc(')', arg);
	}
	fputs("\033[K", arg);
	fflush(arg);
}

static void progress_done(size_t total, void *arg)
{
	(void)total;
	fputs("\r\033[K", arg);
}

static void notice(const char *line, void *arg)
{
	fprintf(arg, "%s\n", line);
}

void report_sink(struct run_sink *s, FILE *out, int progress_line)
{
	s->progress = progress_line ? progress : NULL;
	s->progress_done = progress_line ? progress_done : NULL;
	s->notice = notice;
	s->arg = out;
}
