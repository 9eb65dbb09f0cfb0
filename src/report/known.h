/* `known-issues`: the known-issues table in force as a kubectl table
 * (check/known.h; -o json|yaml is known_table_write, the file's format). */
#ifndef REPORT_KNOWN_H
#define REPORT_KNOWN_H

#include <stdio.h>

struct known_table;

/* ID, CHECK, SEVERITY, VERSIONS, WHEN, SOURCE: one row per issue, every
 * cell made safe for a terminal (a row may come from the user's file). */
void report_print_known(FILE *out, const struct known_table *t, int no_headers);

#endif
