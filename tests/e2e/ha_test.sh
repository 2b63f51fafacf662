#!/bin/bash
# HA (IBA 14.4) on a small fat tree, two loomd attached at two hosts:
# priorities 10 and 5 elect the 10 (sminfo, asked of the subnet and of each
# SM); SIGKILL of the master: the standby takes over, no LID changes
# (ibnetdiscover -l), 0 LFT blocks, every host pair still routed (dump_lfts
# read back); the 10 restarted: the 5 hands over (HANDOVER, ACKNOWLEDGE), no
# LID changes, and the logs' line order says the 10 acknowledged before its
# first sweep and the 5 stood by on that ACKNOWLEDGE; equal priorities: the
# lower port GUID is master, in either start order; sm.sticky keeps a master
# by takeover, until loom handover (acknowledged in the same order). Short
# poll intervals; times are reported, never judged.
set -uo pipefail
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
LOOMD=${LOOMD:-loomd}
LOOM=${LOOM:-loom}
. "$srcdir/tests/lib/sim.sh"
. "$srcdir/tests/lib/loomd.sh"
. "$srcdir/tests/lib/ha.sh"
tmp=$(mktemp -d)
sim_trap_exit '[ -n "${KEEP_SIM_DIR:-}" ] && echo "# kept $tmp" || rm -rf "$tmp"'
topo=$srcdir/tests/topologies/ft2-k8.topo
HA=h00001 HB=h00005 HC=h00009 # A, B: the SMs; C: a host that asks
POLL_MS=300

ha_sim "$topo"

# ---- priorities 10 and 5 ---------------------------------------------------------
ha_conf A 10 "$POLL_MS"
ha_conf B 5 "$POLL_MS"
ha_master A "$HA" "A (priority 10) alone: master, SUBNET UP"
ha_standby B "$HB" "B (priority 5): STANDBY, master A found"
sleep 1
sim_run F ibnetdiscover 2>/dev/null >"$tmp/ibnd"
ga=$(ha_guid "$HA") gb=$(ha_guid "$HB") la=$(ha_lid "$HA") lb=$(ha_lid "$HB")
tap_diag "A: port GUID 0x$ga LID $la; B: port GUID 0x$gb LID $lb"
# A reads B's SMInfo again after its light sweeps (1 s apart, later on a
# loaded machine): poll A's status (30 s at most) until it has seen B standby.
for _ in $(seq 60); do
	"$LOOM" status --control "$tmp/A.sock" 2>&1 |
		grep -qE "^other SMs: 0x0*${gb#0*} priority 5 standby$" && break
	sleep 0.5
done
out=$(ha_sminfo)
tap_check "sminfo (the subnet's SM): A, priority 10, MASTER" \
	grep -qE "sm guid 0x0*${ga#0*},.* priority 10 state 3" <<<"$out" || tap_diag "$out"
out=$(ha_sminfo "$lb")
tap_check "sminfo $lb (B): priority 5, STANDBY" grep -qE "priority 5 state 2" <<<"$out" ||
	tap_diag "$out"
# saquery SMIR: "LID....13", then GUID, ..., "Priority....10", "SMState....3" a record.
smir=$(sim_run F --host "$HC" saquery SMIR 2>&1 |
	awk -F'\\.+' '/LID/ { l = $2 } /Priority/ { p = $2 } /SMState/ { print l, p, $2 }' | sort -n)
tap_is "saquery SMIR: A (LID $la) priority 10 MASTER, B (LID $lb) priority 5 STANDBY" \
	"$smir" "$(printf '%s 10 3\n%s 5 2' "$la" "$lb" | sort -n)"
out=$("$LOOM" status --control "$tmp/B.sock" 2>&1)
tap_check "loom status of B: STANDBY, and why" grep -q 'not up: this SM is STANDBY (master SM' <<<"$out" ||
	tap_diag "$out"
tap_check "loom status of B: its master, A, priority 10" \
	grep -qE "^other SMs: 0x0*${ga#0*} priority 10 master$" <<<"$out" || tap_diag "$out"
out=$("$LOOM" status --control "$tmp/A.sock" 2>&1)
tap_check "loom status of A: the standby B, priority 5" \
	grep -qE "^other SMs: 0x0*${gb#0*} priority 5 standby$" <<<"$out" || tap_diag "$out"
tap_check "B sent no Set (a standby programs nothing): no sweep in its log" \
	test "$(grep -c 'sweep [0-9]* (heavy)' "$tmp/B.log")" -eq 0
ha_lids >"$tmp/lids.before"
tap_check "B's state dir has no guid2lid (fresh, never master)" test ! -s "$tmp/B.state/guid2lid"

# ---- SIGKILL the master --------------------------------------------------------------
pa=$(ha_pid A)
tap_check "A's loomd found (pid ${pa:-none})" test -n "$pa"
t0=$(ha_ms)
[ -z "$pa" ] || kill -KILL $pa
log_wait -E "$tmp/B.log" 'STANDBY -> DISCOVERING' 30
t1=$(ha_ms)
log_wait -E "$tmp/B.log" 'SUBNET UP' 30
t2=$(ha_ms)
tap_check "B takes over: STANDBY -> DISCOVERING -> MASTER" \
	grep -q 'DISCOVERING -> MASTER: the master is gone' "$tmp/B.log" ||
	tap_diag "$(tail -n 8 "$tmp/B.log")"
tap_check "... after ${POLL_MS} ms x 3 polls missed (sm.poll-misses)" \
	grep -q 'did not answer 3 polls in a row' "$tmp/B.log"
tap_diag "takeover: SIGKILL -> master declared lost $((t1 - t0)) ms, -> SUBNET UP as master $((t2 - t0)) ms (poll interval ${POLL_MS} ms x 3)"
ha_nothing_changed failover B "$gb"

