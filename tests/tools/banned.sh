#!/bin/sh
# tests/tools/banned.sh: fails when src/ or cmd/ call an unbounded or
# undefined-on-bad-input string function.  Use snprintf, memcpy with a
# checked length, buf_*/xasprintf, strtol/strtoul with range checks, and
# strtok_r/strcspn instead.  Comments do not count.
# Prints "banned: N passed, N failed" for tests/run.sh.
cd "$(dirname "$0")/../.." || exit 1
words='sprintf|vsprintf|strcpy|strcat|gets|atoi|atol|atoll|strtok'
# Strip /* ... */ and // comments and string literals, then look for calls.
hits=$(for f in $(find src cmd -name '*.[ch]' | sort); do
	sed -e 's://.*$::' "$f" | awk -v F="$f" '
	{
		line = $0
		# remove string literals
		gsub(/"([^"\\]|\\.)*"/, "\"\"", line)
		out = ""
		while (length(line)) {
			if (inc) {
				e = index(line, "*/")
				if (!e) { line = ""; break }
				line = substr(line, e + 2); inc = 0
			} else {
				s = index(line, "/*")
				if (!s) { out = out line; line = ""; break }
				out = out substr(line, 1, s - 1); line = substr(line, s + 2); inc = 1
			}
		}
		if (out ~ /(^|[^A-Za-z0-9_])('"$words"')[ \t]*\(/)
			printf "%s:%d: %s\n", F, NR, $0
	}'
done)
if [ -n "$hits" ]; then
	printf '%s\n' "$hits"
	echo "banned: 0 passed, 1 failed (unbounded string functions above)"
	exit 1
fi
echo "banned: 1 passed, 0 failed"
