#!/bin/bash
# README command 1 ends in contrib/demo.sh: what an operator sees first. It
# runs to the end (exit 0) on the bundled fat tree, loomd gets its own control
# socket (an installed loomd's /run/loom/control is left alone) and loom status
# answers there, sminfo names a master, loom verify judges the tables read back
# ok, and loom route's dry run equals them.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/lib/tap.sh"
out=$(mktemp)
trap 'rm -f "$out"' EXIT

LOOM=${LOOM:-loom} LOOMD=${LOOMD:-loomd} timeout 300 "$srcdir/contrib/demo.sh" >"$out" 2>&1
tap_is "demo.sh: exit 0" "$?" 0
tap_check "loomd reached SUBNET UP" grep -q 'sweep 1 (heavy): .*SUBNET UP' "$out"
tap_check "loomd listened on a control socket of its own, not /run/loom/control" \
	grep -qE 'control socket /[^ ]+/control: listening' "$out"
tap_check "... not the default one" bash -c "! grep -q 'control socket /run/loom/control' '$out'"
tap_check "loom status: master, subnet UP" \
	bash -c "grep -q '^SM: master, ' '$out' && grep -q '^subnet: UP$' '$out'"
tap_check "sminfo: a master" grep -q 'SMINFO_MASTER' "$out"
tap_check "loom verify: result ok" grep -q '^result: ok$' "$out"
tap_check "loom route's dry run equals the fabric's tables" grep -q "loom route's tables equal the fabric's" "$out"
tap_check "loomd stopped cleanly" grep -q '^loomd exited cleanly$' "$out"
tap_diag "$(tail -n 5 "$out")"
tap_done
