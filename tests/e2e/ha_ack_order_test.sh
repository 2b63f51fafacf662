#!/bin/bash
# IBA 14.4: an SM that gets a HANDOVER answers it, sends the old master
# ACKNOWLEDGE, and only then works as master. The race that broke it: a
# HANDOVER that reaches a standby loomd while one of its own transactions
# waits (its poll of the master), where its agent takes the Set; loomd went
# on from that poll straight to its first sweep and sent the ACKNOWLEDGE
# (and installed the takeover) only after it. tests/rig/stucksm -H plays a
# master (priority 1) that hands over exactly then: once told (-w), it
# answers the standby's next poll 100 ms late and sends its HANDOVER first.
# loomd (priority 5) must acknowledge (stucksm prints the ACKNOWLEDGE: from
# loomd's port, state STANDBY) before its takeover and first sweep (line
# order in its log); then sminfo names it master. ROUNDS rounds, one
# simulator. Times are never judged.
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
HA=h00001 HB=h00005 HC=h00009 # A: stucksm, the master; B: the standby loomd; C: a host that asks
POLL_MS=300 ROUNDS=${ROUNDS:-3}

if [ ! -x "$STUCKSM" ]; then
	echo "Bail out! no $STUCKSM (run through make check)"
	exit 1
fi
ha_sim "$topo"
# LIDs and routes first (stucksm programs nothing, and sends its HANDOVER by
# LID), by a loomd that then exits; B keeps its state dir, so its LID stays.
tap_check "loomd --once brings the fabric up" \
	sim_run F --timeout 120 --host "$HB" --out "$tmp/once.log" "$LOOMD" --once \
	--state-dir "$tmp/B.state"
sim_run F ibnetdiscover 2>/dev/null >"$tmp/ibnd"
ga=$(ha_guid "$HA") gb=$(ha_guid "$HB") lb=$(ha_lid "$HB")
tap_diag "stucksm at $HA: port GUID 0x$ga; loomd at $HB: port GUID 0x$gb, LID $lb"
ha_conf B 5 "$POLL_MS"
for ((r = 1; r <= ROUNDS; r++)); do
	SIM_SET_ISSM=1 sim_run F --timeout 90 --host "$HA" --out "$tmp/sm$r.out" "$STUCKSM" \
		-g "0x$ga" -p 1 -m -H "$lb" -w "$tmp/arm.$r" -t 60 &
	sm=$!
	log_wait -E "$tmp/sm$r.out" 'ready' 10
	ha_loomd B "$HB" "B$r"
	# Standing by, its one comparison made: from now on each turn is a poll.
	log_wait -E "$tmp/B$r.log" 'SM: standby: ' 30
	tap_check "round $r: loomd (5) stands by for stucksm (1), waiting for its HANDOVER" \
		grep -q 'we outrank it: waiting for its HANDOVER' "$tmp/B$r.log" ||
		tap_diag "$(tail -n 5 "$tmp/B$r.log")"
	touch "$tmp/arm.$r"
	log_wait -E "$tmp/sm$r.out" 'acknowledge from' 30
	log_wait -E "$tmp/B$r.log" 'SUBNET UP' 60
	tap_check "round $r: stucksm sent HANDOVER to LID $lb during a poll, answered with status 0" \
		grep -q '^handover answered, status 0$' "$tmp/sm$r.out" || tap_diag "$(cat "$tmp/sm$r.out")"
	tap_check "round $r: stucksm got ACKNOWLEDGE from loomd's port 0x$gb, showing STANDBY" \
		grep -qE "^acknowledge from 0x0*${gb#0*} state 2$" "$tmp/sm$r.out" ||
		tap_diag "$(cat "$tmp/sm$r.out")"
	ha_took_handover "round $r: loomd acknowledged before its takeover and first sweep" \
		"B$r" "$ga"
	out=$(ha_sminfo)
	tap_check "round $r: sminfo names loomd (0x$gb) master" \
		grep -qE "sm guid 0x0*${gb#0*},.* state 3" <<<"$out" || tap_diag "$out"
	ha_stop TERM B arm
	wait "$sm"
done
tap_done
