#!/bin/sh
# tests/tools/no_outside_refs.sh: fails when a file of the repository refers
# to a path outside it that a clone does not have: the workplace's shared
# folder (../shared, shared/docs, shared/fixtures) or anything under /work/.
# The project's documents are docs/, its test input tests/fixtures/
# (SOURCES.md there).  System paths (/usr, /etc, /var/cache, /proc, ...) are
# the machine's, not the workplace's, and are allowed.  A citation of the
# form docs/NAME.md must name a file that exists.
# Prints "outside-refs: N passed, N failed", and every offending line.
cd "$(dirname "$0")/../.." || exit 1
self=tests/tools/no_outside_refs.sh
# Tracked files plus new ones not ignored, so a file not yet added counts.
if git rev-parse --git-dir >/dev/null 2>&1; then
	files=$(git ls-files --cached --others --exclude-standard | sort -u)
else
	files=$(find . -path ./build -prune -o -path ./.git -prune -o -type f -print | sed 's#^\./##' | sort)
fi
pat='\.\./shared|(^|[^A-Za-z0-9_])shared/(docs|fixtures)|/work/'
fail=0
pass=0
bad=$(printf '%s\n' "$files" | grep -vxF "$self" | while IFS= read -r f; do
	[ -f "$f" ] || continue
	grep -IHnE "$pat" "$f" 2>/dev/null
done)
if [ -n "$bad" ]; then
	printf '%s\n' "$bad" | sed 's/^/outside-ref: /'
	echo "files referring outside the repository:"
	printf '%s\n' "$bad" | cut -d: -f1 | sort | uniq -c | sed 's/^/  /'
	fail=$((fail + 1))
else
	pass=$((pass + 1))
fi
# docs/NAME.md citations resolve (the docs moved into the repository).
missing=$(printf '%s\n' "$files" | grep -vxF "$self" | while IFS= read -r f; do
	[ -f "$f" ] || continue
	grep -IohE '(^|[^A-Za-z0-9_./-])docs/[A-Za-z0-9_-]+\.md' "$f" 2>/dev/null |
		sed 's#^[^d]*##' | while IFS= read -r d; do
			[ -f "$d" ] || echo "$f: $d"
		done
done | sort -u)
if [ -n "$missing" ]; then
	printf '%s\n' "$missing" | sed 's/^/missing doc: /'
	fail=$((fail + 1))
else
	pass=$((pass + 1))
fi
echo "outside-refs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
