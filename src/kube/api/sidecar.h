/* Native sidecar containers (KEP-753, Kubernetes >= 1.29 on by default):
 * init containers with restartPolicy: Always keep running next to the
 * pod's containers and can be exec'd into like them.  kubectl exec -c
 * takes any container name the pod has (the API server looks through
 * containers, initContainers and ephemeralContainers alike).
 */
#ifndef KUBE_SIDECAR_H
#define KUBE_SIDECAR_H

#include <cjson/cJSON.h>

/* For `-c name` on one pod object of a PodList (owned by the caller, who
 * lets us change it): when name is a native sidecar, a copy of its spec
 * and status is appended to spec.containers and status.containerStatuses,
 * so that everything reading the pod's containers sees it.  Returns NULL,
 * or, when name is an init container that is not a sidecar, a static
 * one-line reason it cannot be probed. */
const char *sidecar_expose(cJSON *pod, const char *name);

#endif
