#!/bin/bash
# IBA 14.2.5.6 IsSLMappingSupported: a port whose PortInfo:CapabilityMask
# lacks it has no SLtoVLMappingTable (a switch says so on its port 0). Real
# hardware refuses an SL2VL Get or Set there; loomd must send none, reach
# SUBNET UP with no refused request, and its SA must list no such table.
# ibsim's ports all say IsSLMappingSupported, so the rig's capmask shim
# (tests/rig/capmask_shim.c, preloaded into loomd only) clears the bit in
# the PortInfo answers of one node and logs every SL2VL SMP loomd writes,
# with its directed route: the wire, not loomd's counts, is judged.
# single-switch.topo: h1 (the SM) and h2 on sw1's ports 1 and 2.
#   1. h2 (route 0,1,2) without the bit: no SL2VL SMP to it; smpquery reads
#      h2's table as the simulator's reset left it while h1's holds the
#      default map; saquery SL2VL lists h1 and sw1, not h2.
#   2. sw1 (route 0,1) without it on port 0: no SL2VL SMP to sw1; saquery
#      SL2VL lists h1 and h2, not sw1.
#   Control: the shim without a route logs SL2VL SMPs to all three.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
. "$srcdir/tests/lib/sim.sh"
. "$srcdir/tests/lib/sa.sh"
tmp=$(mktemp -d)
sim_trap_exit 'rm -rf "$tmp"'

need_tools ibsim saquery smpquery
need_rig librmpp_shim.so librmpp_tail.so libcapmask_shim.so
topo=$srcdir/tests/topologies/single-switch.topo
spread='| 0| 1| 2| 3| 4| 5| 6| 7| 0| 1| 2| 3| 4| 5| 6| 7|'

# run TAG PATH: loomd on a fresh simulator, the shim clearing
# IsSLMappingSupported on the node at PATH (empty: none); leaves the
# simulator and loomd running (LOOMD_PID), the shim's log in $tmp/TAG.wire.
run() {
	local tag=$1 path=$2
	: >"$tmp/$tag.wire"
	if ! sim_start q "$topo"; then
		tap_check "$tag: simulator starts" false
		return 1
	fi
	SIM_PRELOAD_FRONT=$rig/libcapmask_shim.so CAPMASK_SHIM_PATH=$path CAPMASK_SHIM_CLEAR=40 \
		CAPMASK_SHIM_LOG=$tmp/$tag.wire SIM_RMPP=1 sim_run q --timeout 300 \
		--out "$tmp/$tag.log" "$LOOMD" -v --state-dir "$tmp/$tag.state" &
	LOOMD_PID=$!
	if ! tap_check "$tag: loomd reaches SUBNET UP" log_wait "$tmp/$tag.log" 'SUBNET UP'; then
		tap_diag "$(tail -n 5 "$tmp/$tag.log")"
		return 1
	fi
	tap_diag "$(grep -m1 'sweep 1 ' "$tmp/$tag.log")"
	tap_check "$tag: no request refused or unanswered" \
		test -z "$(grep -E 'not acknowledged|refused|failed' "$tmp/$tag.log")"
}
stop() {
	sim_signal q TERM 2>/dev/null
	wait "$LOOMD_PID"
	sim_stop q
}
# wire TAG PATH: SL2VL SMPs loomd wrote along exactly PATH.
wire() { awk -v p="$2" '$3 == p' "$tmp/$1.wire" | wc -l; }
# The LIDs of h1, h2, sw1 from SMPs the shim does not see (smpquery -D).
lid_of() { sim_run q smpquery portinfo -D "$1" 2>/dev/null | sed -nE 's/^Lid:\.+([0-9]+)/\1/p'; }
# sa_lids TAG: the LIDs saquery SL2VL lists, sorted, one line.
sa_lids() {
	SIM_RMPP=1 sim_run q --timeout 60 saquery -t 20000 SL2VL >"$tmp/$1.sa" 2>/dev/null
	sed -nE 's/^[[:space:]]*LID\.+([0-9]+)/\1/p' "$tmp/$1.sa" | sort -un | tr '\n' ' '
}

if run control ""; then
	tap_check "control: SL2VL SMPs to h1 ($(wire control 0)), sw1 ($(wire control 0,1)), h2 ($(wire control 0,1,2))" \
		test "$(wire control 0)" -gt 0 -a "$(wire control 0,1)" -gt 0 -a "$(wire control 0,1,2)" -gt 0
	stop
fi

if run ca 0,1,2; then
	tap_is "h2 without IsSLMappingSupported: no SL2VL SMP to it" "$(wire ca 0,1,2)" 0
	tap_check "... while h1 ($(wire ca 0)) and sw1 ($(wire ca 0,1)) get theirs" \
		test "$(wire ca 0)" -gt 0 -a "$(wire ca 0,1)" -gt 0
	h1=$(lid_of 0) h2=$(lid_of 0,1,2) sw=$(lid_of 0,1 )
	tap_check "smpquery: h1's table holds the default map" \
		grep -qF -- "$spread" <(sim_run q smpquery sl2vl -D 0 2>/dev/null)
	tap_check "smpquery: h2's table is as the simulator's reset left it, not the default map" \
		test -z "$(sim_run q smpquery sl2vl -D 0,1,2 2>/dev/null | grep -F -- "$spread")"
	tap_is "saquery SL2VL: h1 (LID $h1) and sw1 (LID $sw), not h2 (LID $h2)" "$(sa_lids ca)" \
		"$(printf '%s\n' "$h1" "$sw" | sort -n | tr '\n' ' ')"
	stop
fi

if run sw 0,1; then
	tap_is "sw1 without IsSLMappingSupported on port 0: no SL2VL SMP to it" "$(wire sw 0,1)" 0
	tap_check "... while h1 ($(wire sw 0)) and h2 ($(wire sw 0,1,2)) get theirs" \
		test "$(wire sw 0)" -gt 0 -a "$(wire sw 0,1,2)" -gt 0
	h1=$(lid_of 0) h2=$(lid_of 0,1,2) sw=$(lid_of 0,1)
	tap_is "saquery SL2VL: h1 (LID $h1) and h2 (LID $h2), not sw1 (LID $sw)" "$(sa_lids sw)" \
		"$(printf '%s\n' "$h1" "$h2" | sort -n | tr '\n' ' ')"
	stop
fi
tap_done
