/* Mooncake's transfer engine as the env rule book models it (checks.md
 * A9, A10): the GID index it uses on a RoCE port, set (MC_GID_INDEX,
 * NCCL_IB_GID_INDEX) or its own choice (rdma_gid_probe.h's tiers), and
 * whether a pod runs it (its variables, SGLang's command line). */
#include "model/envrules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void envr_gid_ndev(struct envr_gid_port *p, int idx, const char *ndev, unsigned v4)
{
	static const char *const overlay[] = { "flannel", "cni", "calico", "vxlan", "docker" };
	unsigned long long bit;
	unsigned a = v4 >> 24, b = (v4 >> 16) & 0xff;

	if (idx < 0 || idx >= 64)
		return;
	bit = 1ull << idx;
	if (ndev && *ndev) {
		p->ndev |= bit;
		for (size_t i = 0; i < sizeof overlay / sizeof *overlay; i++)
			if (!strncmp(ndev, overlay[i], strlen(overlay[i])))
				p->overlay |= bit;
		if (!strcmp(ndev, "tunl0"))
			p->overlay |= bit;
	}
	if ((p->ipv4 & bit) && (a == 10 || (a == 172 && b >= 16 && b <= 31) ||
				(a == 100 && b >= 64 && b <= 127)))
		p->private_v4 |= bit;
}

/* The tier rdma_gid_probe.h (classifyAutoGidCandidate, >= 0.3.12 with PR
 * #2741) gives RoCE v2 GID i, lower first: with a netdev routable 0,
 * private-range IPv4 2, degraded (link-local IPv6 or an overlay netdev) 3;
 * without one 1, 4, 5.  -1: no candidate (empty, or not RoCE v2). */
static int mooncake_tier(const struct envr_gid_port *p, long i)
{
	unsigned long long bit = 1ull << i;
	int ov, degraded, priv;

	if (!(p->gids & p->roce_v2 & bit))
		return -1;
	ov = !!(p->overlay & bit);
	degraded = ov || ((p->link_local & bit) && !(p->ipv4 & bit));
	priv = !ov && (p->private_v4 & bit);
	if (p->ndev & bit)
		return degraded ? 3 : priv ? 2 : 0;
	return degraded ? 5 : priv ? 4 : 1;
}

/* findBestGidIndex: the lowest tier, ties to the lower index (stable_sort on
 * gid_index); no candidate: the first non-empty GID of another type (RoCE
 * v1: kFallbackNonzero); none: "No suitable GID found", the device is not
 * opened (-1). */
long envr_mooncake_auto(const struct envr_gid_port *p)
{
	long best = -1, fallback = -1;
	int tier = 6;

	for (long i = 0; i < ENVR_GID_READ; i++) {
		int t = mooncake_tier(p, i);

		if (t >= 0 && t < tier) {
			tier = t;
			best = i;
		} else if (t < 0 && fallback < 0 && (p->gids & (1ull << i))) {
			fallback = i;
		}
	}
	return best >= 0 ? best : fallback;
}

/* findBestGidIndex up to 0.3.11 (rdma_context.cpp before PRs #2269 and
 * #2741, both first in v0.3.12): a scan in index order that ends at the
 * first GID ibv_query_gid_ex cannot read (an empty slot: ENODATA, rdma-core
 * man ibv_query_gid_ex) and looks at RoCE v2 GIDs only.  The first IPv4
 * one with a netdev wins at once; else the first IPv4 one without, then the
 * first IPv6 one (link-local included) with a netdev, then without; none:
 * "No suitable GID found" (-1).  No private-range or overlay ranking. */
long envr_mooncake_auto_pre312(const struct envr_gid_port *p)
{
	long v4_bare = -1, v6_dev = -1, v6_bare = -1;

	for (long i = 0; i < ENVR_GID_READ; i++) {
		unsigned long long bit = 1ull << i;

		if (!(p->gids & bit))
			break;
		if (!(p->roce_v2 & bit))
			continue;
		if ((p->ipv4 & bit) && (p->ndev & bit))
			return i;
		if ((p->ipv4 & bit) && v4_bare < 0)
			v4_bare = i;
		else if (!(p->ipv4 & bit) && (p->ndev & bit) && v6_dev < 0)
			v6_dev = i;
		else if (!(p->ipv4 & bit) && !(p->ndev & bit) && v6_bare < 0)
			v6_bare = i;
	}
	return v4_bare >= 0 ? v4_bare : v6_dev >= 0 ? v6_dev : v6_bare;
}

/* The release numbers of a version ("0.3.12.post1": 0, 3, 12) into part;
 * what follows them (".post1"), NULL when v is not a version. */
