/* The KV path, link by link: which checks prove which link, per fabric
 * (the table of checks.md N). */
#include "check/links.h"

#include <stdio.h>
#include <string.h>

#include "check/internal.h"
#include "check/logs.h"

/* How an alternative shows its part: first-hand (the check reads the part
 * itself), or as a second source, the worker log (checks.md N "also shown
 * by"): any line of its LOGS check, or only the one log signature (by id:
 * logs-nixl is one result for every NIXL line, and only some show this
 * part; the words are the signature's own, check_logs_shows()). */
enum shows { FIRST_HAND = 0, ANY_LINE, ONE_SIG };

/* One check that can prove a link; warn_ok: its warning still shows the
 * link works (a degradation), else only ok proves it. */
struct alt {
	int on;              /* 0 ends the slot */
	enum check_id check;
	int warn_ok;
	const char *source;  /* what it reads, when the result names none */
	enum shows shows;
	enum logsig sig;     /* ONE_SIG: the signature that shows the part */
};
#define ALT(id, warn_ok, source) { 1, CK_##id, warn_ok, source, FIRST_HAND, LOGSIG_COUNT }

#define MAX_ALTS 3
#define MAX_SLOTS 4

/* A link needs every slot proven; a slot is proven by any of its
 * alternatives (checks.md N: "proven by any source that shows it").
 * Every other check the table (table.def) puts on the link is a breaker:
 * it does not prove the link but breaks it when it fails. */
struct link_rule {
	enum check_link_id id;
	struct alt slot[MAX_SLOTS][MAX_ALTS];
	int family_env;      /* the link is its checks (table.def) as a whole */
};

static const char *const names[LINK__COUNT] = {
	"device", "link-up", "userspace-access", "gpu-memory",
	"locked-memory", "environment", "nixl-backend",
};
static const char *const titles[LINK__COUNT] = {
	"device in the pod", "link up", "userspace access to the NIC",
	"GPU memory reachable by the NIC", "locked memory",
	"an environment that keeps the path", "a NIXL backend that can use it",
};

#define SYSFS_IB "/sys/class/infiniband, /dev/infiniband"
#define UCX_D "ucx_info -d"

/* Second sources from the worker log (checks.md F3, E6): a NIXL line shows
 * NIXL runs; "Backend UCX was instantiated" that its UCX plugin loaded;
 * UCX_PROTO_INFO lanes on rc/dc that UCX uses RDMA.  The signatures are
 * the LOGS family's (check/logs.c, probe/logscan.h), named by id: one
 * that is removed does not compile, one filed under another LOGS check
 * fails check_links_consistent(); tested in test_nixl_wheel.c. */
#define LOG_NIXL { 1, CK_LOGS_NIXL, 1, "worker log (NIXL lines)", ANY_LINE, LOGSIG_COUNT }
#define LOG_UCX_BACKEND { 1, CK_LOGS_NIXL, 0, "worker log: \"Backend UCX was instantiated\"", \
			  ONE_SIG, LOGSIG_NIXL_UCX_INSTANTIATED }
#define LOG_FI_BACKEND { 1, CK_LOGS_NIXL, 0, "worker log: \"Loaded backend plugin: LIBFABRIC\"", \
			 ONE_SIG, LOGSIG_NIXL_LIBFABRIC_LOADED }
#define LOG_UCX_RDMA { 1, CK_LOGS_UCX, 0, "worker log: UCX lanes on rc/dc", \
		       ONE_SIG, LOGSIG_UCX_RC_LANES }

/* IB / RoCE with the NIXL UCX backend (A1, A2/A6, A5/E3, B1/B1b/B2, E5,
 * I, F1/F2/E3). */
static const struct link_rule ib_rules[] = {
	{ LINK_DEVICE, { { ALT(RDMA_DEVICES, 1, SYSFS_IB) } }, 0 },
	{ LINK_UP, { { ALT(RDMA_PORTS, 1, "/sys/class/infiniband/*/ports") } }, 0 },
	{ LINK_ACCESS, { { ALT(RDMA_VERBS, 1, "ibv_devinfo, " UCX_D) } }, 0 },
	{ LINK_GPU_MEMORY, { { ALT(GPUDIRECT_PEERMEM, 1, "/proc/modules"),
			       ALT(GPUDIRECT_UCX_MD, 1, UCX_D) } }, 0 },
	{ LINK_MEMLOCK, { { ALT(LIMITS_MEMLOCK, 1, "/proc/1/limits"),
			    ALT(POD_IPC_LOCK, 0, "pod securityContext") } }, 0 },
	{ LINK_ENV, { { { 0 } } }, 1 },
	{ LINK_BACKEND, { { ALT(NIXL_INSTALLED, 1, "python3 -c 'import nixl'"), LOG_NIXL },
			  { ALT(NIXL_PLUGIN, 1, "NIXL plugin directory"), LOG_UCX_BACKEND },
			  { ALT(UCX_RDMA, 1, UCX_D), LOG_UCX_RDMA },
			  { ALT(UCX_CUDA, 1, UCX_D) } }, 0 },
};

