#!/bin/bash
# A slow master is not a dead one. tests/rig/stucksm -d plays a master SM whose
# SMInfo answers come late: at once for 2 s, then 400 ms after each Get,
# longer than one try of a standby polling every 300 ms (window 800 ms over
# 3 misses: 266 ms a try), though never silent for the window. The standby
# loomd must count those late answers and stay STANDBY (before, three late
# answers in a row were three misses and a false takeover); once it exits,
# the standby must still take over. Times are never judged.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${builddir:-.}
LOOMD=${LOOMD:-loomd}
STUCKSM=${STUCKSM:-$builddir/tests/rig/stucksm}
. "$srcdir/tests/lib/sim.sh"
. "$srcdir/tests/lib/loomd.sh"
. "$srcdir/tests/lib/ha.sh"
tmp=$(mktemp -d)
sim_trap_exit '[ -n "${KEEP_SIM_DIR:-}" ] && echo "# kept $tmp" || rm -rf "$tmp"'
topo=$srcdir/tests/topologies/ft2-k8.topo
HA=h00001 HB=h00005 HC=h00009 # A: the slow master; B: the standby loomd; C: a host that asks
# RUN_S: stucksm's lifetime. LATE late answers take about 6 s after B stands
# by, which itself can take seconds under the sanitizers on a loaded machine:
# 30 s leaves more than 20 s of slack (15 s left about 7). It costs 15 s of
# test time: the takeover check waits for stucksm to exit.
POLL_MS=300 FAST_MS=2000 SLOW_MS=400 RUN_S=30 LATE=8

if [ ! -x "$STUCKSM" ]; then
	echo "Bail out! no $STUCKSM (run through make check)"
	exit 1
fi
if ! sim_start F "$topo"; then
	tap_check "simulator starts" false
	tap_done
	exit
fi

# LIDs and routes first (stucksm programs nothing), by a loomd that then exits.
tap_check "loomd --once brings the fabric up" \
	sim_run F --timeout 120 --host "$HA" --out "$tmp/once.log" "$LOOMD" --once \
	--state-dir "$tmp/once.state"
sim_run F ibnetdiscover 2>/dev/null >"$tmp/ibnd"
ga=$(ha_guid "$HA")
# Its port's GUID (a standby polls an SM by it), priority 15, ActCount moving.
SIM_SET_ISSM=1 sim_run F --timeout $((RUN_S + 60)) --host "$HA" --out "$tmp/slow.log" "$STUCKSM" \
	-g "0x$ga" -p 15 -m -d "$SLOW_MS" -f "$FAST_MS" -t "$RUN_S" &
slow=$!
log_wait -E "$tmp/slow.log" 'ready' 10
tap_check "stucksm -d answers SMInfo as master at $HA (port GUID 0x$ga)" \
	grep -q ready "$tmp/slow.log" || tap_diag "$(cat "$tmp/slow.log")"
ha_conf B 5 "$POLL_MS"
ha_loomd B "$HB"
log_wait -E "$tmp/B.log" '-> STANDBY' 30
tap_check "B (priority 5) stands by for the master (priority 15)" \
	grep -q 'DISCOVERING -> STANDBY: master SM' "$tmp/B.log" || tap_diag "$(tail -n 5 "$tmp/B.log")"
# The slow phase: LATE polls answered late (a few seconds), stucksm still there.
# Polls, not a deadline; more of them than stucksm lives: only a hang guard.
for ((i = 0; i < (RUN_S + 10) * 10; i++)); do
	[ "$(grep -c 'counted as answered' "$tmp/B.log")" -ge "$LATE" ] && break
	grep -q 'STANDBY -> DISCOVERING' "$tmp/B.log" && break
	sleep 0.1
done
late=$(grep -c 'counted as answered' "$tmp/B.log")
alive=no
kill -0 "$slow" 2>/dev/null && alive=yes
tap_check "B's polls see the late answers: $late counted as answered (stucksm running: $alive)" \
	test "$late" -ge "$LATE" || tap_diag "$(grep 'poll of master' "$tmp/B.log" | tail -n 5)"
tap_is "B stays STANDBY while the master answers late: no takeover" \
	"$(grep -c 'STANDBY -> DISCOVERING' "$tmp/B.log")" 0 ||
	tap_diag "$(grep -E 'SM state|poll of master' "$tmp/B.log" | tail -n 8)"
# stucksm exits: a master that answers nothing is lost, late answers or not.
log_wait -E "$tmp/B.log" 'STANDBY -> DISCOVERING' $((RUN_S + 30))
log_wait -E "$tmp/B.log" 'SUBNET UP' 30
tap_check "stucksm gone: B takes over" grep -q 'did not answer 3 polls in a row' "$tmp/B.log" ||
	tap_diag "$(grep -E 'SM state|poll of master' "$tmp/B.log" | tail -n 8)"
tap_check "... and brings the subnet up" grep -q 'SUBNET UP' "$tmp/B.log"
ha_stop TERM B
wait "$slow"
tap_done
