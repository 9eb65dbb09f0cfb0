/* `version`: what this binary is. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "report/report.h"
#include "run/run.h"
#include "util/sha256.h"
#include "util/xalloc.h"

static const char *const help[] = {
	"Print the version of the plugin and of the libraries it runs on.",
	"",
	"-o json|yaml prints {clientVersion: {...}} as kubectl version -o json does.",
	"The probe line is the sha256 of what `probe-script` prints: the exact stdin",
	"of every probe exec.",
	NULL,
};

#if defined(__x86_64__)
#define PLATFORM_ARCH "amd64"
#elif defined(__aarch64__)
#define PLATFORM_ARCH "arm64"
#else
#define PLATFORM_ARCH "unknown"
#endif

/* curl_version()'s line, built from curl_version_info(): curl_version()
 * initialises the LDAP and SASL plugins to ask their versions, 2.5 ms of a
 * `version` that should cost none (issue 16).  Those two, libpsl and
 * librtmp have no field in the info struct and are left out. */
static void print_curl_line(FILE *f)
{
	const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);

	fprintf(f, "libcurl/%s", v->version);
	if (v->ssl_version)
		fprintf(f, " %s", v->ssl_version);
	if (v->libz_version)
		fprintf(f, " zlib/%s", v->libz_version);
	if (v->age >= CURLVERSION_FIFTH && v->brotli_version)
		fprintf(f, " brotli/%s", v->brotli_version);
	if (v->age >= CURLVERSION_NINTH && v->zstd_version)
		fprintf(f, " zstd/%s", v->zstd_version);
	if (v->libidn)
		fprintf(f, " libidn2/%s", v->libidn);
	if (v->age >= CURLVERSION_THIRD && v->libssh_version)
		fprintf(f, " %s", v->libssh_version);
	if (v->age >= CURLVERSION_SIXTH && v->nghttp2_version)
		fprintf(f, " nghttp2/%s", v->nghttp2_version);
}

void cmd_probe_sha256(char out[SHA256_HEX_LEN + 1])
{
	size_t len;
	char *text = run_probe_stdin(&len);

	sha256_hex(text, len, out);
	free(text);
}

/* kubectl's shape (k8s.io/apimachinery/pkg/version.Info under
 * clientVersion), with the libraries we link in place of goVersion. */
static cJSON *version_doc(void)
{
	cJSON *doc = cJSON_CreateObject(), *cv = cJSON_CreateObject();
	char major[16] = "", *minor, *dot, sha[SHA256_HEX_LEN + 1];

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
	cmd_probe_sha256(sha);
	cJSON_AddStringToObject(cv, "probeScriptSHA256", sha);
	cJSON_AddItemToObject(doc, "clientVersion", cv);
	return doc;
}

static int cmd_version(struct cmd_ctx *ctx, int argc, char **argv)
{
	const char *format;
	char sha[SHA256_HEX_LEN + 1];
	cJSON *doc;
	int rc;

	rc = cmd_start(ctx, &cmd_version_entry, argc, argv, &format);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (!strcmp(format, "table")) {
		printf("kubectl-dynamo_interconnect v%s (", PROG_VERSION);
		print_curl_line(stdout);
		printf(")\n");
		cmd_probe_sha256(sha);
		printf("probe script sha256 %s (its text: probe-script)\n", sha);
		return 0;
	}
	doc = version_doc();
	rc = !strcmp(format, "json") ? report_emit_json(stdout, doc)
				     : report_emit_yaml(stdout, doc);
	cJSON_Delete(doc);
	return rc < 0 || fflush(stdout) ? EXIT_ERROR : 0;
}

const struct cmd_entry cmd_version_entry = {
	.name = "version", .summary = "Print the plugin version",
	.help = help, .outputs = "table,json,yaml", .run = cmd_version, .globals = cmd_globals_version,
};
