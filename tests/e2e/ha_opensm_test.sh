#!/bin/bash
# HA between loomd and OpenSM (IBA 14.4 only, no shared code), both roles:
# OpenSM master (priority 10), loomd standby (5); SIGKILL OpenSM: loomd takes
# over, no LID changes, 0 LFT blocks. OpenSM back at 1: standby under loomd;
# SIGKILL loomd: OpenSM takes over, no LID changes. loomd back at 12: OpenSM
# hands over to it (loomd's log: ACKNOWLEDGE answered before its first sweep as
# master; OpenSM's: nothing refused), no LID changes. OpenSM polls
# every second here. loomd back at 5 (the same state), OpenSM back at 10:
# loomd hands over to it (through the rig's TrapRepress relay), no LID and
# no LFT entry changes, sminfo and saquery SMIR say OpenSM MASTER, loomd
# STANDBY.
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
HA=h00001 HB=h00005 HC=h00009 # A: OpenSM, B: loomd, C: a host that asks
POLL_MS=300

osm() { # NAME PRIORITY: OpenSM as a daemon at host A
	mkdir -p "$tmp/$1.dump"
	sim_run F --timeout 300 --host "$HA" --out "$tmp/$1.out" opensm -d2 -F "$tmp/osm.conf" \
		-f "$tmp/$1.log" --dump_files_dir "$tmp/$1.dump" -p "$2" &
}

ha_sim "$topo"
cp "$(sim_dir F)/opensm.conf" "$tmp/osm.conf"
printf 'sminfo_polling_timeout 1000\npolling_retry_number 2\nsweep_interval 1\n' >>"$tmp/osm.conf"

# ---- OpenSM master, loomd standby -----------------------------------------
osm O1 10
log_wait -E "$tmp/O1.log" 'SUBNET UP' 60
tap_check "OpenSM (priority 10): SUBNET UP" grep -q 'SUBNET UP' "$tmp/O1.log"
ha_conf B 5 "$POLL_MS"
ha_standby B "$HB" "loomd (priority 5): STANDBY under OpenSM"
sleep 3 # OpenSM's sweeps: a live OpenSM's ActCount must keep loomd standing by
sim_run F ibnetdiscover 2>/dev/null >"$tmp/ibnd"
ga=$(ha_guid "$HA") gb=$(ha_guid "$HB")
out=$(ha_sminfo)
tap_check "sminfo: OpenSM is master" grep -qE "sm guid 0x0*${ga#0*},.* priority 10 state 3" <<<"$out" ||
	tap_diag "$out"
tap_check "loomd stayed standby while OpenSM lived" test "$(grep -c 'STANDBY -> ' "$tmp/B.log")" -eq 0 ||
	tap_diag "$(grep 'SM state' "$tmp/B.log")"
ha_lids >"$tmp/lids.before"

# ---- SIGKILL OpenSM: loomd takes over ------------------------------------------
t0=$(ha_ms)
ha_stop KILL O1
log_wait -E "$tmp/B.log" 'SUBNET UP' 30
tap_diag "loomd took over from OpenSM in $(($(ha_ms) - t0)) ms (poll ${POLL_MS} ms x 3)"
tap_check "loomd takes over from the dead OpenSM" grep -q 'DISCOVERING -> MASTER: the master is gone' "$tmp/B.log"
ha_nothing_changed takeover-from-opensm B "$gb"

# ---- OpenSM back at 1, standby under loomd; SIGKILL loomd: OpenSM takes over ----------
osm O2 1
log_wait -E "$tmp/O2.log" 'Entering STANDBY' 30
sleep 2
out=$(ha_sminfo "$(ha_lid "$HA")")
tap_check "OpenSM (priority 1) stands by under loomd (sminfo of its port)" \
	grep -q 'priority 1 state 2' <<<"$out" || tap_diag "$out"
tap_check "loomd stays master" grep -qE "sm guid 0x0*${gb#0*},.* state 3" <<<"$(ha_sminfo)"
ha_stop KILL B
log_wait -E "$tmp/O2.log" 'Entering MASTER' 30
log_wait -E "$tmp/O2.log" 'SUBNET UP' 30
sleep 1
ha_nothing_changed takeover-by-opensm "" "$ga"

# ---- loomd back at 12: OpenSM hands over to it -----------------------------------
ha_conf B 12 "$POLL_MS"
ha_loomd B "$HB" B2
log_wait -E "$tmp/B2.log" 'SUBNET UP' 60
ha_took_handover \
	"OpenSM hands over to loomd (12): ACKNOWLEDGE answered before the takeover and first sweep" \
	B2 "$ga"
# OpenSM logs an ACKNOWLEDGE it takes only at DEBUG (-D 0x08: "Received signal
# OSM_SM_SIGNAL_ACKNOWLEDGE in state STANDBY", megabytes a second here); one
# it refuses at ERROR: ERR 2F04 (not from a STANDBY), 2F07 or 3207 (not in
# this state), and its answer then has status 7, not the 0 loomd logged as
# "answered".
tap_check "OpenSM refused no SMInfo Set (no ERR 2F04, 2F07 or 3207 in its log)" \
	test "$(grep -cE 'ERR (2F0[4-8]|2F10|3207)' "$tmp/O2.log")" -eq 0 ||
	tap_diag "$(grep -E 'ERR (2F0[4-8]|2F10|3207)' "$tmp/O2.log" | head -n 3)"
