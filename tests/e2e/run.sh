#!/bin/sh
# End-to-end tests: the plugin binary ($DI_PLUGIN) and the test-only tools
# against the test cluster.  Prints "e2e: N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
exec /usr/bin/python3 "$here/runner.py" "$here"
