/* Shared between recipe.c (reading), scan.c (shell text) and rules.c. */
#ifndef RECIPE_INTERNAL_H
#define RECIPE_INTERNAL_H

#include "recipe/recipe.h"

/* Appends one KV-backend fact to c->kv ("; "-separated, no duplicates). */
void recipe_kv_add(struct recipe_component *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* `export X=...` / `X=...` at command position for transport X: recorded
 * as set at run time (source args), overriding the env lists. */
void recipe_scan_shell(struct recipe_component *c, const char *text);
/* vLLM kv_connector / backends, SGLang --disaggregation-transfer-backend,
 * TRT-LLM cache_transceiver_config.backend, anywhere in text. */
void recipe_scan_kv(struct recipe_component *c, const char *text);
/* recipe.c's env setter, for scan.c. */
void recipe_env_set(struct recipe_component *c, const char *name, const char *value,
		    enum recipe_src src, int dynamic);

#endif
