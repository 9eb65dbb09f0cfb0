/* Completion candidates without a cluster: src/complete/complete.c. */
#include <stdlib.h>
#include <string.h>

#include "complete/complete.h"
#include "t.h"

static const struct opt globals[] = {
	{ "namespace", 'n', OPT_STRING, NULL, "NS", "The namespace", 0, 0 },
	{ "output", 'o', OPT_STRING, NULL, "FORMAT", "Output format", 0, 0 },
	{ "color", 0, OPT_STRING, NULL, "WHEN", "Colour", 0, 0 },
	{ "context", 0, OPT_STRING, NULL, "NAME", "Context", 0, 0 },
	{ "kubeconfig", 0, OPT_STRING, NULL, "FILE", "Kubeconfig", 0, 0 },
	{ "no-headers", 0, OPT_BOOL, NULL, NULL, "No headers", 0, 0 },
	OPT_TABLE_END
};
static const char *const shells[] = { "bash", "zsh", NULL };
static const struct complete_sub subs[] = {
	{ "check", "Check", NULL, "wide,json", NULL, 0, NULL },
	{ "completion", "Scripts", NULL, NULL, shells, 0, NULL },
	{ "env", "Recipes", NULL, "json", NULL, 1, NULL },
};

/* Candidates joined by ',' and the directive, e.g. "a,b:4". */
static char *plan(int n, char **words)
{
	struct complete_result r;
	static char out[1024];
	size_t i;

	complete_plan(n, words, subs, 3, globals, &r);
	out[0] = '\0';
	for (i = 0; i < r.n; i++) {
		strcat(out, i ? "," : "");
		strcat(out, r.items[i]);
	}
	snprintf(out + strlen(out), sizeof(out) - strlen(out), ":%d/%d", r.directive, (int)r.lookup);
	complete_release(&r);
	return out;
}

#define PLAN(...) plan(sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *), (char *[]){ __VA_ARGS__ })

static void test_plan(void)
{
	CHECK_STR(PLAN(""), "check\tCheck,completion\tScripts,env\tRecipes:4/0");
	/* A path argument: no candidates, the shell completes files (0). */
	CHECK_STR(PLAN("env", ""), ":0/0");
	CHECK_STR(PLAN("env", "reci"), ":0/0");
	CHECK_STR(PLAN("env", "-o", ""), "json:4/0");
	CHECK_STR(PLAN("env", "--", ""), ":4/0");
	CHECK_STR(PLAN("comp"), "completion\tScripts:4/0");
	CHECK_STR(PLAN("nope", ""), ":4/0");
	CHECK_STR(PLAN("check", "--no"), "--no-headers\tNo headers:4/0");
	CHECK_STR(PLAN("check", "-"), "--namespace\tThe namespace,-n\tThe namespace,--output\tOutput format,"
		  "-o\tOutput format,--color\tColour,--context\tContext,--kubeconfig\tKubeconfig,"
		  "--no-headers\tNo headers:4/0");
	CHECK_STR(PLAN("check", "-o", ""), "wide,json:4/0");
	CHECK_STR(PLAN("check", "--output", "j"), "json:4/0");
	/* cobra answers "--flag=" with bare values (completions.go
	 * checkIfFlagCompletion); the shell script adds the prefix back. */
	CHECK_STR(PLAN("check", "--output=w"), "wide:4/0");
	CHECK_STR(PLAN("check", "-o=j"), "json:4/0");
	CHECK_STR(PLAN("check", "--output="), "wide,json:4/0");
	CHECK_STR(PLAN("check", "--color", "n"), "never:4/0");
	CHECK_STR(PLAN("check", "-n", "x"), ":4/1");
	CHECK_STR(PLAN("check", "--namespace=x"), ":4/1");
	CHECK_STR(PLAN("check", "--context", ""), ":4/2");
	CHECK_STR(PLAN("check", "--kubeconfig", ""), ":0/0");
	/* a value already attached: the next word is not the flag's */
	CHECK_STR(PLAN("check", "-nfoo", ""), ":4/0");
	CHECK_STR(PLAN("check", "--no-headers", ""), ":4/0");
	CHECK_STR(PLAN("check", "--", "-"), ":4/0");
	CHECK_STR(PLAN("completion", ""), "bash,zsh:4/0");
}

static void test_flag_value(void)
{
	char *w1[] = { "check", "-n", "a", "--namespace=b", "-nc", "" };
	char *w2[] = { "check", "-n=d", "-n" };
	char *w3[] = { "check", "--", "-n", "e", "" };

	CHECK_STR(complete_flag_value(6, w1, &globals[0]), "c");
	CHECK_STR(complete_flag_value(3, w2, &globals[0]), "d");
	CHECK(complete_flag_value(5, w3, &globals[0]) == NULL);
	CHECK(complete_flag_value(6, w1, &globals[1]) == NULL);
}

