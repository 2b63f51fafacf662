#!/bin/bash
# Two runs of the harness test at once must not disturb each other: each has
# its own simulators, sockets and temp dirs, and each stops only its own PIDs.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

timeout 300 bash "$srcdir/tests/e2e/harness_test.sh" >"$tmp/a" 2>&1 &
a=$!
timeout 300 bash "$srcdir/tests/e2e/harness_test.sh" >"$tmp/b" 2>&1 &
b=$!
wait "$a"
ra=$?
wait "$b"
rb=$?
for run in a b; do
	rc=$([ "$run" = a ] && echo "$ra" || echo "$rb")
	tap_is "run $run: harness test passes alongside the other" "$rc" 0
	tap_check "run $run: ran checks, none failed" \
		bash -c "grep -q '^ok ' '$tmp/$run' && ! grep -q '^not ok' '$tmp/$run'"
	[ "$rc" -eq 0 ] || tap_diag "$(grep -v '^ok' "$tmp/$run" | tail -n 20)"
done
tap_done
