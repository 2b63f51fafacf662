#!/bin/bash
# OptimizedSLtoVLMappingProgramming (IBA 1.2.1 14.2.5.4, 14.2.5.8): a switch
# that announces it in SwitchInfo takes one SL2VL Set for many tables, and
# loomd (fabric/prog_qos.c) then sends one Set for every input port of an
# output port, or one for all of them when every output port needs the same
# table; without it, one Get or Set per (input, output) pair. ibsim lacks
# the capability: the rig's optslvl shim (tests/rig/optslvl_shim.c, proven
# on OpenSM by optslvl_rig_test.sh) gives it to loomd's switches and hands
# ibsim the per-pair Sets. On a 2-level fat tree (k=4: 6 switches of 4 linked
# ports), with a switch-external map of its own (3,2,1,0,...):
#   - per pair (no shim; the capmask shim only logs): the bring-up sends one
#     Set per pair of each switch;
#   - optimized: one Set per switch, modifier 0x30000; smpquery reads the
#     map back from all 96 pairs of linked ports either way;
#   - a second heavy sweep sends nothing (the Set's answer filled the cache);
#   - a restart (a new loomd, tables unknown) sends 6 Sets again and reads
#     none, where per pair it reads every one (96 Gets).
# The SMP counts are the wire's (the shims' logs), printed as diagnostics.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
. "$srcdir/tests/lib/sa.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'

need_tools ibsim smpquery ibnetdiscover
need_rig libcapmask_shim.so liboptslvl_shim.so
topo=$tmp/ft2-k4.topo
"${PYTHON3:-python3}" "$srcdir/contrib/topogen.py" fattree2 -k 4 -o "$topo"
cat >"$tmp/loom.yaml" <<'YAML'
qos:
  switch-external:
    operational-vls: 4
    sl2vl: [3, 2, 1, 0, 3, 2, 1, 0, 3, 2, 1, 0, 3, 2, 1, 0]
YAML
map='| 3| 2| 1| 0| 3| 2| 1| 0| 3| 2| 1| 0| 3| 2| 1| 0|'

# Switch SL2VL SMPs in a wire log (a CA's modifier is 0; loomd sets no table
# out of a base port 0, so a switch's has output port >= 1 or the ALL bits).
sw_smps() { awk -v m="$2" '$1 == "sl2vl" && $2 == m && $5 != "0x00000000"' "$1" | wc -l; }

# readback TAG: every switch table out of a linked port, against the map.
readback() {
	sim_run q ibnetdiscover >"$tmp/$1.ibnd" 2>/dev/null
	sl2vl_switch_read q "$tmp/$1.ibnd" "$map"
	tap_check "$1: smpquery: all $sl2vl_rows switch tables (4 x 4 a switch) hold the map" \
		test "$sl2vl_bad" = 0 -a "$sl2vl_rows" = 96
}

# start TAG SHIM: loomd in the background under SHIM, its wire log $tmp/TAG.wire.
start() {
	: >"$tmp/$1.wire"
	SIM_PRELOAD_FRONT=$rig/$2 CAPMASK_SHIM_LOG=$tmp/$1.wire OPTSLVL_SHIM_LOG=$tmp/$1.wire \
		sim_run q --timeout 300 --out "$tmp/$1.log" "$LOOMD" -v -c "$tmp/loom.yaml" \
		--state-dir "$tmp/$1.state" --control "$tmp/$1.ctl" --sweep-interval 60 &
	LOOMD_PID=$!
	tap_check "$1: loomd reaches SUBNET UP" log_wait "$tmp/$1.log" 'SUBNET UP' ||
		tap_diag "$(tail -n 5 "$tmp/$1.log")"
	tap_diag "$1: $(grep -m1 'sweep 1 ' "$tmp/$1.log")"
}
stop() {
	sim_signal q TERM 2>/dev/null
	wait "$LOOMD_PID"
}

# Per pair.
sim_start q "$topo" || { tap_check "simulator starts" false; tap_done; exit; }
start plain libcapmask_shim.so
plain=$(sw_smps "$tmp/plain.wire" set)
tap_check "plain: one SL2VL Set per pair of linked ports and from port 0 ($plain, 6 x 16)" \
	test "$plain" = 96
readback plain
stop
start plain-restart libcapmask_shim.so
plain_get=$(sw_smps "$tmp/plain-restart.wire" get)
tap_diag "plain restart: $plain_get switch SL2VL Gets, $(sw_smps "$tmp/plain-restart.wire" set) Sets"
stop
sim_stop q

# Optimized.
sim_start q "$topo" || { tap_check "simulator starts" false; tap_done; exit; }
start opt liboptslvl_shim.so
opt=$(sw_smps "$tmp/opt.wire" set)
tap_is "opt: one SL2VL Set per switch, modifier 0x30000, no Get" \
	"$(awk '$1 == "sl2vl" && $5 == "0x00030000"' "$tmp/opt.wire" | wc -l) $opt $(sw_smps "$tmp/opt.wire" get)" \
	"6 6 0"
tap_diag "switch SL2VL SMPs of a bring-up: $plain per pair, $opt optimized"
readback opt
n=$(wc -l <"$tmp/opt.wire")
line=$("$LOOM" sweep --heavy --timeout 120 --control "$tmp/opt.ctl" 2>&1)
tap_diag "$line"
tap_check "opt: a second heavy sweep sends 0 QoS blocks" \
	grep -qE '^sweep [0-9]+ \(heavy\): .* 0 QoS blocks' <<<"$line"
tap_is "opt: ... and no SL2VL SMP" "$(tail -n +"$((n + 1))" "$tmp/opt.wire" | wc -l)" 0
stop
start opt-restart liboptslvl_shim.so
tap_is "opt: a restart sends 6 Sets (one a switch) and no Get (per pair: $plain_get Gets)" \
	"$(sw_smps "$tmp/opt-restart.wire" set) $(sw_smps "$tmp/opt-restart.wire" get)" "6 0"
readback opt-restart
stop
sim_stop q
tap_done
