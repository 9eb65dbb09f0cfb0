/* The pod's IPv4 addresses and routes (checks.md A10), from iproute2:
 *
 *     ip -o -4 addr show
 *     2: ens108np0    inet 10.14.1.72/26 brd 10.14.1.127 scope global ens108np0\ ...
 *     ip -4 route show
 *     default via 10.0.0.1 dev eth0
 *     10.14.0.0/16 via 10.14.1.65 dev ens108np0
 *     10.14.1.64/26 dev ens108np0 proto kernel scope link src 10.14.1.72
 *
 * Addresses are read with inet_pton, never by hand; a line without a
 * readable address or device is skipped. */
#include "internal.h"
#include "util/strcopy.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_IP 512

/* "a.b.c.d" or "a.b.c.d/len" (plen 32 without /len) into host order. */
static int v4_prefix(const char *s, uint32_t *addr, int *plen)
{
	char buf[32];
	const char *slash = strchr(s, '/');
	size_t n = slash ? (size_t)(slash - s) : strlen(s);
	struct in_addr a;
	long l = 32;

	if (n >= sizeof buf)
		return 0;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (inet_pton(AF_INET, buf, &a) != 1)
		return 0;
	if (slash) {
		char *end;

		l = strtol(slash + 1, &end, 10);
		if (*end || end == slash + 1 || l < 0 || l > 32)
			return 0;
	}
	*addr = ntohl(a.s_addr);
	*plen = (int)l;
	return 1;
}

/* Splits one line (a bounded copy) into at most max words. */
static int words(struct pslice line, char *buf, size_t bufsz, char **w, int max)
{
	char *save = NULL, *t;
	int n = 0;

	if (line.n >= bufsz)
		return 0;
	memcpy(buf, line.s, line.n);
	buf[line.n] = '\0';
	for (t = strtok_r(buf, " \t\\", &save); t && n < max; t = strtok_r(NULL, " \t\\", &save))
		w[n++] = t;
	return n;
}

static struct probe_ip4 *slot(struct probe_ip4 *v, int *n, int *dropped)
{
	if (*n >= PROBE_MAX_IP4) {
		(*dropped)++;
		return NULL;
	}
	memset(&v[*n], 0, sizeof v[*n]);
	return &v[(*n)++];
}

int probe_parse_ip_addr(const char *t, size_t n, struct probe_ipnet *ip)
{
	struct ptext it;
	struct pslice line;
	int found = 0;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		char buf[LINE_MAX_IP], *w[16];
		int nw = words(line, buf, sizeof buf, w, 16);
		struct probe_ip4 e = { 0 };
		struct probe_ip4 *s;

		/* "N: DEV inet A/L ..." */
		if (nw < 4 || strcmp(w[2], "inet") || !v4_prefix(w[3], &e.addr, &e.plen))
			continue;
		/* "ens108np0.100@ens108np0": the VLAN device itself */
		w[1][strcspn(w[1], "@")] = '\0';
		copy_str(e.dev, sizeof e.dev, w[1]);
		if (!(s = slot(ip->addr, &ip->naddrs, &ip->dropped)))
			continue;
		*s = e;
		found++;
	}
	return found;
}

int probe_parse_ip_route(const char *t, size_t n, struct probe_ipnet *ip)
{
	struct ptext it;
	struct pslice line;
	int found = 0;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		char buf[LINE_MAX_IP], *w[24];
		int nw = words(line, buf, sizeof buf, w, 24), k = 1, ok;
		struct probe_ip4 e = { 0 };
		struct probe_ip4 *s;

		if (nw < 3)
			continue;
		/* A route type word first ("unicast", "local", ...) is not a
		 * destination; only unicast routes carry traffic off the host. */
		ok = !strcmp(w[0], "default") ? (e.plen = 0, 1) : v4_prefix(w[0], &e.addr, &e.plen);
		if (!ok)
			continue;
		for (; k + 1 < nw; k++) {
			if (!strcmp(w[k], "dev"))
				copy_str(e.dev, sizeof e.dev, w[k + 1]);
			else if (!strcmp(w[k], "via")) {
				int pl;

				if (!v4_prefix(w[k + 1], &e.via, &pl))
					e.via = 0;
			}
		}
		if (!e.dev[0] || !(s = slot(ip->route, &ip->nroutes, &ip->dropped)))
			continue;
		*s = e;
		found++;
	}
	return found;
}

/* One /proc/net/route hex field: the address bytes in memory order of a
 * little-endian pod (x86_64, aarch64), so 10.14.0.1 is "01000E0A". */
static int route_hex(const char *w, uint32_t *out)
{
	char *end;
	unsigned long v = strtoul(w, &end, 16);

	if (*end || end == w || strlen(w) != 8)
		return 0;
	*out = (uint32_t)((v & 0xff) << 24 | (v & 0xff00) << 8 | (v >> 8 & 0xff00) | (v >> 24 & 0xff));
	return 1;
}

static int mask_len(uint32_t m)
{
	int n = 0;

	while (m & 0x80000000u) {
		n++;
		m <<= 1;
	}
	return m ? -1 : n;   /* not contiguous: no prefix */
}

int probe_parse_proc_route(const char *t, size_t n, struct probe_ipnet *ip)
{
	struct ptext it;
	struct pslice line;
	int found = 0;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		char buf[LINE_MAX_IP], *w[16];
		int nw = words(line, buf, sizeof buf, w, 16);
		struct probe_ip4 e = { 0 };
		struct probe_ip4 *s;
		uint32_t mask;

		/* Iface Destination Gateway Flags RefCnt Use Metric Mask ... */
		if (nw < 8 || !strcmp(w[0], "Iface") || !route_hex(w[1], &e.addr) ||
		    !route_hex(w[2], &e.via) || !route_hex(w[7], &mask) ||
		    (e.plen = mask_len(mask)) < 0)
			continue;
		copy_str(e.dev, sizeof e.dev, w[0]);
		if (!(s = slot(ip->route, &ip->nroutes, &ip->dropped)))
			continue;
		*s = e;
		found++;
	}
	return found;
}