ha_nothing_changed handover-from-opensm B2 "$gb"
out=$(ha_sminfo "$(ha_lid "$HA")")
tap_check "sminfo of OpenSM's port: STANDBY" grep -q 'state 2' <<<"$out" || tap_diag "$out"

# ---- loomd 5 master, OpenSM 10 comes back: loomd hands over to it -----------------
# OpenSM stands by under the lower master, sends it trap 144 at each poll and
# waits for the TrapRepress, which ibsim drops ("got trap repress - dropping"):
# its first sweep as master would never end. The rig's relay (sim.sh
# SIM_REPRESS=1, tests/rig/README) carries loomd's TrapRepress to it.
ha_stop TERM O2 B # B2 runs as B (its yaml, state and socket)
ha_conf B 5 "$POLL_MS"
SIM_REPRESS=1 ha_loomd B "$HB" B3
log_wait -E "$tmp/B3.log" 'SUBNET UP' 60
tap_check "loomd (5) alone: MASTER" grep -q 'DISCOVERING -> MASTER' "$tmp/B3.log" ||
	tap_diag "$(grep 'SM state' "$tmp/B3.log")"
sim_run F dump_lfts 2>/dev/null >"$tmp/lfts.loomd5"
SIM_REPRESS=1 osm O3 10
log_wait -E "$tmp/O3.log" 'Entering MASTER' 60
log_wait -E "$tmp/B3.log" 'MASTER -> STANDBY' 30
for ((i = 0; i < 600; i++)); do # OpenSM's sweep as master ends (60 s at most)
	sed -n '/Entering MASTER/,$p' "$tmp/O3.log" | grep -q 'SUBNET UP' && break
	sleep 0.1
done
tap_check "OpenSM (10) found loomd master and stood by first" \
	grep -q 'Entering STANDBY' "$tmp/O3.log"
tap_check "loomd sends HANDOVER to OpenSM, standing by" \
	grep -qE "SM 0x0*${ga#0*} \(priority 10, STANDBY\) outranks us: sending it HANDOVER" "$tmp/B3.log" ||
	tap_diag "$(grep 'SM' "$tmp/B3.log" | tail -n 5)"
tap_check "loomd goes STANDBY" grep -q 'SM state MASTER -> STANDBY' "$tmp/B3.log"
tap_check "OpenSM, master, ends its sweep: SUBNET UP" \
	test "$(sed -n '/Entering MASTER/,$p' "$tmp/O3.log" | grep -c 'SUBNET UP')" -gt 0 ||
	tap_diag "$(tail -n 3 "$tmp/O3.log")"
tap_check "the rig carried loomd's TrapRepress to OpenSM" \
	grep -q 'TrapRepress TID .* delivered' "$(sim_repress_log F)" ||
	tap_diag "$(tail -n 4 "$(sim_repress_log F)" 2>/dev/null)"
ha_nothing_changed handover-to-opensm "" "$ga"
# OpenSM (minhop) keeps the entries a standby saw the master program when they
# are minimal, and loomd's ftree routes are: no entry changes.
sim_run F dump_lfts 2>/dev/null >"$tmp/lfts.osm10"
tap_check "handover-to-opensm: dump_lfts before and after: 0 LFT entries change" \
	diff -q "$tmp/lfts.loomd5" "$tmp/lfts.osm10" ||
	tap_diag "$(diff "$tmp/lfts.loomd5" "$tmp/lfts.osm10" | grep -c '^>') of" \
		"$(grep -c . "$tmp/lfts.osm10") dump_lfts lines changed"
out=$(ha_sminfo "$(ha_lid "$HB")")
tap_check "sminfo of loomd's port: priority 5, STANDBY" grep -q 'priority 5 state 2' <<<"$out" ||
	tap_diag "$out"
smir=$(sim_run F --host "$HC" saquery SMIR 2>/dev/null |
	sed -nE 's/^[[:space:]]*(GUID|Priority|SMState)\.+(0x)?0*([0-9a-f]+)$/\3/p' | paste -sd' ')
tap_check "saquery SMIR: OpenSM priority 10 MASTER, loomd priority 5 STANDBY" \
	grep -qE "(^| )${ga#0*} 10 3( |$)" <<<"$smir" ||
	tap_diag "SMIR (GUID priority state): $smir"
tap_check "saquery SMIR: loomd priority 5 STANDBY" grep -qE "(^| )${gb#0*} 5 2( |$)" <<<"$smir"
# Each OpenSM polled loomd's SMInfo: the GUID there is loomd's port's from
# its start (before its first discovery it was 0: OpenSM's ERR 2F19).
tap_check "OpenSM saw loomd's port GUID in every SMInfo it got (no ERR 2F19)" \
	test "$(cat "$tmp"/O*.log | grep -c 'ERR 2F19')" -eq 0 ||
	tap_diag "$(cat "$tmp"/O*.log | grep 'ERR 2F19' | head -n 2)"
tap_done
