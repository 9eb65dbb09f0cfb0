/* The probe's own cost (issue 46): section probe_cost (probe/cost.c) as
 * dash, bash and busybox print `times`, hostile bodies, the section in a
 * whole report, and the embedded probe run here ending with it.  No
 * assertion on a figure's size: only that the real probe's are read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kube/exec/ws.h"
#include "probe/facts.h"
#include "util/buf.h"
#include "t.h"

extern const char probe_script[];
extern const size_t probe_script_len;

static struct probe_cost parse(const char *body)
{
	struct probe_cost c;

	memset(&c, 0, sizeof c);
	(void)probe_parse_cost(body, strlen(body), &c);
	return c;
}

static void test_shells(void)
{
	struct probe_cost c;

	/* dash: six decimals */
	c = parse("uptime0=34829.90\nuptime1=34830.57\n"
		  "0m0.000000s 0m0.010000s\n0m0.200000s 0m0.010000s\n");
	CHECK_INT(c.wall_ms, 670);
	CHECK_INT(c.cpu_ms, 220);
	/* bash: three */
	c = parse("uptime0=10.00\nuptime1=10.50\n0m0.010s 0m0.028s\n1m0.203s 0m0.037s\n");
	CHECK_INT(c.wall_ms, 500);
	CHECK_INT(c.cpu_ms, 60278);
	/* busybox ash: "0m 0.01s" */
	c = parse("uptime0=5\nuptime1=6.2\n0m 0.01s 0m 0.02s\n0m 0.14s 0m 0.01s\n");
	CHECK_INT(c.wall_ms, 1200);
	CHECK_INT(c.cpu_ms, 180);
}

static void test_hostile(void)
{
	struct probe_cost c;

	/* no /proc/uptime: empty values; no `times` lines */
	c = parse("uptime0=\nuptime1=\n");
	CHECK_INT(c.wall_ms, -1);
	CHECK_INT(c.cpu_ms, -1);
	CHECK_INT(probe_parse_cost("uptime0=\n", 9, &c), -1);
	/* the clock going back, signs, junk, a huge number */
	c = parse("uptime0=20.00\nuptime1=10.00\n-0m0.1s 0m0.1s\nxm0.1s 0m0.1s\n"
		  "0m0.1s\n0m0.1s 0m0.1s extra\n99999999999m0.1s 0m0.1s\n0m1e9s 0m0s\n");
	CHECK_INT(c.wall_ms, -1);
	CHECK_INT(c.cpu_ms, -1);
	c = parse("uptime0=1.5x\nuptime1=999999999999999999999.00\n");
	CHECK_INT(c.wall_ms, -1);
	/* only the well-formed line counts */
	c = parse("garbage\n0m0.5s 0m0.25s\n@@@\n");
	CHECK_INT(c.cpu_ms, 750);
}

static void test_in_report(void)
{
	static const char with[] =
		"dynamo-interconnect-probe v1\n"
		"@@@ ibstat\n@@@ end ibstat rc=127\n"
		"@@@ probe_cost\nuptime0=1.00\nuptime1=1.25\n0m0.01s 0m0.02s\n0m0.03s 0m0.04s\n"
		"@@@ end probe_cost rc=0\n@@@ done\n";
	static const char without[] = "dynamo-interconnect-probe v1\n@@@ done\n";
	struct probe_facts *f = probe_facts_new();
	struct err e;

	CHECK_INT(probe_parse_report(with, strlen(with), f, &e), 0);
	CHECK_INT(f->cost.src.status, PROBE_OK);
	CHECK_INT(f->cost.wall_ms, 250);
	CHECK_INT(f->cost.cpu_ms, 100);
	/* an absent tool: its source says so, no parser ran on nothing */
	CHECK_INT(f->ibstat.src.status, PROBE_ABSENT);
	CHECK_INT(f->ibstat.ndevs, 0);
	probe_facts_free(f);
	f = probe_facts_new();
	CHECK_INT(probe_parse_report(without, strlen(without), f, &e), 0);
	CHECK_INT(f->cost.src.status, PROBE_NOT_LOOKED);
	CHECK_INT(f->cost.wall_ms, -1);
	CHECK_INT(f->cost.cpu_ms, -1);
	probe_facts_free(f);
}

/* The embedded probe, run by this machine's sh: its last section before
 * "@@@ done" is probe_cost, and both figures are read. */
static void test_embedded_probe(void)
{
	char path[] = "/tmp/di_cost_XXXXXX", cmd[128];
	struct probe_facts *f = probe_facts_new();
	char *out = NULL;
	size_t cap = 0, len = 0, n;
	int fd = mkstemp(path);
	FILE *p;
	struct err e;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(write(fd, probe_script, probe_script_len) == (ssize_t)probe_script_len);
	close(fd);
	snprintf(cmd, sizeof cmd, "sh %s </dev/null 2>/dev/null", path);
	p = popen(cmd, "r");
	CHECK(p != NULL);
	while (p && (cap - len > 1 || (out = realloc(out, cap += 65536)))) {
		n = fread(out + len, 1, cap - len - 1, p);
		if (!n)
			break;
		len += n;
	}
	if (p)
		pclose(p);
	unlink(path);
	CHECK(out != NULL);
	if (out) {
		out[len] = 0;
		CHECK(strstr(out, "@@@ end probe_cost rc=0\n@@@ done\n") != NULL);
		CHECK_INT(probe_parse_report(out, len, f, &e), 0);
		CHECK_INT(f->cost.src.status, PROBE_OK);
		CHECK(f->cost.wall_ms >= 0);
		CHECK(f->cost.cpu_ms >= 0);
	}
	free(out);
	probe_facts_free(f);
}

/* The WebSocket mask, 8 bytes a step (ws.c, issue 46): every length
 * around the step, byte for byte as RFC 6455 5.3 masks. */
static void test_ws_mask_wide(void)
{
	static const uint8_t key[4] = { 0x37, 0xfa, 0x21, 0x3d };
	uint8_t in[1003];
	size_t n, i, hdr;
	int ok;

	for (i = 0; i < sizeof in; i++)
		in[i] = (uint8_t)(i * 31 + 7);
	for (n = 0; n < sizeof in; n += n < 20 ? 1 : 97) {
		struct buf b;

		buf_init(&b, 1 << 20);
		if (ws_encode(&b, WS_BINARY, in, n, key) != 0 || b.len < n) {
			CHECK(0);
			break;
		}
		hdr = b.len - n;
		ok = 1;
		for (i = 0; i < n; i++)
			ok &= (uint8_t)b.data[hdr + i] == (in[i] ^ key[i % 4]);
		CHECK(ok);
		buf_release(&b);
	}
}

int main(void)
{
	test_ws_mask_wide();
	test_shells();
	test_hostile();
	test_in_report();
	test_embedded_probe();
	return T_DONE("test_cost");
}
