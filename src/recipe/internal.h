/* Shared between recipe.c (reading), scan.c (shell text) and rules.c. */
#ifndef RECIPE_INTERNAL_H
#define RECIPE_INTERNAL_H

#include "model/envrules.h"
#include "recipe/recipe.h"
#include "recipe/ytree.h"
#include "util/buf.h"
#include "util/err.h"

/* A recipe is KBs; a file larger than this cannot be one. */
#define RECIPE_MAX_FILE (64u << 20)

/* Appends one KV-backend fact to c->kv ("; "-separated, no duplicates). */
void recipe_kv_add(struct recipe_component *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* `export X=...` / `X=...` at command position for transport X: recorded
 * as set at run time (source args), overriding the env lists. */
void recipe_scan_shell(struct recipe_component *c, const char *text);
/* vLLM kv_connector / backends, SGLang --disaggregation-transfer-backend,
 * TRT-LLM cache_transceiver_config.backend, anywhere in text. */
void recipe_scan_kv(struct recipe_component *c, const char *text);
/* The value of --kv-transfer-config written as one $(NAME), ${NAME} or
 * $NAME (the kubelet expands $(NAME) in command and args from the
 * container's env; the shell the others) taken from c->plain and scanned
 * as recipe_scan_kv does; a name with no literal value stays unknown. */
void recipe_scan_kv_vars(struct recipe_component *c, const char *text);
/* rules.c: appends text to c->args (bounded: a recipe is KBs). */
void recipe_args_add(struct recipe_component *c, const char *text);
/* set.c: sets NAME in the component's env (the last setting wins). */
void recipe_env_set(struct recipe_component *c, const char *name, const char *value,
		    enum recipe_src src, int dynamic);

/* rules.c: the component as the env rule book's context (model/envrules.h),
 * and the book's worst verdict on NAME=VALUE there: 0 none, 1 warn, 2 fail,
 * with "DETAIL (check)" in why. */
struct envr_ctx recipe_book_ctx(const struct recipe_component *c);
int recipe_book_judge(const struct recipe_component *c, const char *name,
		      const char *value, char *why, size_t n);

/* set.c: a whole file into b (bounded); one error line; recipe.c:
 * the graphs of already-parsed documents, named name, each worker given
 * the load-time warnings notes (copied; they become findings in
 * recipe_judge()). */
int recipe_read_file(const char *path, struct buf *b, struct err *e);
void recipe_add_error(struct recipe_set *s, const char *file, int line, int col,
		      const char *msg);
void recipe_read_docs(struct recipe_set *s, const char *name, const struct ytree_doc *docs,
		      size_t n, char *const *notes, size_t nnotes);

/* kust.c: kustomize overlays (see there for what is applied and how). */
struct recipe_kust_tree;
/* The kustomizations under dir, or NULL when there is none (caller frees). */
struct recipe_kust_tree *recipe_kust_scan(const char *dir);
/* dir is a kustomization nobody under the scanned path includes. */
int recipe_kust_is_entry(const struct recipe_kust_tree *t, const char *dir);
/* file is read through a kustomization (resource, patch, the file itself). */
int recipe_kust_is_used(const struct recipe_kust_tree *t, const char *file);
void recipe_kust_tree_free(struct recipe_kust_tree *t);
/* The same build as documents (out freed with ytree_docs_free(), notes
 * with free() each and the array); -1 when an error went to s. */
int recipe_kust_build(const char *dir, struct recipe_set *s, struct ytree_docs *out,
		      char ***notes, size_t *nnotes);
/* Each document of patch merged into the base documents of its kind and
 * name (tests, fuzzing).  -1 when either text is not YAML. */
int recipe_kust_patch_text(const char *base, size_t blen, const char *patch, size_t plen,
			   struct ytree_docs *out);

#endif
