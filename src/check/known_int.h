/* Inside the known-issues matcher (knownbad.c, known_cond.c,
 * known_case.c, known_ver.c): what a row's condition reads. */
#ifndef CHECK_KNOWN_INT_H
#define CHECK_KNOWN_INT_H

#include <stddef.h>

#include "check/internal.h"
#include "check/known.h"
#include "model/envrules.h"

/* The pod, and its environment as the rule book sees it
 * (model/envrules.c parses each variable). */
struct kb_in {
	const struct check_input *in;
	struct envr_view env;
};

/* known_ver.c: "1.3.1", "0.3.12.post1", "1.4.0rc2" compared by their
 * numbers (a pre-release counts as its release); -1, 0, 1. */
int known_ver_cmp(const char *a, const char *b);
/* v in one of ranges ("1.3.0-1.3.2 1.4.0-"): 1 or 0. */
int known_in_range(const char *ranges, const char *v);

/* known_case.c: the named combinations (condition "case") and the
 * computed ways out ("way"): 1 when the pod has it / there is one, with
 * what was seen in why / the NAME=value in paste.  -1: no such name. */
int known_case(const struct kb_in *k, const char *name, char *why, size_t n);
int known_way(const struct kb_in *k, const char *name, char *paste, size_t n);
/* 1 when name is a case / a way this build knows. */
int known_case_exists(const char *name);
int known_way_exists(const char *name);

/* A RoCE LAG device of the pod (mlx5_bond_N, or GIDs on a bond netdev),
 * NULL when none. */
const struct probe_rdma_dev *known_bond_dev(const struct probe_facts *f);
/* ucx_info -d lists transport tl on device dev ("" any): 1 or 0, -1 when
 * ucx_info -d was not read. */
int known_tl_listed(const struct probe_ucx *u, const char *tl, const char *dev);
/* The "ucx vX.Y.Z" line of Dynamo's nixl-versions.txt into built ("" none). */
void known_build_ucx(const struct probe_facts *f, char built[32]);

/* known_cond.c: the engine file's KEY=VALUE an engine-equals names (a
 * key the probe reads) / a module the module conditions can see: 1 or 0. */
int known_engine_arg_ok(const char *a);
int known_module_ok(const char *name);

/* known_cond.c: condition c holds for the pod (1, with what it saw in
 * why), or not (0). */
int known_cond_holds(const struct kb_in *k, const struct known_cond *c, char *why, size_t n);
/* The pod's version of component c into out ("" unknown). */
void known_comp_version(const struct kb_in *k, enum known_comp c, char *out, size_t n);

#endif
