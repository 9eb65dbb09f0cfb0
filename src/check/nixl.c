/* NIXL family: installed, plugin for the backend, backend vs fabric
 * (checks.md F, G4). */
#include <stdio.h>
#include <string.h>

#include "check/internal.h"
#include "probe/facts.h"
#include "util/buf.h"

/* The backend in use: the recipe's, else the one the fabric calls for. */
static const char *backend(const struct check_input *in)
{
	if (in->ctx->nixl_backend && *in->ctx->nixl_backend)
		return in->ctx->nixl_backend;
	return in->fabric == FABRIC_EFA ? "LIBFABRIC" : "UCX";
}

static void installed(const struct check_input *in, struct check_results *out)
{
	const struct probe_nixl *x = &in->f->nixl;
	char why[200];

	if (!in->cross_pod) {
		emit_na(out, CK_NIXL_INSTALLED, "KV stays inside this pod");
		return;
	}
	if (x->python_ok)
		emit(out, CK_NIXL_INSTALLED, CHECK_OK, NULL, "%s %s",
		     x->python_dist[0] ? x->python_dist : "nixl",
		     x->python_version[0] ? x->python_version : "(version unknown)");
	/* No Python package at all, but TensorRT-LLM's own NIXL is there:
	 * it drives NIXL from C++ (its cache transceiver; no nixl in its
	 * requirements.txt; the tensorrt_llm wheel bundles libs/nixl), so the
	 * import proves nothing.  Any other image needs the module (vLLM's
	 * and SGLang's connectors import it); an import that fails for
	 * another reason (a library it cannot load) is a failure too. */
	else if (x->python_src.status == PROBE_FAILED && x->cpp_dir[0] &&
		 strstr(x->python_src.err, "No module named"))
		emit(out, CK_NIXL_INSTALLED, CHECK_OK, NULL,
		     "TensorRT-LLM's NIXL in %s (libnixl.so, used from C++); no nixl Python package",
		     x->cpp_dir);
	else if (x->python_src.status == PROBE_FAILED)
		emit(out, CK_NIXL_INSTALLED, CHECK_FAIL, NULL,
		     "import nixl failed%s%s", x->python_src.err[0] ? ": " : "",
		     x->python_src.err);
	else if (x->nplugins > 0)
		emit(out, CK_NIXL_INSTALLED, CHECK_OK, NULL,
		     "NIXL plugins in %s (python module not checked: %s)",
		     x->plugin_dir,
		     src_why(&x->python_src, "python3", why, sizeof(why)));
	else
		emit(out, CK_NIXL_INSTALLED, CHECK_SKIPPED, NULL, "%s",
		     src_why(&x->python_src, "python3 -c 'import nixl'", why,
			     sizeof(why)));
}

static void plugins_list(const struct probe_nixl *x, struct buf *b)
{
	for (int i = 0; i < x->nplugins && i < PROBE_MAX_NIXL_PLUGINS; i++)
		buf_appendf(b, "%s%s", i ? ", " : "", x->plugin[i]);
	if (!x->nplugins)
		buf_appends(b, "none");
}

/* Where the plugin listing came from (F2) when it is a pip wheel's
 * directory under site-packages: the shell's fixed globs, or the python
 * section when the wheel sits in a site directory the shell does not
 * know.  NULL for NIXL_PLUGIN_DIR / an install prefix (links.c's
 * default source). */
static const char *plugins_source(const struct probe_nixl *x)
{
	if (!x->wheel_dir[0] || strcmp(x->plugin_dir, x->wheel_dir))
		return NULL;
	return x->plugins_src.status == PROBE_OK
		? "pip wheel plugin directory (site-packages)"
		: "python3 -c 'import nixl' (the wheel's plugin directory)";
}

/* NIXL imports from a pip wheel under site-packages, nothing else names a
 * plugin directory (no NIXL_PREFIX, NIXL_PLUGIN_DIR unset), and the shell
 * found neither the wheel's directory nor an install prefix's: the wheel
 * ships its plugins as files (contrib/wheel_add_ucx_plugins.py), so NIXL
 * will find none. */
static int wheel_without_plugins(const struct check_input *in)
{
	const struct probe_nixl *x = &in->f->nixl;

	return x->python_ok && x->python_dist[0] && strstr(x->python_module, "-packages/") &&
	       x->plugins_src.status == PROBE_ABSENT && !x->prefix[0] &&
	       env_readable(in) && !envv(in, "NIXL_PLUGIN_DIR");
}

