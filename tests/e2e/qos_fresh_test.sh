#!/bin/bash
# A fresh fabric's QoS tables are set without being read first
# (fabric/prog_qos.c, prog_fresh_nodes() in fabric/prog_cache.c): a node
# whose ports no SM has configured (Init, LID 0) holds whatever a reset left
# in its SL-to-VL and VL arbitration tables, so loomd sends its blocks
# unread. On a 2-level fat tree (k=4) without a loom.yaml:
#   - the bring-up sets every block (one SL2VL per switch input/output pair
#     of linked ports, port 0 as input only: ibsim's switches have a base
#     port 0, IBA 14.2.5.8; one per CA port; VLArb low and high of each
#     linked port) and reads none: the log says so, and the QoS phase costs
#     fewer SMPs than a read and a Set per block;
#   - smpquery reads the default classes' tables back off every port;
#   - a restart (ports Active, LIDs set) reads instead and sends 0 QoS blocks;
#   - a host reset by the simulator (Clear: LID 0, port down; then ReLink)
#     is the only node set unread on the next restart: its 3 blocks.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'

topo=$tmp/ft2-k4.topo
"${PYTHON3:-python3}" "$srcdir/contrib/topogen.py" fattree2 -k 4 -o "$topo"

# The blocks a full programming sends: a switch with L linked ports has
# L * L SL2VL pairs (outputs: the L linked ports, base port 0 has no table;
# inputs: the other linked ports and port 0) and 2 VLArb
# blocks a linked port; a CA port one SL2VL and 2 VLArb blocks.
want=$(awk -F'\t' 'NR == FNR { sw[$2] = $1 == "Switch"; next }
	{ l[$1]++ }
	END { for (n in l) t += sw[n] ? l[n] * l[n] + 2 * l[n] : 3 * l[n]; print t }' \
	<(sim_topo_nodes "$topo") <(sim_topo_links "$topo"))
nodes=$(sim_topo_nodes "$topo" | wc -l)

if ! sim_start q "$topo"; then
	tap_check "simulator starts" false
	tap_done
	exit
fi

once() { # LOG
	local rc=0
	sim_run q --timeout 300 "$LOOMD" --once -v --state-dir "$tmp/state" >"$1" 2>&1 || rc=$?
	tap_is "loomd --once exits 0 ($(basename "$1"))" "$rc" 0 || tap_diag "$(tail -n 5 "$1")"
	tap_diag "$(grep -E '^loomd: (sweep|debug: heavy sweep|QoS tables)' "$1")"
}
# From a log: the QoS blocks the sweep line counts, the QoS phase's SMPs.
qos_blocks() { sed -nE 's/^loomd: sweep 1 .* ([0-9]+) QoS blocks.*/\1/p' "$1"; }
qos_smps() { sed -nE 's/^loomd: debug: heavy sweep: .*, QoS [0-9]+ ms \(([0-9]+) SMPs\).*/\1/p' "$1"; }

once "$tmp/log1"
tap_is "bring-up: every QoS block set ($want)" "$(qos_blocks "$tmp/log1")" "$want"
tap_check "bring-up: all $want set without a read, on every node ($nodes)" \
	grep -q "^loomd: QoS tables: $want blocks set without a read on $nodes nodes" "$tmp/log1"
# A read and a Set per block was 2 x $want SMPs; without the reads, $want
# (a retry or two on a loaded machine stays far below).
smps=$(qos_smps "$tmp/log1")
tap_check "bring-up: the QoS phase sends fewer SMPs than a read and a Set per block ($smps < 2 x $want)" \
	test -n "$smps" -a "${smps:-0}" -ge "$want" -a "${smps:-0}" -lt $((2 * want))

# Read back: the default classes, SL n -> VL n % 8 out of every linked port
# (ibsim runs VL0-7), from every other port and port 0; VLArb low VL n weight
# 64 for n < 8, high all 0. Out of port 0 nothing is set: whatever ibsim
# answers there is not looked at.
sim_run q ibnetdiscover >"$tmp/ibnd" 2>/dev/null
spread='| 0| 1| 2| 3| 4| 5| 6| 7| 0| 1| 2| 3| 4| 5| 6| 7|'
low_vl='|0x0 |0x1 |0x2 |0x3 |0x4 |0x5 |0x6 |0x7 |'
low_w='|0x40|0x40|0x40|0x40|0x40|0x40|0x40|0x40|'
high_w='|0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |'
bad=0 rows=0 arbs=0
# check_vlarb WHERE ARGS...: smpquery vlarb ARGS against the default lists.
check_vlarb() {
	local where=$1 out
	shift
	out=$(sim_run q smpquery vlarb "$@" 2>/dev/null)
	arbs=$((arbs + 1))
	if [ "$(sed -n '/^# Low/,/^# High/{s/^VL *: //p}' <<<"$out")" != "$low_vl" ] ||
		[ "$(sed -n '/^# Low/,/^# High/{s/^WEIGHT: //p}' <<<"$out")" != "$low_w" ] ||
		[ "$(sed -n '/^# High/,${s/^WEIGHT: //p}' <<<"$out")" != "$high_w" ]; then
		bad=$((bad + 1))
		tap_diag "$where: VLArb: $(tr '\n' ' ' <<<"$out")"
	fi
}
while read -r lid n; do
	for out in $(seq 1 "$n"); do
		row=$spread
		got=$(sim_run q smpquery sl2vl "$lid" "$out" 2>/dev/null |
			grep -E "^ports: in +[0-9]+, out +$out:" | grep -vE "^ports: in +$out,")
		rows=$((rows + $(grep -c . <<<"$got")))
		if [ "$(grep -c . <<<"$got")" -ne "$n" ] || grep -vqF -- "$row" <<<"$got"; then
			bad=$((bad + 1))
			tap_diag "switch LID $lid out $out: $got"
		fi
		check_vlarb "switch LID $lid port $out" "$lid" "$out"
	done
done < <(sed -nE 's/^Switch[[:space:]]+([0-9]+) .* lid ([0-9]+) lmc.*/\2 \1/p' "$tmp/ibnd")
while read -r lid; do
	got=$(sim_run q smpquery sl2vl "$lid" 2>/dev/null | grep -E '^ports: in +0, out +0:')
	rows=$((rows + 1))
	grep -qF -- "$spread" <<<"$got" || { bad=$((bad + 1)); tap_diag "CA LID $lid: $got"; }
	check_vlarb "CA LID $lid" "$lid"
done < <(sed -nE 's/^\[1\]\([0-9a-f]+\).*# lid ([0-9]+) lmc.*/\1/p' "$tmp/ibnd")
tap_is "smpquery: every SL2VL table ($rows) and VLArb port ($arbs) holds the default classes'" \
	"$bad" 0
tap_is "smpquery: as many tables as blocks were set" "$((rows + 2 * arbs))" "$want"

# A restart on the programmed fabric: every node configured, every block read, none sent.
once "$tmp/log2"
tap_is "restart: 0 QoS blocks sent" "$(qos_blocks "$tmp/log2")" 0
tap_check "restart: no block set unread" test -z "$(grep 'set without a read' "$tmp/log2")"
smps=$(qos_smps "$tmp/log2")
tap_check "restart: the QoS phase reads every block ($smps SMPs for $want blocks)" \
	test -n "$smps" -a "${smps:-0}" -ge "$want"

# A host reset (ibsim's Clear: its port Down at LID 0), its link back up:
# the next restart sets its 3 blocks unread and reads everyone else's.
host=$(sim_topo_nodes "$topo" | awk -F'\t' '$1 == "Ca" { print $2; exit }')
sim_console q "Clear \"$host\"[1]" && sim_console q "ReLink \"$host\"[1]"
once "$tmp/log3"
tap_is "after a reset of $host: its 3 blocks sent" "$(qos_blocks "$tmp/log3")" 3
tap_check "... set without a read, on that one node" \
	grep -q '^loomd: QoS tables: 3 blocks set without a read on 1 node ' "$tmp/log3"
tap_done
