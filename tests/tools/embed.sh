#!/bin/sh
# embed.sh NAME FILE: prints a C file defining `const char NAME[]` with FILE's bytes.
set -eu
name=$1 file=$2
printf '/* generated from %s by tests/tools/embed.sh; do not edit */\n' "$file"
printf '#include <stddef.h>\nconst char %s[] = {\n' "$name"
od -An -v -tx1 "$file" | sed -e 's/  */ /g' -e 's/^ //' -e 's/ $//' -e '/^$/d' \
	-e 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'
printf '0x00 };\nconst size_t %s_len = sizeof(%s) - 1;\n' "$name" "$name"
