# Test stand-in for dynamo/vllm/args.py of a Dynamo release with
# ai-dynamo/dynamo PR #6539 (non-routable answers skipped, then the
# default route's address, else RuntimeError).  The probe only looks for
# the name of that PR's detection function; no Dynamo code is held here.
def _try_udp_connect(family, target):
    raise NotImplementedError("test stand-in")
