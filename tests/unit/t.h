/* A tiny test harness: CHECK macros that count, and a closing line that
 * tests/run.sh adds up ("NAME: N passed, N failed"). */
#ifndef TESTS_T_H
#define TESTS_T_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* A fresh directory $TMPDIR/NAME.XXXXXX in buf; 0, or -1 (reported). */
static inline int t_mkdtemp(char *buf, size_t n, const char *name)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(buf, n, "%s/%s.XXXXXX", tmp ? tmp : "/tmp", name);
	if (!mkdtemp(buf)) {
		perror("mkdtemp");
		return -1;
	}
	return 0;
}

/* Removes what t_mkdtemp made (test cleanup only: the library never
 * shells out, and the path is ours, without quotes). */
static inline void t_rm_rf(const char *path)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", path);
}

/* tests/fixtures/SUB of this repository (make test runs from its root;
 * tests/fixtures/SOURCES.md says where each file comes from); NULL when it
 * is missing, which a test must count as a failure, never a skip.  The
 * string is static. */
static inline const char *t_fixtures(const char *sub)
{
	static char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "tests/fixtures/%s", sub);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return path;
	return NULL;
}

#endif
