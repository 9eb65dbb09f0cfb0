/* The UCX build and the engine behind E7's lane model (issue 42 items 2
 * and 3): whether UCX breaks lane ties as openucx/ucx PR #11547 does, and
 * whether KV goes through TensorRT-LLM's UCX cache transceiver (tag/AM
 * rendezvous) rather than NIXL's puts.  Read by nicsel.c. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "check/internal.h"
#include "probe/facts.h"

/* Whether this UCX build carries openucx/ucx PR #11547 (the tie among
 * lanes of equal bandwidth goes to the GPU's ordinal modulo their number;
 * before it, to the first in PCI order), from ucx_info -v (openucx/ucx
 * git history): on master since 38c99d4 (2026-07-13; master reports 1.23.0
 * since it parted from v1.22.x on 2026-06-24), on v1.22.x since ecb919e
 * (2026-08-14), the commit right after the v1.22.0 tag 8a6b06f; in no tag
 * up to v1.22.0 (openucx/ucx#11680: such builds put one-GPU-per-rank
 * traffic on 4 of 8 NICs).  1 carries it, 0 not; *assumed set where the
 * version and revision do not settle it and a guess was made: a 1.23
 * master build, a later 1.22 patch, a 1.22.0 past the tag on v1.22.x are
 * taken to carry it; a 1.22.0 of no known revision and an unreported
 * version not. */
#define UCX_REV_11547_MASTER "38c99d4ff7b67ad9945e019e808752ba260fc786"
#define UCX_REV_11547_V122X "ecb919ed6182683a770dd4c6cd62e343ad499824"

/* Do two revisions (7 to 40 hex digits, as ucx_info -v or git print them)
 * name one commit? */
static int rev_is(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);

	return n >= 7 && m >= 7 && !strncmp(a, b, n < m ? n : m);
}

int nicsel_ucx_11547(const struct probe_ucx *u, int *assumed)
{
	/* v1.22.0 and its release candidates, which report 1.22.0 too */
	static const char *const v122_tags[] = {
		"8a6b06fb880accbb933a79cda893883872c68d9d", "9851e5e", "96e58a1", "f04c0b6",
	};
	const char *rev = u->revision;

	*assumed = 0;
	if (rev_is(rev, UCX_REV_11547_MASTER) || rev_is(rev, UCX_REV_11547_V122X))
		return 1;
	if (u->major < 0) {
		*assumed = 1;
		return 0;
	}
	if (u->major < 1 || (u->major == 1 && u->minor < 22))
		return 0;
	if (u->major == 1 && u->minor == 22 && u->patch <= 0) {
		for (size_t i = 0; i < sizeof v122_tags / sizeof v122_tags[0]; i++)
			if (rev_is(rev, v122_tags[i]))
				return 0;
		*assumed = 1;
		/* on the branch past the tag: the backport is its next commit */
		return !strcmp(u->git_branch, "v1.22.x") && *rev;
	}
	*assumed = 1;
	return 1;
}

/* The value of "backend" after "cache_transceiver_config" in args (the
 * inline JSON of --override-engine-args: "backend":"UCX"), into out; ""
 * when not there. */
static void args_backend(const char *args, char *out, size_t n)
{
	const char *p = args ? strstr(args, "cache_transceiver_config") : NULL;
	size_t k = 0;

	out[0] = '\0';
	if (!p || !(p = strstr(p, "backend")))
		return;
	p += strlen("backend");
	while (*p == '"' || *p == '\'' || *p == ':' || *p == ' ')
		p++;
	while (k + 1 < n && ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')))
		out[k++] = *p++;
	out[k] = '\0';
}

/* KV through TensorRT-LLM's UCX cache transceiver: cache_transceiver_
 * config.backend UCX (engine file as the probe read it, else the args), or
 * DEFAULT/unset with TRTLLM_USE_UCX_KVCACHE=1 and no TRTLLM_USE_NIXL_
 * KVCACHE=1 before it (DEFAULT takes the first of them set to 1, else
 * NIXL: ai-dynamo/dynamo PR #13015's table of TensorRT-LLM's
 * kv_cache_transceiver.py). */
int nicsel_trtllm_ucx(const struct check_input *in)
{
	const struct probe_trtllm_engine *e = &in->f->trtllm_engine;
	char be[17];

	copy_str(be, sizeof be, e->backend);
	if (!*be)
		args_backend(in->ctx->args, be, sizeof be);
	if (*be && strcasecmp(be, "DEFAULT"))
		return !strcasecmp(be, "UCX");
	return !is_yes(envv(in, "TRTLLM_USE_NIXL_KVCACHE")) &&
	       is_yes(envv(in, "TRTLLM_USE_UCX_KVCACHE"));
}
