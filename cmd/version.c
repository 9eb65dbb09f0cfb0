/* `version`: what this binary is. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "report/report.h"
#include "util/xalloc.h"

static const char *const help[] = {
	"Print the version of the plugin and of the libraries it runs on.",
	"",
	"-o json|yaml prints {clientVersion: {...}} as kubectl version -o json does.",
	NULL,
};

#if defined(__x86_64__)
#define PLATFORM_ARCH "amd64"
#elif defined(__aarch64__)
#define PLATFORM_ARCH "arm64"
#else
#define PLATFORM_ARCH "unknown"
#endif

/* kubectl's shape (k8s.io/apimachinery/pkg/version.Info under
 * clientVersion), with the libraries we link in place of goVersion. */
static cJSON *version_doc(void)
{
	cJSON *doc = cJSON_CreateObject(), *cv = cJSON_CreateObject();
	char major[16] = "", *minor, *dot;

	snprintf(major, sizeof(major), "%s", PROG_VERSION);
	minor = strchr(major, '.');
	if (minor)
		*minor++ = '\0';
	dot = minor ? strchr(minor, '.') : NULL;
	if (dot)
		*dot = '\0';
	cJSON_AddStringToObject(cv, "major", major);
	cJSON_AddStringToObject(cv, "minor", minor ? minor : "");
	cJSON_AddStringToObject(cv, "gitVersion", "v" PROG_VERSION);
	cJSON_AddStringToObject(cv, "libcurl", curl_version_info(CURLVERSION_NOW)->version);
	cJSON_AddStringToObject(cv, "compiler", "cc");
	cJSON_AddStringToObject(cv, "platform", "linux/" PLATFORM_ARCH);
	cJSON_AddItemToObject(doc, "clientVersion", cv);
	return doc;
}

int cmd_version(struct cmd_ctx *ctx, int argc, char **argv)
{
	const char *format;
	cJSON *doc;
	int rc;

	rc = cmd_parse_flags(ctx, "version", NULL, help, argc, argv);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (cmd_output_format(ctx, VERSION_OUTPUTS, &format) < 0)
		return EXIT_ERROR;
	if (!strcmp(format, "table")) {
		printf("kubectl-dynamo_interconnect v%s (%s)\n", PROG_VERSION, curl_version());
		return 0;
	}
	doc = version_doc();
	rc = !strcmp(format, "json") ? report_emit_json(stdout, doc)
				     : report_emit_yaml(stdout, doc);
	cJSON_Delete(doc);
	return rc < 0 || fflush(stdout) ? EXIT_ERROR : 0;
}
