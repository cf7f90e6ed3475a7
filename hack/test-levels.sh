#!/usr/bin/env bash
# Runs each test level (a make target) in turn and, unlike make's own
# prerequisites, carries on past a failing one: a failure in one level
# must not hide the results of the levels after it. Prints a line per
# level and the list of the failed ones; exits non-zero if any failed.
set -uo pipefail
make="${MAKE:-make}"
failed=()
for level in "$@"; do
	start=$SECONDS
	if "$make" --no-print-directory "$level"; then
		status=ok
	else
		status=FAIL
		failed+=("$level")
	fi
	echo "test-levels: level=$level status=$status seconds=$((SECONDS - start))"
done
if ((${#failed[@]})); then
	(IFS=,; echo "test-levels: failed=${failed[*]}")
	exit 1
fi
echo "test-levels: failed=none"
