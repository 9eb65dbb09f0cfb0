/* A tiny test harness: CHECK macros that count, and a closing line that
 * tests/run.sh adds up ("NAME: N passed, N failed"). */
#ifndef TESTS_T_H
#define TESTS_T_H

#include <stdio.h>
#include <string.h>

static int t_pass, t_fail;

#define CHECK(cond)                                                        \
	do {                                                               \
		if (cond) {                                                \
			t_pass++;                                          \
		} else {                                                   \
			t_fail++;                                          \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n",        \
				__FILE__, __LINE__, #cond);                 \
		}                                                          \
	} while (0)

#define CHECK_INT(a, b)                                                    \
	do {                                                               \
		long long a_ = (long long)(a), b_ = (long long)(b);        \
		if (a_ == b_) {                                            \
			t_pass++;                                          \
		} else {                                                   \
			t_fail++;                                          \
			fprintf(stderr, "%s:%d: %s == %lld, want %lld\n",   \
				__FILE__, __LINE__, #a, a_, b_);            \
		}                                                          \
	} while (0)

#define CHECK_STR(a, b)                                                    \
	do {                                                               \
		const char *a_ = (a), *b_ = (b);                           \
		if (a_ && b_ && !strcmp(a_, b_)) {                         \
			t_pass++;                                          \
		} else {                                                   \
			t_fail++;                                          \
			fprintf(stderr, "%s:%d: %s == \"%s\", want \"%s\"\n", \
				__FILE__, __LINE__, #a, a_ ? a_ : "(null)", \
				b_ ? b_ : "(null)");                        \
		}                                                          \
	} while (0)

/* Substring check, for messages. */
#define CHECK_HAS(hay, needle)                                             \
	do {                                                               \
		const char *h_ = (hay), *n_ = (needle);                    \
		if (h_ && strstr(h_, n_)) {                                \
			t_pass++;                                          \
		} else {                                                   \
			t_fail++;                                          \
			fprintf(stderr, "%s:%d: \"%s\" lacks \"%s\"\n",     \
				__FILE__, __LINE__, h_ ? h_ : "(null)", n_);  \
		}                                                          \
	} while (0)

#define T_DONE(name)                                                       \
	(printf("%s: %d passed, %d failed\n", (name), t_pass, t_fail),     \
	 t_fail ? 1 : 0)

#endif
