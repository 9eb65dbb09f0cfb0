/* Part of facts.h (which includes it; include facts.h, not this): the
 * facts of section versions (issue 43), apart to keep facts.h readable. */
#ifndef DI_PROBE_FACTS_VERSIONS_H
#define DI_PROBE_FACTS_VERSIONS_H

/* ---- Versions the known-issues rows key on (issue 43) ---------------- */

/* Whether a module no other section reads is loaded. */
enum probe_modstate {
	PROBE_MODSTATE_UNKNOWN = 0,     /* not read (no /sys/module, no /proc/modules) */
	PROBE_MODSTATE_LOADED,
	PROBE_MODSTATE_ABSENT,          /* read, not loaded */
};

/* How the installed Dynamo vLLM worker picks the NIXL side-channel host
 * when VLLM_NIXL_SIDE_CHANNEL_HOST is unset (checks.md J5f): its
 * dynamo/vllm/args.py with ai-dynamo/dynamo PR #6539's detection
 * (_try_udp_connect: the default route's address, else RuntimeError), or
 * without it (PRs #1878/#2108: gethostbyname of the hostname, 127.0.0.1
 * when that fails). */
enum probe_hostip {
	PROBE_HOSTIP_UNKNOWN = 0,       /* no dynamo/vllm/args.py read */
	PROBE_HOSTIP_DETECT,            /* PR #6539's code */
	PROBE_HOSTIP_FALLBACK,          /* older code: the silent loopback */
};

/* Section versions: what no other section reads, each a plain version or
 * word ("" when not reported, or refused: nbad counts those).  fi_info -p's
 * per-entry "version:" is the provider's (122.0 for EFA), not libfabric's:
 * libfabric's own comes from fi_info --version. */
struct probe_versions {
	struct probe_src src;
	char libfabric[32];             /* "1.22.0amzn4.0" (fi_info --version) */
	char efa_installer[32];         /* "1.38.1" (/opt/amazon/efa_installed_packages) */
	char arch[16];                  /* uname -m: "x86_64", "aarch64" */
	enum probe_modstate efa_nv_peermem;  /* the EFA installer's GPUDirect module */
	/* The pod's own hostname as its resolver answers (J5f): its first
	 * IPv4 address ("10.0.1.17", "127.0.1.1"), "unresolved", or "" not
	 * looked up (no hostname, the lookup timed out).  The name itself
	 * never leaves the pod. */
	char host_self[16];
	enum probe_hostip dyn_hostip;
	int nbad;
};

/* The engines' and KV libraries' own wheels (issue 41), listed by section
 * mooncake_dist from their dist-info directories: vllm, sglang,
 * tensorrt_llm, ai_dynamo, ai_dynamo_runtime, nixl (and nixl_cu12/13),
 * mooncake_transfer_engine*.  Only the package name and version leave the
 * pod (docs/product.md); the first directory of a name wins. */
#define PROBE_ENGINE_DISTS 8
struct probe_dist {
	char name[40];                  /* the wheel name as the directory spells it */
	char version[32];               /* METADATA's Version:, else the name's; "" refused */
};
struct probe_engine_dists {
	int n;
	int dropped;                    /* past PROBE_ENGINE_DISTS */
	struct probe_dist d[PROBE_ENGINE_DISTS];
};

/* The version of wheel name ("vllm", "ai_dynamo_runtime"), NULL when the
 * pod has none or its version was refused. */
const char *probe_dist_version(const struct probe_engine_dists *e, const char *name);

/* Parses the section body into v; the number of values read.  A later
 * line for a key replaces an earlier one. */
int probe_parse_versions(const char *t, size_t n, struct probe_versions *v);

#endif
