#!/bin/bash
# An engine that refuses the fabric does not leave it down: the shipped
# contrib/loom.yaml (routing: ftree) brings up a fat tree with ftree and a
# torus and a random fabric with the engine after it (auto's: vlayered), says
# in the log which engine refused, why, and which one routed; loom route says
# the same, and its --json names both. The tables read back with dump_lfts
# reach every pair with no loop, and equal the dry run's, whose channel
# dependencies are acyclic on every VL the engine uses (one VL: checked on
# the read-back itself). --fallback none keeps
# the strict behaviour (ftree_test.sh). The same YAML gives the same tables
# on every run: the choice depends on the fabric and the file only.
# The step to updn: vlayered is short of VLs when its budget is one VL
# (loom.yaml routing vls, or a port's VLCap) and over half the CA LIDs take
# its one-root up/down escape (measured: 3-level fat trees, where updn's
# busiest link is 2-4.5x lower; tori and random graphs send none there and
# vlayered beats updn on them, so it routes them). A 3-level tree with one
# miscabled core link and vls: 1 goes ftree (refused: not a fat tree) ->
# vlayered (refused: short of VLs) -> updn under auto; the log and loom
# route --json name both refusals and updn, and the read-back tables have no
# loop and no credit loop. vlayered alone with fallback: none refuses it as
# ftree alone refuses a torus: no SUBNET UP, no table. A torus with vls: 1
# is not short: vlayered routes it on one VL, checked on the read-back.
# loom status names both refusals; [ftree, updn] shows updn standing in too.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'
topos=$srcdir/tests/topologies
yaml=$srcdir/contrib/loom.yaml

i=0
for run in "ft2-k8 ftree" "torus2d-4x4 vlayered" "random-16-d4 vlayered"; do
	read -r name want <<<"$run"
	topo=$topos/$name.topo
	i=$((i + 1))
	if ! sim_start "f$i" "$topo"; then
		tap_check "$name: simulator starts" false
		continue
	fi
	rc=0
	sim_run "f$i" --timeout 120 "$LOOMD" --once -c "$yaml" --state-dir "$tmp/s$i" \
		>"$tmp/$i.log" 2>&1 || rc=$?
	tap_is "$name: loomd --once with contrib/loom.yaml exits 0" "$rc" 0 ||
		tap_diag "$(tail -n 5 "$tmp/$i.log")"
	tap_check "$name: loomd names the engines it will try" \
		grep -q 'routing ftree,vlayered,updn, LMC' "$tmp/$i.log"
	if [ "$want" = ftree ]; then
		tap_check "$name: a fat tree: no engine refused it" \
			bash -c "! grep -q 'refused by' '$tmp/$i.log'"
	else
		tap_check "$name: the log says ftree refused it, why, and that $want routed it" \
			grep -q "routing: refused by ftree: not a fat tree: .*; routed with $want" "$tmp/$i.log" ||
			tap_diag "$(grep routing "$tmp/$i.log")"
	fi
	sim_run "f$i" ibnetdiscover >"$tmp/$i.ibnd" 2>/dev/null
	sim_run "f$i" dump_lfts >"$tmp/$i.lfts" 2>/dev/null
	acyclic=
	[ "$want" = ftree ] && acyclic=--acyclic # one VL: its CDG is the whole story
	"$LOOM" verify $acyclic "$tmp/$i.ibnd" "$tmp/$i.lfts" >"$tmp/$i.verify" 2>&1
	tap_is "$name: read-back tables reach every pair, no loop${acyclic:+, no credit loop}" "$?" 0 ||
		tap_diag "$(tail -n 8 "$tmp/$i.verify")"
	"$LOOM" route --engine ftree --json --guid2lid "$tmp/s$i/guid2lid" "$topo" \
		>"$tmp/$i.json" 2>"$tmp/$i.err"
	tap_check "$name: loom route --json: $want routed it, why the others refused, no credit loop on any VL" \
		python3 -c "