static const char *mc_release(const char *v, long part[3])
{
	const char *s = v;
	char *end;

	part[0] = part[1] = part[2] = 0;
	if (!v || *v < '0' || *v > '9')
		return NULL;
	for (int k = 0; k < 3; k++) {
		part[k] = strtol(s, &end, 10);
		if (end == s || part[k] > 100000)
			return NULL;
		s = end;
		if (*s != '.' || s[1] < '0' || s[1] > '9')
			break;
		s++;
	}
	return s;
}

/* "0.3.12", "0.3.11.post1", "1.0": the release numbers against 0.3.12;
 * 0.3.12 itself with a pre-release tag (a, b, rc, dev) may predate the
 * tiers (unknown); ".postN" and a "+local" label are the release. */
int envr_mooncake_tiered(const char *v)
{
	long part[3];
	const char *s = mc_release(v, part);

	if (!s)
		return -1;
	if (part[0] || part[1] != 3)
		return part[0] > 0 || part[1] > 3;
	if (part[2] != 12)
		return part[2] > 12;
	if (*s == '.')
		s++;
	return !*s || *s == '+' || !strncmp(s, "post", 4) ? 1 : -1;
}

/* The word after flag in space-joined args ("--f v" or "--f=v") into out;
 * 0 when the flag is absent. */
static int arg_after(const char *args, const char *flag, char *out, size_t n)
{
	size_t fl = strlen(flag);

	for (const char *s = args; (s = strstr(s, flag)); s += fl) {
		size_t k;

		if ((s != args && s[-1] != ' ') || (s[fl] != ' ' && s[fl] != '='))
			continue;
		s += fl + 1;
		k = strcspn(s, " ");
		snprintf(out, n, "%.*s", (int)(k < n ? k : n - 1), s);
		return 1;
	}
	return 0;
}

int envr_mooncake_pci_prefix(const char *v)
{
	static const long last[4] = { 0, 3, 12, 1 }; /* 0.3.12.post1 */
	long part[4] = { 0, 0, 0, 0 };
	const char *s = mc_release(v, part);
	char *end;

	if (!s)
		return -1;
	/* ".postN" counts after its release; a pre-release (rcN) before */
	if (!strncmp(s, ".post", 5) || !strncmp(s, "post", 4)) {
		s += *s == '.' ? 5 : 4;
		part[3] = strtol(s, &end, 10);
		if (end == s || part[3] > 100000)
			return -1;
	}
	for (int k = 0; k < 4; k++)
		if (part[k] != last[k])
			return part[k] < last[k];
	return 1;
}

int envr_args_mooncake(const char *args)
{
	char be[32];

	if (!args)
		return 0;
	if (arg_after(args, "--disaggregation-transfer-backend", be, sizeof be))
		return !strcmp(be, "mooncake");
	return strstr(args, "sglang") && arg_after(args, "--disaggregation-mode", be, sizeof be);
}

/* A link-local RoCE v2 GID resolves its peer by IPv6 neighbour discovery
 * on its own netdev and a RoCE v1 one is an Ethernet frame: both reach a
 * peer on the same L2 segment and nothing beyond it (NCCL net_ib.cc skips
 * link-local GIDs for that reason; ai-dynamo/dynamo#814: ibv_create_ah to
 * an fe80:: dgid across nodes fails "No such device"). */
enum envr_sev envr_gid_l2_rule(enum envr_gid_class k, enum envr_l2 rel)
{
	if (k == ENVR_GIDC_EMPTY)
		return ENVR_FAIL;
	if (k == ENVR_GIDC_ROUTABLE || rel == ENVR_L2_SAME)
		return ENVR_OK;
	return rel == ENVR_L2_APART ? ENVR_FAIL : ENVR_WARN;
}

/* What is wrong with GID idx on port p for KV between nodes, or NULL,
 * with its class for envr_gid_l2_rule in *k: empty (UCX
 * uct_ib_device_is_gid_raw_empty, Mooncake "GID is NULL"), or L2 only:
 * RoCE v1, link-local fe80:: (NCCL linkLocalGid), which reach the peer
 * only on one segment.  Indices the probe did not read are not judged. */
const char *envr_gid_fault(const struct envr_gid_port *p, long idx, enum envr_gid_class *k)
{
	unsigned long long bit = 1ull << idx;

	*k = ENVR_GIDC_EMPTY;
	if (idx < 0)
		return "no GID at all: Mooncake finds no suitable GID and does not open the NIC";
	if (idx >= ENVR_GID_READ)
		return NULL;
	if (!(p->gids & bit))
		return "empty (no GID at that index): the library cannot query it and the port is unusable";
	*k = ENVR_GIDC_L2_ONLY;
	if (!(p->roce_v2 & bit))
		return "RoCE v1 (L2 only): it reaches the peer only on one L2 segment, which one pod cannot tell; the pair line judges the two subnets (A10)";
	if (p->link_local & bit)
		return "the link-local fe80:: GID (not routed): it reaches the peer only on one L2 segment, which one pod cannot tell; the pair line judges the two subnets (A10)";
	return NULL;
}
