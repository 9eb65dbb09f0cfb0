#!/bin/sh
# Runs the tests/cluster suite quietly; prints failures and a last line
#   cluster: N passed, N failed
# Exit status is non-zero when anything failed.
cd "$(dirname "$0")" || exit 2
PY=/usr/bin/python3
exec "$PY" -W ignore - "$@" <<'PYEOF'
import io, sys, unittest, warnings
warnings.simplefilter("ignore")
names = sys.argv[1:]
loader = unittest.TestLoader()
suite = loader.loadTestsFromNames(names) if names else loader.discover(".", pattern="test_*.py")
stream = io.StringIO()
result = unittest.TextTestRunner(stream=stream, verbosity=0).run(suite)
failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
passed = result.testsRun - failed - len(result.skipped)
if failed:
    for test, tb in result.failures + result.errors:
        sys.stdout.write("FAIL: %s\n%s\n" % (test.id(), tb))
if result.skipped:
    for test, why in result.skipped:
        sys.stdout.write("skipped: %s: %s\n" % (test.id(), why))
sys.stdout.write("cluster: %d passed, %d failed\n" % (passed, failed))
sys.exit(1 if failed else 0)
PYEOF
