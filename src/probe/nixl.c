/* NIXL (F1, F2): plugin directories, tools on PATH, the Python package and
 * /opt/dynamo/nixl-versions.txt, as the probe prints them. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"

#define MAX_VERSION_LINES 64

int probe_nixl_has_plugin(const struct probe_nixl *x, const char *name)
{
	char want[48];
	int i;

	if (strlen(name) > 30)
		return 0;
	memcpy(want, "libplugin_", 10);
	memcpy(want + 10, name, strlen(name));
	memcpy(want + 10 + strlen(name), ".so", 4);
	for (i = 0; i < x->nplugins; i++)
		if (!strcmp(x->plugin[i], want))
			return 1;
	return 0;
}

static void add_plugin(struct probe_nixl *x, struct pslice name)
{
	char buf[sizeof x->plugin[0]];
	int i;

	ps_copy(buf, sizeof buf, name);
	for (i = 0; i < x->nplugins; i++)
		if (!strcmp(x->plugin[i], buf))
			return;
	if (x->nplugins >= PROBE_MAX_NIXL_PLUGINS) {
		x->plugins_dropped++;
		return;
	}
	memcpy(x->plugin[x->nplugins++], buf, sizeof buf);
}

/* "prefix=/opt/nvidia/nvda_nixl", "dir=/path", "wheel_dir=/site/path",
 * "plugin=libplugin_UCX.so"; the python section reuses "plugin_dir=" (a
 * wheel's directory too: it lists only the wheel layouts) and "plugin=". */
static void plugin_kv(struct probe_nixl *x, struct pslice k, struct pslice v)
{
	int wheel = ps_eq(k, "wheel_dir") || ps_eq(k, "plugin_dir");

	if (wheel && !x->wheel_dir[0])
		ps_copy(x->wheel_dir, sizeof x->wheel_dir, v);
	if (ps_eq(k, "cpp_dir") && !x->cpp_dir[0])
		ps_copy(x->cpp_dir, sizeof x->cpp_dir, v);
	if (ps_eq(k, "prefix"))
		ps_copy(x->prefix, sizeof x->prefix, v);
	else if ((ps_eq(k, "dir") || wheel || ps_eq(k, "cpp_dir")) && !x->plugin_dir[0])
		ps_copy(x->plugin_dir, sizeof x->plugin_dir, v);
	else if (ps_eq(k, "plugin") && ps_starts(v, "libplugin_"))
		add_plugin(x, v);
}

int probe_parse_nixl_plugins(const char *t, size_t n, struct probe_nixl *x)
{
	struct ptext it;
	struct pslice line, k, v;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line))
		if (ps_split(line, '=', &k, &v))
			plugin_kv(x, k, v);
	return x->nplugins;
}

static const char *const tool_names[PROBE_NIXL_TOOL_COUNT] = {
	"nixlbench", "nixl_example", "kvbench", "ucx_perftest",
};

int probe_parse_nixl_tools(const char *t, size_t n, struct probe_nixl *x)
{
	struct ptext it;
	struct pslice line, k, v;
	int i, found = 0;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		if (!ps_split(line, '=', &k, &v))
			continue;
		for (i = 0; i < PROBE_NIXL_TOOL_COUNT; i++)
			if (ps_eq(k, tool_names[i]) && v.n) {
				x->tool[i] = 1;
				found++;
			}
	}
	return found;
}

/* "nixl-cu12 1.2.0": that distribution's version (others are ignored). */
static void dist_kv(struct probe_nixl *x, struct pslice dist, struct pslice ver)
{
	static const char *const names[PROBE_NIXL_DIST_COUNT] = {
		"nixl", "nixl-cu12", "nixl-cu13",
	};

	for (int i = 0; i < PROBE_NIXL_DIST_COUNT; i++)
		if (ps_eq(dist, names[i]))
			ps_copy(x->dist_version[i], sizeof x->dist_version[i], ver);
}

/* "module=/.../nixl/__init__.py", "version=nixl-cu12 0.9.0", plugin lines.
 * The import worked when the module line is there. */
int probe_parse_nixl_python(const char *t, size_t n, struct probe_nixl *x)
{
	struct ptext it;
	struct pslice line, k, v, rest, dist, ver;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		if (!ps_split(line, '=', &k, &v))
			continue;
		if (ps_eq(k, "module")) {
			ps_copy(x->python_module, sizeof x->python_module, v);
			x->python_ok = 1;
		} else if (ps_eq(k, "version")) {
			rest = v;
			if (!ps_token(&rest, &dist) || !ps_token(&rest, &ver))
				continue;
			dist_kv(x, dist, ver);
			if (x->python_version[0])
				continue;
			ps_copy(x->python_dist, sizeof x->python_dist, dist);
			ps_copy(x->python_version, sizeof x->python_version, ver);
		} else {
			plugin_kv(x, k, v);
		}
	}
	return x->python_ok;
}

int probe_parse_nixl_versions(const char *t, size_t n, struct probe_nixl *x)
{
	struct ptext it;
	struct pslice line;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		line = ps_trim(line);
		if (!line.n || x->nversion_lines >= MAX_VERSION_LINES)
			continue;
		x->version_lines = xrealloc(x->version_lines,
					    (x->nversion_lines + 1) * sizeof *x->version_lines);
		x->version_lines[x->nversion_lines++] =
			xstrndup(line.s, line.n < 256 ? line.n : 256);
	}
	return (int)x->nversion_lines;
}
