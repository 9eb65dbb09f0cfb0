/* pods.h pod_info_set_spec(): a pod's spec facts held once per distinct
 * content (util/intern.h), so 10,000 pods of one spec hold one copy.  Its
 * own file because both pods.c (a listed pod) and claims.c (the claims
 * added later) call it, and neither calls back into the other's file. */
#include "pods.h"
#include "util/intern.h"

void pod_info_set_spec(struct pod_info *p, const struct pod_spec_facts *s)
{
	const struct pod_spec_facts *old = p->spec;

	p->spec = intern_bytes(s, sizeof(*s), NULL);
	intern_unref(old, NULL);
}
