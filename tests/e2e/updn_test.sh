#!/bin/bash
# The up/down engine on simulated fabrics: loomd --once --routing updn programs
# a torus, a random graph and a 3-level fat tree; the tables read back with
# dump_lfts, judged by loom verify --acyclic (it follows the LFTs over the
# ibnetdiscover links and shares no code with the engines), deliver every host
# pair with no loop and no credit loop. loom route --engine updn --check agrees
# on the topology file, and prints exactly the tables loomd programmed. The
# min-hop tables of the torus fail the same judge (credit loops): it can fail.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'

topos=$srcdir/tests/topologies
for name in torus2d-4x4 random-16-d4 ft3-k4; do
	topo=$topos/$name.topo
	sim=${name//-/_}
	if ! sim_start "$sim" "$topo"; then
		tap_check "$name: simulator starts" false
		continue
	fi
	rc=0
	sim_run "$sim" --timeout 300 "$LOOMD" --once --routing updn --state-dir "$tmp/$name.state" \
		>"$tmp/$name.log" 2>&1 || rc=$?
	tap_is "$name: loomd --once --routing updn exits 0" "$rc" 0 ||
		tap_diag "$(tail -n 10 "$tmp/$name.log")"
	tap_check "$name: loomd says it routes with updn" grep -q 'routing updn,' "$tmp/$name.log"

	sim_run "$sim" ibnetdiscover >"$tmp/$name.ibnd" 2>/dev/null
	sim_run "$sim" dump_lfts >"$tmp/$name.lfts" 2>/dev/null
	rc=0
	"$LOOM" verify --acyclic "$tmp/$name.ibnd" "$tmp/$name.lfts" >"$tmp/$name.verify" 2>&1 || rc=$?
	tap_is "$name: dump_lfts read-back: every pair, no loop, no credit loop (verify --acyclic)" \
		"$rc" 0 || tap_diag "$(head -n 15 "$tmp/$name.verify")"

	rc=0
	"$LOOM" route --engine updn --check "$topo" >/dev/null 2>"$tmp/$name.check" || rc=$?
	tap_is "$name: loom route --engine updn --check exits 0" "$rc" 0 ||
		tap_diag "$(head -n 15 "$tmp/$name.check")"

	"$LOOM" verify --normalize "$tmp/$name.ibnd" "$tmp/$name.lfts" >"$tmp/$name.fabric" 2>/dev/null
	"$LOOM" route --canon --engine updn "$topo" >"$tmp/$name.dry" 2>/dev/null
	tap_check "$name: loom route --canon --engine updn equals the read-back" \
		diff -u "$tmp/$name.fabric" "$tmp/$name.dry"
	"$LOOM" route --canon --engine updn --guid2lid "$tmp/$name.state/guid2lid" "$topo" \
		>"$tmp/$name.dry2" 2>/dev/null
	tap_check "$name: ... and with --guid2lid (loomd's state file)" \
		diff -u "$tmp/$name.fabric" "$tmp/$name.dry2"
	tap_check "$name: the tables are not empty" test "$(grep -c '^0x' "$tmp/$name.dry")" -gt 10

	if [ "$name" = torus2d-4x4 ]; then
		# Same LIDs (same GUIDs, fresh state), min-hop's tables: the judge says no.
		"$LOOM" route --engine minhop "$topo" >"$tmp/minhop.lfts" 2>/dev/null
		rc=0
		"$LOOM" verify --acyclic "$tmp/$name.ibnd" "$tmp/minhop.lfts" >"$tmp/minhop.verify" 2>&1 ||
			rc=$?
		tap_is "$name: min-hop's tables fail verify --acyclic (credit loops)" "$rc" 1
		tap_check "... and it names a credit loop" grep -qi 'credit loop' "$tmp/minhop.verify"
	fi
	sim_stop "$sim"
done
tap_done
