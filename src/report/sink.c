/* The run's voice on the terminal (report.h report_sink): the progress
 * line and the notices of src/run/, on the FILE the caller names. */
#include <stdio.h>

#include "report.h"

static void progress(size_t done, size_t total, void *arg)
{
	fprintf(arg, "\rprobing %zu/%zu pods", done, total);
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
