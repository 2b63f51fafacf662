#!/bin/bash
# The fat-tree engine on simulated fabrics: loomd --once --routing ftree programs
# full and degraded fat trees; the tables read back with dump_lfts are judged by
# loom verify --acyclic --json (it follows the LFTs over the ibnetdiscover links
# and shares no code with the engines): every host pair arrives, nothing loops,
# no credit loop, and on the full trees the busiest link under all-to-all
# carries exactly the least any routing can put there (ft2-k8: the checker's
# ideal, 28; ft3-k4: 14, what a leaf's two uplinks must carry for its two hosts,
# N - k/2, above the ideal 13 = the mean over all links, which 3 levels cannot
# reach), and shift traffic puts one route on a link. loom route --canon
# --engine ftree prints exactly what loomd programmed. A torus is refused by
# both, with the reason.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'

topos=$srcdir/tests/topologies
python3 "$srcdir/contrib/topogen.py" fattree3 -k 8 --degrade 0.2 --keep-connected --seed 2 \
	-o "$tmp/ft3-k8-d20.topo"
# name file lmc all-to-all-max (empty: degraded, no exact number)
runs=(
	"ft2-k8 $topos/ft2-k8.topo 0 28"
	"ft3-k4 $topos/ft3-k4.topo 0 14"
	"ft2-k8-lmc2 $topos/ft2-k8.topo 2 112"
	"ft2-k8-degraded $topos/ft2-k8-degraded.topo 0 -"
	"ft3-k8-d20 $tmp/ft3-k8-d20.topo 0 -"
)

for run in "${runs[@]}"; do
	read -r name topo lmc want <<<"$run"
	sim=${name//-/_}
	if ! sim_start "$sim" "$topo"; then
		tap_check "$name: simulator starts" false
		continue
	fi
	rc=0
	sim_run "$sim" --timeout 300 "$LOOMD" --once --routing ftree --lmc "$lmc" \
		--state-dir "$tmp/$name.state" >"$tmp/$name.log" 2>&1 || rc=$?
	tap_is "$name: loomd --once --routing ftree exits 0" "$rc" 0 ||
		tap_diag "$(tail -n 10 "$tmp/$name.log")"
	tap_check "$name: loomd says it routes with ftree" grep -q 'routing ftree,' "$tmp/$name.log"

	sim_run "$sim" ibnetdiscover >"$tmp/$name.ibnd" 2>/dev/null
	sim_run "$sim" dump_lfts >"$tmp/$name.lfts" 2>/dev/null
	sim_stop "$sim"
	rc=0
	"$LOOM" verify --acyclic --json "$tmp/$name.ibnd" "$tmp/$name.lfts" >"$tmp/$name.json" \
		2>"$tmp/$name.verr" || rc=$?
	tap_is "$name: dump_lfts read-back passes loom verify --acyclic" "$rc" 0 ||
		tap_diag "$(head -c 600 "$tmp/$name.json")" "$(head -n 5 "$tmp/$name.verr")"
	tap_check "$name: every pair arrives, no loop, no credit loop (--json)" python3 -c "
import json, sys
r = json.load(open('$tmp/$name.json'))
assert r['pairs'] > 0 and r['unreachable'] == 0 and r['loops'] == 0, r
assert r['cdg']['acyclic'], r['cdg']
"
	tap_diag "$(python3 -c "
import json
r = json.load(open('$tmp/$name.json'))['load']
a, s = r['all_to_all'], r['shift']
print('all-to-all max %d, ideal %.1f (x%.3f); shift max %d, ideal %.2f'
      % (a['max'], a['ideal'], a['max'] / a['ideal'], s['max'], s['ideal']))
" 2>&1)"
	if [ "$want" != - ]; then
		tap_check "$name: busiest link, all-to-all: $want routes, the least possible; shift: 1" \
			python3 -c "
import json
r = json.load(open('$tmp/$name.json'))['load']
assert r['all_to_all']['max'] == $want, r['all_to_all']
assert r['all_to_all']['max'] >= r['all_to_all']['ideal'], r['all_to_all']
assert r['shift']['max'] == 1, r['shift']
"
	fi
	if [ "$name" = ft2-k8 ]; then
		tap_check "$name: ... which is the checker's ideal" python3 -c "
import json
a = json.load(open('$tmp/$name.json'))['load']['all_to_all']
assert abs(a['max'] - a['ideal']) < 1e-9, a
"
	fi

	rc=0
	"$LOOM" route --engine ftree --lmc "$lmc" --check "$topo" >/dev/null 2>"$tmp/$name.check" ||
		rc=$?
	tap_is "$name: loom route --engine ftree --check exits 0" "$rc" 0 ||
		tap_diag "$(head -n 15 "$tmp/$name.check")"
	"$LOOM" verify --normalize "$tmp/$name.ibnd" "$tmp/$name.lfts" >"$tmp/$name.fabric" 2>/dev/null
	"$LOOM" route --canon --engine ftree --lmc "$lmc" "$topo" >"$tmp/$name.dry" 2>/dev/null
	tap_check "$name: loom route --canon --engine ftree equals the read-back" \
		diff -u "$tmp/$name.fabric" "$tmp/$name.dry"
	"$LOOM" route --canon --engine ftree --lmc "$lmc" --guid2lid "$tmp/$name.state/guid2lid" \
		"$topo" >"$tmp/$name.dry2" 2>/dev/null
	tap_check "$name: ... and with --guid2lid (loomd's state file)" \
		diff -u "$tmp/$name.fabric" "$tmp/$name.dry2"
	tap_check "$name: the tables are not empty" test "$(grep -c '^0x' "$tmp/$name.dry")" -gt 10
done

# Not a tree, and no fallback asked for: refused, never routed some other way.
# (With the default fallback, routing_fallback_test.sh shows vlayered taking over.)
torus=$topos/torus2d-4x4.topo
if sim_start torus "$torus"; then
	rc=0
	sim_run torus --timeout 120 "$LOOMD" --once --routing ftree --fallback none \
		--state-dir "$tmp/torus.state" \
		>"$tmp/torus.log" 2>&1 || rc=$?
	tap_check "torus: loomd --once --routing ftree fails (exit $rc)" test "$rc" -ne 0
	tap_check "torus: ... and says why" grep -q 'routing (ftree): not a fat tree: ' "$tmp/torus.log"
	sim_run torus dump_lfts >"$tmp/torus.lfts" 2>/dev/null
	tap_check "torus: ... and programmed no table" \
		test "$(grep -c '^0x' "$tmp/torus.lfts")" -eq 0
	sim_stop torus
else
	tap_check "torus: simulator starts" false
fi
rc=0
"$LOOM" route --engine ftree --fallback none "$torus" >"$tmp/torus.out" 2>"$tmp/torus.err" || rc=$?
tap_is "torus: loom route --engine ftree exits 2" "$rc" 2
tap_check "torus: ... says it is not a fat tree" \
	grep -q 'ftree cannot route it: not a fat tree: "' "$tmp/torus.err"
tap_check "torus: ... and prints no table" test ! -s "$tmp/torus.out"
tap_done
