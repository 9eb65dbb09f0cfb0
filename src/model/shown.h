/* What a rule may print of a value that comes from a pod's environment
 * (issue 37; product.md "Read-only and secret-free"; checks.md I, J9).
 * One place knows where such a value came from and prints it or
 * "<from secret NAME>"; a word that only a Secret could have made (the
 * kubelet's $(VAR), a shell's ${VAR}) is printed as the spec wrote it.
 *
 * A leaf module: strings in, strings out, no I/O.  The spec's variables
 * come in the formats of kube/api/pods.h (pod_info.secret_env, plain_env).
 */
#ifndef MODEL_SHOWN_H
#define MODEL_SHOWN_H

#include <stddef.h>

enum shown_from {
	SHOWN_PLAIN,    /* the pod spec's own env value: anyone who reads the pod sees it */
	SHOWN_IMAGE,    /* no env entry and no envFrom Secret: the image's, a ConfigMap's */
	SHOWN_SECRET,   /* env[].valueFrom.secretKeyRef, or envFrom[].secretRef may set it */
	SHOWN_OTHER,    /* another valueFrom (configMapKeyRef, fieldRef, resourceFieldRef) */
};

/* Where variable name of a container comes from, by secret_env (lines
 * "NAME=S", "*PREFIX=S", "!NAME") and plain_env ("NAME=VALUE" lines; may
 * be NULL); the Secret's name into secret (n bytes) for SHOWN_SECRET.
 * secretKeyRef names the variable itself and wins; among envFrom rules
 * the last wins and env's own entries override them (kubelet_pods.go
 * makeEnvironmentVariables). */
enum shown_from shown_origin(const char *secret_env, const char *plain_env, const char *name,
			     char *secret, size_t n);

/* value as a rule prints it, into out (n bytes): itself, or "<from
 * secret S>" when secret is not NULL (S = secret).  Returns out. */
const char *shown_value(const char *value, const char *secret, char *out, size_t n);

/* The engine path as the pod spec names it: word (the spec's word after
 * --extra-engine-args) with each $(VAR) expanded as the kubelet does
 * (k8s.io/kubernetes third_party/forked/golang/expansion: $$ is one $, an
 * unknown $(VAR) stays) and each $VAR / ${VAR} as the shell would, from
 * plain spec values only.  1 and the path in out when every reference is
 * to a plain value; 0 when one is not: out gets the word as written (names
 * only) and why (wn bytes) says which variable and where it comes from. */
int shown_spec_word(const char *word, const char *secret_env, const char *plain_env,
		    char *out, size_t n, char *why, size_t wn);

#endif
