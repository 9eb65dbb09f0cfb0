/* di_checks: TEST-ONLY dump of the check table (check_defs(), the one
 * place every check is defined), one "NAME<TAB>FAMILY<TAB>RULE" line per
 * check, so tests can hold the man page and docs to the checks the binary
 * really has. */
#include <stdio.h>

#include "check/check.h"

int main(void)
{
	size_t n;
	const struct check_def *d = check_defs(&n);

	for (size_t i = 0; i < n; i++)
		printf("%s\t%s\t%s\n", d[i].name, check_family_name(d[i].family), d[i].rule);
	return ferror(stdout) ? 1 : 0;
}
