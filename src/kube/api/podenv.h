/* A pod's container's environment as its spec gives it (podenv.c); CT is
 * the container object of the pod list (NULL: none).  Each returns an
 * owned string in the format kube/api/pods.h gives for the pod_info field. */
#ifndef KUBE_PODENV_H
#define KUBE_PODENV_H

#include <cjson/cJSON.h>

/* pod_info.secret_env: "NAME=SECRET\n", "!NAME\n", "*PREFIX=SECRET\n". */
char *podenv_secrets(const cJSON *ct);
/* pod_info.spec_env; past its cap "" with *why set, never a part. */
char *podenv_spec(const cJSON *ct, char **why);
/* pod_info.plain_env: plain values of the variables ARGS mentions. */
char *podenv_plain(const cJSON *ct, const char *args);
/* pod_info.metrics_env: plain values of the metrics-port variables. */
char *podenv_metrics(const cJSON *ct);

#endif