import json, sys
r = json.load(open('$tmp/$i.json'))
assert r['engine'] == '$want', r['engine']
ref = [x['engine'] for x in r['refused']]
assert ref == ([] if '$want' == 'ftree' else ['ftree']), ref
assert all('not a fat tree' in x['why'] for x in r['refused']), r['refused']
assert r['unreachable'] == 0 and r['loops'] == 0, r
assert r['vls'] and all(v['acyclic'] for v in r['vls']), r['vls']
"
	"$LOOM" route --canon --engine ftree --guid2lid "$tmp/s$i/guid2lid" "$topo" >"$tmp/$i.dry" 2>/dev/null
	"$LOOM" verify --normalize "$tmp/$i.ibnd" "$tmp/$i.lfts" >"$tmp/$i.fabric" 2>/dev/null
	tap_check "$name: loom route prints the tables loomd programmed" \
		diff -q "$tmp/$i.fabric" "$tmp/$i.dry"
	# A second SM with the same file plans the same tables.
	rc=0
	sim_run "f$i" --timeout 120 "$LOOMD" --once -c "$yaml" --state-dir "$tmp/s$i" \
		>"$tmp/$i.log2" 2>&1 || rc=$?
	tap_check "$name: a second run sends no LFT block (the same choice, the same tables)" \
		grep -q '(0 LFT blocks' "$tmp/$i.log2" || tap_diag "$(grep sweep "$tmp/$i.log2")"
	sim_stop "f$i"
done

# readback_ok SIM TAG WHAT: the tables SIM holds, read back with dump_lfts,
# reach every pair with no loop and no credit loop (one VL: the read-back's
# channel dependencies are the whole story).
readback_ok() {
	sim_run "$1" ibnetdiscover >"$tmp/$2.ibnd" 2>/dev/null
	sim_run "$1" dump_lfts >"$tmp/$2.lfts" 2>/dev/null
	"$LOOM" verify --acyclic "$tmp/$2.ibnd" "$tmp/$2.lfts" >"$tmp/$2.verify" 2>&1
	tap_is "$3: read-back tables reach every pair, no loop, no credit loop" "$?" 0 ||
		tap_diag "$(tail -n 8 "$tmp/$2.verify")"
}

# daemon_up SIM YAML TAG: loomd -c YAML on SIM in the background ($bg), until
# loom status says subnet UP ($up set; bounded) into $tmp/TAG.status.
daemon_up() {
	sim_run "$1" --timeout 120 --out "$tmp/$3.log" "$LOOMD" -c "$2" \
		--state-dir "$tmp/s$3" --control "$tmp/$3.sock" &
	bg=$!
	up=
	for _ in $(seq 300); do
		"$LOOM" status --control "$tmp/$3.sock" >"$tmp/$3.status" 2>/dev/null &&
			grep -q '^subnet: UP$' "$tmp/$3.status" && up=1 && break
		sleep 0.1
	done
}

# A torus with one VL is not short of VLs: no LID takes the escape tree
# (its routes bend to the escape's order and are balanced; its busiest link
# is below updn's), so vlayered routes it, updn after it is not reached, and
# the tables on that one VL have no credit loop.
topo=$topos/torus2d-4x4.topo
printf 'sm:\n  routing:\n    engine: [vlayered, updn]\n    fallback: none\n    vls: 1\n' \
	>"$tmp/vl1.yaml"
if sim_start v1 "$topo"; then
	rc=0
	sim_run v1 --timeout 120 "$LOOMD" --once -c "$tmp/vl1.yaml" --state-dir "$tmp/sv1" \
		>"$tmp/vl1.log" 2>&1 || rc=$?
	tap_is "vls: 1, [vlayered, updn] on a torus: loomd --once exits 0" "$rc" 0 ||
		tap_diag "$(tail -n 5 "$tmp/vl1.log")"
	tap_check "... it names the two engines, and none refused the torus" \
		bash -c "grep -q 'routing vlayered,updn, LMC' '$tmp/vl1.log' &&
			! grep -q 'refused by' '$tmp/vl1.log'"
	readback_ok v1 vl1 "vls: 1"
	"$LOOM" route --config "$tmp/vl1.yaml" --json --guid2lid "$tmp/sv1/guid2lid" "$topo" \
		>"$tmp/vl1.json" 2>/dev/null
	tap_check "... loom route --config: vlayered routed it on one VL, none on the escape" \
		python3 -c "
import json
r = json.load(open('$tmp/vl1.json'))
assert r['engine'] == 'vlayered' and r['refused'] == [], (r['engine'], r['refused'])
assert [v['vl'] for v in r['vls']] == [0] and r['vls'][0]['acyclic'], r['vls']
assert r['escape']['lids'] == 0, r['escape']
"
	sim_stop v1
else
	tap_check "vls: 1: simulator starts" false
fi