/* EFA with the NIXL LIBFABRIC backend (G1-G4, H1). */
static const struct link_rule efa_rules[] = {
	{ LINK_DEVICE, { { ALT(EFA_DEVICES, 1, SYSFS_IB) } }, 0 },
	{ LINK_UP, { { ALT(EFA_PROVIDER, 1, "fi_info -p efa") } }, 0 },
	{ LINK_ACCESS, { { ALT(EFA_PROVIDER, 1, "fi_info -p efa"),
			   ALT(RDMA_VERBS, 1, "ibv_devinfo") } }, 0 },
	{ LINK_GPU_MEMORY, { { ALT(EFA_HMEM, 1, "fi_info -c FI_HMEM") } }, 0 },
	{ LINK_MEMLOCK, { { ALT(LIMITS_MEMLOCK, 1, "/proc/1/limits"),
			    ALT(POD_IPC_LOCK, 0, "pod securityContext") } }, 0 },
	{ LINK_ENV, { { { 0 } } }, 1 },
	{ LINK_BACKEND, { { ALT(NIXL_INSTALLED, 1, "python3 -c 'import nixl'"), LOG_NIXL },
			  { ALT(NIXL_PLUGIN, 1, "NIXL plugin directory"), LOG_FI_BACKEND } }, 0 },
};

/* KV inside one node over NVLink (D1, D2, E3 cuda_ipc, F1). */
static const struct link_rule nvlink_rules[] = {
	{ LINK_DEVICE, { { ALT(LIMITS_GPUS, 1, "nvidia-smi") } }, 0 },
	{ LINK_UP, { { ALT(NVLINK_LINKS, 1, "nvidia-smi nvlink --status") } }, 0 },
	{ LINK_ACCESS, { { ALT(UCX_CUDA, 1, UCX_D) } }, 0 },
	{ LINK_ENV, { { { 0 } } }, 1 },
	{ LINK_BACKEND, { { ALT(NIXL_INSTALLED, 1, "python3 -c 'import nixl'"), LOG_NIXL } }, 0 },
};

enum check_path check_path_of(enum fabric f)
{
	return f == FABRIC_EFA ? CHECK_PATH_EFA : f == FABRIC_NVLINK ? CHECK_PATH_NVLINK
								 : CHECK_PATH_IB;
}

static const struct link_rule *path_rules(enum check_path p, size_t *n)
{
	if (p == CHECK_PATH_EFA) {
		*n = sizeof(efa_rules) / sizeof(efa_rules[0]);
		return efa_rules;
	}
	if (p == CHECK_PATH_NVLINK) {
		*n = sizeof(nvlink_rules) / sizeof(nvlink_rules[0]);
		return nvlink_rules;
	}
	*n = sizeof(ib_rules) / sizeof(ib_rules[0]);
	return ib_rules;
}

const char *check_link_status_name(enum check_link_status s)
{
	static const char *const w[] = { "proven", "broken", "missing" };

	return (unsigned)s <= LINK_MISSING ? w[s] : "missing";
}

const char *check_link_name(enum check_link_id id)
{
	return (unsigned)id < LINK__COUNT ? names[id] : "?";
}

static int na(const struct check_result *c)
{
	return c->status == CHECK_SKIPPED && (c->flags & CHECK_F_NA);
}

static void decide(struct check_link *l, enum check_link_status st,
		   const struct check_result *c, const char *source)
{
	l->status = st;
	l->check = c ? c->name : NULL;
	copy_str(l->source, sizeof(l->source),
		 c && c->source ? c->source : source ? source : "");
	copy_str(l->detail, sizeof(l->detail), c && c->detail ? c->detail : "");
}

/* The result of alternative a in r, or NULL. */
static const struct check_result *result_of(const struct check_results *r,
					    const struct alt *a)
{
	return check_results_find_id(r, a->check);
}

