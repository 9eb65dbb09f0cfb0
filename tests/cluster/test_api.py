"""Pagination, selectors, logs, namespaces, auth, read-only enforcement, gzip,
latency mode."""
import base64
import importlib.machinery
import importlib.util
import json
import os
import threading
import time
import unittest
from urllib.parse import quote

import fc


def load_server_module():
    loader = importlib.machinery.SourceFileLoader("fakecluster_mod", fc.FAKECLUSTER)
    spec = importlib.util.spec_from_loader("fakecluster_mod", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


FCM = load_server_module()


class TestSelectorParser(unittest.TestCase):
    def match(self, sel, labels):
        return FCM.label_match(FCM.parse_label_selector(sel), labels)

    def test_syntax(self):
        L = {"a": "1", "b": "2", "nvidia.com/dynamo-component-type": "prefill"}
        self.assertTrue(self.match("a=1", L))
        self.assertTrue(self.match("a==1,b=2", L))
        self.assertFalse(self.match("a!=1", L))
        self.assertTrue(self.match("c!=1", L))
        self.assertTrue(self.match("a in (1, 3)", L))
        self.assertFalse(self.match("a notin (1,3)", L))
        self.assertTrue(self.match("c notin (1)", L))
        self.assertTrue(self.match("a", L))
        self.assertFalse(self.match("!a", L))
        self.assertTrue(self.match("!c", L))
        self.assertTrue(self.match("nvidia.com/dynamo-component-type in (prefill,decode),!c", L))
        self.assertTrue(self.match("", L))

    def test_errors(self):
        for sel, msg in [("app===web", "unable to parse requirement: found '=', expected: identifier"),
                         ("a in 1", "unable to parse requirement: found '1', expected: '('"),
                         ("a=1,", "found '', expected: identifier after ','"),
                         ("=x", "found '=', expected: !, identifier, or 'end of string'"),
                         ("a=1 b=2", "found 'b', expected: ',' or 'end of string'")]:
            with self.assertRaises(FCM.SelectorError) as cm:
                FCM.parse_label_selector(sel)
            self.assertEqual(str(cm.exception), msg, sel)


class TestPagination(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = fc.Cluster("many.yaml", mode="v5", latency=0)

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()

    def page_all(self, base):
        names, conts, cont = [], [], ""
        while True:
            st, body = self.c.get_json(base + ("&continue=" + quote(cont) if cont else ""))
            self.assertEqual(st, 200, body)
            self.assertLessEqual(len(body["items"]), 250)
            names += ["%s/%s" % (i["metadata"]["namespace"], i["metadata"]["name"]) for i in body["items"]]
            cont = body["metadata"].get("continue", "")
            if not cont:
                self.assertNotIn("remainingItemCount", body["metadata"])
                return names, conts
            conts.append(cont)
            self.assertEqual(body["metadata"]["remainingItemCount"], 650 - len(names) if "/pods?" == base[-6:] else
                             body["metadata"]["remainingItemCount"])

    def test_limit_250_all_namespaces(self):
        n0 = len(self.c.log())
        names, conts = self.page_all("/api/v1/pods?limit=250")
        self.assertEqual(len(names), 650)
        self.assertEqual(len(set(names)), 650)
        self.assertEqual(names, sorted(names))
        self.assertEqual(len(conts), 2)
        recs = self.c.log()[n0:]
        self.assertEqual(len(recs), 3)
        self.assertEqual([r["query"].get("limit") for r in recs], ["250"] * 3)
        self.assertEqual([("continue" in r["query"]) for r in recs], [False, True, True])
        self.assertTrue(all(r["status"] == 200 and r["user"] == "admin" for r in recs))

    def test_limit_with_selector_in_namespace(self):
        names, conts = self.page_all("/api/v1/namespaces/bulk-b/pods?limit=7&labelSelector=" +
                                     quote("shard in (s1,s2),nvidia.com/dynamo-component-type=prefill"))
        st, full = self.c.get_json("/api/v1/namespaces/bulk-b/pods?labelSelector=" +
                                   quote("shard in (s1,s2),nvidia.com/dynamo-component-type=prefill"))
        self.assertEqual(names, ["bulk-b/" + i["metadata"]["name"] for i in full["items"]])
        self.assertTrue(all(n.startswith("bulk-b/") for n in names))
        for i in full["items"]:
            self.assertIn(i["metadata"]["labels"]["shard"], ("s1", "s2"))

    def test_bad_continue(self):
        st, body = self.c.get_json("/api/v1/pods?limit=10&continue=garbage!!")
        self.assertEqual(st, 400)
        self.assertEqual(body["reason"], "BadRequest")

    def test_field_selectors(self):
        st, body = self.c.get_json("/api/v1/pods?fieldSelector=status.phase%3DPending")
        self.assertEqual(len(body["items"]), 13)
        st, body = self.c.get_json("/api/v1/namespaces/bulk-a/pods?fieldSelector=metadata.name%3Dw-0003")
        self.assertEqual([i["metadata"]["name"] for i in body["items"]], ["w-0003"])
        st, body = self.c.get_json("/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-0,status.phase!%3DPending")
        self.assertTrue(all(i["spec"]["nodeName"] == "node-0" for i in body["items"]))
        st, body = self.c.get_json("/api/v1/pods?fieldSelector=spec.bogus%3D1")
        self.assertEqual((st, body["message"]), (400, "field label not supported: spec.bogus"))

    def test_gzip_large_list(self):
        r = self.c.request("/api/v1/pods", headers=[("Accept-Encoding", "gzip")])
        self.assertEqual(r.header("Content-Encoding"), "gzip")
        self.assertEqual(len(json.loads(r.body)["items"]), 650)
        r = self.c.request("/api/v1/pods")
        self.assertIsNone(r.header("Content-Encoding"))
        self.assertEqual(r.header("Transfer-Encoding"), "chunked")

    def test_keepalive(self):
        s = self.c.connect()
        tok = self.c.token()
        for _ in range(3):
            s.sendall(("GET /api/v1/namespaces/bulk-a/pods?limit=1 HTTP/1.1\r\nHost: x\r\n"
                       "Authorization: Bearer %s\r\n\r\n" % tok).encode())
            r = fc.read_response(s)
            self.assertEqual(r.status, 200)
        s.close()


class TestApiBasics(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = fc.Cluster("basic.yaml", mode="v5", latency=0)

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()

    def test_pod_shape(self):
        st, p = self.c.get_json("/api/v1/namespaces/demo/pods/qwen-decode-0")
        self.assertEqual(st, 200)
        self.assertEqual((p["kind"], p["apiVersion"]), ("Pod", "v1"))
        md = p["metadata"]
        for k in ("name", "namespace", "uid", "labels", "creationTimestamp", "resourceVersion"):
            self.assertIn(k, md)
        self.assertEqual(p["spec"]["containers"][0]["securityContext"], {"capabilities": {"add": ["IPC_LOCK"]}})
        self.assertEqual(p["spec"]["containers"][0]["image"], "registry.local/fake/main:latest")
        self.assertIn("podIP", p["status"])
        self.assertIn("hostIP", p["status"])
        cs = p["status"]["containerStatuses"][0]
        self.assertEqual((cs["name"], cs["ready"]), ("main", True))
        st, p = self.c.get_json("/api/v1/namespaces/demo/pods/two-containers")
        self.assertEqual(p["metadata"]["annotations"], {"kubectl.kubernetes.io/default-container": "sidecar"})
        st, p = self.c.get_json("/api/v1/namespaces/demo/pods/pending-0")
        self.assertEqual(p["status"]["phase"], "Pending")
        self.assertNotIn("nodeName", p["spec"])

    def test_namespaces(self):
        st, body = self.c.get_json("/api/v1/namespaces")
        names = [i["metadata"]["name"] for i in body["items"]]
        for n in ("demo", "other", "default", "kube-system"):
            self.assertIn(n, names)
        self.assertEqual(self.c.get_json("/api/v1/namespaces/demo")[0], 200)
        st, body = self.c.get_json("/api/v1/namespaces/nope")
        self.assertEqual((st, body["message"]), (404, 'namespaces "nope" not found'))
        st, body = self.c.get_json("/api/v1/namespaces", token="viewer")
        self.assertEqual(st, 403)
        self.assertEqual(body["message"], 'namespaces is forbidden: User "viewer" cannot list resource '
                                          '"namespaces" in API group "" at the cluster scope')

    def test_forbidden_list_wording(self):
        st, body = self.c.get_json("/api/v1/namespaces/demo/pods", token="plugin-beta-token")
        self.assertEqual(st, 200)
        st, body = self.c.get_json("/api/v1/namespaces/demo/pods/qwen-prefill-0", token="plugin-beta-token")
        self.assertEqual(st, 403)
        self.assertEqual(body["message"], 'pods "qwen-prefill-0" is forbidden: User "plugin-beta" cannot get '
                                          'resource "pods" in API group "" in the namespace "demo"')
        c2 = self.c
        st, body = c2.get_json("/api/v1/namespaces/demo/pods/x/log", token="viewer")
        self.assertIn('cannot get resource "pods/log"', body["message"])

    def test_auth(self):
        for tok in (None, "wrong"):
            r = self.c.request("/api/v1/pods", token=tok)
            self.assertEqual(r.status, 401)
            self.assertEqual(r.body, b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
                                     b'"message":"Unauthorized","reason":"Unauthorized","code":401}\n')
        r = self.c.request("/api/v1/namespaces/demo/pods", token=None, cert_user="cert-user")
        self.assertEqual(r.status, 200)
        self.assertEqual(self.c.log()[-1]["user"], "cert-user")

    def test_not_get_is_405_and_logged(self):
        for m in ("POST", "PUT", "PATCH", "DELETE"):
            r = self.c.request("/api/v1/namespaces/demo/pods/qwen-prefill-0", method=m, body=b"{}",
                               headers=[("Content-Type", "application/json")])
            self.assertEqual(r.status, 405)
            self.assertEqual(json.loads(r.body)["reason"], "MethodNotAllowed")
        methods = [(x["method"], x["status"]) for x in self.c.log()[-4:]]
        self.assertEqual(methods, [("POST", 405), ("PUT", 405), ("PATCH", 405), ("DELETE", 405)])

    def test_logs(self):
        r = self.c.request("/api/v1/namespaces/demo/pods/qwen-prefill-0/log")
        self.assertEqual((r.status, r.body), (200, b"line 1 prefill starting\nline 2 nixl ready\nline 3 serving\n"))
        r = self.c.request("/api/v1/namespaces/demo/pods/qwen-prefill-0/log?container=main&tailLines=2")
        self.assertEqual(r.body, b"line 2 nixl ready\nline 3 serving\n")
        r = self.c.request("/api/v1/namespaces/demo/pods/two-containers/log")
        self.assertEqual(r.status, 400)
        self.assertEqual(json.loads(r.body)["message"], "a container name must be specified for pod two-containers, "
                                                        "choose one of: [main sidecar]")
        r = self.c.request("/api/v1/namespaces/demo/pods/nope/log")
        self.assertEqual(r.status, 404)

    def test_exec_v5_stdin_close_raw(self):
        res = fc.ws_exec(self.c, fc.exec_path("demo", "qwen-frontend-0", ["cat"], stdin=True),
                         protocols="v5.channel.k8s.io",
                         send_frames=[(2, b"\x00hello"), (2, b"\xff\x00")])
        ch = fc.decode_exec(res)
        self.assertEqual(ch[1], b"hello")
        self.assertEqual(json.loads(ch[3])["status"], "Success")

    def test_exec_v5_status_wording(self):
        res = fc.ws_exec(self.c, fc.exec_path("demo", "qwen-frontend-0", ["sh", "-c", "exit 3"]),
                         protocols="v5.channel.k8s.io")
        st = json.loads(fc.decode_exec(res)[3])
        self.assertEqual(st["reason"], "NonZeroExitCode")
        self.assertEqual(st["details"]["causes"], [{"reason": "ExitCode", "message": "3"}])
        res = fc.ws_exec(self.c, fc.exec_path("demo", "crashing-0", ["true"]), protocols="v5.channel.k8s.io")
        self.assertEqual(res.response.status, 101)
        self.assertEqual(json.loads(fc.decode_exec(res)[3]),
                         {"metadata": {}, "status": "Failure", "message": 'Internal error occurred: unable to upgrade '
                          'connection: container not found ("main")', "reason": "InternalError",
                          "details": {"causes": [{"message": 'unable to upgrade connection: container not found '
                                                             '("main")'}]}, "code": 500})
        res = fc.ws_exec(self.c, fc.exec_path("demo", "crashing-0", ["true"]), protocols="v4.channel.k8s.io")
        self.assertEqual(res.response.status, 500)
        self.assertEqual(res.response.body, b'container not found ("main")')
        self.assertEqual(res.response.header("Content-Type"), "text/plain; charset=utf-8")

    def test_ping_pong_and_unmasked_client(self):
        res = fc.ws_exec(self.c, fc.exec_path("demo", "qwen-frontend-0", ["sleep", "1"]),
                         protocols="v5.channel.k8s.io", send_frames=[(9, b"abc")])
        self.assertIn((10, b"abc"), [(f.opcode, f.payload) for f in res.frames])
        res = fc.ws_exec(self.c, fc.exec_path("demo", "qwen-frontend-0", ["sleep", "5"]),
                         protocols="v5.channel.k8s.io", read_frames=False)
        res.sock.sendall(fc.ws_frame(2, b"\x00x", masked=False))
        f1 = res.reader.next(timeout=5)
        f2 = res.reader.next(timeout=5)
        self.assertEqual((f2.opcode, f2.payload[:2]), (8, b"\x03\xea"))   # 1002
        res.sock.close()

    def test_handshake_errors(self):
        p = fc.exec_path("demo", "qwen-frontend-0", ["true"])
        res = fc.ws_exec(self.c, p, extra_headers=[], raw=(
            "GET %s HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: "
            "AAAAAAAAAAAAAAAAAAAAAA==\r\nSec-WebSocket-Version: 8\r\nAuthorization: Bearer %s\r\n\r\n"
            % (p, self.c.token())).encode())
        self.assertEqual(res.response.status, 400)
        self.assertEqual(res.response.header("Sec-WebSocket-Version"), "13")


class TestLatencyMode(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = fc.Cluster("latency.yaml", mode="v5", latency=200)

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()

    def test_canned_output_and_concurrency(self):
        results = []

        def one():
            res = fc.ws_exec(self.c, fc.exec_path("demo", "canned-0", ["ibstat"]), protocols="v5.channel.k8s.io",
                             timeout=60)
            results.append(fc.decode_exec(res))
        t0 = time.time()
        threads = [threading.Thread(target=one) for _ in range(150)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        took = time.time() - t0
        self.assertEqual(len(results), 150)
        for ch in results:
            self.assertEqual(ch[1], b"canned stdout\n")
            self.assertEqual(ch[2], b"canned stderr\n")
            self.assertEqual(json.loads(ch[3])["details"]["causes"][0]["message"], "2")
        self.assertGreaterEqual(took, 0.2)
        self.assertLess(took, 30)

    def test_unsandboxed_with_profile_bin(self):
        res = fc.ws_exec(self.c, fc.exec_path("demo", "tools-0", ["hello-tool", "x"]), protocols="v5.channel.k8s.io")
        self.assertEqual(fc.decode_exec(res)[1], b"tool-ok x\n")


if __name__ == "__main__":
    unittest.main()
