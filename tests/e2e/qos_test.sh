#!/bin/bash
# QoS from loom.yaml, read back with smpquery: the SL-to-VL table of a CA
# port and of every input port to a switch port, the VL arbitration tables,
# OperationalVLs and the head-of-queue lifetime per port class; a restart
# sends no QoS block. (ibsim keeps no VLHighLimit or VLStallCount: loomd
# sets them, sees them dropped, says so once per node and does not retry.)
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'
topo=$srcdir/tests/topologies/ft2-k8.topo

cat >"$tmp/loom.yaml" <<'YAML'
qos:
  ca:
    operational-vls: 4
    sl2vl: [0, 1, 2, 3, 3, 2, 1, 0, 0, 1, 2, 3, 3, 2, 1, 0]
    vlarb-high: [0:255]
    vlarb-low: [0:32, 1:64, 2:96, 3:128]
  switch-external:
    operational-vls: 2
    sl2vl: [1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0]
    vlarb-low: [0:16, 1:200]
    head-of-queue-lifetime: 67ms
    vl-high-limit: 4
    vl-stall-count: 5
YAML
ca_row='| 0| 1| 2| 3| 3| 2| 1| 0| 0| 1| 2| 3| 3| 2| 1| 0|'
sw_row='| 1| 0| 1| 0| 1| 0| 1| 0| 1| 0| 1| 0| 1| 0| 1| 0|'

if ! sim_start q "$topo"; then
	tap_check "simulator starts" false
	tap_done
	exit
fi
rc=0
sim_run q "$LOOMD" --once -c "$tmp/loom.yaml" --state-dir "$tmp/state" >"$tmp/log" 2>&1 || rc=$?
tap_is "loomd --once with a QoS section exits 0" "$rc" 0 || tap_diag "$(tail -n 5 "$tmp/log")"
tap_diag "$(grep sweep "$tmp/log")"
lid_of() { echo $(($(awk -v g="$1" '$1 == g { print $2 }' "$tmp/state/guid2lid"))); }
h1=$(lid_of 0x0002c90400000101)
leaf=$(lid_of 0x0002c90300000005) # leaf001: hosts on ports 1-4, uplinks 5-8

sim_run q smpquery sl2vl "$h1" >"$tmp/ca.sl2vl" 2>/dev/null
tap_is "CA h00001: SL2VL as configured" "$(sed -n 's/^ports: in  0, out  0: //p' "$tmp/ca.sl2vl")" \
	"$ca_row"
sim_run q smpquery vlarb "$h1" >"$tmp/ca.vlarb" 2>/dev/null
tap_is "CA h00001: VLArb low: VLs" "$(sed -n '/^# Low priority/,/^# High priority/{s/^VL *: //p}' "$tmp/ca.vlarb")" \
	"|0x0 |0x1 |0x2 |0x3 |0x0 |0x0 |0x0 |0x0 |"
tap_is "CA h00001: VLArb low: weights" "$(sed -n '/^# Low priority/,/^# High priority/{s/^WEIGHT: //p}' "$tmp/ca.vlarb")" \
	"|0x20|0x40|0x60|0x80|0x0 |0x0 |0x0 |0x0 |"
tap_is "CA h00001: VLArb high: weights" "$(sed -n '/^# High priority/,${s/^WEIGHT: //p}' "$tmp/ca.vlarb")" \
	"|0xFF|0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |"
opvls() { sim_run q smpquery portinfo "$@" 2>/dev/null | sed -n 's/^OperVLs:\.*//p'; }
tap_is "CA h00001: OperationalVLs 4" "$(opvls "$h1")" "VL0-3"
tap_is "leaf001 port 1 (switch-external, facing h00001): OperationalVLs 2" "$(opvls "$leaf" 1)" "VL0-1"
tap_is "leaf001 port 5 (switch-external uplink): OperationalVLs 2" "$(opvls "$leaf" 5)" "VL0-1"
hoq() { sim_run q smpquery portinfo "$@" 2>/dev/null | sed -n 's/^HoqLife:\.*//p'; }
tap_is "leaf001 port 5: HOQLife 14 (67ms: 4.096us x 2^14)" "$(hoq "$leaf" 5)" 14
tap_is "leaf001 port 1: HOQLife 14 too" "$(hoq "$leaf" 1)" 14
tap_is "CA h00001: HOQLife 18 (the default 1s)" "$(hoq "$h1")" 18
tap_check "VLHighLimit and VLStallCount: ibsim drops them, loomd says so" \
	grep -q 'does not keep PortInfo:VLHighLimit' "$tmp/log"
for out in 1 5; do
	sim_run q smpquery sl2vl "$leaf" "$out" >"$tmp/sw.$out" 2>/dev/null
	bad=$(grep -E "^ports: in +[0-9]+, out +$out:" "$tmp/sw.$out" |
		grep -vE "^ports: in +$out," | grep -vcF "$sw_row")
	n=$(grep -cE "^ports: in +[0-9]+, out +$out:" "$tmp/sw.$out")
	tap_check "leaf001 out port $out: every input port's SL2VL as configured ($n rows)" \
		test "$bad" -eq 0 -a "$n" -ge 8 || tap_diag "$(cat "$tmp/sw.$out")"
done
sim_run q smpquery vlarb "$leaf" 5 >"$tmp/sw.vlarb" 2>/dev/null
tap_is "leaf001 port 5: VLArb low weights" "$(sed -n '/^# Low priority/,/^# High priority/{s/^WEIGHT: //p}' "$tmp/sw.vlarb")" \
	"|0x10|0xC8|0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |"

# The dry run shows the same: h00001's SL2VL row as loom route --qos prints it.
"$LOOM" route --config "$tmp/loom.yaml" --qos "$topo" >"$tmp/dry" 2>/dev/null
read_back=$(sed -n 's/^ports: in  0, out  0: //p' "$tmp/ca.sl2vl" | tr -d ' ' | sed 's/^|//; s/|$//; s/|/,/g')
dry=$(sed -nE 's/^CA [^ ]+ "h00001" port 1 \[ca\]: vls 4 sl2vl ([0-9,]+) .*/\1/p' "$tmp/dry")
tap_is "loom route --qos: h00001's SL2VL as read back" "$dry" "$read_back"
tap_check "loom route --qos: leaf001's uplink with its class's settings" \
	grep -q '"leaf001" port 5 \[switch-external\]: vls 2 sl2vl 1,0,1,0,.* vlarb-low 0:16,1:200$' "$tmp/dry"

rc=0
sim_run q "$LOOMD" --once -c "$tmp/loom.yaml" --state-dir "$tmp/state" >"$tmp/log2" 2>&1 || rc=$?
tap_is "restart: exit 0" "$rc" 0
# A restart knows nothing of what ibsim drops: it sets VLHighLimit and
# VLStallCount once more (port Sets, counted as changes), and no table.
tap_check "restart: no table block sent (0 LFT, 0 P_Key, 0 QoS blocks)" \
	grep -q ' changes (0 LFT blocks, 0 P_Key blocks, 0 QoS blocks, 0 MFT blocks)' "$tmp/log2"
tap_diag "$(grep sweep "$tmp/log2")"
tap_done
