"""Front doors (fc_front.py): path prefix, request-line limit, impersonation,
APF 429, connection reset, stdin and ping audit fields.  Native sidecars
are covered through the plugin in tests/e2e/test_frontdoor.py."""
import json
import unittest

import fc

PREFIX = "/k8s/clusters/c-1"


class TestFront(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = fc.Cluster("basic.yaml", mode="v5", latency=0,
                           args=["--path-prefix", PREFIX + "/", "--max-request-line", "8192"])

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()

    def test_kubeconfig_names_the_prefix(self):
        self.assertEqual(self.c.kc["clusters"][0]["cluster"]["server"], self.c.url + PREFIX)

    def test_prefix(self):
        st, doc = self.c.get_json(PREFIX + "/api/v1/namespaces/demo/pods")
        self.assertEqual((st, doc["kind"]), (200, "PodList"))
        r = self.c.request("/api/v1/namespaces/demo/pods")
        self.assertEqual((r.status, r.body), (404, b"404 page not found\n"))
        r = self.c.request(PREFIX + "x/api/v1/namespaces/demo/pods")
        self.assertEqual(r.status, 404)
        last = self.c.log()[-1]
        self.assertTrue(last["outside_prefix"])

    def test_request_line_limit(self):
        ok = PREFIX + "/api/v1/namespaces/demo/pods?x=" + "a" * 100
        self.assertEqual(self.c.request(ok).status, 200)
        long = PREFIX + "/api/v1/namespaces/demo/pods?x=" + "a" * 8200
        r = self.c.request(long)
        self.assertEqual(r.status, 414)
        self.assertIn(b"414 Request-URI Too Large", r.body)
        self.assertEqual(self.c.log()[-1]["status"], 414)
        self.assertGreater(self.c.log()[-1]["request_line_bytes"], 8192)

    def test_impersonation(self):
        pods = PREFIX + "/api/v1/namespaces/demo/pods"
        # admin may impersonate; as viewer the request has viewer's rights
        st, doc = self.c.get_json(pods, headers=[("Impersonate-User", "viewer"), ("Impersonate-Group", "g1"),
                                                 ("Impersonate-Group", "g2"), ("Impersonate-Uid", "u1"),
                                                 ("Impersonate-Extra-Scopes%2Fa", "x")])
        self.assertEqual(st, 200)
        q = self.c.log()[-1]
        self.assertEqual((q["user"], q["impersonator"], q["impersonated_groups"], q["impersonated_uid"],
                          q["impersonated_extra"]), ("viewer", "admin", ["g1", "g2"], "u1", {"scopes/a": ["x"]}))
        # viewer cannot exec
        r = self.c.request(fc.exec_path("demo", "qwen-prefill-0", ["true"]),
                           headers=[("Impersonate-User", "viewer")])
        self.assertEqual(r.status, 404)   # the path lacks the prefix
        r = self.c.request(PREFIX + fc.exec_path("demo", "qwen-prefill-0", ["true"]),
                           headers=[("Impersonate-User", "viewer")])
        self.assertEqual(r.status, 403)
        self.assertIn(b'User \\"viewer\\" cannot get resource \\"pods/exec\\"', r.body)
        # viewer may not impersonate
        st, doc = self.c.get_json(pods, token="viewer", headers=[("Impersonate-User", "admin")])
        self.assertEqual(st, 403)
        self.assertEqual(doc["message"], 'users "admin" is forbidden: User "viewer" cannot impersonate '
                         'resource "users" in API group "" at the cluster scope')
        # groups without a user
        st, doc = self.c.get_json(pods, headers=[("Impersonate-Group", "g1")])
        self.assertEqual(st, 500)
        # a name no scenario user has: no rights at all
        st, doc = self.c.get_json(pods, headers=[("Impersonate-User", "nobody")])
        self.assertEqual(st, 403)


class TestDoorFaults(unittest.TestCase):
    def test_apf_429_then_ok(self):
        c = fc.Cluster("basic.yaml", latency=0, faults=["apf-429=2"])
        try:
            rs = [c.request("/api/v1/namespaces/demo/pods") for _ in range(3)]
            self.assertEqual([r.status for r in rs], [429, 429, 200])
            self.assertEqual(rs[0].header("Retry-After"), "1")
            self.assertEqual(rs[0].body, b"Too many requests, please try again later.\n")
            self.assertTrue(rs[0].header("Content-Type").startswith("text/plain"))
        finally:
            c.cleanup()

    def test_conn_reset(self):
        c = fc.Cluster("basic.yaml", latency=0, faults=["conn-reset=1"])
        try:
            with self.assertRaises((ConnectionError, OSError, ValueError, AssertionError)):
                r = c.request("/api/v1/namespaces/demo/pods")
                self.assertNotEqual(r.status, 200)
                raise ConnectionError("answered %d" % r.status)
            self.assertEqual(c.request("/api/v1/namespaces/demo/pods").status, 200)
            self.assertEqual(c.log()[0]["fault"], "conn-reset")
        finally:
            c.cleanup()


class TestStdinAndPings(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = fc.Cluster("basic.yaml", mode="v5")

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()

    def test_stdin_logged(self):
        res = fc.ws_exec(self.c, fc.exec_path("demo", "qwen-prefill-0", ["cat"], stdin=True),
                         protocols="v5.channel.k8s.io",
                         send_frames=[(9, b""), (2, b"\x00hello\n"), (2, b"\xff\x00")])
        ch = fc.decode_exec(res)
        self.assertEqual(ch[1], b"hello\n")
        q = [q for q in self.c.log() if q["path"].endswith("/exec")][-1]
        self.assertEqual(q["stdin_bytes"], 6)
        self.assertEqual(q["pings_received"], 1)
        self.assertEqual(q["stdin_sha256"], __import__("hashlib").sha256(b"hello\n").hexdigest())
