/* DRA ResourceClaims of a worker (issue 17 item 5): which claims the probed
 * container uses, and what each ResourceClaim has allocated (drivers,
 * devices, device classes).  Facts only: whether a driver is a NIC is for
 * the checks to judge (check/podspec.c).
 *
 * Reads are GETs of resource.k8s.io ResourceClaims (v1, then v1beta1 when
 * the server does not serve v1): the RBAC rule it needs is `get` on
 * `resourceclaims` in API group resource.k8s.io (deploy/rbac.yaml); a
 * namespace whose pods use many claims is read with one paged LIST when
 * `list` is allowed too.  A claim that cannot be read is counted as unread
 * with the reason, never guessed.
 */
#ifndef KUBE_CLAIMS_H
#define KUBE_CLAIMS_H

#include <stddef.h>

#include "kube/http/http.h"
#include "pods.h"

/* At most this many claims per pod are read; the rest count as unread. */
#define CLAIMS_MAX_PER_POD 16

/* What one ResourceClaim says.  Strings are ","-joined, "" when none. */
struct claim_facts {
	int allocated;          /* status.allocation present */
	char drivers[256];      /* status.allocation.devices.results[].driver */
	char devices[256];      /* "driver/device" of each result */
	char classes[256];      /* spec.devices.requests[] device class names */
};

/* "NAME\n" per ResourceClaim object the container uses (owned; "" none):
 * the container's resources.claims mapped through spec.resourceClaims
 * (resourceClaimName) and status.resourceClaimStatuses (the claim made
 * from a template).  A container that names no claim gets the pod's. */
char *claims_refs(const void *pod_json, const char *container);

/* Parses one ResourceClaim (JSON) into *out.  0, or -1 when it is not a
 * ResourceClaim object. */
int claims_parse(const char *body, size_t len, struct claim_facts *out);

/* One page of a ResourceClaimList (JSON): fn(name, facts, arg) for each
 * item with a valid name; *next gets the continue token (owned) or NULL.
 * 0, or -1 when it is not a list. */
typedef void (*claims_item_fn)(const char *name, const struct claim_facts *f, void *arg);
int claims_parse_list(const char *body, size_t len, claims_item_fn fn, void *arg,
		      char **next);

/* GETs the claims of every pod of l that uses any and fills each pod's
 * spec.claims_* facts (kube/api/pods.h).  Never fails the run: what cannot be
 * read is counted unread with its reason. */
void claims_resolve(struct http_client *c, struct pod_list *l);

#endif