# Short of VLs: a 3-level fat tree (k=8, three pods: 40 switches, 48 hosts,
# 88 LIDs: not a multiple of 64, which dump_lfts would not show) with one
# cable between two cores, which ftree refuses. With vls: 1 every CA LID
# would take vlayered's escape, so auto goes on to updn.
python3 "$srcdir/contrib/topogen.py" fattree3 -k 8 --pods 3 -o "$tmp/ft3p3.topo"
python3 - "$tmp/ft3p3.topo" "$tmp/ft3x.topo" <<'PY'
import sys
s = open(sys.argv[1]).read()
for a, b in (("core0001", "core0002"), ("core0002", "core0001")):
    head = 'Switch\t8 "%s"\n' % a
    assert head in s, a
    s = s.replace(head, head + '[8]\t"%s"[8]\n' % b, 1)
open(sys.argv[2], "w").write(s)
PY
topo=$tmp/ft3x.topo
printf 'sm:\n  routing:\n    vls: 1\n' >"$tmp/short.yaml"
if sim_start s1 "$topo"; then
	rc=0
	sim_run s1 --timeout 120 "$LOOMD" --once -c "$tmp/short.yaml" --state-dir "$tmp/ss1" \
		>"$tmp/short.log" 2>&1 || rc=$?
	tap_is "vls: 1, auto, a miscabled 3-level tree: loomd --once exits 0" "$rc" 0 ||
		tap_diag "$(tail -n 5 "$tmp/short.log")"
	tap_check "... the log: ftree refused it (not a fat tree), vlayered (short of VLs), updn routed" \
		grep -q "routing: refused by ftree: not a fat tree: .*; vlayered: short of VLs: with 1 VL, .*; routed with updn" \
		"$tmp/short.log" || tap_diag "$(grep routing "$tmp/short.log")"
	readback_ok s1 short "short of VLs, updn"
	"$LOOM" route --config "$tmp/short.yaml" --json --guid2lid "$tmp/ss1/guid2lid" "$topo" \
		>"$tmp/short.json" 2>/dev/null
	tap_check "... loom route --json: updn, after ftree's and vlayered's refusals, no credit loop" \
		python3 -c "
import json
r = json.load(open('$tmp/short.json'))
assert r['engine'] == 'updn', r['engine']
ref = [(x['engine'], x['why'].split(':')[0]) for x in r['refused']]
assert ref == [('ftree', 'not a fat tree'), ('vlayered', 'short of VLs')], ref
assert r['unreachable'] == 0 and r['loops'] == 0 and r['cdg']['acyclic'], r
"
	"$LOOM" route --canon --config "$tmp/short.yaml" --guid2lid "$tmp/ss1/guid2lid" "$topo" \
		>"$tmp/short.dry" 2>/dev/null
	"$LOOM" verify --normalize "$tmp/short.ibnd" "$tmp/short.lfts" >"$tmp/short.fabric" 2>/dev/null
	tap_check "... loom route prints the tables loomd programmed" \
		diff -q "$tmp/short.fabric" "$tmp/short.dry"
	daemon_up s1 "$tmp/short.yaml" shortd
	tap_check "... loom status: routed with updn, refused by ftree and by vlayered, and why" \
		grep -q '^routing: updn; refused by ftree: not a fat tree: .*; vlayered: short of VLs: .*avoid it)$' \
		"$tmp/shortd.status" || tap_diag "$(grep routing "$tmp/shortd.status")"
	sim_signal s1 TERM
	wait "$bg"
	sim_stop s1
else
	tap_check "short of VLs: simulator starts" false
fi
# Two VLs are enough for it: vlayered routes it, none on the escape.
printf 'sm:\n  routing:\n    vls: 2\n' >"$tmp/two.yaml"
"$LOOM" route --config "$tmp/two.yaml" --json "$topo" >"$tmp/two.json" 2>/dev/null
tap_check "vls: 2 on that tree: vlayered routes it, no CA LID on its escape" \
	python3 -c "
import json
r = json.load(open('$tmp/two.json'))
assert r['engine'] == 'vlayered' and r['escape']['host_lids'] == 0, (r['engine'], r.get('escape'))
assert all(v['acyclic'] for v in r['vls']), r['vls']
"
# vlayered alone, strict: refused as ftree alone refuses a torus (ftree_test.sh).
printf 'sm:\n  routing:\n    engine: vlayered\n    fallback: none\n    vls: 1\n' >"$tmp/vstrict.yaml"
rc=0
"$LOOM" route --config "$tmp/vstrict.yaml" "$topo" >"$tmp/vstrict.out" 2>"$tmp/vstrict.err" || rc=$?
tap_is "engine: vlayered, fallback: none, vls: 1 on that tree: loom route exits 2" "$rc" 2
tap_check "... says vlayered cannot route it, short of VLs, and prints no table" \
	bash -c "grep -q 'vlayered cannot route it: short of VLs: ' '$tmp/vstrict.err' &&
		test ! -s '$tmp/vstrict.out'"
