#!/bin/sh
# tests/tools/no_shared_statics.sh: fails on a mutable function-scope
# static in src/ or cmd/.  The library judges pods on several exec worker
# threads at once (engine/engine.c), so such a buffer is shared between them: two
# pods' F6 replays once wrote into the same static path buffers
# (check/stack.c copy_in) and ASan caught a global-buffer-overflow only
# now and then; cmd/ calls into those threads too (its callbacks run
# there or beside them).  Allowed: const data, _Thread_local, pthread_once_t.
# Prints "shared-statics: N passed, N failed" for tests/run.sh.
cd "$(dirname "$0")/../.." || exit 1
hits=$(grep -rnE '^[[:space:]]+static ' src cmd --include='*.c' |
	grep -vE 'const|_Thread_local|pthread_once_t')
if [ -n "$hits" ]; then
	printf '%s\n' "$hits" | sed 's/^/shared-static: /'
	echo "shared-statics: 0 passed, 1 failed (make it a local, const or _Thread_local)"
	exit 1
fi
echo "shared-statics: 1 passed, 0 failed"
