/* fi_info -p efa (G2) with libfabric log lines mixed in (G3: the probe runs
 * it with FI_LOG_LEVEL=warn so a failed CUDA registration shows). */
#include "internal.h"

#include <string.h>

static void entry_kv(struct probe_fi_entry *e, struct pslice k, struct pslice v)
{
	if (ps_eq(k, "fabric"))
		ps_copy(e->fabric, sizeof e->fabric, v);
	else if (ps_eq(k, "domain"))
		ps_copy(e->domain, sizeof e->domain, v);
	else if (ps_eq(k, "version"))
		ps_copy(e->version, sizeof e->version, v);
	else if (ps_eq(k, "type"))
		ps_copy(e->type, sizeof e->type, v);
	else if (ps_eq(k, "protocol"))
		ps_copy(e->protocol, sizeof e->protocol, v);
}

static void log_line(struct probe_fi *fi, struct pslice line)
{
	if (ps_find(line, "FI_HMEM_CUDA P2P support is not available") >= 0)
		fi->hmem_p2p_unavailable = 1;
	if (ps_find(line, "Failed to register CUDA buffer") >= 0)
		fi->hmem_cuda_reg_failed = 1;
	if (ps_find(line, "fi_getinfo: -61") >= 0)
		fi->no_data = 1;
}

int probe_parse_fi_info(const char *t, size_t n, struct probe_fi *fi)
{
	struct ptext it;
	struct pslice line, k, v;
	struct probe_fi_entry *e = NULL;
	int i;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		log_line(fi, line);
		if (ps_starts(line, "libfabric:") || !ps_split(line, ':', &k, &v))
			continue;
		if (ps_eq(k, "provider")) {
			if (fi->nentries >= PROBE_MAX_FI) {
				fi->dropped++;
				e = NULL;
				continue;
			}
			e = &fi->entry[fi->nentries++];
			memset(e, 0, sizeof *e);
			ps_copy(e->provider, sizeof e->provider, v);
		} else if (e) {
			entry_kv(e, k, v);
		}
	}
	fi->n_efa_rdm = 0;
	for (i = 0; i < fi->nentries; i++)
		fi->n_efa_rdm += !strcmp(fi->entry[i].provider, "efa") &&
				 !strcmp(fi->entry[i].type, "FI_EP_RDM");
	return fi->nentries;
}
