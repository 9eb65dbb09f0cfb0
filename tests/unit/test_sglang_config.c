/* Section sglang_config (issue 38 point c): the parser of probe.sh's two
 * keys of SGLang's --config YAML, and the section reached through
 * probe_parse_report as the plugin reads a pod's report. */
#include <stdio.h>
#include <string.h>

#include "probe/facts.h"
#include "t.h"

static void test_keys(void)
{
	static const char body[] = "state=ok\ndisaggregation-transfer-backend=mooncake\n"
				   "disaggregation-mode=prefill\nmodel-path=x\n";
	struct probe_sglang_config c;

	memset(&c, 0, sizeof c);
	CHECK_INT(probe_parse_sglang_config(body, strlen(body), &c), 2);
	CHECK(c.state == PROBE_ENGINE_OK);
	CHECK_STR(c.backend, "mooncake");
	CHECK_STR(c.mode, "prefill");
	CHECK_INT(c.nbad, 0);
}

/* Pod text: refused again here; YAML's last duplicate key wins. */
static void test_refused_and_last(void)
{
	static const char body[] = "state=ok\ndisaggregation-transfer-backend=nixl\n"
				   "bad=disaggregation-transfer-backend\n"
				   "disaggregation-mode=dec;ode\n"
				   "disaggregation-mode=0123456789012345678901234567890123\n"
				   "bad=model-path\nstate\n=\n";
	struct probe_sglang_config c;

	memset(&c, 0, sizeof c);
	CHECK_INT(probe_parse_sglang_config(body, strlen(body), &c), 1);
	CHECK_STR(c.backend, "");
	CHECK_STR(c.mode, "");
	CHECK_INT(c.nbad, 3);
	memset(&c, 0, sizeof c);
	CHECK_INT(probe_parse_sglang_config("state=absent\n", 13, &c), 0);
	CHECK(c.state == PROBE_ENGINE_ABSENT);
	CHECK_INT(probe_parse_sglang_config("", 0, &c), 0);
}

static void test_report(void)
{
	static const char rep[] = "dynamo-interconnect-probe v1\n@@@ sglang_config\nstate=ok\ndisaggregation-transfer-backend=nixl\n"
				  "@@@ end sglang_config rc=0\n@@@ done\n";
	static const char none[] = "dynamo-interconnect-probe v1\n@@@ sglang_config\n"
				   "@@@ end sglang_config rc=127\n@@@ done\n";
	struct probe_facts *f = probe_facts_new();
	struct err e;

	CHECK_INT(probe_parse_report(rep, strlen(rep), f, &e), 0);
	CHECK(f->sglang_config.src.status == PROBE_OK);
	CHECK_STR(f->sglang_config.backend, "nixl");
	probe_facts_free(f);
	f = probe_facts_new();
	CHECK_INT(probe_parse_report(none, strlen(none), f, &e), 0);
	CHECK(f->sglang_config.src.status != PROBE_OK);
	CHECK_STR(f->sglang_config.backend, "");
	probe_facts_free(f);
}

int main(void)
{
	test_keys();
	test_refused_and_last();
	test_report();
	return T_DONE("test_sglang_config");
}
