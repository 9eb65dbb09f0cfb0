/* Server URL paths joined as client-go joins them (rest/request.go:
 * path.Join("/", base.Path, versionedAPIPath); net/url decodes base.Path
 * and re-escapes the joined path with EscapedPath). Expected values are
 * what Go's path.Join / url.URL give for the same input. */
#include "kube/http/urlpath.h"
#include "t.h"

static void prefix_is(const char *server, const char *want)
{
	char *p = urlpath_prefix(server);

	CHECK_STR(p, want);
	free(p);
}

static void clean_is(const char *in, const char *want)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s", in);
	urlpath_clean(buf);
	CHECK_STR(buf, want);
}

static void test_prefix(void)
{
	prefix_is("https://10.0.0.1:6443", "");
	prefix_is("https://10.0.0.1:6443/", "");
	prefix_is("https://rancher.example.com/k8s/clusters/c-7x2kq",
		  "/k8s/clusters/c-7x2kq");
	/* trailing slash: path.Join drops it, no "//api" */
	prefix_is("https://rancher.example.com/k8s/clusters/c-7x2kq/",
		  "/k8s/clusters/c-7x2kq");
	prefix_is("https://h//a///b//", "/a/b");
	/* %2F decodes to "/" in url.URL.Path and stays a "/" */
	prefix_is("https://h/a%2Fb", "/a/b");
	prefix_is("https://h/a%2fb/c", "/a/b/c");
	/* escapes of unreserved bytes come back unescaped, others escaped */
	prefix_is("https://h/%7Euser/x%20y", "/~user/x%20y");
	prefix_is("https://h/p!q", "/p%21q");
	prefix_is("https://h/a:b@c=d", "/a:b@c=d");
	/* a prefix ending in /api is kept: client-go adds its own /api */
	prefix_is("https://h/api", "/api");
	/* dot segments resolve, never above the root */
	prefix_is("https://h/a/./b/../c", "/a/c");
	prefix_is("https://h/../../x", "/x");
	prefix_is("https://[::1]:6443/p", "/p");
	/* query and fragment are not part of the path */
	prefix_is("https://h/p?x=1", "/p");
	/* an invalid escape is kept as a literal '%' */
	prefix_is("https://h/100%zz", "/100%25zz");
}

static void test_clean(void)
{
	clean_is("/", "/");
	clean_is("//", "/");
	clean_is("/a/b/", "/a/b");
	clean_is("/a/..", "/");
	clean_is("/a/../..", "/");
	clean_is("/a/b/../../c/.", "/c");
	clean_is("/..a/b..", "/..a/b..");
	clean_is("/a/.../b", "/a/.../b");
}

int main(void)
{
	test_prefix();
	test_clean();
	return T_DONE("test_urlpath");
}
