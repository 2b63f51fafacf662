#!/bin/bash
# loom health --only routes on ft2-k8, judged against infiniband-diags
# (dump_lfts, ibnetdiscover) and `loom verify` on their text:
#   - brought up by loomd, and by OpenSM: exit 0, no finding; loom verify on
#     dump_lfts passes the same tables; then, on each, these faults:
#   - one LFT entry of leaf001 (the SM host's switch) set to 255 for a host on
#     another leaf (tests/rig/lftset: infiniband-diags sends no LFT Set):
#     exit 1, every finding names leaf001 and that LID, and the pairs named
#     are those loom verify names on dump_lfts of the same fabric;
#   - a loop between leaf001 and spine001 (each sends the LID to the other):
#     found as a loop, as loom verify finds it;
#   - leaf001's LinearFDBTop lowered below the highest LID in use: named,
#     with its top; smpquery switchinfo shows that top.
#   - before any SM: no LIDs, the routes are "not judged" (exit 1).
# The SM runs once (loomd --once, opensm -o): nothing programs the tables
# back while the faults are judged.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${builddir:-.}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
LFTSET=${LFTSET:-$builddir/tests/rig/lftset}
. "$srcdir/tests/lib/sim.sh"
. "$srcdir/tests/lib/health.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'
topo=$srcdir/tests/topologies/ft2-k8.topo

if [ ! -x "$LFTSET" ]; then
	echo "Bail out! no $LFTSET (run through make check)"
	exit 1
fi

# loom health --only routes against S: output in $tmp/TAG.out, status in $hrc.
health() { health_in S "$1" --only routes; } # TAG

# loom verify on ibnetdiscover + dump_lfts of S: output in $tmp/TAG.verify, status in $vrc.
verify() { # TAG
	sim_run S ibnetdiscover >"$tmp/$1.ibnd" 2>/dev/null
	sim_run S dump_lfts >"$tmp/$1.lfts" 2>/dev/null
	vrc=0
	"$LOOM" verify "$tmp/$1.ibnd" "$tmp/$1.lfts" >"$tmp/$1.verify" 2>&1 || vrc=$?
}

# The pairs a health run names (its details), and those loom verify names, sorted.
health_pairs() { sed -nE 's/^error +routes +"[^"]+" 0x[0-9a-f]{16} port 0: [a-z]+: .*\((".*)\)$/\1/p' "$1" | sort; }
verify_pairs() { grep -E '^ *"[^"]+" port [0-9]+ \(0x[0-9a-f]{16}\) -> ' "$1" | sed -E 's/^ +//' | sort; }

# The bad pairs a health run counts: one finding each, and the "... and N more".
bad_pairs() { # OUT
	local named more
	named=$(grep -cE '^error +routes +"[^"]+" 0x[0-9a-f]{16} port 0: (loop|unreachable|misdelivered): ' "$1")
	more=$(sed -nE 's/.*\.\.\. and ([0-9]+) more bad pairs.*/\1/p' "$1")
	echo $((named + ${more:-0}))
}

# The LID of a CA port whose switch is not SW, from an ibnetdiscover capture.
far_lid() { # CAPTURE SW
	sed -nE 's/^\[1\]\([0-9a-f]+\).*# lid ([0-9]+) lmc [0-9]+ "([^"]+)".*/\1 \2/p' "$1" |
		awk -v sw="$2" '$2 != sw { l = $1 } END { print l }'
}

# leaf001 (0,1) sends LID to its port 5 (spine001), spine001 (0,1,5) sends it back.
loop_set() { # LID BACKPORT
	sim_run S --out "$tmp/set2a.out" "$LFTSET" -D 0,1 "$1" 5 &&
		sim_run S --out "$tmp/set2b.out" "$LFTSET" -D 0,1,5 "$1" "$2"
}

