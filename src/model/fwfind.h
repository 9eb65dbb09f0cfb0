/* A finding of the framework rule book (model/fwrules.h) and of the
 * engine pair rules (model/engcfg.h), apart so that both can include it.
 *
 * The book names a check by an id of its own, never by its string: the
 * model layer cannot see the check table (src/check/table.def), so
 * check/framework.c maps each id to its row (a switch without default: an
 * id without a row does not compile). */
#ifndef MODEL_FWFIND_H
#define MODEL_FWFIND_H

#include "model/envrules.h"

enum fwr_check {
	FWR_VLLM,          /* fw-vllm */
	FWR_SGLANG,        /* fw-sglang */
	FWR_TRTLLM,        /* fw-trtllm */
	FWR_MOONCAKE,      /* fw-mooncake */
	FWR_TP_NODES,      /* fw-tp-nodes */
	FWR_PD_TP,         /* fw-pd-parallel */
	FWR_PD_CONNECTOR,  /* fw-pd-connector */
	FWR_PD_BLOCKS,     /* fw-pd-blocks */
	FWR__COUNT
};

struct fwr_finding {
	enum fwr_check check;
	enum envr_sev sev;
	char detail[320];
	const char *remedy;
	const char *source;     /* where the rule comes from */
	int unknown;            /* could not be judged (detail says why): skipped */
};

#define FWR_MAX 16

#endif
