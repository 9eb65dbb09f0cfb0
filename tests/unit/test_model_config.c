/* Section model_config (issue 41 point 2): the parser of probe.sh's fixed
 * keys of the served model's config.json, and the section reached through
 * probe_parse_report as the plugin reads a pod's report. */
#include <stdio.h>
#include <string.h>

#include "probe/facts.h"
#include "t.h"

static struct probe_model_config fresh(void)
{
	struct probe_facts *f = probe_facts_new();
	struct probe_model_config m = f->model_config;

	probe_facts_free(f);
	return m;
}

/* gpt-oss-120b as the probe sends it: sliding window, no MLA, no hybrid. */
static void test_keys(void)
{
	static const char body[] = "source=hub\nstate=ok\nmodel_type=gpt_oss\n"
				   "architecture=GptOssForCausalLM\nsliding_window=1\n"
				   "hybrid_linear=0\nmla=0\nnum_key_value_heads=8\n"
				   "num_hidden_layers=36\npath=/home/alice/x\n";
	struct probe_model_config m = fresh();

	CHECK_INT(probe_parse_model_config(body, strlen(body), &m), 7);
	CHECK(m.state == PROBE_MODEL_OK);
	CHECK(m.source == PROBE_MODEL_SRC_HUB);
	CHECK_STR(m.model_type, "gpt_oss");
	CHECK_STR(m.architecture, "GptOssForCausalLM");
	CHECK_INT(m.sliding_window, 1);
	CHECK_INT(m.hybrid_linear, 0);
	CHECK_INT(m.mla, 0);
	CHECK_INT(m.num_kv_heads, 8);
	CHECK_INT(m.num_layers, 36);
	CHECK_INT(m.text_config, 0);
	CHECK_INT(m.nbad, 0);
}

/* Nothing said: every marker stays unknown (-1), not "no". */
static void test_unknown(void)
{
	static const char body[] = "source=path\nstate=absent\n";
	struct probe_model_config m = fresh();

	CHECK_INT(probe_parse_model_config(body, strlen(body), &m), 0);
	CHECK(m.state == PROBE_MODEL_ABSENT);
	CHECK(m.source == PROBE_MODEL_SRC_PATH);
	CHECK_INT(m.sliding_window, -1);
	CHECK_INT(m.hybrid_linear, -1);
	CHECK_INT(m.mla, -1);
	CHECK_INT(m.num_kv_heads, -1);
	CHECK_INT(m.num_layers, -1);
	CHECK_STR(m.model_type, "");
	m = fresh();
	CHECK_INT(probe_parse_model_config("state=too_large\n", 16, &m), 0);
	CHECK(m.state == PROBE_MODEL_TOO_LARGE);
	CHECK_INT(probe_parse_model_config("state=denied\n", 13, &m), 0);
	CHECK(m.state == PROBE_MODEL_DENIED);
	CHECK_INT(probe_parse_model_config("state=unresolved\nsource=x\n", 26, &m), 0);
	CHECK(m.state == PROBE_MODEL_UNRESOLVED);
	CHECK(m.source == PROBE_MODEL_SRC_UNKNOWN);
	CHECK_INT(probe_parse_model_config("state=who\n", 10, &m), 0);
	CHECK(m.state == PROBE_MODEL_UNKNOWN);
	CHECK_INT(probe_parse_model_config("", 0, &m), 0);
}

/* Pod text is refused again here: secret-looking words, long words, a
 * class name that is a token, counts that are no counts, and bad= lines. */
static void test_refused(void)
{
	static const char body[] = "state=ok\nmodel_type=hf_abcdefghijklmnopqrstuvwxyz0123456789\n"
				   "architecture=sk-proj-0123456789\n"
				   "sliding_window=2\nmla=yes\nnum_key_value_heads=-8\n"
				   "num_hidden_layers=1234567\nhybrid_linear=1\n"
				   "text_config=1\nbad=text_config\n";
	struct probe_model_config m = fresh();

	CHECK_INT(probe_parse_model_config(body, strlen(body), &m), 2);
	CHECK_STR(m.model_type, "");
	CHECK_STR(m.architecture, "");
	CHECK_INT(m.sliding_window, -1);
	CHECK_INT(m.mla, -1);
	CHECK_INT(m.num_kv_heads, -1);
	CHECK_INT(m.num_layers, -1);
	CHECK_INT(m.hybrid_linear, 1);
	CHECK_INT(m.text_config, 0);
	CHECK_INT(m.nbad, 7);
	m = fresh();
	static const char b2[] = "model_type=deepseek_v3\nbad=model_type\nmla=1\nbad=mla\n"
				 "architecture=hf_tokenForCausalLM\narchitecture=ForX\n"
				 "architecture=Qwen2_5_VLForConditionalGeneration\n"
				 "architecture=LlamaModel\narchitecture=LlamaFor\n"
				 "architecture=Llama/ForCausalLM\nbad=path\n";
	CHECK_INT(probe_parse_model_config(b2, strlen(b2), &m), 4);
	CHECK_STR(m.model_type, "");
	CHECK_INT(m.mla, -1);
	CHECK_STR(m.architecture, "");
	CHECK_INT(m.nbad, 6);
	m = fresh();
	static const char b3[] = "architecture=Qwen2_5_VLForConditionalGeneration\n"
				 "model_type=0123456789012345678901234567890\n";
	CHECK_INT(probe_parse_model_config(b3, strlen(b3), &m), 2);
	CHECK_STR(m.architecture, "Qwen2_5_VLForConditionalGeneration");
	CHECK_STR(m.model_type, "0123456789012345678901234567890");
	/* short plain words shaped like tokens */
	m = fresh();
	static const char b4[] = "model_type=hf_S3CR3Tshort\nmodel_type=sk-abc\nmodel_type=ghp_x\n";
	CHECK_INT(probe_parse_model_config(b4, strlen(b4), &m), 0);
	CHECK_STR(m.model_type, "");
	CHECK_INT(m.nbad, 3);
}

static void test_report(void)
{
	static const char rep[] = "dynamo-interconnect-probe v1\n@@@ model_config\nsource=path\nstate=ok\n"
				  "model_type=deepseek_v3\nmla=1\nsliding_window=0\nnum_hidden_layers=61\n"
				  "@@@ end model_config rc=0\n@@@ done\n";
	static const char none[] = "dynamo-interconnect-probe v1\n@@@ model_config\n"
				   "@@@ end model_config rc=127\n@@@ done\n";
	struct probe_facts *f = probe_facts_new();
	struct err e;

	CHECK_INT(f->model_config.mla, -1);
	CHECK_INT(probe_parse_report(rep, strlen(rep), f, &e), 0);
	CHECK(f->model_config.src.status == PROBE_OK);
	CHECK_STR(f->model_config.model_type, "deepseek_v3");
	CHECK_INT(f->model_config.mla, 1);
	CHECK_INT(f->model_config.sliding_window, 0);
	CHECK_INT(f->model_config.num_layers, 61);
	CHECK_INT(f->model_config.hybrid_linear, -1);
	probe_facts_free(f);
	f = probe_facts_new();
	CHECK_INT(probe_parse_report(none, strlen(none), f, &e), 0);
	CHECK(f->model_config.src.status == PROBE_ABSENT);
	CHECK(f->model_config.state == PROBE_MODEL_UNKNOWN);
	probe_facts_free(f);
}

int main(void)
{
	test_keys();
	test_unknown();
	test_refused();
	test_report();
	return T_DONE("test_model_config");
}
