/* The known-issues table as data (issue 43, checks.md F5,
 * docs/known-issues.md): combinations of component versions with a
 * setting or a topology that public reports show broken.  The rows live in
 * data/known-issues.yaml, embedded in the binary and parsed once; a user's
 * --known-issues FILE, in the same format, adds or overrides rows by id.
 *
 * A leaf of the check layer: text in, rows out, rows back out as the same
 * format (known_emit.c).  Matching a row against a pod is knownbad.c's
 * (through check_pod, check_context.known).
 *
 * Ownership: a struct known_table owns its rows and every string in them;
 * known_table_release() frees them all.  The built-in table is shared and
 * read-only (known_builtin()).
 */
#ifndef CHECK_KNOWN_H
#define CHECK_KNOWN_H

#include <stdio.h>
#include <stddef.h>

struct err;

/* Components a row's versions name, in the file's spelling. */
#define KNOWN_COMPONENTS(X) X(UCX, "ucx") X(NIXL, "nixl") X(LIBFABRIC, "libfabric") \
	X(EFA_INSTALLER, "efa-installer") X(MOONCAKE, "mooncake") X(TRTLLM, "tensorrt-llm") \
	X(VLLM, "vllm") X(SGLANG, "sglang") X(DYNAMO, "dynamo") X(DRIVER, "driver") \
	X(KERNEL, "kernel") X(HCA_FW, "hca-firmware")
#define KNOWN_COMP_ENUM_(e, s) KC_##e,
enum known_comp { KNOWN_COMPONENTS(KNOWN_COMP_ENUM_) KC__COUNT };
#undef KNOWN_COMP_ENUM_

/* The condition vocabulary (docs/known-issues.md "Conditions"): each name
 * is one C predicate over the pod's facts (knownbad.c). */
#define KNOWN_CONDS(X) \
	X(ARCH, "arch")                 /* aarch64, x86_64 */ \
	X(FABRIC, "fabric")             /* infiniband, roce, efa, nvlink, tcp */ \
	X(DEVICE, "device")             /* bond (RoCE LAG), efa */ \
	X(NIXL_BACKEND, "nixl-backend") /* UCX, LIBFABRIC (the recipe's) */ \
	X(PLACEMENT, "placement")       /* same-node, cross-node: prefill and decode */ \
	X(ENV_SET, "env-set")           /* NAME */ \
	X(ENV_UNSET, "env-unset")       /* NAME */ \
	X(ENV_EQUALS, "env-equals")     /* NAME=VALUE */ \
	X(ENV_CONTAINS, "env-contains") /* NAME=TEXT */ \
	X(ENV_FALSE, "env-false")       /* NAME: n, no, off, 0, false, disable */ \
	X(MODULE, "module")             /* a kernel module loaded: NAME */ \
	X(MODULE_ABSENT, "module-absent") /* NAME not loaded (read) */ \
	X(TL_ALLOWED, "tl-allowed")     /* UCX_TLS lets transport NAME in */ \
	X(TL_LISTED, "tl-listed")       /* ucx_info -d lists transport NAME */ \
	X(ENGINE_BACKEND, "engine-backend") /* TRT-LLM engine file's cache_transceiver_config.backend */ \
	X(ENGINE_EQUALS, "engine-equals") /* KEY=VALUE of the TRT-LLM engine file (known_cond.c) */ \
	X(CASE, "case")                 /* a named combination (knownbad.c cases[]) */
#define KNOWN_COND_ENUM_(e, s) KCOND_##e,
enum known_cond_kind { KNOWN_CONDS(KNOWN_COND_ENUM_) KCOND__COUNT };
#undef KNOWN_COND_ENUM_

enum known_column { KNOWN_COL_UCX, KNOWN_COL_NIXL, KNOWN_COL_MOONCAKE, KNOWN_COL__COUNT };

#define KNOWN_MAX_CONDS 8

struct known_cond {
	enum known_cond_kind kind;
	char *arg;                      /* owned */
};

struct known_row {
	char *id;                       /* owned; unique in a table */
	enum known_column column;       /* check: ucx-/nixl-/mooncake-known-bad */
	/* versions affected per component: space-separated FROM-UNTIL ranges,
	 * FROM the first affected, UNTIL the first fixed ("" none yet); NULL
	 * when the row does not depend on it.  The column's own component is
	 * always given. */
	char *versions[KC__COUNT];
	struct known_cond cond[KNOWN_MAX_CONDS];
	int ncond;
	int fail;                       /* severity: 1 fail, 0 warn */
	char *effect;                   /* what the user sees */
	char *fix;                      /* the way out, in words */
	char *paste;                    /* NAME=value to paste, or NULL */
	char *way;                      /* a computed way out (knownbad.c ways[]), or NULL */
	char *source;                   /* owner/repo#N */
	char *url;                      /* the public report */
	int line;                       /* where it was read (1-based), 0 unknown */
};

struct known_table {
	struct known_row *row;
	size_t n, cap;
};

/* The file's spelling of a component / condition / column. */
const char *known_comp_name(enum known_comp c);
/* The component a column judges (its own version range). */
enum known_comp known_column_comp(enum known_column c);
const char *known_cond_name(enum known_cond_kind k);
const char *known_column_name(enum known_column c);

/* Parses text (the file's format, docs/known-issues.md) and merges its
 * rows into t by id: a new id is appended, a known one replaced.  file
 * names the text in errors.  -1 with e set to one line naming file, line
 * and field when the text or a row is malformed; t is then unchanged. */
int known_table_parse(struct known_table *t, const char *text, size_t len,
		      const char *file, struct err *e);
/* Reads path and merges it as known_table_parse does. */
int known_table_load(struct known_table *t, const char *path, struct err *e);
/* A deep copy of the built-in rows into t (to merge a file into). */
void known_table_copy_builtin(struct known_table *t);
void known_table_release(struct known_table *t);
/* The built-in table (data/known-issues.yaml), parsed once; shared. */
const struct known_table *known_builtin(void);

/* Writes t in the file's format (JSON when yaml is 0): what it writes
 * is a valid --known-issues file.  0, or -1 on a write error. */
int known_table_write(FILE *out, const struct known_table *t, int yaml);

#endif
