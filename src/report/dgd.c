/* `check --dgd`: the DGD's header line and its findings (report.h). */
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "../model/dgd.h"
#include "../util/safe.h"

void report_print_dgd(FILE *out, const struct dgd_info *d, const struct dgd_findings *f)
{
	char id[512];
	size_t i, n = 0;

	snprintf(id, sizeof(id), "%.250s/%.250s", d->namespace, d->name);
	fprintf(out, "\nDynamoGraphDeployment %s (%s, state %s, Ready %s, worker hash %s):\n",
		safe_show(id), safe_show(d->version), safe_show(*d->state ? d->state : "-"),
		safe_show(*d->ready ? d->ready : "-"),
		safe_show(*d->worker_hash ? d->worker_hash :
			  *d->worker_hash_v2 ? d->worker_hash_v2 : "-"));
	for (i = 0; i < f->n; i++) {
		if (strcmp(f->items[i].dgd, id))
			continue;
		fprintf(out, "  %-4s %-18s %s\n", f->items[i].status, f->items[i].check,
			safe_show(f->items[i].detail));
		n++;
	}
	if (!n)
		fprintf(out, "  ok   the running pods match it (%zu components)\n", d->ncomp);
}