if sim_start s2 "$topo"; then
	rc=0
	sim_run s2 --timeout 120 "$LOOMD" --once -c "$tmp/vstrict.yaml" --state-dir "$tmp/ss2" \
		>"$tmp/vstrict.log" 2>&1 || rc=$?
	tap_check "... loomd --once with it fails (exit $rc)" test "$rc" -ne 0
	tap_check "... and says why" grep -q 'routing (vlayered): short of VLs: ' "$tmp/vstrict.log" ||
		tap_diag "$(grep routing "$tmp/vstrict.log")"
	sim_run s2 dump_lfts >"$tmp/vstrict.lfts" 2>/dev/null
	tap_check "... and programmed no table" test "$(grep -c '^0x' "$tmp/vstrict.lfts")" -eq 0
	sim_stop s2
else
	tap_check "strict vlayered: simulator starts" false
fi

# updn as the stand-in in loom status: the engine before it refuses the torus
# (ftree: not a fat tree), updn routes it. The daemon's log, loom status and
# the tables read back all say so.
printf 'sm:\n  routing:\n    engine: [ftree, updn]\n    fallback: none\n' >"$tmp/up.yaml"
if sim_start u1 "$topo"; then
	daemon_up u1 "$tmp/up.yaml" up
	tap_check "[ftree, updn] on a torus: loomd brings it up (loom status: subnet UP)" test -n "$up" ||
		tap_diag "$(tail -n 5 "$tmp/up.log")"
	tap_check "... loom status: routed with updn, ftree refused it and why" \
		grep -q '^routing: updn; refused by ftree: not a fat tree: ' "$tmp/up.status" ||
		tap_diag "$(grep routing "$tmp/up.status")"
	tap_check "... the log: refused by ftree, routed with updn" \
		grep -q 'routing: refused by ftree: not a fat tree: .*; routed with updn' "$tmp/up.log" ||
		tap_diag "$(grep routing "$tmp/up.log")"
	readback_ok u1 up "[ftree, updn]"
	sim_signal u1 TERM
	wait "$bg"
	sim_stop u1
else
	tap_check "[ftree, updn]: simulator starts" false
fi

# The dry run alone, without a fabric: the same choice and words.
"$LOOM" route --engine ftree "$topos/torus2d-4x4.topo" >/dev/null 2>"$tmp/dry.err"
tap_is "loom route --engine ftree on a torus: exit 0 (vlayered routes it)" "$?" 0
tap_check "... and says ftree refused it and vlayered routed it" \
	grep -q 'refused by ftree: not a fat tree: .*; routed with vlayered' "$tmp/dry.err"
"$LOOM" route --config "$yaml" "$topos/torus2d-4x4.topo" >/dev/null 2>"$tmp/conf.err"
tap_is "loom route --config contrib/loom.yaml on a torus: exit 0" "$?" 0
tap_check "... the file's engine (ftree) refused it, vlayered routed it" \
	grep -q 'refused by ftree: not a fat tree: .*; routed with vlayered' "$tmp/conf.err"
printf 'sm:\n  routing:\n    engine: ftree\n    fallback: none\n' >"$tmp/strict.yaml"
"$LOOM" route --config "$tmp/strict.yaml" "$topos/torus2d-4x4.topo" >/dev/null 2>"$tmp/strict.err"
tap_is "loom.yaml fallback: none: the torus is refused (exit 2)" "$?" 2
"$LOOM" route --engine nosuch,ftree "$topos/ft2-k8.topo" >/dev/null 2>"$tmp/bad.err"
tap_is "an unknown engine in the list: exit 1" "$?" 1
tap_check "... naming it" grep -q "'nosuch': no such engine" "$tmp/bad.err"
"$LOOM" route --engine auto --fallback none --json "$topos/ft2-k8.topo" 2>/dev/null >"$tmp/auto.json"
tap_check "--engine auto on a fat tree: ftree" \
	python3 -c "import json; assert json.load(open('$tmp/auto.json'))['engine'] == 'ftree'"
tap_done
