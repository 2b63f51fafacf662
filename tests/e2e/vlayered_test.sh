#!/bin/bash
# The vlayered engine on ibsim, judged from the fabric: loomd --routing
# vlayered brings tori, a dragonfly and a random graph up; dump_lfts reads
# back exactly the tables the dry run prints; every switch port pair and
# every CA reads back (smpquery sl2vl) the SL-to-VL map the engine's routes
# need, and OperationalVLs covers its VLs; the checker, given those SLs and
# that map, finds every pair delivered and no credit loop on any VL. The
# VLs used are compared with what OpenSM's dfsssp needs on the same file.
# A loom.yaml asking for another SL-to-VL map is overruled and told so.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
PYTHON3=${PYTHON3:-python3}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'
topos=$srcdir/tests/topologies

"$PYTHON3" "$srcdir/contrib/topogen.py" torus2d -x 6 -y 6 -o "$tmp/torus6x6.topo"
fabrics=("$tmp/torus6x6.topo" "$topos/torus3d-3x3x3.topo" "$topos/dragonfly-small.topo"
	"$topos/random-16-d4.topo" "$topos/ft2-k8.topo")

# jget FILE EXPR: a value from a JSON report (EXPR in Python, r = the report).
jget() { "$PYTHON3" -c "import json, sys; r = json.load(open(sys.argv[1])); print($2)" "$1"; }

# The SL2VL rows a port reads back that differ from WANT ("| 0| 1|...|"):
# a switch's for one output port (every input port's row but its own: a
# packet never leaves by the port it came in, and loomd leaves that row
# alone), or a CA port's. No row at all counts as one bad.
sl2vl_bad() { # NAME WANT LID [OUT]
	sim_run "$1" smpquery sl2vl "${@:3}" 2>/dev/null |
		awk -v w="$2" -v sw="${4:+1}" '/^ports:/ { i = $3 + 0; o = $5 + 0
			row = $0; sub(/^[^|]*/, "", row)
			if (!sw || i != o) { bad += row != w; n++ } }
			END { print n ? bad + 0 : 1 }'
}

