/* libFuzzer target: the input is one kubeconfig file, loaded and resolved
 * exactly as kubeconfig_load() does (parse, lookups, overrides, validation,
 * server URL, namespace).  No plugin is run: loading never runs one.
 *
 * Build and run (from the repository root):
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -std=c11 \
 *     -D_POSIX_C_SOURCE=200809L -Isrc $(pkg-config --cflags yaml-0.1 libcjson libcrypto) \
 *     tests/fuzz/fuzz_kubeconfig.c src/kube/config/kubeconfig.c src/kube/config/kubeconfig_env.c \
 *     src/kube/config/kubeconfig_files.c \
 *     src/kube/config/kubeconfig_util.c src/kube/config/kubeconfig_yaml.c src/util/buf.c \
 *     src/util/err.c src/util/log.c src/util/xalloc.c \
 *     $(pkg-config --libs yaml-0.1 libcjson libcrypto) -o build/fuzz_kubeconfig
 *   rm -rf build/fuzz-corpus && cp -r tests/fuzz/corpus_kubeconfig build/fuzz-corpus
 *   build/fuzz_kubeconfig -max_total_time=120 -max_len=8192 build/fuzz-corpus
 *
 * The seed corpus is tests/fuzz/corpus_kubeconfig (a full config, JSON, a
 * duplicate name, file references).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "kube/config/kubeconfig.h"

/* Paths named in the input resolve under a directory that does not exist;
 * stdin is /dev/null so that "certificate-authority: /dev/stdin" cannot
 * block; no in-cluster environment. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd = open("/dev/null", O_RDONLY);

	(void)argc;
	(void)argv;
	if (fd >= 0 && fd != 0) {
		dup2(fd, 0);
		close(fd);
	}
	unsetenv("KUBERNETES_SERVICE_HOST");
	unsetenv("KUBERNETES_MASTER");
	unsetenv("POD_NAMESPACE");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kube_overrides ov = KUBE_OVERRIDES_INIT;
	struct kube_config cfg;
	struct err e;

	/* The first byte picks a few overrides so their special cases run. */
	if (size && (data[0] & 1))
		ov.insecure_skip_tls_verify = 1;
	if (size && (data[0] & 2))
		ov.server = "https://fuzz.example:6443/p/";
	if (size && (data[0] & 4))
		ov.token = "fuzz-token";
	if (size && (data[0] & 8))
		ov.context = "c";
	if (size && (data[0] & 16))
		ov.namespace = "ns";
	err_clear(&e);
	if (kubeconfig_load_buffer((const char *)data, size, "/nonexistent-fuzz/config",
				   &ov, &cfg, &e) == 0)
		kubeconfig_release(&cfg);
	return 0;
}
