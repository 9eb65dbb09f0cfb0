# Test stand-in for dynamo/vllm/args.py of a Dynamo release without
# ai-dynamo/dynamo PR #6539 (the side-channel host from the hostname, and
# 127.0.0.1 when it does not resolve).  The probe only looks for that
# PR's detection function in it; no Dynamo code is held here.
