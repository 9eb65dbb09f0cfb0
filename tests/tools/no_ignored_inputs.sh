#!/bin/sh
# tests/tools/no_ignored_inputs.sh: fails when a file of the project's own
# trees (tests/, docs/, src/, ...) is in the working tree but git ignores
# it.  A .gitignore pattern meant for build output (*.d: the compiler's
# dependency files) once caught a profile's /etc/ld.so.conf.d: the tests
# passed here and a clean clone (CI) had no such file.
# Prints "ignored-inputs: N passed, N failed" for tests/run.sh.
cd "$(dirname "$0")/../.." || exit 1
if ! git rev-parse --git-dir >/dev/null 2>&1; then
	echo "ignored-inputs: 0 passed, 0 failed (not a git checkout)"
	exit 0
fi
bad=$(git ls-files --others --ignored --exclude-standard -- \
	tests docs src cmd schema completions man krew deploy bench 2>/dev/null |
	grep -v '/__pycache__/')
if [ -n "$bad" ]; then
	printf '%s\n' "$bad" | sed 's/^/ignored-input: /'
	echo "ignored-inputs: 0 passed, 1 failed (git ignores these: a clone lacks them)"
	exit 1
fi
echo "ignored-inputs: 1 passed, 0 failed"