static void plugin(const struct check_input *in, struct check_results *out)
{
	const struct probe_nixl *x = &in->f->nixl;
	const char *be = backend(in);
	struct buf have = BUF_INIT(1024);
	/* The python section lists the wheel's plugins even where the shell
	 * found no directory: that listing counts as looked. */
	int looked = x->plugins_src.status == PROBE_OK ||
		     (x->python_src.status == PROBE_OK && x->wheel_dir[0]);
	char why[200];

	if (!in->cross_pod) {
		emit_na(out, CK_NIXL_PLUGIN, "KV stays inside this pod");
		return;
	}
	plugins_list(x, &have);
	if (!looked) {
		if (wheel_without_plugins(in))
			emit(out, CK_NIXL_PLUGIN, CHECK_FAIL,
			     "install the full NIXL wheel (pip install --force-reinstall nixl-cu12) or point NIXL_PLUGIN_DIR at a directory with libplugin_UCX.so",
			     "%s %s imports from %s, but no plugin directory is beside it (nixl*.libs/nixl, .nixl*.mesonpy.libs/plugins) and NIXL_PLUGIN_DIR is unset: NIXL has no %s backend to create",
			     x->python_dist, x->python_version[0] ? x->python_version : "",
			     x->python_module, be);
		else
			emit(out, CK_NIXL_PLUGIN, CHECK_SKIPPED, NULL, "%s",
			     src_why(&x->plugins_src, "NIXL plugin directory", why,
				     sizeof(why)));
		emit_source(out, wheel_without_plugins(in)
			    ? "python3 -c 'import nixl', site-packages" : NULL);
		buf_release(&have);
		return;
	}
	if (probe_nixl_has_plugin(x, be))
		emit(out, CK_NIXL_PLUGIN, CHECK_OK, NULL,
		     "libplugin_%s.so in %s", be,
		     x->plugin_dir[0] ? x->plugin_dir : "the plugin directory");
	else
		emit(out, CK_NIXL_PLUGIN, CHECK_FAIL, NULL,
		     "backend %s has no plugin (libplugin_%s.so) in %s; found: %s",
		     be, be, x->plugin_dir[0] ? x->plugin_dir : "any plugin directory",
		     buf_str(&have));
	emit_source(out, plugins_source(x));
	buf_release(&have);
}

/* G4: UCX cannot drive EFA (software RMA over TCP, ray PR #62339). */
static void backend_fit(const struct check_input *in, struct check_results *out)
{
	const char *be = in->ctx->nixl_backend;
	const struct probe_nixl *x = &in->f->nixl;

	if (!in->cross_pod || in->fabric == FABRIC_TCP ||
	    in->fabric == FABRIC_UNKNOWN) {
		emit_na(out, CK_NIXL_BACKEND, "no RDMA fabric to match");
		return;
	}
	if (in->fabric != FABRIC_EFA) {
		if (be && !strcmp(be, "LIBFABRIC"))
			emit(out, CK_NIXL_BACKEND, CHECK_WARN,
			     "use the NIXL UCX backend on InfiniBand/RoCE",
			     "LIBFABRIC backend on %s", fabric_name(in->fabric));
		else if (be)
			emit(out, CK_NIXL_BACKEND, CHECK_OK, NULL, "%s on %s", be,
			     fabric_name(in->fabric));
		else
			emit_na(out, CK_NIXL_BACKEND,
				"backend not configured by the recipe: UCX default");
		return;
	}
	/* Across nodes the KV then takes a slow or failing path (UCX over
	 * EFA: ai-dynamo/nixl#909, #1983, ai-dynamo/dynamo#4185): a silent
	 * drop to a slow path is NOT READY; within one node it is a note. */
	if (be && !strcmp(be, "LIBFABRIC"))
		emit(out, CK_NIXL_BACKEND, CHECK_OK, NULL, "LIBFABRIC on EFA");
	else if (be)
		emit(out, CK_NIXL_BACKEND, in->ctx->kv_cross_node ? CHECK_FAIL : CHECK_WARN, NULL,
		     "%s backend on EFA: UCX drives EFA only through srd with host staging, or degrades to TCP",
		     be);
	else if (x->plugins_src.status == PROBE_OK &&
		 !probe_nixl_has_plugin(x, "LIBFABRIC"))
		emit(out, CK_NIXL_BACKEND, in->ctx->kv_cross_node ? CHECK_FAIL : CHECK_WARN, NULL,
		     "EFA, but NIXL has no LIBFABRIC plugin: it can only use UCX");
	else
		emit(out, CK_NIXL_BACKEND, CHECK_SKIPPED, NULL,
		     "EFA: the configured NIXL backend is not visible in the pod (pass --recipe)");
}

void check_nixl(const struct check_input *in, struct check_results *out)
{
	installed(in, out);
	plugin(in, out);
	backend_fit(in, out);
}
