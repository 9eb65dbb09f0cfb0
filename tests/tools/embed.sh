#!/bin/sh
# embed.sh [-s] NAME FILE: prints a C file defining `const char NAME[]` with FILE's bytes.
# -s: FILE as `embed.sh -p` prints it (what the probe's exec sends, issue 46).
# embed.sh -p FILE: FILE without its comment lines and blank lines.  Only
# whole lines go (first non-blank character '#', or nothing but blanks), so
# a '#' inside a line (${#x}, "#") stays, and indentation stays: a test
# finds a function as "\nNAME() {" to "\n}\n" (tests/unit/test_corrections_caps.c).
# The probe has no here-document, where such a line would be data.
set -eu
strip() { sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' "$1"; }
if [ "$1" = -p ]; then
	strip "$2"
	exit
fi
filter=cat
if [ "$1" = -s ]; then
	filter=strip
	shift
fi
name=$1 file=$2
printf '/* generated from %s by tests/tools/embed.sh; do not edit */\n' "$file"
printf '#include <stddef.h>\nconst char %s[] = {\n' "$name"
$filter "$file" | od -An -v -tx1 | sed -e 's/  */ /g' -e 's/^ //' -e 's/ $//' -e '/^$/d' \
	-e 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'
printf '0x00 };\nconst size_t %s_len = sizeof(%s) - 1;\n' "$name" "$name"
