/* Command-line flags the way kubectl (cobra/pflag) reads them.
 *
 * Accepts -n NS, -nNS, -n=NS, --namespace NS, --namespace=NS; booleans as
 * --flag, --flag=true|false; -v N and --v=N; "--" ends the flags.  Flags
 * and positional arguments may be mixed, as with kubectl.  Errors are
 * worded as pflag words them ("unknown flag: --foo").
 */
#ifndef UTIL_OPTS_H
#define UTIL_OPTS_H

#include "err.h"

enum opt_type {
	OPT_STRING,   /* const char **: points into argv */
	OPT_BOOL,     /* int *: 0 or 1 */
	OPT_INT,      /* int * */
	OPT_STRV,     /* const char *[OPT_STRV_MAX + 1]: repeatable (pflag
		       * StringArray), NULL-terminated, values point into argv */
	OPT_END,
};

#define OPT_STRV_MAX 64

struct opt {
	const char *name;   /* long name without "--" */
	char shorthand;     /* 0 when none */
	enum opt_type type;
	void *dest;
	const char *arg;    /* placeholder shown in help, e.g. "NS" */
	const char *help;
};

#define OPT_TABLE_END { NULL, 0, OPT_END, NULL, NULL, NULL }

/* Parses argv[0..argc) against one or more tables (tables is a
 * NULL-terminated array).  Positional arguments are stored, in order, in
 * pos (which must hold argc entries); *npos receives their count.
 * -1 with e set (ERR_USAGE) on a bad flag. */
int opts_parse(int argc, char **argv, const struct opt *const *tables,
	       char **pos, int *npos, struct err *e);

/* Writes the flag list, aligned, to out (for -h). */
void opts_print_help(const struct opt *const *tables, void *out);

#endif
