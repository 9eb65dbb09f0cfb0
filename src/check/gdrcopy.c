/* GDRCOPY family (checks.md C).  GDRCopy is a latency feature, never
 * required (NIXL README): not installed is "not used", not a failure;
 * only a half-installed GDRCopy is worth a warning. */
#include <stdio.h>
#include <string.h>

#include "check/internal.h"
#include "probe/facts.h"

static void driver(const struct check_input *in, struct check_results *out)
{
	const struct probe_modules *m = &in->f->modules;
	const struct evidence *ev = &in->ev;
	/* C1: the module, or its major in /proc/devices (evidence.c). */
	int loaded = m->loaded[PROBE_MOD_GDRDRV] ||
		     m->gdrdrv_in_proc_devices == 1;

	if (ev->gdrdrv.state == EV_UNKNOWN) {
		emit(out, CK_GDRCOPY_DRIVER, CHECK_SKIPPED, NULL, "%s",
		     ev->gdrdrv.missing);
		return;
	}
	if (!loaded && !m->gdrdrv_dev)
		emit_na(out, CK_GDRCOPY_DRIVER,
			"GDRCopy not installed%s (optional)", in->on_node);
	else if (ev->gdrdrv_broken)
		emit(out, CK_GDRCOPY_DRIVER, CHECK_WARN,
		     "reload gdrdrv on the node (its major number is missing from /proc/devices)",
		     "gdrdrv loaded but absent from /proc/devices: driver broken");
	else if (!m->gdrdrv_dev)
		emit(out, CK_GDRCOPY_DRIVER, CHECK_WARN,
		     "mount /dev/gdrdrv into the worker container (hostPath or device plugin)",
		     "gdrdrv loaded%s but /dev/gdrdrv not in the pod", in->on_node);
	else
		emit(out, CK_GDRCOPY_DRIVER, CHECK_OK, NULL,
		     "gdrdrv loaded%s%s, /dev/gdrdrv present",
		     m->version[PROBE_MOD_GDRDRV][0] ? " version " : "",
		     m->version[PROBE_MOD_GDRDRV]);
}

static void ucx_gdr(const struct check_input *in, struct check_results *out)
{
	const struct evidence *ev = &in->ev;
	const char *tls = envv(in, "UCX_TLS");

	if (ev->ucx_gdr_copy < 0) {
		emit_na(out, CK_GDRCOPY_UCX, "UCX transports not known");
		return;
	}
	if (ev->ucx_gdr_copy) {
		emit(out, CK_GDRCOPY_UCX, CHECK_OK, NULL,
		     "UCX has gdr_copy%s",
		     !(ucx_tls_allowed(tls) & TLB(PROBE_TL_GDR_COPY)) ?
		     " (not allowed by UCX_TLS)" : "");
		return;
	}
	if (ev->gdrdrv_dev)
		emit(out, CK_GDRCOPY_UCX, CHECK_WARN, NULL,
		     "/dev/gdrdrv present but UCX lacks gdr_copy (libgdrapi.so not found?)");
	else
		emit_na(out, CK_GDRCOPY_UCX, "no gdr_copy: GDRCopy not in the pod");
}

void check_gdrcopy(const struct check_input *in, struct check_results *out)
{
	driver(in, out);
	ucx_gdr(in, out);
}
