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
	OPT_INT,      /* int *; with a range (min, max) see opts_check */
	OPT_DURATION, /* struct opt_duration *: "5s", "2m", "1h30m", bare seconds */
	OPT_STRV,     /* const char *[OPT_STRV_MAX + 1]: repeatable (pflag
		       * StringArray), NULL-terminated, values point into argv */
	OPT_END,
};

#define OPT_STRV_MAX 64

/* An OPT_DURATION's destination: the text as given (points into argv;
 * NULL when the flag is absent) and, after opts_check, its value in ms.
 * The caller sets ms to the default before parsing. */
struct opt_duration {
	const char *text;
	long ms;
};

struct opt {
	const char *name;   /* long name without "--" */
	char shorthand;     /* 0 when none */
	enum opt_type type;
	void *dest;
	const char *arg;    /* placeholder shown in help, e.g. "NS" */
	const char *help;
	/* The accepted range, checked by opts_check; both 0: any value.
	 * OPT_INT: min..max, and 0 (the "use the default" value) always;
	 * OPT_DURATION: min..max in ms, max 0: no upper bound. */
	long min, max;
};

#define OPT_TABLE_END { NULL, 0, OPT_END, NULL, NULL, NULL, 0, 0 }

/* Parses argv[0..argc) against one or more tables (tables is a
 * NULL-terminated array).  Positional arguments are stored, in order, in
 * pos (which must hold argc entries); *npos receives their count.
 * -1 with e set (ERR_USAGE) on a bad flag. */
int opts_parse(int argc, char **argv, const struct opt *const *tables,
	       char **pos, int *npos, struct err *e);

/* After opts_parse: checks each ranged flag of table, in table order, and
 * turns OPT_DURATION texts into ms.  -1 with e set (ERR_USAGE) at the
 * first bad one: "--parallel must be between 1 and 512",
 * "invalid --timeout \"soon\"", "invalid --transfer-timeout \"2h\" (1s to 1h)". */
int opts_check(const struct opt *table, struct err *e);

/* Writes the flag list, aligned, to out (for -h). */
void opts_print_help(const struct opt *const *tables, void *out);

#endif
