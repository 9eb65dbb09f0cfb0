/* di_checks: TEST-ONLY dump of the check table (src/check/table.def, the
 * one place every check is defined), so tests and generated files read
 * the checks the binary really has instead of a list of their own:
 *
 *   di_checks            NAME<TAB>FAMILY<TAB>RULE, one line per check
 *   di_checks families   the families, in column order
 *   di_checks links      the KV-path link names, in path order
 *   di_checks rows       NAME<TAB>FAMILY<TAB>RANK<TAB>ANCHOR<TAB>ENV<TAB>
 *                        IB-LINKS<TAB>EFA-LINKS<TAB>NVLINK-LINKS (links
 *                        ","-joined, "-" none)
 *   di_checks dgd        NAME<TAB>STATUS<TAB>ANCHOR<TAB>RULE, one line per
 *                        DGD check (src/check/dgd.def)
 */
#include <stdio.h>
#include <string.h>

#include "check/check.h"
#include "check/dgd.h"
#include "check/links.h"

static void print_links(unsigned bits)
{
	int first = 1;

	for (int l = 0; l < LINK__COUNT; l++)
		if (bits >> l & 1) {
			printf("%s%s", first ? "" : ",", check_link_name((enum check_link_id)l));
			first = 0;
		}
	if (first)
		fputs("-", stdout);
}

int main(int argc, char **argv)
{
	size_t n;
	const struct check_def *d = check_defs(&n);
	const char *what = argc > 1 ? argv[1] : "";

	if (!strcmp(what, "families")) {
		for (int f = 0; f < FAM__COUNT; f++)
			printf("%s\n", check_family_name((enum check_family)f));
	} else if (!strcmp(what, "links")) {
		for (int l = 0; l < LINK__COUNT; l++)
			printf("%s\n", check_link_name((enum check_link_id)l));
	} else if (!strcmp(what, "dgd")) {
		size_t nd;
		const struct dgd_check_def *g = dgd_check_defs(&nd);

		for (size_t i = 0; i < nd; i++)
			printf("%s\t%s\t%s\t%s\n", g[i].name, check_status_name(g[i].status),
			       g[i].anchor, g[i].rule);
	} else if (!strcmp(what, "rows")) {
		for (size_t i = 0; i < n; i++) {
			printf("%s\t%s\t%d\t%s\t%s", d[i].name, check_family_name(d[i].family),
			       d[i].rank, d[i].anchor, d[i].env);
			for (int p = 0; p < CHECK_PATH__COUNT; p++) {
				putchar('\t');
				print_links(d[i].links[p]);
			}
			putchar('\n');
		}
	} else {
		for (size_t i = 0; i < n; i++)
			printf("%s\t%s\t%s\n", d[i].name, check_family_name(d[i].family), d[i].rule);
	}
	return ferror(stdout) ? 1 : 0;
}
