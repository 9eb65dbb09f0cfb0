/* `nixl`'s install block: what one probed pod has of NIXL, its plugins
 * and tools, UCX, the fabric, and its NIXL and UCX results; then its peer,
 * the pairwise test's plan or its outcome (install.h). */
#include <stdio.h>
#include <stdlib.h>

#include "probe/facts.h"
#include "report/install.h"
#include "util/safe.h"

void report_print_install(FILE *out, const struct run_pod *rp)
{
	const struct pod_info *p = rp->pod;
	const struct probe_facts *f = rp->facts;
	const struct check_results *r = &rp->results;
	int i;
	size_t k;

	/* Every value below comes from the server or the pod: safe_show()
	 * applies the terminal rule (util/safe.h). */
	fprintf(out, "Pod:      %s/%s (role %s, node %s, container %s)\n", safe_show(p->namespace),
	       safe_show(p->name), *p->role ? safe_show(p->role) : "<none>",
	       *p->node ? safe_show(p->node) : "<none>", safe_show(p->container));
	if (!f) {
		char *line = reason_line(&rp->reason);

		fprintf(out, "Probe:    %s\n", safe_show(line));
		free(line);
		return;
	}
	fprintf(out, "NIXL:     %s %s%s\n", *f->nixl.python_dist ? safe_show(f->nixl.python_dist) : "python package",
	       *f->nixl.python_version ? safe_show(f->nixl.python_version) : "(version unknown)",
	       f->nixl.python_ok ? "" : " - import failed");
	fprintf(out, "Plugins:  %s", f->nixl.nplugins ? "" : "none found");
	for (i = 0; i < f->nixl.nplugins; i++)
		fprintf(out, "%s%s", i ? ", " : "", safe_show(f->nixl.plugin[i]));
	fprintf(out, "%s%s\n", *f->nixl.plugin_dir ? " in " : "", safe_show(f->nixl.plugin_dir));
	fprintf(out, "Tools:    nixlbench %s, ucx_perftest %s\n",
	       f->nixl.tool[PROBE_NIXL_TOOL_NIXLBENCH] ? "yes" : "no",
	       f->nixl.tool[PROBE_NIXL_TOOL_UCX_PERFTEST] ? "yes" : "no");
	fprintf(out, "UCX:      %s\n", *f->ucx.version ? safe_show(f->ucx.version) : "not found");
	fprintf(out, "Fabric:   %s\n", fabric_name(r->fabric));
	for (k = 0; k < r->n; k++)
		if (r->v[k].family == FAM_NIXL || r->v[k].family == FAM_UCX)
			fprintf(out, "  %-8s %-16s %s\n", check_status_name(r->v[k].status),
			       r->v[k].name, safe_show(r->v[k].detail));
}

void report_print_peer(FILE *out, const struct pod_info *peer)
{
	fprintf(out, "Peer:     %s (role %s, node %s, IP %s)\n", safe_show(peer->name),
		safe_show(peer->role), safe_show(peer->node), safe_show(peer->pod_ip));
}

void report_print_plan(FILE *out, const char *plan)
{
	char *t = safe_term_text(plan);

	fprintf(out, "\n%s", t);
	free(t);
}

void report_print_transfer(FILE *out, const struct run_pod *rp, int ran)
{
	const struct check_result *r = check_results_find(&rp->results, check_def_of(CK_TRANSFER)->name);

	if (!ran) {
		fputs("\nTransfer: skipped (no probed peer pod to test with)\n", out);
		return;
	}
	if (r)
		fprintf(out, "\nTransfer: %s  %s\n%s%s%s", check_status_name(r->status),
			safe_show(r->detail), r->remedy ? "  fix: " : "",
			r->remedy ? safe_show(r->remedy) : "", r->remedy ? "\n" : "");
}
