/* The env rule book's checks as rows of the table (issue 40): code names
 * a book check by its id, never by its string. */
#ifndef CHECK_ENV_H
#define CHECK_ENV_H

#include "check/check.h"
#include "model/envrules.h"

/* The table row (CK_ENV_<X>) a rule of the book reports under. */
enum check_id check_env_row(enum envr_check c);

#endif
