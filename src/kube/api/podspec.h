/* A pod's spec facts (podspec.c), for pods.c.  Not for use outside
 * kube/api/. */
#ifndef KUBE_PODSPEC_H
#define KUBE_PODSPEC_H

#include <cjson/cJSON.h>

#include "pods.h"

/* The facts of pod's container `container` (the one probed) into f,
 * zeroed first, padding too (pod_info_set_spec finds a copy by its bytes). */
void podspec_facts(const cJSON *pod, const char *container, struct pod_spec_facts *f);

#endif
