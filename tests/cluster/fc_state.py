"""The state of one fakecluster run (fc_state.State): what the scenario
loaded, the active faults, the discovery documents, the request log and the
locks shared by the request threads.  Built once by main(); each request
handler reaches it as self.st (through its Server), nothing is global."""
import json
import os
import threading
import uuid

import fc_dra
import fc_dgd
from fc_scenario import load_scenario
from fc_wire import die

HERE = os.path.dirname(os.path.abspath(__file__))


class State:
    def __init__(self, args, faults):
        self.mode = args.mode
        self.faults = faults                             # fc_faults.Faults: name -> ARG, counters
        self.latency = args.latency_ms                   # None: sandboxed pods
        self.h2 = getattr(args, "h2", False)             # --h2: ALPN offers h2 (fc_h2.py)
        self.default_ns, self.users, self.pods, self.namespaces, self.start = \
            load_scenario(args.scenario, args.mode)
        try:
            self.dra = fc_dra.load(args.scenario, self.default_ns)
            self.dgd = fc_dgd.load(args.scenario, self.default_ns)
        except (ValueError, KeyError, TypeError) as ex:
            die("scenario %s: %s" % (args.scenario, ex))
        self.tokens = {u.token: u for u in self.users.values() if u.kind in ("token", "exec")}
        self.pod_index = {(p.namespace, p.name): p for p in self.pods}
        self.faults.load(self)                           # e.g. hostile-strings rewrites pods
        self.list_rv = str(5000 + len(self.pods))
        self.pf_fs = str(uuid.uuid5(uuid.NAMESPACE_URL, "fakecluster/fs"))
        self.pf_pl = str(uuid.uuid5(uuid.NAMESPACE_URL, "fakecluster/pl"))
        self.oversize = int(os.environ.get("FAKECLUSTER_OVERSIZED_BYTES", str(200 * 1024 * 1024)))
        self.stopping = threading.Event()
        self.loglock = threading.Lock()
        self.sandboxes_lock = threading.Lock()
        self.metric_reads = {}                           # (ns, pod, port) -> reads (fc_metrics.py)
        self.live_execs = set()                          # exec Popen objects in flight
        self.logf = open(args.log, "a") if args.log else None
        self.sandboxes = None                            # fc_sandbox.Sandboxes, set by main
        self.sslctx = None                               # set by main once the PKI exists
        self.load_discovery(args.mode)

    def load_discovery(self, mode):
        ddir = os.path.join(HERE, "discovery")

        def doc(name):
            with open(os.path.join(ddir, name)) as f:
                return json.load(f)
        self.disc_api = doc("d-discovery-api.json")
        self.disc_apis = doc("d-discovery-apis.json")
        self.disc_v1 = doc("d-discovery-api-v1.json")
        self.group_versions = set(v["groupVersion"] for g in self.disc_apis["groups"] for v in g["versions"])
        vdoc = doc("d-version.json")
        if mode == "v5":
            vdoc.update({"minor": "32", "gitVersion": "v1.32.4", "gitCommit": "59526cd4867447956156ae3a602fcbac5b4a5cba",
                         "gitTreeState": "clean", "goVersion": "go1.23.6"})
        self.version_doc = vdoc