static int in_slots(const struct link_rule *lr, enum check_id id)
{
	for (int s = 0; s < MAX_SLOTS; s++)
		for (int a = 0; a < MAX_ALTS && lr->slot[s][a].on; a++)
			if (lr->slot[s][a].check == id)
				return 1;
	return 0;
}

/* A second source whose result is about another part of its LOGS check
 * (another NIXL line) says nothing here: its detail does not start with
 * the words of the alternative's signature. */
static int shows_other(const struct alt *a, const struct check_result *c)
{
	const char *w = a->shows == ONE_SIG ? check_logs_shows(a->sig) : NULL;

	return w && (!c->detail || strncmp(c->detail, w, strlen(w)));
}

/* Any failed result among the link's checks breaks it. */
static const struct check_result *
failed(const struct check_results *r, const struct link_rule *lr,
       enum check_path path, const char **src)
{
	size_t nd;
	const struct check_def *d = check_defs(&nd);

	for (int s = 0; s < MAX_SLOTS; s++)
		for (int a = 0; a < MAX_ALTS && lr->slot[s][a].on; a++) {
			const struct check_result *c = result_of(r, &lr->slot[s][a]);

			if (c && c->status == CHECK_FAIL) {
				*src = lr->slot[s][a].source;
				return c;
			}
		}
	for (size_t i = 0; i < nd; i++) {
		const struct check_result *c;

		if (!(d[i].links[path] >> lr->id & 1) || in_slots(lr, (enum check_id)i))
			continue;
		c = check_results_find_id(r, (enum check_id)i);
		if (c && c->status == CHECK_FAIL) {
			*src = NULL;
			return c;
		}
	}
	return NULL;
}

/* One slot: 1 proven (*by set), 0 missing (*open: the first open skip),
 * -1 not needed here (every first-hand alternative absent or not
 * applicable: a second source, a log line, does not make the pod need a
 * link, it only proves one the pod needs). */
static int slot_state(const struct check_results *r, const struct alt *alts,
		      const struct check_result **by, const struct alt **how,
		      const struct check_result **open)
{
	int needed = 0;

	for (int a = 0; a < MAX_ALTS && alts[a].on; a++) {
		const struct check_result *c = result_of(r, &alts[a]);

		needed |= alts[a].shows == FIRST_HAND && c && !na(c);
	}
	if (!needed)
		return -1;
	for (int a = 0; a < MAX_ALTS && alts[a].on; a++) {
		const struct check_result *c = result_of(r, &alts[a]);

		if (!c || na(c))
			continue;
		/* A result about another part says nothing here either way
		 * (a failure still breaks the link: failed() reads it). */
		if ((c->status == CHECK_OK || c->status == CHECK_WARN) && shows_other(&alts[a], c))
			continue;
		if (c->status == CHECK_OK ||
		    (c->status == CHECK_WARN && alts[a].warn_ok)) {
			*by = c;
			*how = &alts[a];
			return 1;
		}
		if (!*open)
			*open = c;
	}
	return 0;
}

/* The environment as one link: every check the table puts on it (the
 * ENV family) together; broken by a failure, proven when the worker's
 * environment was read and judged, missing when every one was skipped
 * (environ unreadable).  Read by name only: the rules behind the results
 * live in the ENV family. */
static int on_env_link(const struct check_result *c, enum check_path path)
{
	return c->id < CK__COUNT && (check_def_of(c->id)->links[path] >> LINK_ENV & 1);
}

static int env_link(const struct check_results *r, enum check_path path,
		    struct check_link *l)
{
	const struct check_result *ok = NULL, *open = NULL;

	for (size_t i = 0; i < r->n; i++) {
		const struct check_result *c = &r->v[i];

		if (!on_env_link(c, path) || na(c))
			continue;
		if (c->status == CHECK_FAIL) {
			decide(l, LINK_BROKEN, c, "/proc/1/environ");
			return 1;
		}
		if ((c->status == CHECK_OK || c->status == CHECK_WARN) && !ok)
			ok = c;
		else if (c->status == CHECK_SKIPPED && !open)
			open = c;
	}
	if (ok)
		decide(l, LINK_PROVEN, ok, "/proc/1/environ");
	else if (open)
		decide(l, LINK_MISSING, open, NULL);
	return ok || open;
}

