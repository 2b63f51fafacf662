#!/bin/bash
# HA between loomd and OpenSM (IBA 14.4 only, no shared code), both roles:
# OpenSM master (priority 10), loomd standby (5); SIGKILL OpenSM: loomd takes
# over, no LID changes, 0 LFT blocks. OpenSM back at 1: standby under loomd;
# SIGKILL loomd: OpenSM takes over, no LID changes. loomd back at 12: OpenSM
# hands over to it (loomd answers ACKNOWLEDGE), no LID changes. OpenSM polls
# every second here.
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
tap_check "OpenSM hands over to loomd (12): HANDOVER received, ACKNOWLEDGE sent" \
	grep -q 'SMInfo Set ACKNOWLEDGE to SM.*answered' "$tmp/B2.log" ||
	tap_diag "$(grep 'SM' "$tmp/B2.log" | tail -n 5)"
ha_nothing_changed handover-from-opensm B2 "$gb"
out=$(ha_sminfo "$(ha_lid "$HA")")
tap_check "sminfo of OpenSM's port: STANDBY" grep -q 'state 2' <<<"$out" || tap_diag "$out"
# Not tested: loomd handing over to a higher OpenSM. Such an OpenSM sends the
# master trap 144 and waits for its TrapRepress, which ibsim drops ("got trap
# repress - dropping"), so OpenSM's sweep never ends, whoever the master is.
tap_done
