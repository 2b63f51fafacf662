#!/bin/bash
# LIDs the switches cannot hold: before loomd starts, ibsim's Baselid gives a
# host LID 49000 and a switch exactly its LinearFDBCap (smpquery switchinfo;
# ibsim's switches hold LIDs below 30720). loomd --once must move both below
# the cap: smpquery reads their new LIDs, ibnetdiscover finds no LID at or past
# the smallest cap of any switch, the guid2lid file has the new LIDs, the log
# names each move, dump_lfts read back lets every host reach every host LID
# (loom verify), and a restart keeps every LID and changes nothing.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'
. "$srcdir/tests/lib/loomd.sh"

topo=$srcdir/tests/topologies/ft2-k8.topo
# From h00001 (leaf001 port 1): leaf001 port 5 is spine001, its port 2 leaf002,
# whose port 1 is h00005.
leaf=0,1,5,2
host=0,1,5,2,1

field() { # NAME: the value of smpquery's "NAME:....VALUE" line on stdin
	sed -n "s/^$1:\.*//p"
}

if ! sim_start c "$topo"; then
	echo "Bail out! the simulator does not start"
	exit 1
fi
tap_is "smpquery -D nodedesc $leaf is leaf002" \
	"$(sim_run c smpquery -D nodedesc "$leaf" 2>/dev/null | field 'Node Description')" leaf002
tap_is "smpquery -D nodedesc $host is h00005" \
	"$(sim_run c smpquery -D nodedesc "$host" 2>/dev/null | field 'Node Description')" h00005
cap=$(sim_run c smpquery -D switchinfo "$leaf" 2>/dev/null | field LinearFdbCap)
tap_check "smpquery switchinfo: leaf002's LinearFdbCap is ${cap:-?}, below 49000" \
	test "${cap:-0}" -gt 64 -a "${cap:-0}" -lt 49000

sim_console c "Baselid \"h00005\"[1] 49000" "Baselid \"leaf002\"[0] $cap"
tap_is "Baselid: h00005 starts at LID 49000 (smpquery)" \
	"$(sim_run c smpquery -D portinfo "$host" 1 2>/dev/null | field Lid)" 49000
tap_is "Baselid: leaf002 starts at LID $cap (smpquery)" \
	"$(sim_run c smpquery -D portinfo "$leaf" 0 2>/dev/null | field Lid)" "$cap"

rc=0
sim_run c "$LOOMD" --once --state-dir "$tmp/st" >"$tmp/loomd.log" 2>&1 || rc=$?
tap_is "loomd --once reaches SUBNET UP (exit 0)" "$rc" 0 || tap_diag "$(tail -n 5 "$tmp/loomd.log")"
tap_check "the log names h00005's move from 49000" \
	grep -q '"h00005" port 1: LID 0xbf68 (49000) is past what every switch can forward' \
	"$tmp/loomd.log"
tap_check "the log names leaf002's move from $cap" \
	grep -qE "\"leaf002\" port 0: LID 0x[0-9a-f]+ \($cap\) is past" "$tmp/loomd.log"
tap_diag "$(grep -m 2 'is past what' "$tmp/loomd.log")"

hlid=$(sim_run c smpquery -D portinfo "$host" 1 2>/dev/null | field Lid)
slid=$(sim_run c smpquery -D portinfo "$leaf" 0 2>/dev/null | field Lid)
tap_check "smpquery: h00005 moved below the cap (LID ${hlid:-?} < $cap)" \
	test "${hlid:-0}" -gt 0 -a "${hlid:-0}" -lt "$cap"
tap_check "smpquery: leaf002 moved below the cap (LID ${slid:-?} < $cap)" \
	test "${slid:-0}" -gt 0 -a "${slid:-0}" -lt "$cap"
tap_is "smpquery: h00005 is Active" \
	"$(sim_run c smpquery -D portinfo "$host" 1 2>/dev/null | field LinkState)" Active

# Every LID in use against every switch's own cap, read over LID routes.
sim_run c ibnetdiscover 2>/dev/null >"$tmp/ibnd"
sed -nE 's/.*# lid ([0-9]+) lmc.*/\1/p; s/^Switch.* port 0 lid ([0-9]+) lmc.*/\1/p' "$tmp/ibnd" |
	sort -n >"$tmp/lids"
mincap=
for l in $(sed -nE 's/^Switch.* port 0 lid ([0-9]+) lmc.*/\1/p' "$tmp/ibnd"); do
	c=$(sim_run c smpquery -L switchinfo "$l" 2>/dev/null | field LinearFdbCap)
	[ -n "$c" ] && { [ -z "$mincap" ] || [ "$c" -lt "$mincap" ]; } && mincap=$c
done
tap_is "ibnetdiscover: 44 LIDs in use" "$(sort -u "$tmp/lids" | wc -l)" 44
top=$(tail -n 1 "$tmp/lids")
tap_check "ibnetdiscover: every LID is below the smallest switch cap (${mincap:-?}; top $top)" \
	test -n "$mincap" -a "${top:-99999}" -lt "${mincap:-0}"

guid=$(sim_run c smpquery -D nodeinfo "$host" 2>/dev/null | field PortGuid)
tap_is "guid2lid: h00005's port ($guid) is saved at its new LID" \
	"$(awk -v g="$guid" '$1 == g { print $2 }' "$tmp/st/guid2lid")" "$(printf '0x%04x' "${hlid:-0}")"

lfts_check lidcap c

rc=0
sim_run c "$LOOMD" --once --state-dir "$tmp/st" >"$tmp/loomd2.log" 2>&1 || rc=$?
tap_is "restart: loomd --once exits 0" "$rc" 0
tap_check "restart: 0 changes" grep -q 'heavy): .* 0 changes' "$tmp/loomd2.log" ||
	tap_diag "$(grep sweep "$tmp/loomd2.log")"
tap_is "restart: h00005 keeps LID $hlid" \
	"$(sim_run c smpquery -D portinfo "$host" 1 2>/dev/null | field Lid)" "$hlid"
sim_stop c
tap_done