static int one_link(const struct check_results *r, const struct link_rule *lr,
		    enum check_path path, struct check_link *l)
{
	const struct check_result *first = NULL, *c;
	const struct alt *firsthow = NULL;
	const char *src = NULL;
	char all[sizeof(l->detail)] = "";
	int needed = 0, nproven = 0;

	memset(l, 0, sizeof(*l));
	l->id = lr->id;
	l->name = names[lr->id];
	l->title = titles[lr->id];
	if (lr->family_env)
		return env_link(r, path, l);
	if ((c = failed(r, lr, path, &src))) {
		decide(l, LINK_BROKEN, c, src);
		return 1;
	}
	for (int s = 0; s < MAX_SLOTS && lr->slot[s][0].on; s++) {
		/* per slot: a skip in a slot another source proved is not
		 * what the missing slot lacks */
		const struct check_result *by = NULL, *open = NULL;
		const struct alt *how = NULL;
		int st = slot_state(r, lr->slot[s], &by, &how, &open);

		if (st < 0)
			continue;
		needed = 1;
		if (st == 0) {
			decide(l, LINK_MISSING, open, NULL);
			return 1;
		}
		if (!first) {
			first = by;
			firsthow = how;
		}
		/* A link of several parts (NIXL, its plugin, UCX's transports)
		 * says what proved each: "nixl-installed: nixl 0.9.0; ...". */
		if (strlen(all) + 2 < sizeof(all) &&
		    snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s: %s",
			     nproven++ ? "; " : "", by->name, by->detail) < 0)
			all[0] = '\0';
	}
	if (!needed)
		return 0;
	decide(l, LINK_PROVEN, first, firsthow ? firsthow->source : NULL);
	if (nproven > 1)
		copy_str(l->detail, sizeof(l->detail), all);
	return 1;
}

size_t check_links(const struct check_results *r,
		   struct check_link out[LINK__COUNT])
{
	enum check_path path;
	size_t nrules, n = 0;
	const struct link_rule *rules;

	if (!r || !r->n)
		return 0;
	path = check_path_of(r->fabric);
	rules = path_rules(path, &nrules);
	for (size_t i = 0; i < nrules; i++)
		n += (size_t)one_link(r, &rules[i], path, &out[n]);
	return n;
}

/* One alternative agrees with the tables: its check is on the link in
 * table.def, and a signature it names is one that has words and is filed
 * under that check (logs.c).  0, else -1 with why. */
static int alt_consistent(const struct alt *a, enum check_link_id link, int p,
			  char *why, size_t n)
{
	const struct check_def *d = check_def_of(a->check);

	if (!(d->links[p] >> link & 1)) {
		snprintf(why, n, "%s: not on link %s of path %d in table.def",
			 d->name, names[link], p);
		return -1;
	}
	if (a->shows == ONE_SIG &&
	    (!check_logs_shows(a->sig) || strcmp(check_logs_check(a->sig), d->name))) {
		snprintf(why, n, "%s: link %s names log signature %s, which %s", d->name,
			 names[link], logsig_name(a->sig),
			 check_logs_shows(a->sig) ? "another LOGS check files" : "shows nothing");
		return -1;
	}
	return 0;
}

/* Every alternative of a slot is on that link in the table too (the two
 * halves of the model agree): 0, else -1 with the first mismatch in why. */
int check_links_consistent(char *why, size_t n)
{
	for (int p = 0; p < CHECK_PATH__COUNT; p++) {
		size_t nrules;
		const struct link_rule *rules = path_rules((enum check_path)p, &nrules);

		for (size_t i = 0; i < nrules; i++)
			for (int s = 0; s < MAX_SLOTS; s++)
				for (int a = 0; a < MAX_ALTS && rules[i].slot[s][a].on; a++)
					if (alt_consistent(&rules[i].slot[s][a], rules[i].id, p,
							   why, n))
						return -1;
	}
	return 0;
}

enum check_kv check_kv_transport(const struct check_results *r)
{
	struct check_link l[LINK__COUNT];
	size_t n = check_links(r, l);

	for (size_t i = 0; i < n; i++)
		if (l[i].status == LINK_BROKEN && l[i].id != LINK_GPU_MEMORY)
			return CHECK_KV_TCP;
	switch (r->fabric) {
	case FABRIC_INFINIBAND: case FABRIC_ROCE: case FABRIC_EFA: return CHECK_KV_RDMA;
	case FABRIC_NVLINK: return CHECK_KV_NVLINK;
	case FABRIC_TCP: return CHECK_KV_TCP;
	default: return CHECK_KV_UNKNOWN;
	}
}
