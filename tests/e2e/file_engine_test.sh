#!/bin/bash
# The file engine: tables from dump_lfts text, programmed as written. loom
# route --engine file reproduces the tables it is given; an edited entry is
# programmed as edited (read back with dump_lfts and ibtracert); a switch the
# file leaves out is reported, its LIDs drop and --check says so; without a
# file the engine refuses with what to give it.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'
topo=$srcdir/tests/topologies/ft2-k8.topo

# The dry run: minhop's tables in, the same tables out.
"$LOOM" route "$topo" >"$tmp/minhop.lfts" 2>/dev/null
"$LOOM" route --canon "$topo" >"$tmp/minhop.canon" 2>/dev/null
"$LOOM" route --engine file --lfts "$tmp/minhop.lfts" --canon "$topo" >"$tmp/file.canon" 2>"$tmp/file.err"
tap_is "loom route --engine file: exit 0" "$?" 0 || tap_diag "$(cat "$tmp/file.err")"
tap_check "... prints the tables it was given" diff -u "$tmp/minhop.canon" "$tmp/file.canon"
tap_check "... and says where they came from" grep -q "loaded 12 switches' tables from" "$tmp/file.err"

# An operator's edit: leaf001 sends h00032's LID (the last host) out of
# another uplink than minhop chose.
lid=$(sed -nE "s/^(0x[0-9a-f]+) [0-9]+ : \(Channel Adapter .*'h00032'\)$/\1/p" "$tmp/minhop.lfts" | head -n 1)
read -r block <<<"$(grep -n '^Unicast.*leaf001' "$tmp/minhop.lfts" | head -n 1 | cut -d: -f1)"
old=$(awk -v b="$block" -v l="$lid" 'NR > b && $1 == l { print $2 + 0; exit }' "$tmp/minhop.lfts")
new=$((old == 5 ? 6 : 5))
awk -v b="$block" -v l="$lid" -v p="$(printf %03d "$new")" \
	'NR > b && $1 == l && !done { $2 = p; done = 1 } { print }' "$tmp/minhop.lfts" >"$tmp/edited.lfts"
tap_check "the edit changed one line" test "$(diff "$tmp/minhop.lfts" "$tmp/edited.lfts" | grep -c '^>')" -eq 1
"$LOOM" route --engine file --lfts "$tmp/edited.lfts" --check "$topo" >/dev/null 2>"$tmp/edited.err"
tap_is "loom route --check on the edited tables: still clean" "$?" 0 ||
	tap_diag "$(cat "$tmp/edited.err")"

# Programmed on the simulated fabric as written.
if sim_start f "$topo"; then
	rc=0
	sim_run f "$LOOMD" --once --routing file --lfts "$tmp/edited.lfts" --state-dir "$tmp/s" \
		>"$tmp/loomd.log" 2>&1 || rc=$?
	tap_is "loomd --routing file --lfts: SUBNET UP" "$rc" 0 || tap_diag "$(tail -n 5 "$tmp/loomd.log")"
	sim_run f ibnetdiscover >"$tmp/ibnd" 2>/dev/null
	sim_run f dump_lfts >"$tmp/fabric.lfts" 2>/dev/null
	"$LOOM" verify --normalize "$tmp/ibnd" "$tmp/fabric.lfts" >"$tmp/fabric.canon" 2>/dev/null
	"$LOOM" route --engine file --lfts "$tmp/edited.lfts" --canon "$topo" >"$tmp/edited.canon" 2>/dev/null
	tap_check "dump_lfts reads back exactly the edited tables" diff -u "$tmp/edited.canon" "$tmp/fabric.canon"
	got=$(awk -v l="$lid" '/^Unicast/ { on = /leaf001/; next } on && $1 == l { print $2 + 0 }' \
		"$tmp/fabric.lfts")
	tap_is "leaf001 sends $lid out of port $new, as edited" "$got" "$new"
	src=$(sed -nE "s/^(0x[0-9a-f]+) [0-9]+ : \(Channel Adapter .*'h00001'\)$/\1/p" "$tmp/minhop.lfts" | head -n 1)
	sim_run f ibtracert "$((src))" "$((lid))" >"$tmp/trace" 2>&1
	tap_check "ibtracert from h00001 to h00032 leaves leaf001 by port $new" \
		grep -q "^\[$new\] -> switch .*\"spine" "$tmp/trace" || tap_diag "$(head -n 8 "$tmp/trace")"
	sim_stop f
else
	tap_check "simulator starts" false
fi

# A switch left out of the file: its LIDs drop, and everyone hears of it.
awk '/^Unicast lids .*spine001/ { skip = 1 } /^Unicast lids/ && !/spine001/ { skip = 0 } !skip' \
	"$tmp/minhop.lfts" >"$tmp/partial.lfts"
"$LOOM" route --engine file --lfts "$tmp/partial.lfts" --check "$topo" >/dev/null 2>"$tmp/partial.err"
tap_is "a switch missing from the file: --check exits 1" "$?" 1
tap_check "... and names the switch and what drops" \
	grep -q 'spine001.*no table\|LIDs are not routed from every switch' "$tmp/partial.err" ||
	tap_diag "$(head -n 5 "$tmp/partial.err")"

"$LOOM" route --engine file "$topo" >"$tmp/none.out" 2>"$tmp/none.err"
tap_is "the file engine without --lfts: exit 2" "$?" 2
tap_check "... says what to give it" grep -q 'needs a dump_lfts file' "$tmp/none.err"
tap_done
