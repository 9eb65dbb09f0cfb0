/* What any output shows of a pod's transport environment (product.md: a
 * Secret's value is never shown).  The checks judge the real values; this
 * module is the one renderer that then takes every value that is, or may
 * be, from a Secret out of what the run keeps: check details, remedies and
 * sources, the pod's summary, and the facts themselves (which -v 9, JSON
 * facts, drift and the pair-test plan print). */
#ifndef RUN_MASK_H
#define RUN_MASK_H

#include "check/check.h"
#include "probe/facts.h"

/* Sets f->env.var[].secret (owned) for each variable that secret_env
 * (pods.h pod_info.secret_env) says may hold a Secret's value.  Values
 * are left as they are, for the checks to judge. */
void run_mask_mark(struct probe_facts *f, const char *secret_env);

/* After the checks: rewrites r's strings and summary so that no marked
 * value appears (as "NAME=value", the whole value, one of its "," or
 * blank-separated entries, or a part of an entry around ":"), then replaces each marked value in f by "<from secret S>",
 * keeping only its SHA-256 (var[].digest) for P3. */
void run_mask_apply(struct probe_facts *f, struct check_results *r);

/* One string with the marks of f applied; owned by the caller.  The work
 * is linear in text times the distinct lengths of the marked words; a
 * text over 1 MiB, or one met after the run was cancelled (cancel.h:
 * Ctrl-C, --timeout), comes back as "(hidden: WHY)", never half masked. */
char *run_mask_text(const struct probe_facts *f, const char *text);
/* The same, with the hash probes it made in *steps (tests count work). */
char *run_mask_text_counted(const struct probe_facts *f, const char *text, size_t *steps);

#endif