for sm in loomd opensm; do
	tag=ft2-k8-$sm
	if ! sim_start S "$topo"; then
		tap_check "$tag: simulator starts" false
		continue
	fi
	if [ "$sm" = loomd ]; then
		health "$tag.nolid"
		tap_check "$tag, before any SM: no LIDs, routes not judged: exit 1" \
			grep -qE '^error +routes +fabric: routes: not judged: no port has a LID' \
			"$tmp/$tag.nolid.out" || tap_diag "$hrc $(cat "$tmp/$tag.nolid.out")"
		tap_check "$tag: loomd --once brings the fabric up" \
			sim_run S --timeout 300 --out "$tmp/$tag.sm.log" "$LOOMD" --once \
			--state-dir "$tmp/$tag.state"
	else
		tap_check "$tag: opensm -o brings the fabric up" sim_opensm S
	fi
	health "$tag"
	tap_is "$tag: loom health --only routes exits 0, no finding" \
		"$hrc $(grep -cE '^(error|warning) ' "$tmp/$tag.out")" "0 0" ||
		tap_diag "$(head -n 8 "$tmp/$tag.out" "$tmp/$tag.err")"
	verify "$tag"
	tap_is "$tag: loom verify on dump_lfts agrees: exit 0" "$vrc" 0 ||
		tap_diag "$(head -n 8 "$tmp/$tag.verify")"

	# ---- one entry dropped at leaf001 --------------------------------------
	leaf=$(sim_run S smpquery -D nodedesc 0,1 2>/dev/null | sed -nE 's/^Node Description:\.+//p')
	lid=$(far_lid "$tmp/$tag.ibnd" "$leaf")
	tap_check "$tag: lftset: \"$leaf\" drops LID $lid" \
		sim_run S --out "$tmp/set1.out" "$LFTSET" -D 0,1 "$lid" 255
	health "$tag.drop"
	tap_is "$tag, LID $lid dropped: loom health --only routes exits 1" "$hrc" 1 ||
		tap_diag "$(head -n 8 "$tmp/$tag.drop.out" "$tmp/$tag.drop.err")"
	n=$(grep -cE '^error ' "$tmp/$tag.drop.out")
	tap_is "$tag, LID $lid dropped: every finding names \"$leaf\" and LID $lid, unreachable" \
		"$(grep -cE "^error +routes +\"$leaf\" 0x[0-9a-f]{16} port 0: unreachable: LID $lid unreachable.*dropped at switch \"$leaf\".*LFT entry 255" \
			"$tmp/$tag.drop.out") of $n" "$((n > 0 ? n : -1)) of $n" ||
		tap_diag "$(cat "$tmp/$tag.drop.out")"
	verify "$tag.drop"
	tap_is "$tag, LID $lid dropped: loom verify on dump_lfts exits 1" "$vrc" 1
	tap_is "$tag, LID $lid dropped: the same $n pairs as loom verify names" \
		"$(health_pairs "$tmp/$tag.drop.out")" "$(verify_pairs "$tmp/$tag.drop.verify")"
	tap_check "$tag, LID $lid dropped: dump_lfts shows no entry for it at \"$leaf\"" \
		bash -c "! sed -n '/($leaf):\$/,/lids dumped/p' '$tmp/$tag.drop.lfts' | grep -q '^$(printf '0x%04x' "$lid") '"

	# ---- a loop: leaf001 sends LID to spine001, spine001 sends it back ------
	# spine001's port back to leaf001: where it routes the SM host's LID.
	host=$(sim_run S smpquery -D nodedesc 0 2>/dev/null | sed -nE 's/^Node Description:\.+//p')
	sim_run S ibroute -D 0,1,5 >"$tmp/spine.ibroute" 2>/dev/null
	back=$(sed -nE "s/^0x[0-9a-f]{4} 0*([0-9]+) : .*'$host'\)$/\1/p" "$tmp/spine.ibroute")
	tap_check "$tag: lftset: \"$leaf\" sends LID $lid to port 5, spine001 back by port $back" \
		loop_set "$lid" "$back"
	health "$tag.loop"
	tap_is "$tag, loop: loom health exits 1" "$hrc" 1
	tap_check "$tag, loop: a finding names a loop on LID $lid" \
		grep -qE "^error +routes +\"[^\"]+\" 0x[0-9a-f]{16} port 0: loop: LID $lid loop.*comes back to switch" \
		"$tmp/$tag.loop.out" || tap_diag "$(head -n 5 "$tmp/$tag.loop.out")"
	verify "$tag.loop"
	tap_is "$tag, loop: as many pairs as loom verify counts (loops N)" \
		"$(bad_pairs "$tmp/$tag.loop.out")" \
		"$(sed -nE 's/^pairs [0-9]+: .*loops ([0-9]+)$/\1/p' "$tmp/$tag.loop.verify")"

	# ---- LinearFDBTop below the highest LID --------------------------------
	top=$((lid - 1))
	tap_check "$tag: lftset: \"$leaf\" LinearFDBTop $top" \
		sim_run S --out "$tmp/set3.out" "$LFTSET" -D 0,1 -t "$top"
	health "$tag.top"
	tap_check "$tag, top: the finding names \"$leaf\" and its LinearFDBTop" \
		grep -qE "^error +routes +\"$leaf\" 0x[0-9a-f]{16} port 0: lft top: LinearFDBTop $(printf '0x%04x' "$top"), expected >= 0x" \
		"$tmp/$tag.top.out" || tap_diag "$(head -n 5 "$tmp/$tag.top.out")"
	sim_run S smpquery -D switchinfo 0,1 >"$tmp/si.out" 2>/dev/null
	tap_check "$tag, top: smpquery switchinfo agrees: LinearFDBTop $top" \
		grep -qE "^LinearFdbTop:\.+$top\$" "$tmp/si.out" || tap_diag "$(cat "$tmp/si.out")"
	sim_stop S 2>/dev/null
done

tap_done