i=0
for topo in "${fabrics[@]}"; do
	i=$((i + 1))
	name=$(basename "$topo" .topo)
	if ! sim_start "v$i" "$topo"; then
		tap_check "$name: simulator starts" false
		continue
	fi
	rc=0
	sim_run "v$i" "$LOOMD" --once --routing vlayered --state-dir "$tmp/s$i" \
		>"$tmp/$name.log" 2>&1 || rc=$?
	tap_is "$name: loomd --once --routing vlayered exits 0" "$rc" 0 ||
		tap_diag "$(tail -n 8 "$tmp/$name.log")"
	sim_run "v$i" ibnetdiscover >"$tmp/$name.ibnd" 2>/dev/null
	sim_run "v$i" dump_lfts >"$tmp/$name.lfts" 2>/dev/null
	"$LOOM" verify --normalize "$tmp/$name.ibnd" "$tmp/$name.lfts" >"$tmp/$name.fabric" 2>/dev/null
	"$LOOM" route --engine vlayered --canon --guid2lid "$tmp/s$i/guid2lid" "$topo" \
		>"$tmp/$name.dry" 2>/dev/null
	tap_check "$name: dump_lfts reads back the dry run's tables" \
		diff -q "$tmp/$name.fabric" "$tmp/$name.dry"

	"$LOOM" route --engine vlayered --json --guid2lid "$tmp/s$i/guid2lid" "$topo" \
		>"$tmp/$name.json" 2>/dev/null
	vls=$(jget "$tmp/$name.json" 'r["vls_used"]')
	tap_check "$name: every pair delivered, no loop, no credit loop on any of its $vls VLs" \
		test "$(jget "$tmp/$name.json" 'r["unreachable"] == 0 and r["loops"] == 0 and r["cdg"]["acyclic"] and all(v["acyclic"] for v in r["vls"])')" = True
	want=$(jget "$tmp/$name.json" '"|" + "|".join("%2d" % v for v in r["sl2vl"]) + "|"')

	# Every output port of six switches (all their input ports' rows), and
	# eight CAs: every switch would cost a minute of smpquery here. Not out
	# of port 0: ibsim's switches have a base port 0, which has no SL-to-VL
	# table of its own (IBA 14.2.5.8; plan/qos.h qos_has_data_vls), and ibsim
	# answers for one anyway from storage loomd does not program.
	bad=0 rows=0
	while read -r lid nports; do
		for ((o = 1; o <= nports; o++)); do
			n=$(sl2vl_bad "v$i" "$want" "$lid" "$o")
			bad=$((bad + n))
			rows=$((rows + 1))
		done
	done < <(awk '/^Switch/ { n = $2; if (match($0, / lid [0-9]+/)) print substr($0, RSTART + 5, RLENGTH - 5), n }' "$tmp/$name.ibnd" | head -n 6)
	tap_is "$name: every switch port pair reads back SL->VL $want ($rows output ports)" "$bad" 0
	bad=0
	for lid in $(awk '/^Ca/ { ca = 1; next } /^$/ { ca = 0 } ca && match($0, / lid [0-9]+/) { print substr($0, RSTART + 5, RLENGTH - 5) }' "$tmp/$name.ibnd" | sort -u | head -n 8); do
		bad=$((bad + $(sl2vl_bad "v$i" "$want" "$lid")))
	done
	tap_is "$name: CAs read back the same map" "$bad" 0
	swlid=$(awk '/^Switch/ && match($0, / lid [0-9]+/) { print substr($0, RSTART + 5, RLENGTH - 5); exit }' "$tmp/$name.ibnd")
	opv=$(sim_run "v$i" smpquery portinfo "$swlid" 1 2>/dev/null | sed -n 's/^OperVLs:\.*VL0-//p')
	tap_check "$name: OperationalVLs cover the $vls VLs (VL0-${opv:-?})" test "$((${opv:-0} + 1))" -ge "$vls"
	sim_stop "v$i"

	# OpenSM's dfsssp on the same file: the VLs it needs.
	if sim_start "d$i" "$topo"; then
		if sim_opensm "d$i" -R dfsssp >/dev/null 2>&1; then
			need=$(sed -n 's/.*Virtual Lanes needed: \([0-9]*\).*/\1/p' "${SIM_OSM_LOG[d$i]}" | tail -n 1)
			if [ -n "$need" ] && ! grep -q 'ucast_mgr_route: dfsssp: cannot' "${SIM_OSM_LOG[d$i]}"; then
				tap_check "$name: $vls VLs, no more than OpenSM dfsssp's $need" test "$vls" -le "$need"
			else
				tap_diag "$name: OpenSM dfsssp did not route it (nothing to compare)"
			fi
		else
			tap_diag "$name: OpenSM did not come up with dfsssp"
		fi
		sim_stop "d$i"
	fi
done

# The VL budget: the 6x6 torus takes 3 VLs when it may; with 2 or 1 it stays
# within them, every pair still delivered and every VL acyclic.
for b in 2 1; do
	"$LOOM" route --engine vlayered --vls "$b" --json "$tmp/torus6x6.topo" >"$tmp/b$b.json" 2>/dev/null
	tap_check "torus6x6, --vls $b: at most $b VLs, every pair delivered, no credit loop" \
		test "$(jget "$tmp/b$b.json" 'r["vls_used"] <= '"$b"' and r["unreachable"] == 0 and r["loops"] == 0 and r["cdg"]["acyclic"]')" = True
done

# A loom.yaml that asks for its own SL-to-VL map: the engine's wins, and
# loomd says so.
cat >"$tmp/loom.yaml" <<'YAML'
qos:
  ca:
    sl2vl: [1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0]
YAML
topo=$tmp/torus6x6.topo
if sim_start c "$topo"; then
	rc=0
	sim_run c "$LOOMD" --once -c "$tmp/loom.yaml" --routing vlayered --state-dir "$tmp/sc" \
		>"$tmp/conflict.log" 2>&1 || rc=$?
	tap_is "a conflicting qos sl2vl: loomd still comes up" "$rc" 0
	tap_check "... and says the engine's map wins" \
		grep -q 'qos: ca: sl2vl not applied: the routing engine spreads routes over' "$tmp/conflict.log"
	"$LOOM" route --engine vlayered --json "$topo" >"$tmp/c.json" 2>/dev/null
	want=$(jget "$tmp/c.json" '"|" + "|".join("%2d" % v for v in r["sl2vl"]) + "|"')
	h1=$(awk '$1 == "0x0002c90400000101" { print $2 }' "$tmp/sc/guid2lid" 2>/dev/null)
	tap_is "... and h1's port holds the engine's map" "$(sl2vl_bad c "$want" "$((h1))")" 0
	sim_stop c
fi
tap_done