static void test_containers_json(void)
{
	struct complete_result r;

	memset(&r, 0, sizeof(r));
	/* One pod: its containers and its native sidecars, not plain inits. */
	CHECK_INT(complete_add_containers_json(&r, "{\"kind\":\"Pod\",\"spec\":{"
		"\"initContainers\":[{\"name\":\"setup\"},{\"name\":\"proxy\",\"restartPolicy\":\"Always\"}],"
		"\"containers\":[{\"name\":\"main\"},{\"name\":\"sidecar\"}]}}"), 0);
	CHECK_INT(r.n, 3);
	CHECK_STR(r.items[0], "main");
	CHECK_STR(r.items[2], "proxy");
	complete_release(&r);
	/* A list: the workers' containers, each once. */
	memset(&r, 0, sizeof(r));
	CHECK_INT(complete_add_containers_json(&r, "{\"items\":["
		"{\"metadata\":{\"labels\":{\"nvidia.com/dynamo-component-type\":\"decode\"}},"
		"\"spec\":{\"containers\":[{\"name\":\"main\"}]}},"
		"{\"metadata\":{\"labels\":{\"nvidia.com/dynamo-component-type\":\"frontend\"}},"
		"\"spec\":{\"containers\":[{\"name\":\"http\"}]}},"
		"{\"metadata\":{\"labels\":{\"nvidia.com/dynamo-component-type\":\"prefill\"}},"
		"\"spec\":{\"containers\":[{\"name\":\"main\"}]}}]}"), 0);
	CHECK_INT(r.n, 1);
	CHECK_STR(r.items[0], "main");
	CHECK_INT(complete_add_containers_json(&r, "{"), -1);
	complete_release(&r);
}

static void test_json(void)
{
	struct complete_result r;

	memset(&r, 0, sizeof(r));
	r.match = "d";
	CHECK_INT(complete_add_names_json(&r, "{\"items\":[{\"metadata\":{\"name\":\"default\"}},"
					  "{\"metadata\":{\"name\":\"kube-system\"}},{\"metadata\":{\"name\":\"demo\"}}]}"), 0);
	CHECK_INT(r.n, 2);
	CHECK_STR(r.items[1], "demo");
	CHECK_INT(complete_add_names_json(&r, "not json"), -1);
	complete_release(&r);

	memset(&r, 0, sizeof(r));
	CHECK_INT(complete_add_pods_json(&r, "{\"items\":["
		"{\"metadata\":{\"name\":\"a-frontend\",\"labels\":{\"nvidia.com/dynamo-component-type\":\"frontend\"}}},"
		"{\"metadata\":{\"name\":\"b-other\"}},"
		"{\"metadata\":{\"name\":\"c-worker\",\"labels\":{\"nvidia.com/dynamo-component-type\":\"worker\","
		"\"nvidia.com/dynamo-sub-component-type\":\"prefill\"}}},"
		"{\"metadata\":{\"name\":\"d-decode\",\"labels\":{\"nvidia.com/dynamo-component-type\":\"decode\"}}}]}"), 0);
	CHECK_INT(r.n, 4);
	CHECK_STR(r.items[0], "c-worker\tprefill");
	CHECK_STR(r.items[1], "d-decode\tdecode");
	CHECK_STR(r.items[2], "a-frontend");
	CHECK_STR(r.items[3], "b-other");
	complete_release(&r);
}

/* A command's own flags come from its table (cmd.h cmd_entry), offered
 * before the globals as its -h lists them; a hidden alias (no help) is
 * not offered, as -h does not list it. */
static void test_own_flags(void)
{
	static const struct opt own[] = {
		{ "pod", 0, OPT_STRING, NULL, "POD", "Probe this pod", 0, 0 },
		{ "pod-name", 0, OPT_STRING, NULL, "POD", NULL, 0, 0 },
		{ "by-node", 0, OPT_BOOL, NULL, NULL, "Per node", 0, 0 },
		OPT_TABLE_END
	};
	const struct complete_sub node = { "node", "Node", own, "json", NULL, 0, NULL };
	char *w1[] = { "node", "--" }, *w2[] = { "node", "--pod", "" }, *w3[] = { "node", "--by-node", "" };
	struct complete_result r;

	complete_plan(2, w1, &node, 1, globals, &r);
	CHECK_INT((int)r.n, 2 + 6);
	CHECK_STR(r.items[0], "--pod\tProbe this pod");
	CHECK_STR(r.items[1], "--by-node\tPer node");
	CHECK_STR(r.items[2], "--namespace\tThe namespace");
	complete_release(&r);
	/* --pod takes a value: the pods are looked up; --by-node takes none. */
	complete_plan(3, w2, &node, 1, globals, &r);
	CHECK_INT(r.lookup, LOOKUP_PODS);
	complete_release(&r);
	complete_plan(3, w3, &node, 1, globals, &r);
	CHECK_INT(r.lookup, LOOKUP_NONE);
	CHECK_INT((int)r.n, 0);
	complete_release(&r);
}

int main(void)
{
	test_plan();
	test_containers_json();
	test_flag_value();
	test_json();
	test_own_flags();
	return T_DONE("test_complete");
}
