#!/bin/bash
# One routing code path: `loom route` on a topology file prints the tables
# that loomd programs into the simulated fabric built from the same file, as
# dump_lfts reads them back (both in loom verify --normalize's canonical form).
# Also with --guid2lid pointing at the state loomd left, and with LMC 2.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'

topos=$srcdir/tests/topologies
runs=(
	"$topos/ft2-k8.topo 0"
	"$topos/ft3-k4.topo 0"
	"$topos/torus2d-4x4.topo 0"
	"$topos/random-16-d4.topo 0"
	"$topos/ft2-k8-degraded.topo 0"
	"/usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca2port 0"
	"$topos/ft2-k8.topo 2"
)

i=0
for run in "${runs[@]}"; do
	read -r topo lmc <<<"$run"
	i=$((i + 1))
	tag="$(basename "$topo") lmc $lmc"
	if ! sim_start "r$i" "$topo"; then
		tap_check "$tag: simulator starts" false
		continue
	fi
	rc=0
	sim_run "r$i" "$LOOMD" --once --lmc "$lmc" --state-dir "$tmp/s$i" >"$tmp/$i.log" 2>&1 || rc=$?
	tap_is "$tag: loomd --once exits 0" "$rc" 0 || tap_diag "$(tail -n 5 "$tmp/$i.log")"
	sim_run "r$i" ibnetdiscover >"$tmp/$i.ibnd" 2>/dev/null
	sim_run "r$i" dump_lfts >"$tmp/$i.lfts" 2>/dev/null
	"$LOOM" verify --normalize "$tmp/$i.ibnd" "$tmp/$i.lfts" >"$tmp/$i.fabric" 2>"$tmp/$i.err"
	"$LOOM" route --canon --lmc "$lmc" "$topo" >"$tmp/$i.dry" 2>>"$tmp/$i.err"
	tap_check "$tag: loom route prints what loomd programmed (dump_lfts read-back)" \
		diff -u "$tmp/$i.fabric" "$tmp/$i.dry" || tap_diag "$(head -n 20 "$tmp/$i.err")"
	"$LOOM" route --canon --lmc "$lmc" --guid2lid "$tmp/s$i/guid2lid" "$topo" >"$tmp/$i.dry2" 2>/dev/null
	tap_check "$tag: the same with --guid2lid (loomd's state file)" \
		diff -u "$tmp/$i.fabric" "$tmp/$i.dry2"
	tap_check "$tag: the tables are not empty" test "$(grep -c '^0x' "$tmp/$i.dry")" -gt 10
	sim_stop "r$i"
done

# --check's verdicts, and the file the issue calls for.
"$LOOM" route --engine minhop --check "$topos/ft2-k8.topo" >/dev/null 2>"$tmp/check.err"
tap_is "loom route --check on a fat tree (min-hop): exit 0" "$?" 0
"$LOOM" route --engine minhop --check "$topos/torus2d-4x4.topo" >/dev/null 2>"$tmp/check.err"
tap_is "loom route --check on a torus (min-hop has credit loops): exit 1" "$?" 1
tap_check "... and says so" grep -q 'credit loops (one VL): yes' "$tmp/check.err"
"$LOOM" route --check "$topos/torus2d-4x4.topo" >/dev/null 2>"$tmp/auto.err"
tap_is "loom route --check on a torus with the default engines (auto: vlayered): exit 0" "$?" 0
"$LOOM" route --json "$topos/ft2-k8.topo" >"$tmp/r.json" 2>/dev/null
tap_check "loom route --json is JSON with the report's fields" python3 -c "
import json, sys
r = json.load(open('$tmp/r.json'))
assert r['pairs'] == 32 * 31 and r['unreachable'] == 0 and r['loops'] == 0, r
assert r['cdg']['acyclic'] and r['load']['all_to_all']['max'] >= r['load']['all_to_all']['ideal']
"
"$LOOM" route --engine nosuch "$topos/ft2-k8.topo" >/dev/null 2>"$tmp/e.err"
tap_is "an unknown engine: exit 1" "$?" 1
printf 'Switch 4 "broken\n' >"$tmp/bad.topo"
"$LOOM" route "$tmp/bad.topo" >"$tmp/bad.out" 2>"$tmp/bad.err"
tap_is "an unreadable topology: exit 2" "$?" 2
tap_check "... with FILE:LINE on stderr, nothing on stdout" \
	bash -c "grep -q '^$tmp/bad.topo:1' '$tmp/bad.err' && ! test -s '$tmp/bad.out'"
tap_done
