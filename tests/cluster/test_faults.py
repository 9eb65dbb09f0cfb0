"""--fault NAME[=ARG]: each fault does what README.md says (raw client)."""
import json
import socket
import subprocess
import time
import unittest

import fc

EXEC_FAULTS = {"exec-hang": "f-hang", "exec-drop-mid-frame": "f-drop", "exec-no-close": "f-noclose",
               "exec-unoffered-protocol": "f-unoffered", "exec-bad-accept": "f-badaccept",
               "exec-masked-frame": "f-masked", "exec-reserved-opcode": "f-reserved",
               "exec-huge-length": "f-huge", "exec-orphan-continuation": "f-orphan",
               "exec-garbage-status": "f-garbage", "exec-no-status": "f-nostatus",
               "exec-oversized-output": "f-oversized", "pod-deleted": "f-deleted", "exec-429": "f-429"}
ECHO = ["sh", "-c", "echo out"]


def path(pod, argv=ECHO):
    return fc.exec_path("faults", pod, argv)


class TestExecFaults(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = fc.Cluster("faults.yaml", mode="v5", latency=0,
                           faults=["%s=%s" % kv for kv in EXEC_FAULTS.items()])

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()

    def test_normal_pod_unaffected(self):
        for proto in ("v5.channel.k8s.io", "v4.channel.k8s.io"):
            res = fc.ws_exec(self.c, path("normal-0"), protocols=proto)
            self.assertEqual(res.response.header("Sec-WebSocket-Protocol"), proto)
            self.assertEqual(res.response.header("Sec-WebSocket-Accept"), fc.ws_accept(res.key))
            ch = fc.decode_exec(res)
            self.assertEqual(ch[1], b"out\n")
            self.assertEqual(json.loads(ch[3]), {"metadata": {}, "status": "Success"})
            self.assertEqual(res.frames[-1].opcode, 8)
            self.assertFalse(any(f.masked for f in res.frames))

    def test_hang(self):
        res = fc.ws_exec(self.c, path("f-hang"), read_frames=False)
        self.assertEqual(res.response.status, 101)
        first = res.reader.next(timeout=5)
        self.assertEqual(first.payload, b"\x01")
        with self.assertRaises(socket.timeout):
            res.reader.next(timeout=1.5)
        res.sock.close()

    def test_drop_mid_frame(self):
        res = fc.ws_exec(self.c, path("f-drop"))
        self.assertEqual(len(res.frames), 1)
        self.assertIn("truncated payload", str(res.error))

    def test_no_close(self):
        res = fc.ws_exec(self.c, path("f-noclose"))
        self.assertIsNone(res.error)
        self.assertTrue(res.eof)
        self.assertEqual([f.opcode for f in res.frames], [2, 2, 2])
        self.assertEqual(res.frames[-1].channel, 3)

    def test_unoffered_protocol(self):
        res = fc.ws_exec(self.c, path("f-unoffered"))
        self.assertEqual(res.response.status, 101)
        self.assertEqual(res.response.header("Sec-WebSocket-Protocol"), "v9.channel.k8s.io")

    def test_bad_accept(self):
        res = fc.ws_exec(self.c, path("f-badaccept"))
        self.assertEqual(res.response.status, 101)
        self.assertNotEqual(res.response.header("Sec-WebSocket-Accept"), fc.ws_accept(res.key))

    def test_masked_frames(self):
        res = fc.ws_exec(self.c, path("f-masked"))
        self.assertTrue(res.frames and all(f.masked for f in res.frames))

    def test_reserved_opcode(self):
        res = fc.ws_exec(self.c, path("f-reserved"))
        self.assertIn(3, [f.opcode for f in res.frames])

    def test_huge_length(self):
        res = fc.ws_exec(self.c, path("f-huge"))
        self.assertIn("top bit", str(res.error))

    def test_orphan_continuation(self):
        res = fc.ws_exec(self.c, path("f-orphan"))
        self.assertEqual(res.frames[1].opcode, 0)
        self.assertEqual(res.frames[1].fin, 1)

    def test_garbage_status(self):
        res = fc.ws_exec(self.c, path("f-garbage"))
        st = fc.decode_exec(res)[3]
        self.assertTrue(st)
        with self.assertRaises(ValueError):
            json.loads(st)
        self.assertEqual(res.frames[-1].opcode, 8)

    def test_no_status(self):
        res = fc.ws_exec(self.c, path("f-nostatus"))
        self.assertEqual(fc.decode_exec(res)[3], b"")
        self.assertEqual(fc.decode_exec(res)[1], b"out\n")
        self.assertEqual(res.frames[-1].opcode, 8)

    def test_oversized_output_stops_when_client_leaves(self):
        res = fc.ws_exec(self.c, path("f-oversized"), read_frames=False)
        got = 0
        while got < 20 * 1024 * 1024:
            f = res.reader.next(timeout=10)
            self.assertLessEqual(len(f.payload), 32769)
            got += len(f.payload) - 1
        res.sock.close()
        deadline = time.time() + 15
        rec = None
        while time.time() < deadline and rec is None:
            recs = [r for r in self.c.log() if "/f-oversized/" in r["path"]]
            rec = recs[-1] if recs else None
            time.sleep(0.2)
        self.assertIsNotNone(rec, "the server must stop streaming when the client goes away")
        self.assertLess(rec["bytes"], 150 * 1024 * 1024)
        self.assertTrue(rec["end"].startswith("client-gone"))

    def test_pod_deleted(self):
        st, lst = self.c.get_json("/api/v1/namespaces/faults/pods")
        self.assertIn("f-deleted", [i["metadata"]["name"] for i in lst["items"]])
        st, body = self.c.get_json("/api/v1/namespaces/faults/pods/f-deleted")
        self.assertEqual(st, 404)
        res = fc.ws_exec(self.c, path("f-deleted"))
        self.assertEqual(res.response.status, 404)
        self.assertEqual(json.loads(res.response.body)["message"], 'pods "f-deleted" not found')

    def test_exec_429(self):
        res = fc.ws_exec(self.c, path("f-429"))
        self.assertEqual(res.response.status, 429)
        self.assertEqual(res.response.header("Retry-After"), "1")
        self.assertEqual(json.loads(res.response.body)["reason"], "TooManyRequests")


class ListFault(unittest.TestCase):
    fault = None

    @classmethod
    def setUpClass(cls):
        cls.c = fc.Cluster("faults.yaml", mode="v5", latency=0, faults=[cls.fault])

    @classmethod
    def tearDownClass(cls):
        cls.c.cleanup()


class TestList429(ListFault):
    fault = "list-429"

    def test_first_two_then_ok(self):
        for _ in range(2):
            r = self.c.request("/api/v1/namespaces/faults/pods")
            self.assertEqual(r.status, 429)
            self.assertEqual(r.header("Retry-After"), "1")
            self.assertEqual(json.loads(r.body)["details"], {"retryAfterSeconds": 1})
        r = self.c.request("/api/v1/namespaces/faults/pods")
        self.assertEqual(r.status, 200)
        self.assertEqual([x["status"] for x in self.c.log()], [429, 429, 200])


class TestList500(ListFault):
    fault = "list-500"

    def test_500(self):
        for _ in range(2):
            r = self.c.request("/api/v1/pods")
            self.assertEqual(r.status, 500)
            self.assertEqual(json.loads(r.body)["reason"], "InternalError")
        self.assertEqual(self.c.request("/api/v1/namespaces/faults/pods/normal-0").status, 200)


class TestList503(ListFault):
    fault = "list-503"

    def test_503(self):
        r = self.c.request("/api/v1/namespaces/faults/pods")
        self.assertEqual(r.status, 503)
        self.assertEqual(json.loads(r.body)["reason"], "ServiceUnavailable")


class TestListTruncated(ListFault):
    fault = "list-truncated"

    def test_truncated(self):
        r = self.c.request("/api/v1/namespaces/faults/pods")
        self.assertEqual(r.status, 200)
        self.assertEqual(int(r.header("Content-Length")), len(r.body))
        self.assertTrue(r.body.startswith(b'{"kind":"PodList"'))
        with self.assertRaises(ValueError):
            json.loads(r.body)


class TestListEndlessContinue(ListFault):
    fault = "list-endless-continue"

    def test_endless(self):
        seen = set()
        cont = ""
        for _ in range(5):
            st, body = self.c.get_json("/api/v1/namespaces/faults/pods?limit=5" + ("&continue=" + cont if cont else ""))
            self.assertEqual(st, 200)
            cont = body["metadata"]["continue"]
            self.assertNotIn(cont, seen)
            seen.add(cont)


class TestTokenExpire(ListFault):
    fault = "token-expire"

    def test_admin_token_expires(self):
        self.assertEqual(self.c.request("/api/v1/namespaces/faults/pods").status, 200)
        r = self.c.request("/api/v1/namespaces/faults/pods")
        self.assertEqual(r.status, 401)
        self.assertEqual(json.loads(r.body)["reason"], "Unauthorized")

    def test_exec_plugin_rerun_gives_fresh_token(self):
        cmd = self.c.users["plugin-user"]["exec"]["command"]

        def token():
            out = subprocess.run([cmd], stdout=subprocess.PIPE, check=True).stdout
            cred = json.loads(out)
            self.assertEqual(cred["kind"], "ExecCredential")
            return cred["status"]["token"]
        t1 = token()
        self.assertEqual(self.c.request("/api/v1/namespaces/faults/pods", token=t1).status, 200)
        self.assertEqual(self.c.request("/api/v1/namespaces/faults/pods", token=t1).status, 401)
        t2 = token()
        self.assertNotEqual(t1, t2)
        self.assertEqual(self.c.request("/api/v1/namespaces/faults/pods", token=t2).status, 200)


class TestGzipAlways(ListFault):
    fault = "list-gzip-always"

    def test_gzip_small_list(self):
        r = self.c.request("/api/v1/namespaces/faults/pods", headers=[("Accept-Encoding", "gzip")])
        self.assertEqual(r.header("Content-Encoding"), "gzip")
        self.assertEqual(len(json.loads(r.body)["items"]), 15)
        r = self.c.request("/api/v1/namespaces/faults/pods")
        self.assertIsNone(r.header("Content-Encoding"))


class TestUnknownFault(unittest.TestCase):
    def test_unknown_fault_rejected(self):
        r = subprocess.run([fc.FAKECLUSTER, "--scenario", fc.SCENARIOS + "/faults.yaml", "--kubeconfig",
                            "/tmp/fc-unknown-kc", "--latency-ms", "0", "--fault", "no-such-fault"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("unknown fault", r.stderr.decode())


if __name__ == "__main__":
    unittest.main()
