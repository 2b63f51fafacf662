#!/bin/bash
# The rig's OptimizedSLtoVLMappingProgramming (tests/rig/optslvl_shim.c)
# proven on OpenSM, which uses the capability when a switch announces it
# (use_optimized_slvl): on a 2-level fat tree (k=4), OpenSM with QoS and a
# map of its own (qos_sl2vl) programs the switches
#   - without the shim: one SL2VL Set per (input, output) pair;
#   - with it: one Set per switch, AttributeModifier 0x30000 (every input,
#     every output port), which the shim hands ibsim as per-pair Sets;
# and in both cases smpquery reads the map back out of every linked switch
# port from every other port. The SL2VL SMPs OpenSM wrote are counted on
# the wire (the capmask shim's log, without a route: it only logs).
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$srcdir/tests/lib/sim.sh"
. "$srcdir/tests/lib/sa.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'

need_tools ibsim opensm smpquery ibnetdiscover
need_rig libcapmask_shim.so liboptslvl_shim.so
topo=$tmp/ft2-k4.topo
"${PYTHON3:-python3}" "$srcdir/contrib/topogen.py" fattree2 -k 4 -o "$topo"
map='| 3| 2| 1| 0| 3| 2| 1| 0| 3| 2| 1| 0| 3| 2| 1| 0|'

# run MODE SHIM: OpenSM once under SHIM; the SL2VL SMPs it wrote in $tmp/MODE.wire.
run() {
	local mode=$1 shim=$2 dir
	: >"$tmp/$mode.wire"
	if ! sim_start q "$topo"; then
		tap_check "$mode: simulator starts" false
		return
	fi
	dir=$(sim_dir q)
	printf 'qos TRUE\nuse_optimized_slvl TRUE\nqos_sl2vl 3,2,1,0,3,2,1,0,3,2,1,0,3,2,1,0\n' \
		>"$dir/opensm.conf"
	# Each shim reads its own log variable only.
	SIM_PRELOAD_FRONT=$rig/$shim CAPMASK_SHIM_LOG=$tmp/$mode.wire \
		OPTSLVL_SHIM_LOG=$tmp/$mode.wire \
		tap_check "$mode: OpenSM reaches SUBNET UP" sim_opensm q --timeout 120
	sim_run q ibnetdiscover >"$tmp/$mode.ibnd" 2>/dev/null
	sl2vl_switch_read q "$tmp/$mode.ibnd" "$map"
	# 6 switches of 4 linked ports: 4 x 4 pairs of linked ports, input != output, each.
	tap_check "$mode: smpquery: all $sl2vl_rows switch tables hold OpenSM's qos_sl2vl" \
		test "$sl2vl_bad" = 0 -a "$sl2vl_rows" -ge 96
	sim_stop q
}
# Switch SL2VL Sets in a wire log: modifier not 0 (a CA's is 0; OpenSM sets
# no table out of a base port 0, so a switch's pair has output port >= 1).
sw_sets() { awk '$1 == "sl2vl" && $2 == "set" && $5 != "0x00000000"' "$tmp/$1.wire" | wc -l; }

run plain libcapmask_shim.so
run opt liboptslvl_shim.so
plain=$(sw_sets plain) opt=$(sw_sets opt)
tap_diag "SL2VL Sets to switches: $plain per pair, $opt optimized"
tap_check "without the capability: one Set per pair ($plain, at least 96)" test "$plain" -ge 96
tap_is "with it: one Set per switch, modifier 0x30000 (6 switches)" \
	"$(awk '$1 == "sl2vl" && $2 == "set" && $5 == "0x00030000"' "$tmp/opt.wire" | wc -l) $opt" "6 6"
tap_done
