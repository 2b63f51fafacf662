#!/bin/bash
# loom route --keep: the dry run of what loomd does after an event, through
# the same plan_build(). ft2-k8 routed, then one spine-to-leaf link taken out
# of the file: with --keep (the tables before, as dump_lfts text) the tables
# printed keep what still holds, reach every pair with no loop and no credit
# loop (the route checker), load the busiest link no more than the fresh
# tables do, and change fewer entries against the tables
# before than the fresh ones would; stderr says they were kept. Tables
# kept on the fabric they were made for are those tables themselves. A
# --keep file that cannot be read is exit 2.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
topo=$srcdir/tests/topologies/ft2-k8.topo
py() { "${PYTHON3:-python3}" -c "import json, sys; r = json.load(open(sys.argv[1])); print($2)" "$1"; }

# The same fabric without the link spine001 port 1 <-> leaf001 port 5.
grep -vE '^\[1\][[:space:]]+"leaf001"\[5\]|^\[5\][[:space:]]+"spine001"\[1\]' "$topo" >"$tmp/cut.topo"
tap_is "the cut fabric lost two lines (both ends of the link)" \
	"$(($(wc -l <"$topo") - $(wc -l <"$tmp/cut.topo")))" 2

"$LOOM" route "$topo" >"$tmp/before.lfts" 2>/dev/null
"$LOOM" route --canon "$topo" >"$tmp/before.canon" 2>/dev/null
"$LOOM" route --canon "$tmp/cut.topo" >"$tmp/fresh.canon" 2>/dev/null
"$LOOM" route --json "$tmp/cut.topo" >"$tmp/fresh.json" 2>/dev/null
rc=0
"$LOOM" route --keep "$tmp/before.lfts" "$tmp/cut.topo" >"$tmp/kept.lfts" 2>"$tmp/kept.err" || rc=$?
tap_is "--keep routes the cut fabric (exit 0)" "$rc" 0 || tap_diag "$(cat "$tmp/kept.err")"
tap_check "stderr says the routes were kept" grep -q 'kept where they still hold' "$tmp/kept.err" ||
	tap_diag "$(cat "$tmp/kept.err")"
"$LOOM" route --keep "$tmp/before.lfts" --canon "$tmp/cut.topo" >"$tmp/kept.canon" 2>/dev/null
"$LOOM" route --keep "$tmp/before.lfts" --json "$tmp/cut.topo" >"$tmp/kept.json" 2>/dev/null
# The route checker (routing/check.c, apart from the engines) on the kept tables.
tap_is "the kept tables reach every pair, no loop, no credit loop (--json)" \
	"$(py "$tmp/kept.json" 'r["unreachable"] == 0 and r["loops"] == 0 and r["cdg"]["acyclic"]')" True
kmax=$(py "$tmp/kept.json" 'r["load"]["all_to_all"]["max"]')
fmax=$(py "$tmp/fresh.json" 'r["load"]["all_to_all"]["max"]')
tap_check "busiest link no busier than the fresh tables' ($kmax vs $fmax)" test "$kmax" -le "$fmax"
kd=$(diff "$tmp/before.canon" "$tmp/kept.canon" | grep -c '^>')
fd=$(diff "$tmp/before.canon" "$tmp/fresh.canon" | grep -c '^>')
tap_check "fewer entries changed than the fresh tables change ($kd vs $fd)" test "$kd" -lt "$fd"
tap_check "and some did change (the routes over the lost link)" test "$kd" -gt 0

# Nothing lost: the tables before stand as they are.
"$LOOM" route --keep "$tmp/before.lfts" --canon "$topo" >"$tmp/same.canon" 2>/dev/null
tap_check "on the fabric they were made for, --keep prints the tables before" \
	diff -u "$tmp/before.canon" "$tmp/same.canon"

rc=0
"$LOOM" route --keep "$tmp/nonexistent.lfts" "$topo" >/dev/null 2>"$tmp/missing.err" || rc=$?
tap_is "a --keep file that cannot be read: exit 2" "$rc" 2
tap_check "and stderr names it" grep -q 'nonexistent.lfts' "$tmp/missing.err"
tap_done