# ---- the priority 10 comes back: handover ---------------------------------------
ha_loomd A "$HA" A2
# B stands by on A2's ACKNOWLEDGE: wait for that line, not for B's first
# STANDBY line of the test's start, which matched at once.
log_wait -E "$tmp/B.log" 'MASTER -> STANDBY' 30
log_wait -E "$tmp/A2.log" 'SUBNET UP' 30
tap_check "A restarted: finds master B, waits for its HANDOVER" \
	grep -q 'we outrank it: waiting for its HANDOVER' "$tmp/A2.log" || tap_diag "$(tail -n 5 "$tmp/A2.log")"
tap_check "B sends HANDOVER to A" grep -q 'SMInfo Set HANDOVER to SM.*answered' "$tmp/B.log"
ha_took_handover "A takes it: ACKNOWLEDGE to B answered before A's takeover and first sweep" \
	A2 "$gb"
ha_got_ack "B goes STANDBY on A's ACKNOWLEDGE (received first)" B "$ga"
ha_nothing_changed handover A2 "$ga"
out=$(ha_sminfo "$lb")
tap_check "sminfo $lb (B): STANDBY" grep -qE "priority 5 state 2" <<<"$out" || tap_diag "$out"
ha_stop TERM A B

# ---- equal priorities: the lower port GUID ---------------------------------------
if [ "$((16#$ga))" -lt "$((16#$gb))" ]; then low=$HA; else low=$HB; fi
# Ten runs (issue 18: "every time"): the first started alternates between the
# two hosts; in runs 1-5 both start together, in 6-10 the first is master
# already when the second starts.
for run in 1 2 3 4 5 6 7 8 9 10; do
	ha_conf E 7 "$POLL_MS"
	if [ $((run % 2)) -eq 1 ]; then first=$HA second=$HB; else first=$HB second=$HA; fi
	cp "$tmp/E.yaml" "$tmp/E1.yaml"
	cp "$tmp/E.yaml" "$tmp/E2.yaml"
	rm -f "$tmp/E1.log" "$tmp/E2.log"
	ha_loomd E1 "$first"
	[ $run -le 5 ] || log_wait -E "$tmp/E1.log" 'SUBNET UP' 30
	ha_loomd E2 "$second"
	log_wait -E "$tmp/E1.log" 'SUBNET UP|-> STANDBY' 30
	log_wait -E "$tmp/E2.log" 'SUBNET UP|-> STANDBY' 30
	sleep 2 # a light sweep or two: time to hand over if the wrong one won
	# ... or more on a loaded machine, whose sweeps come late (30 s at most).
	want=$(ha_guid "$low")
	for ((i = 0; i < 60; i++)); do
		out=$(ha_sminfo)
		grep -qE "sm guid 0x0*${want#0*},.* state 3" <<<"$out" && break
		sleep 0.5
	done
	tap_check "equal priorities, run $run (first at $first): the lower GUID 0x$want is master" \
		grep -qE "sm guid 0x0*${want#0*},.* state 3" <<<"$out" ||
		tap_diag "$out; E1: $(grep 'SM state' "$tmp/E1.log" | tail -n 2); E2: $(grep 'SM state' "$tmp/E2.log" | tail -n 2)"
	ha_stop TERM E1 E2
	rm -rf "$tmp/E1.state" "$tmp/E2.state"
done

# ---- sm.sticky: a master by takeover keeps the role ---------------------------------
ha_conf S1 10 "$POLL_MS"
ha_conf S2 5 "$POLL_MS"
printf '  sticky: true\n' >>"$tmp/S2.yaml"
ha_loomd S1 "$HA"
log_wait -E "$tmp/S1.log" 'SUBNET UP' 30
ha_loomd S2 "$HB"
log_wait -E "$tmp/S2.log" '-> STANDBY' 30
ha_stop KILL S1
log_wait -E "$tmp/S2.log" 'SUBNET UP' 30
ha_loomd S1 "$HA" S1b
log_wait -E "$tmp/S1b.log" '-> STANDBY' 30
sleep 2 # light sweeps of S2 that see the higher S1: no HANDOVER
out=$(ha_sminfo)
tap_check "sm.sticky: the priority 5 that took over stays master when the 10 returns" \
	grep -qE "sm guid 0x0*${gb#0*},.* state 3" <<<"$out" || tap_diag "$out"
tap_check "... and sends no HANDOVER" test "$(grep -c 'HANDOVER to SM' "$tmp/S2.log")" -eq 0

# ---- loom handover: the sticky master gives the role back ---------------------------
out=$("$LOOM" handover --control "$tmp/S2.sock" 2>&1)
tap_is "loom handover to the sticky master: exit 0" "$?" 0 || tap_diag "$out"
tap_check "... it saw the higher SM and hands over at once" \
	grep -q '^sm.sticky released; 1 SM outranking this one at the last look: sending HANDOVER' \
	<<<"$out" ||
	tap_diag "$out"
log_wait -E "$tmp/S2.log" 'MASTER -> STANDBY' 30
ha_got_ack "the 5 sends HANDOVER, stands by on the 10's ACKNOWLEDGE" S2 "$ga"
log_wait -E "$tmp/S1b.log" 'SUBNET UP' 30 # the 10's first sweep as master
ha_took_handover "the 10 acknowledges before its takeover and first sweep" S1b "$gb"
ha_nothing_changed sticky-handover S1b "$ga"
out=$("$LOOM" handover --control "$tmp/S2.sock" 2>&1)
tap_is "loom handover to the standby: refused, exit 1" "$?" 1
tap_check "... it says it is not master" grep -q 'STANDBY, not master' <<<"$out" || tap_diag "$out"
ha_stop TERM S1 S2
tap_done
