#!/bin/bash
# The route checker on an SM nobody here wrote: OpenSM routes each fabric in
# ibsim; ibnetdiscover captures the fabric (with the LIDs OpenSM gave) and
# dump_lfts reads back the tables OpenSM programmed. Then:
#  - `loom verify` passes them (every pair arrives, nothing loops);
#  - `loom verify --reprint` prints them back byte for byte as dump_lfts did
#    (the printer `loom route` uses writes dump_lfts's exact format);
#  - dump_lfts, dump_lfts -a and dump_lfts -n normalise to the same text;
#  - one entry edited to send a host's LID back up a switch link makes
#    `loom verify` exit 1 and name that switch and LID.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'

fabrics=(ft2-k8 torus2d-4x4 ft3-k4)

# From a capture: the first switch with a host and a switch neighbour:
# "GUID DESC HOSTPORT HOSTLID SWITCHPORT" (GUID without 0x, 16 digits).
pick_entry() { # CAPTURE
	awk '
	/^Switch/ {
		if (guid != "" && hp != "" && sp != "") exit
		guid = ""; hp = ""; sp = ""
		if (match($0, /"S-[0-9a-f]+"/)) guid = substr($0, RSTART + 3, RLENGTH - 4)
		desc = $0; sub(/^[^#]*# "/, "", desc); sub(/".*/, "", desc)
		next
	}
	/^$/ { if (guid != "" && hp != "" && sp != "") exit; guid = "" }
	guid != "" && /^\[[0-9]+\]/ {
		port = $1; gsub(/[^0-9]/, "", port)
		if (hp == "" && $2 ~ /^"H-/ && match($0, / lid [0-9]+/)) {
			hp = port; hl = substr($0, RSTART + 5, RLENGTH - 5)
		} else if (sp == "" && $2 ~ /^"S-/) {
			sp = port
		}
	}
	END { if (guid != "" && hp != "" && sp != "") print guid, desc, hp, hl, sp }' "$1"
}

# Copy a dump with switch GUID's entry for LID sent out of PORT instead.
break_entry() { # DUMP GUID LID PORT
	awk -v g="guid 0x$2 " -v l="$(printf '0x%04x' "$3")" -v p="$(printf '%03d' "$4")" '
	/^Unicast lids/ { inblk = index($0, g) > 0 }
	inblk && $1 == l { $2 = p; done = 1 }
	{ print }
	END { if (!done) exit 1 }' "$1"
}

i=0
for name in "${fabrics[@]}"; do
	i=$((i + 1))
	topo=$srcdir/tests/topologies/$name.topo
	t=$tmp/$name
	if ! sim_start "f$i" "$topo"; then
		tap_check "$name: simulator starts" false
		continue
	fi
	tap_check "$name: OpenSM brings it up" sim_opensm "f$i"
	sim_run "f$i" ibnetdiscover >"$t.topo" 2>"$t.err"
	tap_is "$name: ibnetdiscover captures it" "$?" 0
	for v in "" -a -n; do
		sim_run "f$i" dump_lfts $v >"$t.lfts$v" 2>>"$t.err" ||
			tap_diag "dump_lfts $v failed: $(tail -n 3 "$t.err")"
	done
	sim_stop "f$i"

	rc=0
	"$LOOM" verify "$t.topo" "$t.lfts" >"$t.out" 2>&1 || rc=$?
	tap_is "$name: loom verify passes OpenSM's tables" "$rc" 0 || tap_diag "$(head -n 30 "$t.out")"
	tap_diag "$(grep -E '^(pairs|hops|routes per link|credit)' "$t.out")"
	rc=0
	"$LOOM" verify --json "$t.topo" "$t.lfts" >"$t.json" 2>&1 || rc=$?
	tap_check "$name: --json says ok" grep -q '"unreachable":0,"loops":0,.*"ok":true' "$t.json"

	from=$(sed -n 's/^# Initiated from node \([0-9a-f]*\) port.*/\1/p' "$t.topo")
	"$LOOM" verify --reprint --from "$from" "$t.topo" "$t.lfts" >"$t.reprint" 2>&1
	# What dump_lfts's wrapper script adds after the tables is not the tables'.
	sed '/^\*\*\* WARNING \*\*\*/,$d' "$t.lfts" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$t.want"
	if diff -u "$t.want" "$t.reprint" >"$t.diff"; then
		tap_check "$name: --reprint gives dump_lfts's text byte for byte" true
	else
		tap_check "$name: --reprint gives dump_lfts's text byte for byte" false
		tap_diag "$(head -n 20 "$t.diff")"
	fi
	"$LOOM" verify --normalize "$t.topo" "$t.lfts" >"$t.n0" 2>&1
	"$LOOM" verify --normalize "$t.topo" "$t.lfts-a" >"$t.n1" 2>&1
	"$LOOM" verify --normalize "$t.topo" "$t.lfts-n" >"$t.n2" 2>&1
	tap_check "$name: dump_lfts, -a and -n normalise alike" \
		bash -c "grep -q '^0x0001 ' '$t.n0' && cmp -s '$t.n0' '$t.n1' && cmp -s '$t.n0' '$t.n2'"

	read -r guid desc hport hlid sport < <(pick_entry "$t.topo") || true
	if [ -z "${sport:-}" ]; then
		tap_check "$name: a switch with a host and a switch link in the capture" false
		continue
	fi
	if ! break_entry "$t.lfts" "$guid" "$hlid" "$sport" >"$t.broken"; then
		tap_check "$name: LID $hlid is in $desc's table" false
		continue
	fi
	rc=0
	"$LOOM" verify "$t.topo" "$t.broken" >"$t.bout" 2>&1 || rc=$?
	tap_is "$name: LID $hlid at \"$desc\" sent to port $sport: exit 1" "$rc" 1
	tap_check "$name: the loop is named with the switch and LID $hlid" \
		bash -c "grep -q 'LID $hlid (0x.*): loops: the route comes back to switch' '$t.bout' && grep -q '\"$desc\"' '$t.bout'"
	tap_check "$name: the result says PROBLEMS" grep -q '^result: PROBLEMS' "$t.bout"
	[ "$rc" -eq 1 ] || tap_diag "$(head -n 20 "$t.bout")"
done

# Files that cannot be checked: exit 2 with FILE:LINE.
t=$tmp/ft2-k8
if [ -f "$t.topo" ]; then
	printf 'Unicast lids [0x0-0x3] of switch guid 0x00000000deadbeef (x):\n0x0001 001\n' \
		>"$t.bad"
	rc=0
	"$LOOM" verify "$t.topo" "$t.bad" >"$t.bad.out" 2>&1 || rc=$?
	tap_is "unknown switch GUID: exit 2" "$rc" 2
	tap_check "unknown switch GUID: FILE:LINE named" grep -q "^$t.bad:1: switch GUID 0x00000000deadbeef is not in the topology" "$t.bad.out"
	rc=0
	"$LOOM" verify "$srcdir/tests/topologies/ft2-k8.topo" "$t.lfts" >"$t.nolid.out" 2>&1 || rc=$?
	tap_is "a topology without LIDs: exit 2" "$rc" 2
fi

tap_done
