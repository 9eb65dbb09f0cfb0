/* Inside the DGD reader (kube/dgd.h): dgd.c reads one DGD object,
 * dgd_list.c the list and the request.  Not for use outside kube/api/. */
#ifndef KUBE_DGD_INT_H
#define KUBE_DGD_INT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "dgd.h"

/* Object o (of API version) into d: 0, or -1 with e set and d half
 * filled (dgd_info_release it). */
int dgd_read_item(const cJSON *o, const char *version, struct dgd_info *d, struct err *e);
/* d as a DGD not read, named by meta (its metadata object, may be NULL;
 * item idx of the list when it has no name), why one line. */
void dgd_info_skipped(struct dgd_info *d, const cJSON *meta, size_t idx, const char *version,
		      const char *why);
void dgd_info_release(struct dgd_info *d);

#endif
